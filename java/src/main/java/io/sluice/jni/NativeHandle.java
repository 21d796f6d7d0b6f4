package io.sluice.jni;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Owner of one native object (a Rust {@code Box} whose address is a
 * {@code long}). {@link #close()} frees it deterministically, exactly once;
 * a {@link Cleaner} frees it if the handle becomes unreachable unclosed.
 *
 * <p>Not thread-safe for concurrent calls on one handle (a Flink operator
 * instance is single-threaded); {@code close()} itself may race safely.
 */
public abstract class NativeHandle implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Shared with the cleaning action, which must not reference the handle. */
    private static final class State implements Runnable {
        final AtomicLong address;
        final LongConsumer free;

        State(long address, LongConsumer free) {
            this.address = new AtomicLong(address);
            this.free = free;
        }

        @Override
        public void run() {
            long a = address.getAndSet(0);
            if (a != 0) {
                free.accept(a);
            }
        }
    }

    private final State state;
    private final Cleaner.Cleanable cleanable;

    /**
     * @param address the native object's address (non-zero)
     * @param free the native free function; called at most once
     */
    protected NativeHandle(long address, LongConsumer free) {
        if (address == 0) {
            throw new SluiceException(1, "native constructor returned a NULL handle");
        }
        this.state = new State(address, free);
        this.cleanable = CLEANER.register(this, state);
    }

    /**
     * @return the live address, for a native call
     * @throws IllegalStateException after {@link #close()}
     */
    protected final long address() {
        long a = state.address.get();
        if (a == 0) {
            throw new IllegalStateException(getClass().getSimpleName() + " is closed");
        }
        return a;
    }

    /** @return whether {@link #close()} has run */
    public final boolean isClosed() {
        return state.address.get() == 0;
    }

    /** Frees the native object; later calls do nothing. */
    @Override
    public final void close() {
        cleanable.clean();
    }
}
