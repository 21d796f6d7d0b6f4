package io.sluice.flink.compat;

import org.apache.calcite.rel.RelNode;

/** Planner-stage adapter over the planner APIs that differ per line (flink-1.20). */
public final class PlannerCompat {
    private PlannerCompat() {}

    /**
     * Traits of {@code node} no sluice node handles yet. Flink 1.20 has no trait sluice refuses
     * (deletes always carry the full row; the 2.x tree checks DELETE_BY_KEY).
     *
     * @param node a stream physical node
     * @return null
     */
    public static String unsupportedTraits(RelNode node) {
        return null;
    }
    /**
     * Flink 1.20 has no lookup shuffle (the 2.x tree checks {@code enableLookupShuffle}).
     *
     * @param join a StreamPhysicalLookupJoin
     * @return false
     */
    public static boolean lookupShuffle(org.apache.flink.table.planner.plan.nodes.physical.common.CommonPhysicalLookupJoin join) {
        return false;
    }
}
