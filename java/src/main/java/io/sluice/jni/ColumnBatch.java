package io.sluice.jni;

import java.nio.ByteOrder;
import java.util.Arrays;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

/**
 * A batch of rows handed to native code column by column: for each input
 * field a {@link CalcNative} program reads, its values are copied straight
 * from the row's segments into per-column heap arrays — for CHAR / VARCHAR /
 * VARBINARY one {@code byte[]} of values back to back and {@code int[]}
 * offsets, for fixed-width types a primitive array — plus one NULL flag byte
 * per row. Native code pins these few arrays for one call and wraps them as
 * Arrow buffers without copying (engine/src/calc/input/columns.rs), so each string is
 * copied exactly once: row → this batch's array.
 *
 * <p>Reading allocates nothing per row: the NULL bit and fixed-width values
 * through {@code BinaryRowData}'s getters, a string's 8-byte slot through
 * {@code getLong} (Flink's layout: high bit set = up to 7 bytes inline, length
 * in bits 56..62; else {@code offset << 32 | length} into the row's variable
 * part, which may span segments). Arrays grow geometrically and are reused.
 * Kind codes match engine/src/calc/input/columns.rs {@code ColumnKind}.
 */
public final class ColumnBatch {
    /** CHAR / VARCHAR: UTF-8 bytes + offsets. */
    public static final int UTF8 = 0;
    /** VARBINARY: bytes + offsets. */
    public static final int BINARY = 1;
    /** BOOLEAN: {@code byte[]}. */
    public static final int BOOLEAN = 2;
    /** TINYINT: {@code byte[]}. */
    public static final int TINYINT = 3;
    /** SMALLINT: {@code short[]}. */
    public static final int SMALLINT = 4;
    /** INT: {@code int[]}. */
    public static final int INT = 5;
    /** BIGINT: {@code long[]}. */
    public static final int BIGINT = 6;
    /** FLOAT: {@code float[]}. */
    public static final int FLOAT = 7;
    /** DOUBLE: {@code double[]}. */
    public static final int DOUBLE = 8;
    /** DATE: {@code int[]} (days). */
    public static final int DATE = 9;
    /** TIMESTAMP(p) / TIMESTAMP_LTZ(p), p in 1..3: {@code long[]} (epoch milliseconds). */
    public static final int TIMESTAMP_MS = 10;

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final int[] fields;
    private final int[] kinds;
    private final Object[] values;
    private final Object[] offsets;
    private final Object[] nulls;
    private final int[] used;
    private byte[] rowKinds;
    private int capacity;
    private int numRows;
    private long bytesCopied;

    /**
     * The batch for a program's {@link CalcNative#columnKinds()}: every field it reads, with its
     * kind, in field order.
     *
     * @param columnKinds per input field a kind code, -1 (not read) or -2 (must go by rows)
     * @param capacity expected rows per batch
     * @return the batch, or null when some field the program reads has a type it does not carry
     */
    public static ColumnBatch forColumnKinds(int[] columnKinds, int capacity) {
        int m = 0;
        for (int k : columnKinds) {
            if (k == -2) {
                return null;
            }
            m += k >= 0 ? 1 : 0;
        }
        int[] fields = new int[m];
        int[] carried = new int[m];
        for (int f = 0, j = 0; f < columnKinds.length; f++) {
            if (columnKinds[f] >= 0) {
                fields[j] = f;
                carried[j++] = columnKinds[f];
            }
        }
        return new ColumnBatch(fields, carried, capacity);
    }

    /**
     * @param fields the input fields to carry (as {@link CalcNative#columnKinds()} lists them)
     * @param kinds each field's kind code
     * @param capacity expected rows per batch
     */
    public ColumnBatch(int[] fields, int[] kinds, int capacity) {
        if (fields.length != kinds.length) {
            throw new IllegalArgumentException(fields.length + " fields for " + kinds.length + " kinds");
        }
        this.fields = fields.clone();
        this.kinds = kinds.clone();
        this.capacity = Math.max(1, capacity);
        int m = fields.length;
        values = new Object[m];
        offsets = new Object[m];
        nulls = new Object[m];
        used = new int[m];
        rowKinds = new byte[this.capacity];
        for (int j = 0; j < m; j++) {
            nulls[j] = new byte[this.capacity];
            if (kinds[j] == UTF8 || kinds[j] == BINARY) {
                values[j] = new byte[Math.max(64, this.capacity * 16)];
                offsets[j] = new int[this.capacity + 1];
            } else {
                values[j] = fixedWidthColumn(kinds[j], this.capacity, fields[j]);
            }
        }
    }

    /**
     * @param kind a fixed-width kind code
     * @param rows rows the column holds
     * @param field the input field (for the error)
     * @return a zeroed column of {@code rows} values of the kind's primitive type
     */
    private static Object fixedWidthColumn(int kind, int rows, int field) {
        switch (kind) {
            case BOOLEAN:
            case TINYINT:
                return new byte[rows];
            case SMALLINT:
                return new short[rows];
            case INT:
            case DATE:
                return new int[rows];
            case BIGINT:
            case TIMESTAMP_MS:
                return new long[rows];
            case FLOAT:
                return new float[rows];
            case DOUBLE:
                return new double[rows];
            default:
                throw new IllegalArgumentException("field " + field + ": unknown column kind " + kind);
        }
    }

    /**
     * Copies the carried fields of {@code row} into the batch; the row is not
     * referenced afterwards (object reuse is safe).
     *
     * @param row the row
     * @return bytes copied (string bytes plus fixed-width values)
     */
    public int add(BinaryRowData row) {
        int r = startRow(row);
        int copied = 0;
        for (int j = 0; j < fields.length; j++) {
            int f = fields[j];
            boolean isNull = row.isNullAt(f);
            ((byte[]) nulls[j])[r] = isNull ? (byte) 1 : (byte) 0;
            if (kinds[j] == UTF8 || kinds[j] == BINARY) {
                copied += addBytes(j, r, row, f, isNull); // straight from the row's segments
            } else {
                copied += isNull ? addNull(j, r) : addValue(j, r, row, f);
            }
        }
        return endRow(r, copied);
    }

    /**
     * Copies the carried fields of any {@code RowData} (a {@code JoinedRowData}, a
     * {@code GenericRowData}) into the batch through its getters; a {@code BinaryRowData} takes
     * {@link #add(BinaryRowData)}. Strings are copied from their UTF-8 segments (a String-backed
     * one is encoded once by Flink, as its own serializer would). The row is not referenced
     * afterwards.
     *
     * @param row the row
     * @return bytes copied (string bytes plus fixed-width values)
     */
    public int add(RowData row) {
        if (row instanceof BinaryRowData) {
            return add((BinaryRowData) row);
        }
        int r = startRow(row);
        int copied = 0;
        for (int j = 0; j < fields.length; j++) {
            int f = fields[j];
            boolean isNull = row.isNullAt(f);
            ((byte[]) nulls[j])[r] = isNull ? (byte) 1 : (byte) 0;
            copied += isNull ? addNull(j, r) : addValue(j, r, row, f);
        }
        return endRow(r, copied);
    }

    /** Makes room for one more row and records its RowKind; returns its index. */
    private int startRow(RowData row) {
        if (numRows == capacity) {
            grow();
        }
        rowKinds[numRows] = row.getRowKind().toByteValue();
        return numRows;
    }

    /** Counts row {@code r} (whose fields copied {@code copied} bytes) in; returns {@code copied}. */
    private int endRow(int r, int copied) {
        numRows = r + 1;
        bytesCopied += copied;
        return copied;
    }

    /**
     * A NULL in column {@code j}, row {@code r}: an empty value for a string column; a
     * fixed-width slot keeps whatever it held (native code reads it only where the flag is 0).
     */
    private int addNull(int j, int r) {
        if (kinds[j] == UTF8 || kinds[j] == BINARY) {
            ((int[]) offsets[j])[r + 1] = used[j];
        }
        return 0;
    }

    /**
     * Field {@code f} (not NULL) of {@code row} into column {@code j}, row {@code r}, through the
     * row's getters (a {@code BinaryRowData}'s strings take {@link #addBytes} instead).
     */
    private int addValue(int j, int r, RowData row, int f) {
        switch (kinds[j]) {
            case UTF8:
                return appendString(j, r, row.getString(f));
            case BINARY:
                byte[] b = row.getBinary(f);
                return appendBytes(j, r, b, 0, b.length);
            case BOOLEAN:
                ((byte[]) values[j])[r] = row.getBoolean(f) ? (byte) 1 : (byte) 0;
                return 1;
            case TINYINT:
                ((byte[]) values[j])[r] = row.getByte(f);
                return 1;
            case SMALLINT:
                ((short[]) values[j])[r] = row.getShort(f);
                return 2;
            case INT:
            case DATE:
                ((int[]) values[j])[r] = row.getInt(f);
                return 4;
            case BIGINT:
                ((long[]) values[j])[r] = row.getLong(f);
                return 8;
            case TIMESTAMP_MS:
                // A BinaryRowData keeps a compact timestamp as epoch milliseconds in its slot.
                ((long[]) values[j])[r] = row instanceof BinaryRowData ? row.getLong(f)
                        : row.getTimestamp(f, 3).getMillisecond();
                return 8;
            case FLOAT:
                ((float[]) values[j])[r] = row.getFloat(f);
                return 4;
            default:
                ((double[]) values[j])[r] = row.getDouble(f);
                return 8;
        }
    }

    /** A string's UTF-8 bytes, straight from its segments, into column {@code j}. */
    private int appendString(int j, int r, StringData s) {
        if (s instanceof BinaryStringData) {
            BinaryStringData b = (BinaryStringData) s;
            b.ensureMaterialized();
            MemorySegment[] segs = b.getSegments();
            int len = b.getSizeInBytes();
            if (segs.length == 1 && !segs[0].isOffHeap()) {
                return appendBytes(j, r, segs[0].getArray(), b.getOffset(), len);
            }
            int pos = used[j];
            BinarySegmentUtils.copyToBytes(segs, b.getOffset(), ensure(j, pos + len), pos, len);
            return appended(j, r, len);
        }
        byte[] bytes = s.toBytes();
        return appendBytes(j, r, bytes, 0, bytes.length);
    }

    private int appendBytes(int j, int r, byte[] src, int from, int len) {
        int pos = used[j];
        System.arraycopy(src, from, ensure(j, pos + len), pos, len);
        return appended(j, r, len);
    }

    /** Row {@code r}'s value in column {@code j} ends {@code len} bytes after the previous one; returns {@code len}. */
    private int appended(int j, int r, int len) {
        used[j] += len;
        ((int[]) offsets[j])[r + 1] = used[j];
        return len;
    }

    /** Appends field {@code f}'s string / binary bytes to column {@code j}; returns bytes copied. */
    private int addBytes(int j, int r, BinaryRowData row, int f, boolean isNull) {
        int[] offs = (int[]) offsets[j];
        int pos = used[j];
        if (isNull) {
            offs[r + 1] = pos;
            return 0;
        }
        long slot = row.getLong(f);
        int len;
        if (slot < 0) {
            // Inline: up to 7 bytes in the slot itself (after the mark byte on big-endian).
            len = (int) ((slot >>> 56) & 0x7F);
            byte[] vals = ensure(j, pos + len);
            if (LITTLE_ENDIAN) {
                for (int k = 0; k < len; k++) {
                    vals[pos + k] = (byte) (slot >>> (8 * k));
                }
            } else {
                int fieldOffset = row.getOffset() + BinaryRowData.calculateBitSetWidthInBytes(row.getArity()) + 8 * f;
                BinarySegmentUtils.copyToBytes(row.getSegments(), fieldOffset + 1, vals, pos, len);
            }
        } else {
            int off = (int) (slot >>> 32);
            len = (int) slot;
            byte[] vals = ensure(j, pos + len);
            MemorySegment[] segs = row.getSegments();
            MemorySegment first = segs[0];
            int at = row.getOffset() + off;
            if (segs.length == 1 && !first.isOffHeap()) {
                System.arraycopy(first.getArray(), at, vals, pos, len); // the common case: one heap segment
            } else {
                BinarySegmentUtils.copyToBytes(segs, at, vals, pos, len);
            }
        }
        used[j] = pos + len;
        offs[r + 1] = pos + len;
        return len;
    }

    private byte[] ensure(int j, int need) {
        byte[] vals = (byte[]) values[j];
        if (need > vals.length) {
            if (need < 0) {
                throw new IllegalStateException("column of field " + fields[j] + " exceeds 2 GiB; use a smaller batch");
            }
            vals = Arrays.copyOf(vals, (int) Math.min(Integer.MAX_VALUE - 8L, Math.max(need, 2L * vals.length)));
            values[j] = vals;
        }
        return vals;
    }

    private void grow() {
        int c = capacity * 2;
        rowKinds = Arrays.copyOf(rowKinds, c);
        for (int j = 0; j < fields.length; j++) {
            nulls[j] = Arrays.copyOf((byte[]) nulls[j], c);
            if (kinds[j] == UTF8 || kinds[j] == BINARY) {
                offsets[j] = Arrays.copyOf((int[]) offsets[j], c + 1);
            } else {
                Object grown = fixedWidthColumn(kinds[j], c, fields[j]);
                System.arraycopy(values[j], 0, grown, 0, capacity);
                values[j] = grown;
            }
        }
        capacity = c;
    }

    /** Forgets every row (keeps the arrays). */
    public void clear() {
        numRows = 0;
        bytesCopied = 0;
        Arrays.fill(used, 0);
    }

    /** @return rows in the batch */
    public int numRows() {
        return numRows;
    }

    /** @return bytes copied into the batch since the last {@link #clear()} */
    public long bytesCopied() {
        return bytesCopied;
    }

    int[] fields() {
        return fields;
    }

    Object[] values() {
        return values;
    }

    Object[] offsets() {
        return offsets;
    }

    Object[] nulls() {
        return nulls;
    }

    byte[] rowKinds() {
        return rowKinds;
    }
}
