package io.sluice.flink.compat;

import org.apache.calcite.rel.RelNode;
import org.apache.flink.table.planner.plan.trait.DeleteKind;
import org.apache.flink.table.planner.plan.trait.DeleteKindTrait;
import org.apache.flink.table.planner.plan.trait.DeleteKindTraitDef;

/** Planner-stage adapter over the planner APIs that differ per line (flink-2). */
public final class PlannerCompat {
    private PlannerCompat() {}

    /**
     * Traits of {@code node} no sluice node handles yet. Flink 2.x: a node that forwards
     * DELETE_BY_KEY changes (DeleteKindTrait, from 2.1 on) may see delete rows that carry only
     * their key columns; Flink's Calc then writes typed NULLs for the rest
     * (StreamPhysicalCalc.partialDeleteKeys), so such nodes stay stock.
     *
     * @param node a stream physical node
     * @return the reason, or null when its traits are supported
     */
    public static String unsupportedTraits(RelNode node) {
        DeleteKindTrait t = node.getTraitSet().getTrait(DeleteKindTraitDef.INSTANCE());
        if (t != null && t.deleteKind() == DeleteKind.DELETE_BY_KEY) {
            return "changelog mode: deletes by key (DELETE_BY_KEY) are not supported";
        }
        return null;
    }
    /**
     * Flink 2.x: a lookup join whose lookup keys are shuffled to the lookup subtasks first
     * ({@code LOOKUP('shuffle'='true')}, CommonPhysicalLookupJoin.enableLookupShuffle) changes its
     * input's distribution in Flink's ExecNode; sluice's node keeps the input as it is.
     *
     * @param join a StreamPhysicalLookupJoin
     * @return whether it shuffles its input by the lookup keys
     */
    public static boolean lookupShuffle(org.apache.flink.table.planner.plan.nodes.physical.common.CommonPhysicalLookupJoin join) {
        return join.enableLookupShuffle();
    }
}
