package io.sluice.flink.planner.keyed;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.planner.PlanContext;
import io.sluice.flink.planner.SluiceExecNode;

/**
 * The ExecNode of {@link StreamPhysicalSluiceKeyed}: a {@link BudgetedKeyedOperator} running the
 * native spec, keyed by Flink's {@code BinaryRowData} projection of the key columns (the state key
 * selector and type Flink's own keyed ExecNodes set), at the input's parallelism, with the uid and
 * name Flink's {@code createTransformationMeta} gives. Batch size ({@code sluice.batch-size}) and
 * native state budget ({@code sluice.state.budget-bytes}) come from the node's configuration.
 */
public final class SluiceKeyedExecNode extends SluiceExecNode {
    private final KeyedKind kind;
    private final int[] keys;
    private final String spec;

    SluiceKeyedExecNode(ReadableConfig config, KeyedKind kind, InputProperty input, RowType outputType,
            String description, int[] keys, String spec) {
        super(config, kind.execNodeType(), input, outputType, description);
        this.kind = kind;
        this.keys = keys;
        this.spec = spec;
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        RowType out = (RowType) getOutputType();
        BudgetedKeyedOperator operator = new BudgetedKeyedOperator(spec, PlanContext.nativeInput(inputType()), out.getFieldCount(),
                config.get(SluiceOptions.BATCH_SIZE), config.get(SluiceOptions.STATE_BUDGET));
        return oneInput(planner, config, kind.transformation(), operator, keys);
    }
}
