package io.sluice.jni;

/**
 * A native Calc program (ffi/src/jni/calc_native over engine/src/calc): one
 * expression per output column (grammar in engine/src/calc/spec.rs, a subset of
 * Flink SQL: {@code MD5(s)}, {@code SHA2(s, 256)}, {@code SHA2(s, w)},
 * {@code CONCAT(a, '-', b)}, {@code CONCAT_WS('|', a, b)}, {@code POSITION(x IN s)},
 * {@code LOCATE(x, s[, from])}, {@code s LIKE p [ESCAPE 'c']}, {@code REPLACE(s, a, b)},
 * {@code SPLIT_INDEX(s, sep, i)}, a bare column or {@code $n}; {@code AS name}).
 *
 * <p>Each {@link #process} call runs the entry transpose over the batch's
 * {@code BinaryRowData} (read in place from the Java heap), the kernels, and
 * the exit transpose; the returned {@link RowBlock} keeps each row's RowKind.
 * Not thread-safe: one instance per operator subtask.
 */
public final class CalcNative extends NativeHandle {
    private final String[] outputTypes;
    private final String[] outputNames;

    /**
     * @param inputNames input column names
     * @param inputTypes input column types ({@code LogicalType#asSerializableString()})
     * @param expressions one expression per output column
     * @param outputTypes the output types to produce (e.g. what Flink's planner infers
     *     for the same SQL), or null to use the native inference
     * @throws SluiceException on a parse or type error (the message names the expression)
     */
    public CalcNative(String[] inputNames, String[] inputTypes, String[] expressions, String[] outputTypes) {
        super(createLoaded(inputNames, inputTypes, expressions, outputTypes), CalcNative::free);
        this.outputTypes = outputTypes(address());
        this.outputNames = outputNames(address());
    }

    private static long createLoaded(String[] names, String[] types, String[] exprs, String[] out) {
        NativeLibrary.load();
        return create(names, types, exprs, out);
    }

    /** @return the output column types, as serializable strings */
    public String[] outputTypes() {
        return outputTypes.clone();
    }

    /** @return the output column names (alias, input name, or {@code EXPR$i}) */
    public String[] outputNames() {
        return outputNames.clone();
    }

    /**
     * Makes output columns {@code columns} (BOOLEAN expressions, e.g. the conjuncts of a WHERE)
     * the program's filter: a row is output only if all of them are TRUE (FALSE and NULL drop it,
     * as in Flink's Calc), and every other column is computed only for the rows that pass
     * (engine/src/calc/filter.rs). The blocks returned afterwards still hold one row per input
     * row; a dropped row is an empty one ({@code offsets[i] == offsets[i + 1]}).
     *
     * @param columns the filter columns; none: no filter
     * @throws SluiceException for a column out of range, listed twice or not BOOLEAN
     */
    public void filter(int... columns) {
        setFilters(address(), columns);
    }

    /**
     * Projects one batch.
     *
     * @param batch the input rows
     * @return the output rows, one per input row (empty for a row the {@link #filter} drops),
     *     RowKinds preserved
     * @throws SluiceException on malformed rows or a run-time error stock Flink
     *     also raises (e.g. {@code SHA-7 MessageDigest not available})
     */
    public RowBlock process(RowBatch batch) {
        return process(address(), batch.segments(), batch.numSegments(), batch.rowSegment(),
                batch.rowOffset(), batch.rowSize(), batch.numRows());
    }

    /**
     * Projects one batch whose listed CHAR / VARCHAR fields come as UTF-16
     * ({@code strings}) instead of from the rows (whose slots for them are not
     * read; leave them NULL). Each value is encoded once, natively, through
     * its field's repeated-value cache.
     *
     * @param batch the input rows (same count as {@code strings.numRows()})
     * @param strings the UTF-16 columns
     * @return the output rows, one per input row (empty for a row the {@link #filter} drops),
     *     RowKinds preserved
     * @throws SluiceException as {@link #process(RowBatch)}, or for a listed
     *     field that is not CHAR / VARCHAR or mismatched row counts
     */
    public RowBlock process(RowBatch batch, Utf16Columns strings) {
        return processUtf16(address(), batch.segments(), batch.numSegments(), batch.rowSegment(),
                batch.rowOffset(), batch.rowSize(), batch.numRows(), strings.fields(), strings.units(),
                strings.offsets(), strings.nulls(), strings.numColumns());
    }

    /**
     * The UTF-16 encode cache counters of one input field (a debug accessor).
     *
     * @param field input field index
     * @return {@code {hits, misses, ineligible, bypassedRows, bypassed ? 1 : 0}},
     *     or null before any UTF-16 batch
     */
    public long[] encodeCacheStats(int field) {
        return encodeCacheStats(address(), field);
    }

    /**
     * @return per input field, the {@link ColumnBatch} kind code to hand it over
     *     with, -1 when no expression reads it, -2 when it must go by rows
     */
    public int[] columnKinds() {
        return columnKinds(address());
    }

    /**
     * Projects one batch handed over column by column (the arrays are borrowed
     * for the call, not copied).
     *
     * @param batch the input columns, as {@link #columnKinds()} asks
     * @return the output rows, one per input row (empty for a row the {@link #filter} drops),
     *     RowKinds preserved
     * @throws SluiceException as {@link #process}, or when a column is missing or mistyped
     */
    public RowBlock processColumns(ColumnBatch batch) {
        return processColumns(address(), batch.fields(), batch.values(), batch.offsets(), batch.nulls(),
                batch.rowKinds(), batch.numRows());
    }

    private static native int[] columnKinds(long handle);

    private static native void setFilters(long handle, int[] columns);

    private static native RowBlock processColumns(long handle, int[] fields, Object[] values, Object[] offsets,
            Object[] nulls, byte[] rowKinds, int numRows);

    private static native long create(String[] inputNames, String[] inputTypes, String[] expressions, String[] outputTypes);

    private static native String[] outputTypes(long handle);

    private static native String[] outputNames(long handle);

    private static native RowBlock process(long handle, Object[] segments, int numSegments, int[] rowSegment,
            int[] rowOffset, int[] rowSize, int numRows);

    private static native RowBlock processUtf16(long handle, Object[] segments, int numSegments, int[] rowSegment,
            int[] rowOffset, int[] rowSize, int numRows, int[] fields, Object[] units, Object[] offsets,
            Object[] nulls, int numColumns);

    private static native long[] encodeCacheStats(long handle, int field);

    private static native void free(long handle);
}
