package io.sluice.flink.runtime;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.jni.NativeHandle;
import io.sluice.jni.RowArena;
import io.sluice.jni.RowBatch;

/**
 * The part every sluice operator over {@code RowData} shares: rows are
 * buffered and handed to native code a batch at a time, so the fixed cost of
 * a native call is paid once per batch instead of once per row.
 *
 * <p><b>Batching.</b> {@link #gather(RowData)} copies a row into one
 * reusable {@link RowArena} and adds it to the {@link #batch()}; the arena
 * goes to native code by reference (one pin per batch, not one per row). A
 * row that is not a {@code BinaryRowData} is written as one first, by Flink's
 * {@link RowDataSerializer#toBinaryRow}. Object reuse upstream is safe: a
 * buffered row never references the upstream's object. After the native call
 * the subclass calls {@link #batchConsumed()} and the arena is reused.
 *
 * <p><b>Flushing.</b> The subclass's {@link #flush()} runs the buffered rows
 * through native code and emits the result. This class calls it before each
 * checkpoint barrier ({@link #prepareSnapshotPreBarrier}, so no buffered row
 * is lost or crosses a checkpoint), at end of input ({@link #endInput}), in
 * {@link #finish} and, unless a subclass holds watermarks back (the Calc, with
 * {@link HeldWatermarks}), on every watermark before forwarding it.
 *
 * <p><b>Metrics</b> (the operator's metric group, counters): {@code rowsIn}
 * (rows received), {@code rowsOut} (rows emitted), {@code batches} (native
 * calls that processed rows), {@code nativeTimeNanos} (wall time of those
 * calls) and {@code bytesCopied} (input bytes copied on the Java side before
 * a native call: by {@link #gather}, or counted by the subclass for its own
 * copies with {@link #countCopied}).
 *
 * <p><b>Close order.</b> {@link #close()} releases Flink's resources
 * ({@code super.close()}) and then, even if that failed, frees the native
 * object returned by {@link #nativeHandle()}; a handle that was never created
 * (a failure before open) is skipped.
 */
public abstract class NativeBatchOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    /** The input rows' type. */
    protected final RowType inputType;
    /** Rows per native call (at least 1). */
    protected final int batchSize;

    private transient RowBatch batch;
    private transient RowArena arena;
    private transient RowDataSerializer serializer;
    private transient Counter rowsIn;
    private transient Counter rowsOut;
    private transient Counter batches;
    private transient Counter nativeTimeNanos;
    private transient Counter bytesCopied;

    /**
     * @param inputType the input rows' type
     * @param batchSize rows per native call (the subclass validates it)
     */
    protected NativeBatchOperator(RowType inputType, int batchSize) {
        this.inputType = inputType;
        this.batchSize = batchSize;
    }

    @Override
    public void open() throws Exception {
        super.open();
        batch = new RowBatch(batchSize);
        serializer = new RowDataSerializer(inputType);
        arena = new RowArena(Math.max(1 << 16, batchSize * 64), inputType.getFieldCount());
        rowsIn = getMetricGroup().counter("rowsIn");
        rowsOut = getMetricGroup().counter("rowsOut");
        batches = getMetricGroup().counter("batches");
        nativeTimeNanos = getMetricGroup().counter("nativeTimeNanos");
        bytesCopied = getMetricGroup().counter("bytesCopied");
    }

    /**
     * Runs the buffered rows through native code and emits the result; does
     * nothing (or only what the subclass holds back) when no row is buffered.
     *
     * @throws Exception from the output
     */
    protected abstract void flush() throws Exception;

    /** @return the native object {@link #close()} frees, or null if none was created */
    protected abstract NativeHandle nativeHandle();

    /** @return the batch {@link #gather} fills */
    protected final RowBatch batch() {
        return batch;
    }

    /** @return the input type's serializer (writes a non-binary row as a {@code BinaryRowData}) */
    protected final RowDataSerializer serializer() {
        return serializer;
    }

    /**
     * Copies {@code row} into the arena and adds it to {@link #batch()}; counts its bytes.
     *
     * @param row the input row, binary or not
     */
    protected final void gather(RowData row) {
        gather(row instanceof BinaryRowData ? (BinaryRowData) row : serializer.toBinaryRow(row));
    }

    /**
     * Copies {@code row} into the arena and adds it to {@link #batch()}; counts its bytes.
     *
     * @param row the row's binary form
     */
    protected final void gather(BinaryRowData row) {
        bytesCopied.inc(arena.gather(row, batch));
    }

    /** Native code is done with the gathered rows: clears the batch and reuses the arena. */
    protected final void batchConsumed() {
        batch.clear();
        arena.reset();
    }

    /** Counts one row received. */
    protected final void countRowIn() {
        rowsIn.inc();
    }

    /** @param n rows emitted */
    protected final void countRowsOut(long n) {
        rowsOut.inc(n);
    }

    /** @param bytes input bytes the subclass copied on the Java side itself */
    protected final void countCopied(long bytes) {
        bytesCopied.inc(bytes);
    }

    /**
     * Counts one native call that processed rows.
     *
     * @param startNanos {@link System#nanoTime()} before the call
     */
    protected final void countNativeCall(long startNanos) {
        nativeTimeNanos.inc(System.nanoTime() - startNanos);
        batches.inc();
    }

    /**
     * Forwards {@code mark} downstream as {@link AbstractStreamOperator} does
     * (for a subclass that held it back).
     *
     * @param mark the watermark
     * @throws Exception from the output
     */
    protected final void forwardWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
    }

    /** Flushes the buffered rows, then forwards {@code mark}. */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        flush();
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            NativeHandle handle = nativeHandle();
            if (handle != null) {
                handle.close();
            }
        }
    }
}
