package io.sluice.jni;

import java.util.Arrays;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * A batch of {@code BinaryRowData} handed to native code by reference: the
 * distinct heap {@code byte[]} segments the rows live in plus each row's
 * (segment, offset, size). Native code pins the segments and copies each
 * string byte exactly once, into the Arrow values buffer
 * (ffi/src/jni/rows.rs); no row is copied on the Java side.
 *
 * <p>The batch holds references: the caller must not let the rows' arrays be
 * overwritten before {@link #clear()} (with Flink object reuse enabled, copy
 * rows before adding them).
 */
public final class RowBatch {
    private Object[] segments;
    private int numSegments;
    private int[] rowSegment;
    private int[] rowOffset;
    private int[] rowSize;
    private int numRows;
    private long bytes;
    private byte[] lastArray;

    /** @param capacity expected rows per batch */
    public RowBatch(int capacity) {
        int c = Math.max(1, capacity);
        segments = new Object[Math.min(c, 1024)];
        rowSegment = new int[c];
        rowOffset = new int[c];
        rowSize = new int[c];
    }

    /**
     * Adds a row whose bytes lie in one heap segment.
     *
     * @param row the row
     * @return false when the row is not in one heap segment (the caller
     *     copies it into one, e.g. with {@code BinaryRowData.copy()}, and
     *     adds the copy)
     */
    public boolean add(BinaryRowData row) {
        MemorySegment[] segs = row.getSegments();
        if (segs.length != 1 || segs[0].isOffHeap()) {
            return false;
        }
        byte[] array = segs[0].getArray();
        if (numRows == rowSegment.length) {
            grow();
        }
        if (array != lastArray) {
            if (numSegments == segments.length) {
                segments = Arrays.copyOf(segments, segments.length * 2);
            }
            segments[numSegments++] = array;
            lastArray = array;
        }
        rowSegment[numRows] = numSegments - 1;
        rowOffset[numRows] = row.getOffset();
        rowSize[numRows] = row.getSizeInBytes();
        bytes += row.getSizeInBytes();
        numRows++;
        return true;
    }

    private void grow() {
        int c = rowSegment.length * 2;
        rowSegment = Arrays.copyOf(rowSegment, c);
        rowOffset = Arrays.copyOf(rowOffset, c);
        rowSize = Arrays.copyOf(rowSize, c);
    }

    /** Forgets every row (keeps the arrays). */
    public void clear() {
        Arrays.fill(segments, 0, numSegments, null);
        numSegments = 0;
        numRows = 0;
        bytes = 0;
        lastArray = null;
    }

    /** @return rows in the batch */
    public int numRows() {
        return numRows;
    }

    /** @return total row bytes in the batch */
    public long bytes() {
        return bytes;
    }

    /** @return the distinct segments; entries at and beyond {@link #numSegments()} are null */
    public Object[] segments() {
        return segments;
    }

    /** @return the number of distinct segments */
    public int numSegments() {
        return numSegments;
    }

    /** @return per row, its index into {@link #segments()} */
    public int[] rowSegment() {
        return rowSegment;
    }

    /** @return per row, its byte offset in its segment */
    public int[] rowOffset() {
        return rowOffset;
    }

    /** @return per row, its size in bytes */
    public int[] rowSize() {
        return rowSize;
    }
}
