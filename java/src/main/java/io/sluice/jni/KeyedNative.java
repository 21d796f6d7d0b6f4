package io.sluice.jni;

import java.util.List;

import org.apache.flink.table.types.logical.RowType;

/**
 * One native keyed operator (group aggregate, changelog normalize, dedup,
 * Top-N, OVER, window aggregate; ffi/src/jni/keyed_native.rs over the engine's
 * {@code KeyedRowOperator}): rows in, changelog rows out, event time advanced
 * by watermarks, processing time by the caller, state snapshotted and
 * restored per Flink key group.
 *
 * <p>The spec grammar is documented in engine/src/keyed/spec/mod.rs, e.g.
 * {@code group_agg keys=0 aggs=count(*),sum(2) max_parallelism=128}. Key
 * groups are Flink's for the {@code BinaryRowData} projection of the key
 * columns (see {@link io.sluice.flink.keyed.KeyProjection}).
 *
 * <p>Not thread-safe: one instance per operator subtask.
 */
public final class KeyedNative extends KeyedStateHandle {
    private static final StateCalls STATE =
            new StateCalls(KeyedNative::snapshotKeyGroups, KeyedNative::restore, KeyedNative::retainedBytes);

    private final RowType inputType;

    private KeyedNative(long address, RowType inputType) {
        super(address, KeyedNative::free, STATE);
        this.inputType = inputType;
    }

    /**
     * @param spec the operator spec
     * @param inputType the input rows' type
     * @return the operator
     * @throws SluiceException for a bad spec or an unsupported type
     */
    public static KeyedNative create(String spec, RowType inputType) {
        NativeLibrary.load();
        return new KeyedNative(create(spec, RowTypes.names(inputType), RowTypes.types(inputType)), inputType);
    }

    /** @return the input type this operator was created with */
    public RowType inputType() {
        return inputType;
    }

    /**
     * @param names the output field names (one per output field)
     * @return the type of the emitted rows
     */
    public RowType outputType(List<String> names) {
        return RowTypes.parse(outputTypes(address()), names);
    }

    /**
     * Switches an operator whose every push emits each input row at once, in input order,
     * followed by its aggregate values, and nothing on watermarks or timers (a proctime
     * {@code ROWS} / {@code RANGE UNBOUNDED PRECEDING} over) to returning only the appended
     * columns: {@link #process} then returns one {@code +I} row of {@link #appendedTypes()} per
     * input row, in input order, and the caller joins it to the input row it kept; the native
     * side decodes only the columns the operator reads. The state is the same in both modes.
     *
     * @return whether the operator now returns appended columns only (false: unchanged)
     */
    public boolean appendOnly() {
        return appendOnly(address());
    }

    /** @return the types of the appended-columns rows (empty outside that mode) */
    public String[] appendedTypes() {
        return appendedTypes(address());
    }

    /**
     * Pushes a batch (RowKinds from the row headers).
     *
     * @param batch the rows
     * @return the emitted changelog rows
     */
    public RowBlock process(RowBatch batch) {
        return process(address(), batch.segments(), batch.numSegments(), batch.rowSegment(), batch.rowOffset(),
                batch.rowSize(), batch.numRows());
    }

    /**
     * @return whether {@link #advanceWatermark} can emit rows (a rowtime OVER,
     *     a window aggregate); the other operators emit only while processing rows
     */
    public boolean firesOnWatermark() {
        return firesOnWatermark(address());
    }

    /**
     * Advances the operator's event time.
     *
     * @param watermark the watermark (epoch millis)
     * @return the changelog rows it fires (ended windows, OVER rows whose timers fire)
     */
    public RowBlock advanceWatermark(long watermark) {
        return advanceWatermark(address(), watermark);
    }

    /**
     * @return whether {@link #advanceProcessingTime} can emit rows (a proctime OVER with a RANGE
     *     INTERVAL frame): the caller then moves the processing time before every push and when
     *     a timer at a push's time + 1 fires
     */
    public boolean firesOnProcessingTime() {
        return firesOnProcessingTime(address());
    }

    /**
     * Moves the operator's processing-time clock; later pushes are stamped with it.
     *
     * @param now the processing time (epoch millis)
     * @return the changelog rows whose processing-time timers fire
     */
    public RowBlock advanceProcessingTime(long now) {
        return advanceProcessingTime(address(), now);
    }

    /**
     * @param batch rows
     * @return the native key group of each row's key (state unchanged)
     */
    public int[] keyGroups(RowBatch batch) {
        return keyGroups(address(), batch.segments(), batch.numSegments(), batch.rowSegment(), batch.rowOffset(),
                batch.rowSize(), batch.numRows());
    }

    private static native long create(String spec, String[] names, String[] types);

    private static native String[] outputTypes(long handle);

    private static native RowBlock process(long handle, Object[] segments, int numSegments, int[] rowSegment,
            int[] rowOffset, int[] rowSize, int numRows);

    private static native boolean appendOnly(long handle);

    private static native String[] appendedTypes(long handle);

    private static native boolean firesOnWatermark(long handle);

    private static native RowBlock advanceWatermark(long handle, long watermark);

    private static native boolean firesOnProcessingTime(long handle);

    private static native RowBlock advanceProcessingTime(long handle, long now);

    private static native int[] keyGroups(long handle, Object[] segments, int numSegments, int[] rowSegment,
            int[] rowOffset, int[] rowSize, int numRows);

    private static native byte[][] snapshotKeyGroups(long handle, int first, int last);

    private static native void restore(long handle, int first, int last, byte[][] blobs);

    private static native long retainedBytes(long handle);

    private static native void free(long handle);
}
