package io.sluice.flink.compat;

import org.apache.calcite.rel.RelNode;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalChangelogNormalize;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRank;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.planner.plan.utils.RankUtil;

/**
 * The keyed substitutions' view of the planner nodes that differ per line (flink-2): Flink 2.x
 * keeps {@code ROW_NUMBER() OVER (PARTITION BY k ORDER BY time) = 1} a {@code StreamPhysicalRank}
 * and turns it into {@code StreamExecDeduplicate} when {@code RankUtil.canConvertToDeduplicate}
 * holds ({@code StreamPhysicalRank.translateToExecNode}); its ChangelogNormalize may carry a
 * filter pushed into it ({@code PushCalcPastChangelogNormalizeRule}).
 */
public final class KeyedPlannerCompat {
    private KeyedPlannerCompat() {}

    /** @return the physical node class a deduplication is planned as */
    public static Class<? extends RelNode> deduplicateNode() {
        return StreamPhysicalRank.class;
    }

    /**
     * @param node a node of {@link #deduplicateNode()}'s class
     * @return its deduplication, or null for a Rank that is a Top-N
     */
    public static DedupShape deduplicate(RelNode node) {
        StreamPhysicalRank rank = (StreamPhysicalRank) node;
        if (!RankUtil.canConvertToDeduplicate(rank)) {
            return null;
        }
        boolean keepLast = RankUtil.keepLastDeduplicateRow(rank.orderKey());
        boolean rowtime = rank.sortOnRowTime();
        String unsupported = null;
        if (rowtime && !keepLast && ChangelogPlanUtils.isInsertOnly(rank)) {
            // StreamExecDeduplicate: RowTimeDeduplicateKeepFirstRowFunction holds each key's
            // earliest row until the watermark passes it and then emits it once
            unsupported = "rowtime keep-first deduplication with an insert-only output: Flink 2.x emits each key's row "
                    + "when the watermark passes it (RowTimeDeduplicateKeepFirstRowFunction); the native dedup emits "
                    + "on arrival";
        }
        return new DedupShape(rank.partitionKey().toArray(), rowtime, keepLast, unsupported);
    }

    /**
     * @param node a ChangelogNormalize
     * @return why this line's node cannot run natively, or null
     */
    public static String normalizeUnsupported(StreamPhysicalChangelogNormalize node) {
        if (node.filterCondition() != null) {
            return "ChangelogNormalize with a filter pushed into it (" + node.filterCondition()
                    + "): the native normalize has no filter";
        }
        return null;
    }

    /**
     * @param node a Rank node
     * @return whether it runs as a Top-N ({@code StreamExecRank}) rather than a deduplication
     */
    public static boolean isTopN(RelNode node) {
        return node instanceof StreamPhysicalRank && !RankUtil.canConvertToDeduplicate((StreamPhysicalRank) node);
    }
}
