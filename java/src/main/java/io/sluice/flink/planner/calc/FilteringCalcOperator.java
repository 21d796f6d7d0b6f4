package io.sluice.flink.planner.calc;

import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.StreamTask;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.calc.SluiceCalcOperator;
import io.sluice.flink.compat.CalcFilterOutput;

/**
 * A {@link SluiceCalcOperator} with a native WHERE: the program computes the predicate columns
 * with the projection, and the operator's output drops each row whose predicates are not all TRUE
 * ({@link FilteringOutput}) before it leaves the operator, so the Flink Calc above sees only the
 * rows that pass.
 */
public final class FilteringCalcOperator extends SluiceCalcOperator {
    private static final long serialVersionUID = 1L;
    private final int[] filters;

    FilteringCalcOperator(RowType inputType, String[] expressions, String[] outputTypes, int batchSize,
            long maxDelayMillis, boolean utf16Strings, int[] filters) {
        super(inputType, expressions, outputTypes, batchSize, maxDelayMillis, utf16Strings);
        this.filters = filters.clone();
    }

    @Override
    public void setup(StreamTask<?, ?> containingTask, StreamConfig config, Output<StreamRecord<RowData>> output) {
        super.setup(containingTask, config, new CalcFilterOutput(output, filters));
    }
}
