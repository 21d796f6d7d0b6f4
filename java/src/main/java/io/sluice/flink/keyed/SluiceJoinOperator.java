package io.sluice.flink.keyed;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.runtime.NativeOperator;
import io.sluice.jni.JoinNative;
import io.sluice.jni.NativeHandle;
import io.sluice.jni.RowArena;
import io.sluice.jni.RowBatch;
import io.sluice.jni.RowBlock;
import io.sluice.jni.SluiceException;

/**
 * The native updating (regular) join in place of Flink's {@code StreamingJoinOperator}: both
 * inputs keyed by their join keys with Flink's key-group assignment (the planner's
 * {@code BinaryRowData} key selectors), rows of each input batched separately and pushed to the
 * native join ({@link JoinNative}) a batch at a time.
 *
 * <p><b>Batching.</b> Each input gathers its rows (one copy per row into that input's arena, as
 * {@link io.sluice.flink.runtime.NativeBatchOperator} does) up to the batch size; a full batch is
 * pushed at once. Both inputs are flushed (left first) on every watermark, before the checkpoint
 * barrier, at the end of either input and in {@link #finish}. Rows of one input keep their order;
 * rows of the two inputs may be joined in another interleaving than they arrived in, which is one
 * Flink could have seen too (the two inputs' relative order is not defined), so the materialized
 * result equals stock Flink's.
 *
 * <p><b>State.</b> Both inputs' native state is Flink raw keyed state per key group
 * ({@link RawKeyedState}), so a restore at another parallelism moves each join key with its key
 * group.
 *
 * <p><b>Metrics</b> (counters): {@code rowsIn}, {@code rowsOut}, {@code batches},
 * {@code nativeTimeNanos}, {@code bytesCopied}, as every native operator counts them
 * ({@link NativeOperator}), and the gauge {@code stateBytes}.
 *
 * <p><b>Close order.</b> {@link NativeOperator}'s: {@link #close()} releases Flink's resources
 * and then, even if that failed, frees the native join (skipped if it was never created).
 */
public class SluiceJoinOperator extends NativeOperator
        implements TwoInputStreamOperator<RowData, RowData, RowData>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;

    private final String spec;
    private final RowType leftType;
    private final RowType rightType;
    private final int outputArity;
    private final int batchSize;
    private final long stateBudget;

    private transient JoinNative nativeJoin;
    private transient Side left;
    private transient Side right;
    private transient StreamRecord<RowData> outRecord;
    private transient int firstKeyGroup;
    private transient int lastKeyGroup;
    private transient volatile long stateBytes;

    /** One input's batch, arena and serializer. */
    private static final class Side {
        final boolean isLeft;
        final RowBatch batch;
        final RowArena arena;
        final RowDataSerializer serializer;

        Side(boolean isLeft, RowType type, int batchSize) {
            this.isLeft = isLeft;
            this.batch = new RowBatch(batchSize);
            this.arena = new RowArena(Math.max(1 << 16, batchSize * 64), type.getFieldCount());
            this.serializer = new RowDataSerializer(type);
        }
    }

    /**
     * @param spec the native join spec without {@code max_parallelism=} / {@code budget=} (added
     *     from the job)
     * @param leftType left input row type (as the native join is told it)
     * @param rightType right input row type
     * @param outputArity fields per output row
     * @param batchSize rows per native call
     * @param stateBudget native state budget in bytes over both inputs (0: none)
     */
    public SluiceJoinOperator(String spec, RowType leftType, RowType rightType, int outputArity, int batchSize,
            long stateBudget) {
        this.spec = spec;
        this.leftType = leftType;
        this.rightType = rightType;
        this.outputArity = outputArity;
        this.batchSize = Math.max(1, batchSize);
        this.stateBudget = stateBudget;
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
        KeyGroupRange range = RawKeyedState.range(info);
        firstKeyGroup = range.getStartKeyGroup();
        lastKeyGroup = range.getEndKeyGroup();
        String full = spec + " max_parallelism=" + info.getMaxNumberOfParallelSubtasks()
                + (stateBudget > 0 ? " budget=" + stateBudget : "");
        nativeJoin = JoinNative.create(full, leftType, rightType);
        if (context.isRestored()) {
            nativeJoin.restore(firstKeyGroup, lastKeyGroup, RawKeyedState.read(context));
            stateBytes = nativeJoin.retainedBytes();
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        left = new Side(true, leftType, batchSize);
        right = new Side(false, rightType, batchSize);
        outRecord = new StreamRecord<>(null);
        getMetricGroup().gauge("stateBytes", (Gauge<Long>) () -> stateBytes);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public void setKeyContextElement1(StreamRecord record) {
        // The native join keys rows itself; Flink's key context is unused.
    }

    @Override
    @SuppressWarnings("rawtypes")
    public void setKeyContextElement2(StreamRecord record) {
        // As setKeyContextElement1.
    }

    @Override
    public void processElement1(StreamRecord<RowData> element) throws Exception {
        add(left, element.getValue());
    }

    @Override
    public void processElement2(StreamRecord<RowData> element) throws Exception {
        add(right, element.getValue());
    }

    private void add(Side side, RowData row) throws Exception {
        countRowIn();
        BinaryRowData binary = row instanceof BinaryRowData ? (BinaryRowData) row : side.serializer.toBinaryRow(row);
        countCopied(side.arena.gather(binary, side.batch));
        if (side.batch.numRows() >= batchSize) {
            flush(side);
        }
    }

    /** Pushes both inputs' buffered rows, left first. */
    @Override
    protected void flush() throws Exception {
        flush(left);
        flush(right);
    }

    @Override
    protected NativeHandle nativeHandle() {
        return nativeJoin;
    }

    private void flush(Side side) throws Exception {
        int n = side.batch.numRows();
        if (n == 0) {
            return;
        }
        long t0 = System.nanoTime();
        RowBlock out;
        try {
            out = nativeJoin.process(side.isLeft, side.batch);
        } catch (SluiceException e) {
            throw StateBudget.named(e, stateBudget, spec);
        }
        stateBytes = nativeJoin.retainedBytes();
        countNativeCall(t0);
        side.batch.clear();
        side.arena.reset();
        int m = out.numRows();
        countRowsOut(m);
        for (int i = 0; i < m; i++) {
            output.collect(outRecord.replace(out.row(i, outputArity, null)));
        }
    }

    @Override
    public void endInput(int inputId) throws Exception {
        flush();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        flush();
        RawKeyedState.write(context, firstKeyGroup, nativeJoin.snapshotKeyGroups(firstKeyGroup, lastKeyGroup));
    }
}
