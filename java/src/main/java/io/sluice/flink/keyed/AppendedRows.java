package io.sluice.flink.keyed;

import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.types.RowKind;

import io.sluice.jni.RowBlock;

/**
 * The pass-through output of a native operator in appended-columns mode
 * ({@link io.sluice.jni.KeyedNative#appendOnly()}: a proctime ROWS / RANGE UNBOUNDED PRECEDING
 * OVER): the operator keeps each input {@code RowData} of the batch ({@link #keep}), native code
 * returns only the aggregate values, one row per input row in input order, and each output row
 * is a {@link JoinedRowData} of the kept input row and its aggregate row, as Flink's
 * {@code ProcTimeUnboundedPrecedingFunction} emits {@code output.replace(input, aggValue)}. The
 * input columns are neither decoded into the native batch (beyond what the aggregates read) nor
 * rebuilt on the way out.
 *
 * <p><b>Why keeping the input objects is safe.</b> Only with object reuse off (the caller checks
 * {@code ExecutionConfig.isObjectReuseEnabled()}): a record from the network comes from
 * {@code AbstractStreamTaskNetworkInput}'s {@code NonReusingDeserializationDelegate}, and
 * {@code BinaryRowDataSerializer.deserialize(DataInputView)} builds a new row over a new array
 * for each record; a chained upstream hands over {@code CopyingChainingOutput}'s
 * {@code serializer.copy(record)}, a fresh copy, unless object reuse is on (then
 * {@code ChainingOutput} passes the upstream's own, possibly reused, object). So no upstream
 * writes into a kept row after handing it over; the kept rows are dropped after their batch.
 *
 * <p><b>Why reusing the output objects is safe.</b> As stock does (one {@code JoinedRowData} for
 * all its output): a network output ({@code RecordWriterOutput}) serializes the record in
 * {@code collect}, a chained downstream gets a copy ({@code CopyingChainingOutput}) with object
 * reuse off, and with it on a downstream operator may not keep its input across calls. The
 * aggregate row points into the call's own {@link RowBlock}, a new array per native call.
 */
final class AppendedRows {
    private final int aggArity;
    private final JoinedRowData joined = new JoinedRowData();
    private final BinaryRowData aggRow;
    private RowData[] inputs;
    private int numInputs;

    /**
     * @param aggArity fields per appended (aggregate) row
     * @param capacity expected rows per batch
     */
    AppendedRows(int aggArity, int capacity) {
        this.aggArity = aggArity;
        this.aggRow = new BinaryRowData(aggArity);
        this.inputs = new RowData[Math.max(1, capacity)];
        joined.setRowKind(RowKind.INSERT); // OVER emits +I only, as JoinedRowData's default
    }

    /** @param row an input row of the batch being gathered (a fresh object: see the class docs) */
    void keep(RowData row) {
        if (numInputs == inputs.length) {
            inputs = java.util.Arrays.copyOf(inputs, inputs.length * 2);
        }
        inputs[numInputs++] = row;
    }

    /**
     * Emits each kept row joined with its appended row, then forgets the kept rows.
     *
     * @param appended the native result: one row per kept row, in order
     * @param output where to emit
     * @param record the reused output record
     * @return rows emitted
     * @throws IllegalStateException when the native result does not have one row per kept row
     */
    int emit(RowBlock appended, Output<StreamRecord<RowData>> output, StreamRecord<RowData> record) {
        int m = appended.numRows();
        if (m != numInputs) {
            throw new IllegalStateException("appended-columns output: " + m + " rows for " + numInputs + " input rows");
        }
        for (int i = 0; i < m; i++) {
            joined.replace(inputs[i], appended.row(i, aggArity, aggRow));
            output.collect(record.replace(joined));
        }
        java.util.Arrays.fill(inputs, 0, numInputs, null);
        numInputs = 0;
        return m;
    }
}
