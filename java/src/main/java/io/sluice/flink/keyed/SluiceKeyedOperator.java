package io.sluice.flink.keyed;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.SluiceOptions.DedupStateBackend;
import io.sluice.flink.runtime.NativeBatchOperator;
import io.sluice.jni.KeyedNative;
import io.sluice.jni.NativeHandle;
import io.sluice.jni.RowBlock;
import io.sluice.jni.SluiceException;

/**
 * A native keyed operator (group aggregate, changelog normalize, dedup, Top-N,
 * OVER, window aggregate) behind Flink's keyBy on {@link KeyProjection}. Batching, flushing, the
 * metrics and the close order are {@link NativeBatchOperator}'s.
 *
 * <p>Rows are gathered (one copy per row into the batch's arena, counted in
 * {@code bytesCopied}) up to the batch size and pushed to native code on a
 * full batch, on every watermark, before the checkpoint barrier and at end of
 * input. On a watermark, an operator that fires on event time (window
 * aggregate, rowtime OVER) then emits what the watermark completes, before
 * the watermark itself ({@link #processWatermark}). A watermark is not held
 * back as the Calc does: a native keyed call
 * returns the changelog of the whole batch without marking which input row
 * produced which output rows, so a held watermark could only follow the whole
 * batch, moving later rows ahead of it. Native code reads each row once in
 * place and copies only what it keeps in state.
 *
 * <p><b>Processing time.</b> An operator that fires on processing-time timers (a proctime OVER
 * with a RANGE INTERVAL frame, whose Flink function stamps each row with the current processing
 * time and emits the rows of a millisecond when the timer one millisecond later fires) gets the
 * time from Flink's {@code ProcessingTimeService}: every flush first moves the native clock to
 * the current processing time (emitting what its timers fire), then pushes the batch, which the
 * native operator stamps with that time, and registers a timer at that time + 1 whose callback
 * moves the native clock to the timer's time and flushes. A row waiting in the batch also has such
 * a timer, so it is stamped within about a millisecond of its arrival rather than when the batch
 * fills. The buffered rows are native keyed state (in the per-key-group snapshot); the timers
 * are not Flink state, so after a restore one timer at the current time fires the restored rows.
 * As in Flink, a timer that has not fired when the input ends is dropped with its rows
 * (Flink quiesces the processing-time service before finishing the operator).
 *
 * <p><b>Pass-through.</b> A proctime ROWS / RANGE UNBOUNDED PRECEDING OVER emits each input row
 * at once followed by its aggregate values ({@code ProcTimeUnboundedPrecedingFunction}). With
 * object reuse off, the operator keeps the batch's input rows, native code decodes only the
 * partition and argument columns and returns only the aggregate values, and each output row is
 * a reused {@code JoinedRowData} of the kept input row and its aggregate row
 * ({@link AppendedRows}, which says why both are safe); with object reuse on, or for any other
 * operator, the whole output row comes back from native code. The pass-through is off unless the
 * JVM property {@value #PASS_THROUGH_PROPERTY} is {@code true}: in the plain-SQL bench
 * ({@code OverSqlBenchmark}) it measured slower end to end than the whole-row path, because the
 * next chained hop copies each output row with Flink's serializer (object reuse off), which is
 * a {@code memcpy} for the whole-row path's {@code BinaryRowData} but a field-by-field write for
 * a {@code JoinedRowData} (benches/RESULTS.md, "Java: OVER aggregation").
 *
 * <p>State: the native state is Flink raw keyed state, one entry per key
 * group of the subtask's range ({@link RawKeyedState}).
 *
 * <p>Where stock Flink's answer depends on the Flink line (normalize) or the
 * state backend (keep-last dedup, {@code sluice.dedup.state-backend}), the
 * spec gets the option that reproduces it ({@link StockSemantics}).
 *
 * <p>Metrics: the counters of {@link io.sluice.flink.runtime.NativeOperator} ({@code rowsOut}:
 * changelog rows emitted) and the gauge {@code stateBytes} (retained native
 * state after the last batch).
 */
public class SluiceKeyedOperator extends NativeBatchOperator {
    private static final long serialVersionUID = 1L;

    /** The JVM property that turns the pass-through on (see the class docs; off by default). */
    public static final String PASS_THROUGH_PROPERTY = "sluice.keyed.pass-through";

    private final String spec;
    private final int outputArity;
    private final long stateBudget;
    private final DedupStateBackend dedupBackend;

    private transient KeyedNative nativeOp;
    private transient StreamRecord<RowData> outRecord;
    private transient int firstKeyGroup;
    private transient int lastKeyGroup;
    private transient volatile long stateBytes;
    private transient boolean firesOnWatermark;
    private transient boolean firesOnProcessingTime;
    /** The latest processing-time timer registered (none: {@code Long.MIN_VALUE}). */
    private transient long registeredTimer;
    private transient boolean restored;
    /** The pass-through output (null: whole output rows come from native code). */
    private transient AppendedRows appended;

    /**
     * @param spec the native spec without {@code max_parallelism=} / {@code budget=}
     *     (added from the job)
     * @param inputType input row type
     * @param outputArity fields per output row
     * @param batchSize rows per native call
     * @param stateBudget native state budget in bytes (0: none)
     */
    public SluiceKeyedOperator(String spec, RowType inputType, int outputArity, int batchSize, long stateBudget) {
        this(spec, inputType, outputArity, batchSize, stateBudget, SluiceOptions.DEDUP_STATE_BACKEND.defaultValue());
    }

    /**
     * @param spec the native spec without {@code max_parallelism=} / {@code budget=}
     *     (added from the job)
     * @param inputType input row type
     * @param outputArity fields per output row
     * @param batchSize rows per native call
     * @param stateBudget native state budget in bytes (0: none)
     * @param dedupBackend keep-last dedup: whose equal-row behaviour to reproduce
     *     ({@code sluice.dedup.state-backend}; {@code AUTO}: the job's keyed state backend)
     */
    public SluiceKeyedOperator(String spec, RowType inputType, int outputArity, int batchSize, long stateBudget,
            DedupStateBackend dedupBackend) {
        super(inputType, Math.max(1, batchSize));
        this.spec = spec;
        this.outputArity = outputArity;
        this.stateBudget = stateBudget;
        this.dedupBackend = dedupBackend;
    }

    /** @return the spec this operator runs (without job-derived options) */
    public String spec() {
        return spec;
    }

    @Override
    protected boolean isUsingCustomRawKeyedState() {
        return true;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        TaskInfo info = getContainingTask().getEnvironment().getTaskInfo();
        int maxParallelism = info.getMaxNumberOfParallelSubtasks();
        KeyGroupRange range = RawKeyedState.range(info);
        firstKeyGroup = range.getStartKeyGroup();
        lastKeyGroup = range.getEndKeyGroup();
        String full = spec + " max_parallelism=" + maxParallelism + (stateBudget > 0 ? " budget=" + stateBudget : "");
        if (spec.startsWith("dedup ")) {
            full += StockSemantics.dedupOption(dedupBackend, getKeyedStateBackend());
        } else if (spec.startsWith("normalize ")) {
            full += StockSemantics.normalizeOption();
        }
        nativeOp = KeyedNative.create(full, inputType);
        firesOnWatermark = nativeOp.firesOnWatermark();
        firesOnProcessingTime = nativeOp.firesOnProcessingTime();
        registeredTimer = Long.MIN_VALUE;
        appended = passThrough();
        restored = context.isRestored();
        if (context.isRestored()) {
            nativeOp.restore(firstKeyGroup, lastKeyGroup, RawKeyedState.read(context));
            stateBytes = nativeOp.retainedBytes();
        }
    }

    /**
     * Switches the native operator to appended-columns output when it has that shape and the
     * input rows may be kept (object reuse off; see {@link AppendedRows}).
     *
     * @return the pass-through output, or null
     */
    private AppendedRows passThrough() {
        if (!Boolean.getBoolean(PASS_THROUGH_PROPERTY) || getExecutionConfig().isObjectReuseEnabled()
                || !nativeOp.appendOnly()) {
            return null;
        }
        int aggArity = outputArity - inputType.getFieldCount();
        int nativeArity = nativeOp.appendedTypes().length;
        if (aggArity != nativeArity) {
            throw new IllegalStateException("output arity " + outputArity + " is the input's "
                    + inputType.getFieldCount() + " plus " + aggArity + ", but the native operator appends " + nativeArity);
        }
        return new AppendedRows(aggArity, batchSize);
    }

    /** @return whether this operator passes its input rows through (see the class docs); valid after initializeState */
    public boolean passesThrough() {
        return appended != null;
    }

    @Override
    public void open() throws Exception {
        super.open();
        outRecord = new StreamRecord<>(null);
        getMetricGroup().gauge("stateBytes", (Gauge<Long>) () -> stateBytes);
        if (firesOnProcessingTime && restored) {
            // The restored rows' timers were not Flink state: one at the current time fires them.
            registerTimer(getProcessingTimeService().getCurrentProcessingTime());
        }
    }

    /** Registers a processing-time timer at {@code time} unless one at or after it is pending. */
    private void registerTimer(long time) {
        if (time > registeredTimer) {
            registeredTimer = time;
            getProcessingTimeService().registerTimer(time, this::onProcessingTime);
        }
    }

    /**
     * A processing-time timer fired: moves the native clock to {@code time} (as Flink's
     * {@code onTimer(time)} calls would), emits what fires, then flushes the rows waiting in the
     * batch (stamped with the current processing time).
     */
    private void onProcessingTime(long time) throws Exception {
        if (time >= registeredTimer) {
            registeredTimer = Long.MIN_VALUE; // no timer of this operator is pending any more
        }
        advanceProcessingTime(time);
        flush();
    }

    private void advanceProcessingTime(long time) {
        long t0 = System.nanoTime();
        RowBlock out;
        try {
            out = nativeOp.advanceProcessingTime(time);
        } catch (SluiceException e) {
            throw failure(e);
        }
        stateBytes = nativeOp.retainedBytes();
        countNativeCall(t0);
        emit(out);
    }

    @Override
    protected NativeHandle nativeHandle() {
        return nativeOp;
    }

    @Override
    public void setKeyContextElement(StreamRecord<RowData> record) {
        // The native operator keys rows itself; Flink's key context is unused.
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        countRowIn();
        if (firesOnProcessingTime && batch().numRows() == 0) {
            registerTimer(getProcessingTimeService().getCurrentProcessingTime() + 1);
        }
        RowData row = element.getValue();
        gather(row);
        if (appended != null) {
            appended.keep(row);
        }
        if (batch().numRows() >= batchSize) {
            flush();
        }
    }

    @Override
    protected void flush() {
        int n = batch().numRows();
        if (n == 0) {
            return;
        }
        long now = Long.MIN_VALUE;
        if (firesOnProcessingTime) {
            // Stamp the batch: the native clock moves to now (emitting what fires) first.
            now = getProcessingTimeService().getCurrentProcessingTime();
            advanceProcessingTime(now);
        }
        long t0 = System.nanoTime();
        RowBlock out;
        try {
            out = nativeOp.process(batch());
        } catch (SluiceException e) {
            throw failure(e);
        }
        stateBytes = nativeOp.retainedBytes();
        countNativeCall(t0);
        batchConsumed(); // native code is done with the gathered rows
        if (appended != null) {
            countRowsOut(appended.emit(out, output, outRecord));
        } else {
            emit(out);
        }
        if (firesOnProcessingTime) {
            registerTimer(now + 1);
        }
    }

    /**
     * Flushes the buffered rows, lets the native operator fire what the
     * watermark completes (a window aggregate's ended windows, a rowtime
     * OVER's rows whose timers fire, as Flink's event-time timers would on
     * this watermark), emits those rows and then forwards the watermark, so
     * every row it fired precedes it downstream as in Flink.
     */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        if (firesOnWatermark) {
            long t0 = System.nanoTime();
            RowBlock out;
            try {
                out = nativeOp.advanceWatermark(mark.getTimestamp());
            } catch (SluiceException e) {
                throw failure(e);
            }
            stateBytes = nativeOp.retainedBytes();
            countNativeCall(t0);
            emit(out);
        }
        forwardWatermark(mark);
    }

    /**
     * @param e a native failure while processing a batch or a watermark
     * @return what to throw instead: here {@code e}; a subclass may add context (the setting to change)
     */
    protected SluiceException failure(SluiceException e) {
        return e;
    }

    private void emit(RowBlock out) {
        int m = out.numRows();
        countRowsOut(m);
        for (int i = 0; i < m; i++) {
            output.collect(outRecord.replace(out.row(i, outputArity, null)));
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        flush();
        RawKeyedState.write(context, firstKeyGroup, nativeOp.snapshotKeyGroups(firstKeyGroup, lastKeyGroup));
    }
}
