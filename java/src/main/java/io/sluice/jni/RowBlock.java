package io.sluice.jni;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Rows written by the native exit transpose: {@code BinaryRowData} bytes back
 * to back in {@link #data}; row {@code i} is
 * {@code data[offsets[i] .. offsets[i + 1])}. Each row's RowKind is in its
 * header byte. Built by native code (ffi/src/jni/rows.rs).
 */
public final class RowBlock {
    /** All row bytes. */
    public final byte[] data;
    /** {@code numRows() + 1} offsets into {@link #data}. */
    public final int[] offsets;
    private final MemorySegment segment;

    /**
     * @param data row bytes
     * @param offsets row offsets, one more than the rows
     */
    public RowBlock(byte[] data, int[] offsets) {
        this.data = data;
        this.offsets = offsets;
        this.segment = MemorySegmentFactory.wrap(data);
    }

    /** @return the number of rows */
    public int numRows() {
        return offsets.length - 1;
    }

    /**
     * Points {@code reuse} (or a new row of {@code arity} fields) at row
     * {@code i}: no copy; the row reads the block's array.
     *
     * @param i row index
     * @param arity number of fields
     * @param reuse a row to re-point, or null for a new one
     * @return the row
     */
    public BinaryRowData row(int i, int arity, BinaryRowData reuse) {
        BinaryRowData r = reuse != null ? reuse : new BinaryRowData(arity);
        r.pointTo(segment, offsets[i], offsets[i + 1] - offsets[i]);
        return r;
    }
}
