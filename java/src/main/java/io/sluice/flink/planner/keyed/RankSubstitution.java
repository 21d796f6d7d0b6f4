package io.sluice.flink.planner.keyed;

import java.util.List;

import org.apache.calcite.rel.RelFieldCollation;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.planner.plan.nodes.exec.spec.SortSpec;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRank;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.planner.plan.utils.RankProcessStrategy;
import org.apache.flink.table.planner.plan.utils.SortUtil;
import org.apache.flink.table.runtime.operators.rank.ConstantRankRange;
import org.apache.flink.table.runtime.operators.rank.RankType;
import org.apache.flink.table.runtime.typeutils.TypeCheckUtils;
import org.apache.flink.types.RowKind;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.planner.CostRule;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;

/**
 * A ROW_NUMBER Top-N ({@code StreamPhysicalRank} that is not a deduplication) → the native
 * {@code topn}, with the ranking function {@code StreamExecRank.translateToPlanInternal} picks on
 * both lines: {@code AppendFastStrategy} → {@code FastTop1Function} for the rank range 1..1, else
 * {@code AppendOnlyTopNFunction} ({@code strategy=append}); {@code UpdateFastStrategy} →
 * {@code FastTop1Function} for 1..1, else {@code UpdatableTopNFunction} ({@code strategy=update}
 * keyed by the strategy's primary key, {@code row_key=}); {@code RetractStrategy} →
 * {@code RetractableTopNFunction} ({@code strategy=retract}). Sort keys
 * and null order come from {@code SortUtil.getSortSpec}, as the ExecNode builds its comparator.
 * Stays stock: RANK / DENSE_RANK (Flink's {@code AbstractTopNFunction} refuses them), a variable
 * rank end, {@code AppendOnlyFirstNFunction} (a single processing-time ascending sort key),
 * FLOAT / DOUBLE sort keys (Flink's generated comparator and arrow-row order -0.0 and NaN
 * differently), an {@code UpdateFastStrategy} input that could send DELETE or UPDATE_BEFORE rows
 * (Flink's function would take them as upserts; the native one refuses them), mini-batch, state
 * TTL, and rows with more string payload columns than the work pays for
 * ({@link io.sluice.flink.planner.CostRule}).
 */
public final class RankSubstitution {
    private RankSubstitution() {}

    /**
     * @param rank the Top-N node
     * @param ctx the plan
     * @return the native node, or the reason
     */
    public static Match match(StreamPhysicalRank rank, PlanContext ctx) {
        if (rank.rankType() != RankType.ROW_NUMBER) {
            return Match.stock(rank.rankType() + ": Flink's AbstractTopNFunction supports ROW_NUMBER only");
        }
        if (!(rank.rankRange() instanceof ConstantRankRange)) {
            return Match.stock("a variable rank end (" + rank.rankRange() + "): the native topn takes a constant range");
        }
        ConstantRankRange range = (ConstantRankRange) rank.rankRange();
        String reason = KeyedChecks.options(ctx.config(), null);
        if (reason != null) {
            return Match.stock(reason);
        }
        RowType in = PlanContext.rowType(rank.getInput());
        List<RelFieldCollation> collations = rank.orderKey().getFieldCollations();
        SortSpec sort = SortUtil.getSortSpec(scala.collection.JavaConverters.asScalaBuffer(collations).toSeq());
        int[] fields = sort.getFieldIndices();
        boolean[] ascending = sort.getAscendingOrders();
        boolean[] nullsLast = sort.getNullsIsLast();
        boolean top1 = range.getRankStart() == 1 && range.getRankEnd() == 1;
        RankProcessStrategy strategy = rank.rankStrategy();
        String native_;
        String rowKey = "";
        if (strategy instanceof RankProcessStrategy.AppendFastStrategy) {
            if (fields.length == 1 && TypeCheckUtils.isProcTime(in.getTypeAt(fields[0])) && ascending[0]) {
                return Match.stock("a Top-N ordered by processing time ascending: Flink runs "
                        + "AppendOnlyFirstNFunction, which has no native counterpart");
            }
            native_ = top1 ? "top1" : "append";
        } else if (strategy instanceof RankProcessStrategy.UpdateFastStrategy) {
            ChangelogMode input = PlanContext.changelogMode(rank.getInput());
            if (input == null || input.contains(RowKind.DELETE) || input.contains(RowKind.UPDATE_BEFORE)) {
                return Match.stock("UpdateFastStrategy over an input that may send DELETE or UPDATE_BEFORE ("
                        + input + "): Flink's ranker takes them as upserts, the native one refuses them");
            }
            if (top1) {
                native_ = "top1";
            } else {
                native_ = "update";
                rowKey = " row_key=" + KeyedSpecs.list(((RankProcessStrategy.UpdateFastStrategy) strategy)
                        .getPrimaryKeys());
            }
        } else if (strategy instanceof RankProcessStrategy.RetractStrategy) {
            native_ = "retract";
        } else {
            return Match.stock("rank strategy " + strategy + " is not one the native topn reproduces");
        }
        StringBuilder order = new StringBuilder();
        for (int i = 0; i < fields.length; i++) {
            LogicalType t = in.getTypeAt(fields[i]);
            if (t.getTypeRoot() == LogicalTypeRoot.FLOAT || t.getTypeRoot() == LogicalTypeRoot.DOUBLE) {
                return Match.stock("ORDER BY a " + t.asSummaryString() + " column: Flink's comparator and the "
                        + "native sort keys order -0.0 and NaN differently");
            }
            order.append(i == 0 ? "" : ",").append(fields[i]).append(ascending[i] ? ":asc" : ":desc")
                    .append(nullsLast[i] ? ":nulls_last" : ":nulls_first");
        }
        int[] keys = rank.partitionKey().toArray();
        reason = CostRule.decline(ctx, CostRule.payload(in, keys, fields), CostRule.Work.RANK);
        if (reason != null) {
            return Match.stock(reason);
        }
        String spec = "topn keys=" + KeyedSpecs.list(keys) + " order=" + order
                + " strategy=" + native_ + rowKey + " rank_start=" + range.getRankStart()
                + " rank_end=" + range.getRankEnd()
                + " rank_number=" + rank.outputRankNumber()
                + " update_before=" + ChangelogPlanUtils.generateUpdateBefore(rank);
        reason = KeyedChecks.probe(spec, in, PlanContext.rowType(rank));
        if (reason != null) {
            return Match.stock(reason);
        }
        return Match.replace(new StreamPhysicalSluiceKeyed(rank.getCluster(), rank.getTraitSet(), rank.getInput(),
                rank.getRowType(), KeyedKind.RANK, keys, spec));
    }
}
