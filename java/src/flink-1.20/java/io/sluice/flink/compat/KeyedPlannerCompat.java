package io.sluice.flink.compat;

import org.apache.calcite.rel.RelNode;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalChangelogNormalize;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalDeduplicate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRank;

/**
 * The keyed substitutions' view of the planner nodes that differ per line (flink-1.20): Flink
 * 1.20 plans {@code ROW_NUMBER() OVER (PARTITION BY k ORDER BY time) = 1} as its own node,
 * {@code StreamPhysicalDeduplicate} (turned into {@code StreamExecDeduplicate}), and its
 * ChangelogNormalize carries no filter.
 */
public final class KeyedPlannerCompat {
    private KeyedPlannerCompat() {}

    /** @return the physical node class a deduplication is planned as */
    public static Class<? extends RelNode> deduplicateNode() {
        return StreamPhysicalDeduplicate.class;
    }

    /**
     * @param node a node of {@link #deduplicateNode()}'s class
     * @return its deduplication (keys, time order, which row is kept)
     */
    public static DedupShape deduplicate(RelNode node) {
        StreamPhysicalDeduplicate d = (StreamPhysicalDeduplicate) node;
        return new DedupShape(d.getUniqueKeys(), d.isRowtime(), d.keepLastRow(), null);
    }

    /**
     * @param node a ChangelogNormalize
     * @return why this line's node cannot run natively, or null (1.20: always null)
     */
    public static String normalizeUnsupported(StreamPhysicalChangelogNormalize node) {
        return null;
    }

    /**
     * @param node a Rank node
     * @return whether it runs as a Top-N ({@code StreamExecRank}) rather than a deduplication
     */
    public static boolean isTopN(RelNode node) {
        return node instanceof StreamPhysicalRank;
    }
}
