package io.sluice.flink.planner.keyed;

import java.util.ArrayList;
import java.util.List;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.planner.hint.StateTtlHint;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalGroupAggregate;
import org.apache.flink.table.planner.plan.utils.AggregateUtil;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;

/**
 * {@code StreamPhysicalGroupAggregate} → the native {@code group_agg}, with the changelog Flink's
 * {@code StreamExecGroupAggregate} / {@code GroupAggFunction} produces: retracting input when the
 * node's input is not insert-only ({@code needRetraction}), {@code -U} rows when the node must
 * generate UPDATE_BEFORE ({@code ChangelogPlanUtils.generateUpdateBefore}).
 *
 * <p>Aggregates, as the native side has them (keyed/src/agg.rs) with Flink's result types:
 * {@code COUNT(*)}; {@code COUNT(c)} (a NOT NULL {@code c} of any type counts as {@code COUNT(*)},
 * a nullable one must be BIGINT, DOUBLE or a character string); {@code SUM}, {@code $SUM0} (the planner's
 * SUM that is 0 over no values, e.g. from reducing {@code AVG}), {@code AVG} over BIGINT (BIGINT
 * result, wrapping sum, truncating average) and DOUBLE; {@code MIN}, {@code MAX}
 * over BIGINT, character strings and, when Flink uses the retracting function for the call,
 * DOUBLE; {@code FIRST_VALUE}, {@code LAST_VALUE} over BIGINT, DOUBLE, character strings;
 * {@code MIN}/{@code MAX(DISTINCT c)} as their plain forms (the extreme ignores multiplicity); the
 * other calls with {@code DISTINCT} over BIGINT, DOUBLE or character strings ({@code :distinct}, a
 * per-group value → count map in front of the accumulator, as Flink's {@code DistinctAggCodeGen});
 * {@code FILTER (WHERE …)} on any of these ({@code :filter(col)}: Flink's planner has already put the
 * condition into a BOOLEAN input column, the call's {@code filterArg}).
 * Everything else stays stock with the reason: other functions ({@code LISTAGG}, {@code STDDEV},
 * …), {@code DISTINCT} over other types, other argument types (Flink's
 * {@code SUM(INT)} is INT with int overflow, which a BIGINT sum does not reproduce).
 */
public final class GroupAggregateSubstitution {
    private GroupAggregateSubstitution() {}

    /**
     * @param agg the node
     * @param ctx the plan
     * @return the native node, or the reason
     */
    public static Match match(StreamPhysicalGroupAggregate agg, PlanContext ctx) {
        String reason = KeyedChecks.options(ctx.config(), StateTtlHint.getStateTtlFromHintOnSingleRel(agg.hints()));
        if (reason != null) {
            return Match.stock(reason);
        }
        RowType in = PlanContext.rowType(agg.getInput());
        List<AggregateCall> calls = scala.collection.JavaConverters.seqAsJavaList(agg.aggCalls());
        boolean[] callRetracts = AggregateUtil.deriveAggCallNeedRetractions(agg, agg.grouping().length, agg.aggCalls());
        List<String> aggs = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            String a = aggregate(calls.get(i), in, callRetracts[i]);
            if (a.startsWith("!")) {
                return Match.stock(a.substring(1));
            }
            aggs.add(a);
        }
        if (aggs.isEmpty()) {
            return Match.stock("GROUP BY without aggregates (SELECT DISTINCT): the native group_agg needs an aggregate");
        }
        boolean retracting = !ChangelogPlanUtils.inputInsertOnly(agg);
        String spec = "group_agg keys=" + KeyedSpecs.list(agg.grouping()) + " aggs=" + String.join(",", aggs)
                + " retractable=" + retracting + " update_before=" + ChangelogPlanUtils.generateUpdateBefore(agg);
        reason = KeyedChecks.probe(spec, in, PlanContext.rowType(agg));
        if (reason != null) {
            return Match.stock(reason);
        }
        return Match.replace(new StreamPhysicalSluiceKeyed(agg.getCluster(), agg.getTraitSet(), agg.getInput(),
                agg.getRowType(), KeyedKind.GROUP_AGGREGATE, agg.grouping(), spec));
    }

    /**
     * The Local/Global pair Flink plans with mini-batch on ({@code table.optimizer.agg-phase-strategy}
     * AUTO or TWO_PHASE) stays stock: the local half pre-aggregates each bundle into accumulators and
     * the global half folds them per bundle, which the native per-row group_agg does not reproduce.
     *
     * @param node a StreamPhysicalLocalGroupAggregate or StreamPhysicalGlobalGroupAggregate
     * @param ctx the plan
     * @return the reason
     */
    public static Match twoPhase(RelNode node, PlanContext ctx) {
        return Match.stock("two-phase (local/global) aggregation under mini-batch ("
                + ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ENABLED.key() + "=true): Flink merges per-bundle "
                + "accumulators; the native group_agg has no accumulator exchange");
    }

    /**
     * One call as the native spec writes it ({@code sum(3)}), or {@code "!"} + the reason.
     *
     * @param call the call
     * @param in the input row type
     * @param retracts whether Flink uses the retracting function for this call
     */
    static String aggregate(AggregateCall call, RowType in, boolean retracts) {
        String a = unfiltered(call, in, retracts);
        if (a.startsWith("!") || call.filterArg < 0) {
            return a;
        }
        LogicalType f = in.getTypeAt(call.filterArg);
        if (!f.is(LogicalTypeRoot.BOOLEAN)) {
            return "!aggregate " + call.getAggregation().getName() + " with FILTER over a " + f.asSummaryString()
                    + " column: the native filter reads BOOLEAN";
        }
        return a + ":filter(" + call.filterArg + ")";
    }

    /** {@link #aggregate} without the call's FILTER. */
    private static String unfiltered(AggregateCall call, RowType in, boolean retracts) {
        String fn = call.getAggregation().getName();
        SqlKind kind = call.getAggregation().getKind();
        if (call.isApproximate() || !call.collation.getFieldCollations().isEmpty()) {
            return "!aggregate " + fn + " (APPROXIMATE / WITHIN GROUP): no native form";
        }
        List<Integer> args = call.getArgList();
        if (kind == SqlKind.COUNT && args.isEmpty() && !call.isDistinct()) {
            return "count(*)";
        }
        if (args.size() != 1) {
            return "!aggregate " + fn + " over " + args.size() + " arguments: the native aggregates take one column";
        }
        int c = args.get(0);
        LogicalType t = in.getTypeAt(c);
        boolean bigint = t.is(LogicalTypeRoot.BIGINT);
        boolean dbl = t.is(LogicalTypeRoot.DOUBLE);
        boolean str = t.is(LogicalTypeFamily.CHARACTER_STRING);
        String type = t.asSummaryString();
        // MIN/MAX(DISTINCT c) are MIN/MAX(c): the extreme ignores multiplicity.
        boolean distinct = call.isDistinct() && kind != SqlKind.MIN && kind != SqlKind.MAX;
        if (distinct && !(bigint || dbl || str)) {
            return "!aggregate " + fn + "(DISTINCT …) over " + type
                    + ": the native distinct state takes BIGINT, DOUBLE or strings";
        }
        String suffix = distinct ? ":distinct" : "";
        switch (kind) {
            case COUNT:
                if (!t.isNullable() && !distinct) {
                    return "count(*)"; // a NOT NULL column: every row counts
                }
                return bigint || dbl || str ? "count(" + c + ")" + suffix
                        : "!aggregate COUNT over nullable " + type + ": the native COUNT reads BIGINT, DOUBLE or strings";
            case SUM:
            case SUM0:
            case AVG:
                return bigint || dbl ? kind.name().toLowerCase(java.util.Locale.ROOT) + "(" + c + ")" + suffix
                        : "!aggregate " + fn + " over " + type + ": the native " + fn + " takes BIGINT or DOUBLE "
                                + "(Flink's result type and overflow for " + type + " differ from a BIGINT/DOUBLE sum)";
            case MIN:
            case MAX:
                if (dbl && !retracts) {
                    return "!aggregate " + fn + " over DOUBLE on an insert-only input: Flink compares with Java's "
                            + "< / > (MinAggFunction), the native one with Double.compareTo (NaN, -0.0 differ)";
                }
                return bigint || dbl || str ? kind.name().toLowerCase(java.util.Locale.ROOT) + "(" + c + ")"
                        : "!aggregate " + fn + " over " + type + ": the native " + fn
                                + " takes BIGINT, DOUBLE or strings";
            case FIRST_VALUE:
            case LAST_VALUE:
                return bigint || dbl || str ? kind.name().toLowerCase(java.util.Locale.ROOT) + "(" + c + ")" + suffix
                        : "!aggregate " + fn + " over " + type + ": the native " + fn
                                + " takes BIGINT, DOUBLE or strings";
            default:
                return "!aggregate " + fn + ": no native form";
        }
    }
}
