package io.sluice.flink.planner;

import java.util.Collections;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
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

/**
 * Base of sluice's one-input ExecNodes: {@code RowData} in, {@code RowData} out, the operator put
 * straight into the job graph as a {@link OneInputTransformation} with Flink's ExecNode
 * metadata: the transformation's uid, name and description come from
 * {@code createTransformationMeta} exactly as for Flink's own ExecNodes
 * ({@code table.exec.uid.generation}, {@code table.exec.uid.format}), so a savepoint of a sluice
 * plan maps its operator state by the same rules; the parallelism is the input's, as Flink's Calc
 * and (behind their hash exchange) keyed nodes have it.
 */
public abstract class SluiceExecNode extends ExecNodeBase<RowData>
        implements StreamExecNode<RowData>, SingleTransformationTranslator<RowData> {

    /**
     * @param config the table configuration persisted with the node
     * @param type the node type and version, e.g. {@code sluice-calc_1}
     * @param input the input's required property ({@link InputProperty#DEFAULT}, keyed nodes too:
     *     their hash exchange is Flink's own Exchange node below them)
     * @param outputType the output row type
     * @param description the plan's description of the node
     */
    protected SluiceExecNode(ReadableConfig config, String type, InputProperty input, RowType outputType,
            String description) {
        super(ExecNodeContext.newNodeId(), new ExecNodeContext(type), config, Collections.singletonList(input),
                outputType, description);
    }

    /**
     * Translates the input and appends {@code operator}.
     *
     * @param planner the planner translating the plan
     * @param config the node's configuration
     * @param transformation the operator's short name in the uid and job graph, e.g. {@code sluice-calc}
     * @param operator the operator
     * @param keyFields for a keyed operator the key columns of the input (state is keyed by
     *     Flink's {@code BinaryRowData} projection of them, so key groups equal Flink's); null for
     *     a stateless one
     * @return the transformation
     */
    @SuppressWarnings("unchecked")
    protected final Transformation<RowData> oneInput(PlannerBase planner, ExecNodeConfig config,
            String transformation, OneInputStreamOperator<RowData, RowData> operator, int[] keyFields) {
        ExecEdge edge = getInputEdges().get(0);
        Transformation<RowData> input = (Transformation<RowData>) edge.translateToPlan(planner);
        OneInputTransformation<RowData, RowData> t = ExecNodeUtil.createOneInputTransformation(input,
                createTransformationMeta(transformation, config), operator,
                InternalTypeInfo.of((RowType) getOutputType()), input.getParallelism(), false);
        if (keyFields != null) {
            RowDataKeySelector keys = KeySelectorUtil.getRowDataSelector(planner.getFlinkContext().getClassLoader(),
                    keyFields, InternalTypeInfo.of((RowType) edge.getOutputType()));
            t.setStateKeySelector(keys);
            t.setStateKeyType(keys.getProducedType());
        }
        return t;
    }

    /** @return the input's row type */
    protected final RowType inputType() {
        return (RowType) getInputEdges().get(0).getOutputType();
    }
}
