package io.sluice.flink.planner.calc;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.calc.SluiceCalcOperator;
import io.sluice.flink.planner.SluiceExecNode;

/**
 * The ExecNode of {@link StreamPhysicalSluiceCalc}: a {@link SluiceCalcOperator} (with its native
 * WHERE's filter columns, which it evaluates before the projections) on the input's
 * {@code RowData}, chained to it, with the batch options of the query's configuration
 * ({@code sluice.batch-size}, {@code sluice.batch.max-delay}, {@code sluice.calc.utf16-strings}).
 */
final class SluiceCalcExecNode extends SluiceExecNode {
    private final String[] expressions;
    private final String[] outputTypes;
    private final int[] filters;

    SluiceCalcExecNode(ReadableConfig config, InputProperty input, RowType outputType, String description,
            String[] expressions, String[] outputTypes, int[] filters) {
        super(config, "sluice-calc_1", input, outputType, description);
        this.expressions = expressions;
        this.outputTypes = outputTypes;
        this.filters = filters;
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        int batch = config.get(SluiceOptions.BATCH_SIZE);
        long delay = config.get(SluiceOptions.BATCH_MAX_DELAY).toMillis();
        boolean utf16 = config.get(SluiceOptions.CALC_UTF16_STRINGS);
        SluiceCalcOperator op = new SluiceCalcOperator(inputType(), expressions, outputTypes, batch, delay, utf16,
                config.get(SluiceOptions.CALC_COLUMN_HANDOVER), filters);
        return oneInput(planner, config, "sluice-calc", op, null);
    }
}
