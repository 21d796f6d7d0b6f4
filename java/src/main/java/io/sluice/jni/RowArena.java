package io.sluice.jni;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

/**
 * One reusable {@code byte[]} that a batch's rows are gathered into, so a
 * {@link RowBatch} hands native code one array to pin instead of one per row
 * (a JNI pin per row cost far more than the copy: java/README.md). Each row
 * is copied once; after the native call, {@link #reset()} reuses the array.
 *
 * <p>The rows gathered do not reference their source: Flink object reuse is
 * safe. When the array is full a larger one replaces it; rows gathered before
 * keep pointing into the old one, which the {@code RowBatch} still holds.
 */
public final class RowArena {
    private byte[] array;
    private MemorySegment segment;
    private int used;
    private final BinaryRowData view;

    /**
     * @param initialBytes first array size
     * @param arity fields per row
     */
    public RowArena(int initialBytes, int arity) {
        array = new byte[Math.max(64, initialBytes)];
        segment = MemorySegmentFactory.wrap(array);
        view = new BinaryRowData(arity);
    }

    /**
     * Copies {@code row}'s bytes into the arena and adds the copy to {@code batch}.
     *
     * @param row the row (any segments, heap or off-heap)
     * @param batch the batch the copy joins
     * @return bytes copied
     */
    public int gather(BinaryRowData row, RowBatch batch) {
        int size = row.getSizeInBytes();
        if (size > array.length - used) {
            array = new byte[(int) Math.min(Integer.MAX_VALUE - 8L, Math.max(2L * array.length, size))];
            segment = MemorySegmentFactory.wrap(array);
            used = 0;
        }
        BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), array, used, size);
        view.pointTo(segment, used, size);
        batch.add(view); // one heap segment: always accepted
        used += size;
        return size;
    }

    /** Native code is done with the gathered rows: start over in the same array. */
    public void reset() {
        used = 0;
    }
}
