package io.sluice.flink.planner.lookup;

import java.util.List;

import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalLookupJoin;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import io.sluice.flink.planner.PlanContext;
import io.sluice.flink.planner.SluicePhysicalRel;

/**
 * sluice's lookup join in the physical plan, in place of Flink's {@code LookupJoin}: the same
 * input, row type and traits, and the Flink node it replaces, kept whole: its ExecNode builds
 * Flink's lookup function runner (generated fetcher, lookup cache, join collector) exactly as
 * Flink would, and {@link SluiceLookupJoinExecNode} runs that runner inside sluice's operator.
 * Plan text: {@code SluiceLookupJoin(...)} with Flink's node description as its term.
 */
public final class StreamPhysicalSluiceLookupJoin extends SluicePhysicalRel {
    private final StreamPhysicalLookupJoin lookup;

    /**
     * @param lookup Flink's node (its input already rewritten)
     */
    StreamPhysicalSluiceLookupJoin(StreamPhysicalLookupJoin lookup) {
        super(lookup.getCluster(), lookup.getTraitSet(), lookup.getInput(), lookup.getRowType());
        this.lookup = lookup;
    }

    @Override
    public String flinkNode() {
        return "LookupJoin";
    }

    @Override
    public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
        return new StreamPhysicalSluiceLookupJoin(
                (StreamPhysicalLookupJoin) lookup.copy(traitSet, inputs));
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        return super.explainTerms(pw).item("lookup", lookup.getRelDetailedDescription());
    }

    @Override
    public ExecNode<?> translateToExecNode() {
        return new SluiceLookupJoinExecNode(ShortcutUtils.unwrapTableConfig(this), InputProperty.DEFAULT,
                PlanContext.rowType(this), getRelDetailedDescription(), lookup);
    }
}
