package io.sluice.flink.planner.keyed;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.SingleRel;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRel;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.runtime.typeutils.TypeCheckUtils;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.compat.DedupShape;
import io.sluice.flink.compat.KeyedPlannerCompat;
import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.planner.CostRule;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;

/**
 * {@code ROW_NUMBER() OVER (PARTITION BY k ORDER BY time ASC|DESC) = 1} → the native
 * {@code dedup}, as {@code StreamExecDeduplicate} plans it without mini-batch and TTL:
 * processing time keep-first ({@code ProcTimeDeduplicateKeepFirstRowFunction}) and keep-last
 * ({@code ProcTimeDeduplicateKeepLastRowFunction}); event time
 * ({@code RowTimeDeduplicateFunction}) ordered by the input's first rowtime attribute, as the
 * ExecNode picks it. {@code generateInsert} is
 * {@code table.exec.deduplicate.insert-update-after-sensitive-enabled}, {@code generateUpdateBefore}
 * the node's. The node class differs per line ({@link KeyedPlannerCompat#deduplicateNode()}). Rows with
 * more string payload columns than the work pays for stay stock ({@link io.sluice.flink.planner.CostRule}).
 */
public final class DeduplicateSubstitution {
    private DeduplicateSubstitution() {}

    /**
     * @param node the node (a 2.x Rank that is a Top-N is answered with a reason)
     * @param ctx the plan
     * @return the native node, or the reason
     */
    public static Match match(RelNode node, PlanContext ctx) {
        DedupShape d = KeyedPlannerCompat.deduplicate(node);
        if (d == null) {
            return Match.stock("a Top-N rank, not ROW_NUMBER() = 1 deduplication (RankSubstitution owns those)");
        }
        if (d.unsupported() != null) {
            return Match.stock(d.unsupported());
        }
        String reason = KeyedChecks.options(ctx.config(), null);
        if (reason != null) {
            return Match.stock(reason);
        }
        RelNode input = ((SingleRel) node).getInput();
        RowType in = PlanContext.rowType(input);
        String order = "proctime";
        if (d.rowtime()) {
            int rowtime = -1;
            for (int i = 0; i < in.getFieldCount() && rowtime < 0; i++) {
                if (TypeCheckUtils.isRowTime(in.getTypeAt(i))) {
                    rowtime = i;
                }
            }
            if (rowtime < 0) {
                return Match.stock("rowtime deduplication without a rowtime attribute in its input");
            }
            order = "rowtime(" + rowtime + ")";
        }
        // the order column is a time attribute, never a string
        reason = CostRule.decline(ctx, CostRule.payload(in, d.keys()), d.keepLast() && !d.rowtime()
                ? CostRule.Work.DEDUPLICATE_KEEP_LAST_PROCTIME : CostRule.Work.DEDUPLICATE);
        if (reason != null) {
            return Match.stock(reason);
        }
        String spec = "dedup keys=" + KeyedSpecs.list(d.keys()) + " keep=" + (d.keepLast() ? "last" : "first")
                + " order=" + order
                + " insert=" + ctx.config().get(ExecutionConfigOptions.TABLE_EXEC_DEDUPLICATE_INSERT_UPDATE_AFTER_SENSITIVE_ENABLED)
                + " update_before=" + ChangelogPlanUtils.generateUpdateBefore((StreamPhysicalRel) node);
        reason = KeyedChecks.probe(spec, in, PlanContext.rowType(node));
        if (reason != null) {
            return Match.stock(reason);
        }
        return Match.replace(new StreamPhysicalSluiceKeyed(node.getCluster(), node.getTraitSet(), input,
                node.getRowType(), KeyedKind.DEDUPLICATE, d.keys(), spec));
    }
}
