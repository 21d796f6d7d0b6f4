package io.sluice.flink.lookup;

import java.util.List;

import org.apache.flink.api.common.functions.DefaultOpenContext;
import org.apache.flink.api.common.functions.util.FunctionUtils;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import io.sluice.flink.runtime.NativeOperator;
import io.sluice.jni.CalcNative;
import io.sluice.jni.ColumnBatch;
import io.sluice.jni.NativeHandle;
import io.sluice.jni.RowBlock;

/**
 * The lookup join in place of Flink's {@code ProcessOperator(LookupJoinRunner)}: Flink's own
 * runner (its generated fetcher, the connector's {@code LookupFunction} / {@code TableFunction},
 * the lookup cache when the connector has one, Flink's join collector and LEFT padding) runs
 * unchanged, per probe row; what changes is where its joined rows go. Flink's runner hands each
 * joined row (a {@code JoinedRowData} over the probe row and the row the lookup function
 * collected) to the next operator, which copies it field by field when object reuse is off; here
 * the collector writes the row's fields straight into the column arrays of a {@link ColumnBatch}
 * at collect time, while the runner's reused row objects are still valid (no
 * {@code RowDataSerializer.copy}, no intermediate list), and a batch at a time native code
 * ({@link CalcNative}'s column handover with an identity program) builds the output
 * {@code BinaryRowData} rows, in the order Flink emitted them: probe rows in arrival order, each
 * one's looked-up rows in the order the lookup function collected them, the NULL-padded row of a
 * LEFT join's miss where Flink pads it.
 *
 * <p>No state: the join keeps none (the lookup cache lives in the function, as in Flink). Rows
 * are buffered up to {@code batchSize} output rows and flushed before a watermark or a checkpoint
 * barrier, at the end of input and in {@code finish} ({@link NativeOperator}).
 */
public class SluiceLookupJoinOperator extends NativeOperator
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private final ProcessFunction<RowData, RowData> runner;
    private final RowType outputType;
    private final int batchSize;

    private transient CalcNative rows;
    private transient ColumnBatch columns;
    private transient StreamRecord<RowData> outRecord;
    private transient BinaryRowData outRow;
    private transient Collector<RowData> into;
    private transient ProcessFunction<RowData, RowData>.Context context;

    /**
     * @param runner Flink's lookup join function (the {@code LookupJoinRunner} its planner built)
     * @param outputType the joined row type, as native code is told it (a processing-time
     *     attribute nullable: its slot holds NULL)
     * @param batchSize output rows per native call
     */
    public SluiceLookupJoinOperator(ProcessFunction<RowData, RowData> runner, RowType outputType, int batchSize) {
        this.runner = runner;
        this.outputType = outputType;
        this.batchSize = Math.max(1, batchSize);
    }

    /**
     * The identity program over {@code type}: its column kinds say whether every field can be
     * collected into columns (the planner asks before substituting).
     *
     * @param type the joined row type
     * @return the program (the caller closes it)
     */
    public static CalcNative identity(RowType type) {
        int n = type.getFieldCount();
        String[] names = new String[n];
        String[] types = new String[n];
        String[] exprs = new String[n];
        List<RowType.RowField> fields = type.getFields();
        for (int i = 0; i < n; i++) {
            names[i] = "f" + i;
            types[i] = fields.get(i).getType().asSerializableString();
            exprs[i] = "$" + i;
        }
        return new CalcNative(names, types, exprs, types);
    }

    @Override
    public void open() throws Exception {
        super.open();
        FunctionUtils.setFunctionRuntimeContext(runner, getRuntimeContext());
        FunctionUtils.openFunction(runner, DefaultOpenContext.INSTANCE);
        rows = identity(outputType);
        columns = ColumnBatch.forColumnKinds(rows.columnKinds(), batchSize + 16);
        if (columns == null) {
            throw new IllegalStateException("sluice lookup join: a column of " + outputType
                    + " cannot be handed over as a column (the planner should have kept the join stock)");
        }
        outRecord = new StreamRecord<>(null);
        outRow = new BinaryRowData(outputType.getFieldCount());
        into = new Collector<>() {
            @Override
            public void collect(RowData joined) {
                countCopied(columns.add(joined));
            }

            @Override
            public void close() {}
        };
        context = runner.new Context() {
            @Override
            public Long timestamp() {
                return null;
            }

            @Override
            public TimerService timerService() {
                throw new UnsupportedOperationException("the lookup join uses no timers");
            }

            @Override
            public <X> void output(OutputTag<X> tag, X value) {
                throw new UnsupportedOperationException("the lookup join has no side output");
            }
        };
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        countRowIn();
        runner.processElement(element.getValue(), context, into);
        if (columns.numRows() >= batchSize) {
            flush();
        }
    }

    @Override
    protected void flush() throws Exception {
        int n = columns.numRows();
        if (n == 0) {
            return;
        }
        long t0 = System.nanoTime();
        RowBlock out = rows.processColumns(columns);
        countNativeCall(t0);
        columns.clear();
        int m = out.numRows();
        countRowsOut(m);
        // One output row object re-pointed per row, as Flink's runner reuses its JoinedRowData.
        for (int i = 0; i < m; i++) {
            output.collect(outRecord.replace(out.row(i, outRow.getArity(), outRow)));
        }
    }

    @Override
    public void endInput() throws Exception {
        flush();
    }

    @Override
    protected NativeHandle nativeHandle() {
        return rows;
    }

    @Override
    public void close() throws Exception {
        try {
            FunctionUtils.closeFunction(runner);
        } finally {
            super.close();
        }
    }
}
