package io.sluice.jni;

import java.util.function.LongConsumer;

/**
 * A native object with keyed state filed per Flink key group (a keyed operator, the join): the
 * state calls every such class offers, over that class's own native methods (ffi/src/jni/blobs.rs
 * {@code key_group_entries!} writes them for each).
 */
public abstract class KeyedStateHandle extends NativeHandle {
    /** {@code static native byte[][] snapshotKeyGroups(long handle, int first, int last)} of a class. */
    @FunctionalInterface
    protected interface Snapshot {
        byte[][] call(long handle, int first, int last);
    }

    /** {@code static native void restore(long handle, int first, int last, byte[][] blobs)} of a class. */
    @FunctionalInterface
    protected interface Restore {
        void call(long handle, int first, int last, byte[][] blobs);
    }

    /** {@code static native long retainedBytes(long handle)} of a class. */
    @FunctionalInterface
    protected interface RetainedBytes {
        long call(long handle);
    }

    /** A class's native state calls. */
    protected record StateCalls(Snapshot snapshot, Restore restore, RetainedBytes retainedBytes) {}

    private final StateCalls calls;

    /**
     * @param address the native object's address (non-zero)
     * @param free the class's native free function
     * @param calls the class's native state calls
     */
    protected KeyedStateHandle(long address, LongConsumer free, StateCalls calls) {
        super(address, free);
        this.calls = calls;
    }

    /**
     * @param first first key group
     * @param last last key group (inclusive)
     * @return one blob per key group of the range ({@code byte[0]}: no state)
     */
    public final byte[][] snapshotKeyGroups(int first, int last) {
        return calls.snapshot().call(address(), first, last);
    }

    /**
     * Adds the state of the blobs whose key group lies in the range.
     *
     * @param first first key group of this subtask
     * @param last last key group (inclusive)
     * @param blobs blobs from {@link #snapshotKeyGroups} of any subtask
     */
    public final void restore(int first, int last, byte[][] blobs) {
        calls.restore().call(address(), first, last, blobs);
    }

    /** @return retained native state bytes (what {@code budget=} bounds) */
    public final long retainedBytes() {
        return calls.retainedBytes().call(address());
    }
}
