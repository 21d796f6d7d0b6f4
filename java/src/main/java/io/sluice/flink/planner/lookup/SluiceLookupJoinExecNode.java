package io.sluice.flink.planner.lookup;

import org.apache.flink.api.common.functions.Function;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalLookupJoin;
import org.apache.flink.table.runtime.operators.join.lookup.LookupJoinRunner;
import org.apache.flink.table.runtime.operators.join.lookup.LookupJoinWithCalcRunner;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.lookup.SluiceLookupJoinOperator;
import io.sluice.flink.planner.PlanContext;
import io.sluice.flink.planner.SluiceExecNode;

/**
 * The ExecNode of {@link StreamPhysicalSluiceLookupJoin}. Flink's own ExecNode of the replaced
 * {@code LookupJoin} translates first, over the same input edge (already translated, so the
 * input is not built twice), which builds Flink's {@code LookupJoinRunner} exactly as stock Flink
 * does (the connector's lookup function, its cache, the generated fetcher and collector); that
 * runner goes into a {@link SluiceLookupJoinOperator}, and Flink's own transformation is left
 * unused (nothing references it, so it is not in the job graph). Anything other than a
 * {@code ProcessOperator} of a {@code LookupJoinRunner} or {@code LookupJoinWithCalcRunner} fails
 * the translation loudly: the matcher only substitutes synchronous lookups, so this would be a
 * Flink version whose lookup join sluice does not know.
 */
final class SluiceLookupJoinExecNode extends SluiceExecNode {
    private final StreamPhysicalLookupJoin lookup;

    SluiceLookupJoinExecNode(ReadableConfig config, InputProperty input, RowType outputType, String description,
            StreamPhysicalLookupJoin lookup) {
        super(config, "sluice-lookup-join_1", input, outputType, description);
        this.lookup = lookup;
    }

    @Override
    protected Transformation<RowData> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        ExecNodeBase<?> flink = (ExecNodeBase<?>) lookup.translateToExecNode();
        flink.setInputEdges(getInputEdges());
        ProcessFunction<RowData, RowData> runner = runnerOf(flink.translateToPlan(planner));
        SluiceLookupJoinOperator operator = new SluiceLookupJoinOperator(runner,
                PlanContext.nativeInput((RowType) getOutputType()), config.get(SluiceOptions.BATCH_SIZE));
        return oneInput(planner, config, "sluice-lookup-join", operator, null);
    }

    /** Flink's {@code LookupJoinRunner} inside the transformation Flink built, or a loud failure. */
    @SuppressWarnings("unchecked")
    private static ProcessFunction<RowData, RowData> runnerOf(Transformation<?> t) {
        if (t instanceof OneInputTransformation
                && ((OneInputTransformation<?, ?>) t).getOperatorFactory() instanceof SimpleOperatorFactory) {
            StreamOperator<?> op = ((SimpleOperatorFactory<?>) ((OneInputTransformation<?, ?>) t).getOperatorFactory())
                    .getOperator();
            if (op instanceof ProcessOperator) {
                Function fn = ((ProcessOperator<?, ?>) op).getUserFunction();
                if (fn.getClass() == LookupJoinRunner.class || fn.getClass() == LookupJoinWithCalcRunner.class) {
                    return (ProcessFunction<RowData, RowData>) fn;
                }
            }
        }
        throw new IllegalStateException("sluice lookup join: Flink translated the lookup join into " + t
                + ", not a ProcessOperator of a LookupJoinRunner; set sluice.operator.lookup-join.enabled=false");
    }
}
