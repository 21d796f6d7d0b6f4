package io.sluice.flink.runtime;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.table.data.RowData;

import io.sluice.jni.NativeHandle;

/**
 * What every sluice operator over {@code RowData} shares, whatever its inputs: the buffered rows'
 * flush points, the metrics and the close order. The one-input operators batch through
 * {@link NativeBatchOperator}; the two-input join keeps a batch per input.
 *
 * <p><b>Flushing.</b> The subclass's {@link #flush()} runs the buffered rows through native code
 * and emits the result. This class calls it before each checkpoint barrier
 * ({@link #prepareSnapshotPreBarrier}, so no buffered row is lost or crosses a checkpoint), in
 * {@link #finish} and, unless a subclass holds watermarks back (the Calc, with
 * {@link HeldWatermarks}), on every watermark before forwarding it; the subclass calls it at the
 * end of its input(s).
 *
 * <p><b>Metrics</b> (the operator's metric group, counters): {@code rowsIn} (rows received),
 * {@code rowsOut} (rows emitted), {@code batches} (native calls that processed rows),
 * {@code nativeTimeNanos} (wall time of those calls) and {@code bytesCopied} (input bytes copied
 * on the Java side before a native call).
 *
 * <p><b>Close order.</b> {@link #close()} releases Flink's resources ({@code super.close()}) and
 * then, even if that failed, frees the native object returned by {@link #nativeHandle()}; a
 * handle that was never created (a failure before open) is skipped.
 */
public abstract class NativeOperator extends AbstractStreamOperator<RowData> {
    private static final long serialVersionUID = 1L;

    private transient Counter rowsIn;
    private transient Counter rowsOut;
    private transient Counter batches;
    private transient Counter nativeTimeNanos;
    private transient Counter bytesCopied;

    @Override
    public void open() throws Exception {
        super.open();
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

    /** Counts one row received. */
    protected final void countRowIn() {
        rowsIn.inc();
    }

    /** @param n rows emitted */
    protected final void countRowsOut(long n) {
        rowsOut.inc(n);
    }

    /** @param bytes input bytes copied on the Java side before a native call */
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
