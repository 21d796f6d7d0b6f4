package io.sluice.flink.planner.keyed;

import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalChangelogNormalize;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.compat.KeyedPlannerCompat;
import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.planner.CostRule;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;

/**
 * {@code StreamPhysicalChangelogNormalize} (an upsert or duplicate-carrying changelog by its
 * primary key → a full changelog) → the native {@code normalize}, as
 * {@code StreamExecChangelogNormalize} runs it without mini-batch and TTL
 * ({@code ProcTimeDeduplicateKeepLastRowFunction} with {@code generateInsert} on a changelog
 * input); {@code generateUpdateBefore} is the node's. How an equal {@code +U} is answered differs
 * per line and is chosen at run time (see {@code SluiceKeyedOperator}). Rows with more string payload
 * columns than the work pays for stay stock ({@link io.sluice.flink.planner.CostRule}).
 */
public final class ChangelogNormalizeSubstitution {
    private ChangelogNormalizeSubstitution() {}

    /**
     * @param node the node
     * @param ctx the plan
     * @return the native node, or the reason
     */
    public static Match match(StreamPhysicalChangelogNormalize node, PlanContext ctx) {
        String reason = KeyedPlannerCompat.normalizeUnsupported(node);
        if (reason == null) {
            reason = KeyedChecks.options(ctx.config(), null);
        }
        if (reason != null) {
            return Match.stock(reason);
        }
        RowType in = PlanContext.rowType(node.getInput());
        int[] keys = node.uniqueKeys();
        reason = CostRule.decline(ctx, CostRule.payload(in, keys), CostRule.Work.CHANGELOG_NORMALIZE);
        if (reason != null) {
            return Match.stock(reason);
        }
        String spec = "normalize keys=" + KeyedSpecs.list(keys) + " update_before="
                + ChangelogPlanUtils.generateUpdateBefore(node);
        reason = KeyedChecks.probe(spec, in, PlanContext.rowType(node));
        if (reason != null) {
            return Match.stock(reason);
        }
        return Match.replace(new StreamPhysicalSluiceKeyed(node.getCluster(), node.getTraitSet(), node.getInput(),
                node.getRowType(), KeyedKind.CHANGELOG_NORMALIZE, keys, spec));
    }
}
