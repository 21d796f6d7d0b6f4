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

    /** Handles freed by the cleaner because nobody closed them. */
    private static final AtomicLong FREED_UNCLOSED = new AtomicLong();

    /** Shared with the cleaning action, which must not reference the handle. */
    private static final class State implements Runnable {
        final AtomicLong address;
        final LongConsumer free;
        /** Set by {@link #close()} before it runs the action; unset when the cleaner runs it. */
        volatile boolean closed;

        State(long address, LongConsumer free) {
            this.address = new AtomicLong(address);
            this.free = free;
        }

        @Override
        public void run() {
            long a = address.getAndSet(0);
            if (a != 0) {
                if (!closed) {
                    FREED_UNCLOSED.incrementAndGet();
                }
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
        state.closed = true;
        cleanable.clean();
    }

    /**
     * Handles this process freed only because they became unreachable without {@link #close()}:
     * each one is an owner (an operator, a test) that forgot to close it. Tests use it, with
     * {@link SluiceNative#liveHandles()}, to prove that every handle is freed by its owner.
     *
     * @return the count of handles the cleaner freed
     */
    public static long freedUnclosed() {
        return FREED_UNCLOSED.get();
    }
}
