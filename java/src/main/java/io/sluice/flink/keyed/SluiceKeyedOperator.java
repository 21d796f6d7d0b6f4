package io.sluice.flink.keyed;

import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.TestableKeyedStateBackend;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.jni.KeyedNative;
import io.sluice.jni.RowArena;
import io.sluice.jni.RowBatch;
import io.sluice.jni.RowBlock;

/**
 * A native keyed operator (group aggregate, changelog normalize, dedup)
 * behind Flink's keyBy on {@link KeyProjection}.
 *
 * <p>Rows are batched up to the batch size and pushed to native code on a
 * full batch, a watermark, the checkpoint barrier
 * ({@link #prepareSnapshotPreBarrier}) and end of input.
 *
 * <p>State: the native state is Flink raw keyed state, one entry per key
 * group of the subtask's range ({@code int length, bytes}; length 0: no
 * state). On restore, Flink hands each subtask exactly the key-group streams
 * of its (possibly new) range, so a restore at another parallelism moves
 * each key with its key group.
 *
 * <p>Metrics (operator group), counters: {@code rowsIn} (rows received),
 * {@code rowsOut} (changelog rows emitted), {@code batches} (native calls
 * that pushed rows), {@code nativeTimeNanos} (wall time of those calls) and
 * {@code bytesCopied}: bytes of input rows copied on the Java side before
 * the native call. Each row (a {@code BinaryRowData}, or another
 * {@code RowData} encoded by {@code RowDataSerializer.toBinaryRow}) is
 * gathered into one reusable arena per batch with one copy, and its
 * {@code getSizeInBytes()} counts; the arena goes to native code by
 * reference. Rows behind keyBy each sit in their own array, and handing those
 * over one by one ({@code -Dsluice.keyed.gather=false}) costs a JNI pin per
 * row, which measured slower than the copy (java/README.md). Native code
 * reads each row once in place and copies only what it keeps in state.
 * Gauge: {@code stateBytes} (retained native state after the last batch).
 */
public class SluiceKeyedOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private final String spec;
    private final RowType inputType;
    private final int outputArity;
    private final int batchSize;
    private final long stateBudget;

    private transient KeyedNative nativeOp;
    private transient RowBatch batch;
    private transient RowDataSerializer serializer;
    private transient StreamRecord<RowData> outRecord;
    private transient int firstKeyGroup;
    private transient int lastKeyGroup;
    private transient Counter rowsIn;
    private transient Counter rowsOut;
    private transient Counter batches;
    private transient Counter nativeTimeNanos;
    private transient Counter bytesCopied;
    private transient volatile long stateBytes;
    private transient boolean copyRows;
    /** Gather each row into {@link #arena} (default) instead of handing over its own array. */
    private transient boolean gather;
    private transient RowArena arena;

    /**
     * @param spec the native spec without {@code max_parallelism=} / {@code budget=}
     *     (added from the job)
     * @param inputType input row type
     * @param outputArity fields per output row
     * @param batchSize rows per native call
     * @param stateBudget native state budget in bytes (0: none)
     */
    public SluiceKeyedOperator(String spec, RowType inputType, int outputArity, int batchSize, long stateBudget) {
        this.spec = spec;
        this.inputType = inputType;
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
        int maxParallelism = info.getMaxNumberOfParallelSubtasks();
        KeyGroupRange range = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                maxParallelism, info.getNumberOfParallelSubtasks(), info.getIndexOfThisSubtask());
        firstKeyGroup = range.getStartKeyGroup();
        lastKeyGroup = range.getEndKeyGroup();
        String full = spec + " max_parallelism=" + maxParallelism + (stateBudget > 0 ? " budget=" + stateBudget : "");
        if (spec.startsWith("dedup ")) {
            full += " backend=" + backendKind(getKeyedStateBackend());
        } else if (spec.startsWith("normalize ")) {
            full += " equal_update_after=" + (STOCK_DROPS_EQUAL_UPDATE_AFTER ? "drop" : "emit");
        }
        nativeOp = KeyedNative.create(full, inputType);
        if (context.isRestored()) {
            List<byte[]> blobs = new ArrayList<>();
            for (KeyGroupStatePartitionStreamProvider p : context.getRawKeyedStateInputs()) {
                blobs.add(readBlob(p));
            }
            nativeOp.restore(firstKeyGroup, lastKeyGroup, blobs.toArray(new byte[0][]));
            stateBytes = nativeOp.retainedBytes();
        }
    }

    /**
     * Whether the stock ChangelogNormalize on the classpath drops a {@code +U}
     * whose fields equal the stored row: Flink 2.x compares it as a {@code +I}
     * ({@code DeduplicateFunctionHelper.areRowsWithSameContent}, seen in
     * 2.3.0); Flink 1.20's equaliser compares RowKinds, so there it answers
     * with {@code -U prev, +U cur}. Read from the runtime classes the job runs
     * with, so the native normalize matches whichever Flink is present.
     */
    static final boolean STOCK_DROPS_EQUAL_UPDATE_AFTER = hasMethod(
            "areRowsWithSameContent",
            "org.apache.flink.table.runtime.operators.deduplicate.utils.DeduplicateFunctionHelper",
            "org.apache.flink.table.runtime.operators.deduplicate.DeduplicateFunctionHelper");

    private static boolean hasMethod(String method, String... classes) {
        for (String c : classes) {
            try {
                for (java.lang.reflect.Method m : Class.forName(c, false, SluiceKeyedOperator.class.getClassLoader())
                        .getDeclaredMethods()) {
                    if (m.getName().equals(method)) {
                        return true;
                    }
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // not this line's class
            }
        }
        return false;
    }

    /**
     * Which state backend's equal-row behaviour the native keep-last dedup
     * reproduces: {@code hashmap} when the keyed state lives on the heap (the
     * stored row is the object Flink re-marks {@code +U} after emitting it,
     * so an equal row after an update is not dropped), {@code rocksdb} for
     * any serialising backend (RocksDB, ForSt). See
     * {@code StateBackendKind} in keyed/src/dedup.rs.
     */
    static String backendKind(KeyedStateBackend<?> backend) {
        KeyedStateBackend<?> b = backend;
        if (b instanceof TestableKeyedStateBackend) {
            // e.g. the changelog backend wrapping a heap or RocksDB backend
            b = ((TestableKeyedStateBackend<?>) b).getDelegatedKeyedStateBackend(true);
        }
        return b instanceof HeapKeyedStateBackend ? "hashmap" : "rocksdb";
    }

    private static byte[] readBlob(KeyGroupStatePartitionStreamProvider p) throws IOException {
        try (DataInputViewStreamWrapper in = new DataInputViewStreamWrapper(p.getStream())) {
            int len;
            try {
                len = in.readInt();
            } catch (EOFException e) {
                return new byte[0];
            }
            byte[] b = new byte[len];
            in.readFully(b);
            return b;
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        batch = new RowBatch(batchSize);
        serializer = new RowDataSerializer(inputType);
        outRecord = new StreamRecord<>(null);
        copyRows = getExecutionConfig().isObjectReuseEnabled();
        // -Dsluice.keyed.gather=false hands each row's own array to native code
        // (no Java-side copy, but a JNI pin per distinct array; diagnostic switch).
        gather = Boolean.parseBoolean(System.getProperty("sluice.keyed.gather", "true"));
        arena = new RowArena(Math.max(1 << 16, batchSize * 64), inputType.getFieldCount());
        rowsIn = getMetricGroup().counter("rowsIn");
        rowsOut = getMetricGroup().counter("rowsOut");
        batches = getMetricGroup().counter("batches");
        nativeTimeNanos = getMetricGroup().counter("nativeTimeNanos");
        bytesCopied = getMetricGroup().counter("bytesCopied");
        getMetricGroup().gauge("stateBytes", (Gauge<Long>) () -> stateBytes);
    }

    @Override
    public void setKeyContextElement(StreamRecord<RowData> record) {
        // The native operator keys rows itself; Flink's key context is unused.
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData row = element.getValue();
        rowsIn.inc();
        if (gather) {
            BinaryRowData bin = row instanceof BinaryRowData ? (BinaryRowData) row : serializer.toBinaryRow(row);
            bytesCopied.inc(arena.gather(bin, batch));
            if (batch.numRows() >= batchSize) {
                flush();
            }
            return;
        }
        BinaryRowData b;
        if (row instanceof BinaryRowData && !copyRows) {
            b = (BinaryRowData) row;
        } else {
            b = (row instanceof BinaryRowData ? (BinaryRowData) row : serializer.toBinaryRow(row)).copy();
            bytesCopied.inc(b.getSizeInBytes());
        }
        if (!batch.add(b)) {
            // not in one heap segment: copy into one
            b = b.copy();
            bytesCopied.inc(b.getSizeInBytes());
            batch.add(b);
        }
        if (batch.numRows() >= batchSize) {
            flush();
        }
    }

    private void flush() {
        int n = batch.numRows();
        if (n == 0) {
            return;
        }
        long t0 = System.nanoTime();
        RowBlock out = nativeOp.process(batch);
        stateBytes = nativeOp.retainedBytes();
        nativeTimeNanos.inc(System.nanoTime() - t0);
        batch.clear();
        arena.reset(); // native code is done with the gathered rows
        batches.inc();
        int m = out.numRows();
        rowsOut.inc(m);
        for (int i = 0; i < m; i++) {
            output.collect(outRecord.replace(out.row(i, outputArity, null)));
        }
    }

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
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        flush();
        byte[][] blobs = nativeOp.snapshotKeyGroups(firstKeyGroup, lastKeyGroup);
        KeyedStateCheckpointOutputStream out = context.getRawKeyedOperatorStateOutput();
        DataOutputViewStreamWrapper view = new DataOutputViewStreamWrapper(out);
        for (int i = 0; i < blobs.length; i++) {
            out.startNewKeyGroup(firstKeyGroup + i);
            view.writeInt(blobs[i].length);
            view.write(blobs[i]);
        }
        view.flush();
    }

    @Override
    public void endInput() {
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
            if (nativeOp != null) {
                nativeOp.close();
            }
        }
    }
}
