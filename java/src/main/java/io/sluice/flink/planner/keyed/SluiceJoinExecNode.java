package io.sluice.flink.planner.keyed;

import java.util.List;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.transformations.TwoInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecEdge;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.planner.plan.utils.KeySelectorUtil;
import org.apache.flink.table.runtime.keyselector.RowDataKeySelector;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.keyed.SluiceJoinOperator;
import io.sluice.flink.planner.PlanContext;

/**
 * The ExecNode of {@link StreamPhysicalSluiceJoin}: a {@link SluiceJoinOperator} as a
 * {@link TwoInputTransformation}, each input keyed by Flink's {@code BinaryRowData} projection of
 * its join keys (the state key selectors and key type {@code StreamExecJoin} sets), at the left
 * input's parallelism, with the uid and name Flink's {@code createTransformationMeta} gives
 * ({@code sluice-join}). Batch size ({@code sluice.batch-size}) and native state budget
 * ({@code sluice.state.budget-bytes}) come from the node's configuration.
 */
public final class SluiceJoinExecNode extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {
    private static final String TRANSFORMATION = "sluice-join";

    private final int[] leftKeys;
    private final int[] rightKeys;
    private final String spec;

    SluiceJoinExecNode(ReadableConfig config, RowType outputType, String description, int[] leftKeys,
            int[] rightKeys, String spec) {
        super(ExecNodeContext.newNodeId(), new ExecNodeContext(TRANSFORMATION + "_1"), config,
                List.of(InputProperty.DEFAULT, InputProperty.DEFAULT), outputType, description);
        this.leftKeys = leftKeys;
        this.rightKeys = rightKeys;
        this.spec = spec;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Transformation<RowData> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        ExecEdge leftEdge = getInputEdges().get(0);
        ExecEdge rightEdge = getInputEdges().get(1);
        Transformation<RowData> left = (Transformation<RowData>) leftEdge.translateToPlan(planner);
        Transformation<RowData> right = (Transformation<RowData>) rightEdge.translateToPlan(planner);
        RowType leftType = (RowType) leftEdge.getOutputType();
        RowType rightType = (RowType) rightEdge.getOutputType();
        RowType out = (RowType) getOutputType();
        SluiceJoinOperator operator = new SluiceJoinOperator(spec, PlanContext.nativeInput(leftType),
                PlanContext.nativeInput(rightType), out.getFieldCount(), config.get(SluiceOptions.BATCH_SIZE),
                config.get(SluiceOptions.STATE_BUDGET));
        TwoInputTransformation<RowData, RowData, RowData> t = ExecNodeUtil.createTwoInputTransformation(left, right,
                createTransformationMeta(TRANSFORMATION, config), operator, InternalTypeInfo.of(out),
                left.getParallelism(), false);
        ClassLoader cl = planner.getFlinkContext().getClassLoader();
        RowDataKeySelector leftSelector = KeySelectorUtil.getRowDataSelector(cl, leftKeys, InternalTypeInfo.of(leftType));
        RowDataKeySelector rightSelector =
                KeySelectorUtil.getRowDataSelector(cl, rightKeys, InternalTypeInfo.of(rightType));
        t.setStateKeySelectors(leftSelector, rightSelector);
        t.setStateKeyType(leftSelector.getProducedType());
        return t;
    }
}
