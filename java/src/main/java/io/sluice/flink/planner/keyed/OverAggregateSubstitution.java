package io.sluice.flink.planner.keyed;

import java.util.ArrayList;
import java.util.List;

import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rex.RexWindowBound;
import org.apache.flink.table.planner.plan.nodes.exec.spec.OverSpec;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalOverAggregate;
import org.apache.flink.table.planner.plan.utils.OverAggregateUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;

/**
 * A time-ordered {@code StreamPhysicalOverAggregate} → the native {@code over}
 * (engine/src/keyed/spec/over.rs, keyed/src/over), with the frame function
 * {@code StreamExecOverAggregate.translateToPlanInternal} picks on both lines:
 * <ul>
 *   <li>{@code ROWS|RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW}: by rowtime
 *       {@code RowTimeRowsUnboundedPrecedingFunction} / {@code RowTimeRangeUnboundedPrecedingFunction},
 *       by proctime {@code ProcTimeUnboundedPrecedingFunction} (ROWS and RANGE alike). Flink 2.x's
 *       default {@code table.exec.unbounded-over.version=2} runs
 *       {@code RowTimeUnboundedPrecedingOverFunctionV2} instead of the two rowtime ones: it registers
 *       a timer per row timestamp rather than at {@code watermark + 1}, which changes only the order
 *       across keys of the rows one watermark fires; each key's rows, values and late drops are the
 *       same;</li>
 *   <li>{@code ROWS BETWEEN n PRECEDING AND CURRENT ROW}: {@code RowTimeRowsBoundedPrecedingFunction} /
 *       {@code ProcTimeRowsBoundedPrecedingFunction} (Flink's {@code precedingOffset} is {@code n + 1},
 *       the native spec takes {@code n});</li>
 *   <li>{@code RANGE BETWEEN INTERVAL x PRECEDING AND CURRENT ROW}: {@code
 *       RowTimeRangeBoundedPrecedingFunction} / {@code ProcTimeRangeBoundedPrecedingFunction}
 *       ({@code x} in milliseconds, as {@code OverAggregateUtil.getBoundary} gives it). The proctime
 *       one stamps rows with the processing time and emits them on a processing-time timer one
 *       millisecond later; {@code SluiceKeyedOperator} stamps each pushed batch with Flink's
 *       processing time and drives the native timers from Flink's processing-time service.</li>
 * </ul>
 * A rowtime OVER emits when the watermark fires the rows' timers ({@code SluiceKeyedOperator}
 * passes each watermark to the native operator before forwarding it) and drops late rows as each
 * function does. Aggregates are the group aggregate's ({@link GroupAggregateSubstitution#aggregate}),
 * several in one OVER; an unbounded frame uses Flink's append-only functions, a bounded one the
 * retracting ones ({@code createBoundedOverProcessFunction} sets {@code needRetraction} for every
 * call), which is what decides, e.g., whether {@code MIN(DOUBLE)} is native.
 *
 * <p>Stays stock, with the reason: several windows in one node; an ORDER BY
 * that is not a single ascending time attribute (Flink 2.x plans non-time ORDER BY too); frames
 * not ending at CURRENT ROW; aggregates over constants ({@code SUM(1)}); aggregates and types the
 * native side does not have ({@code DISTINCT}, {@code SUM(INT)}, …); a state TTL (Flink's OVER
 * functions clean state on retention timers).
 */
public final class OverAggregateSubstitution {
    private OverAggregateSubstitution() {}

    /**
     * @param over the OVER node
     * @param ctx the plan
     * @return the native node, or the reason
     */
    public static Match match(StreamPhysicalOverAggregate over, PlanContext ctx) {
        String reason = KeyedChecks.ttl(ctx.config(), null);
        if (reason != null) {
            return Match.stock(reason);
        }
        OverSpec overSpec = OverAggregateUtil.createOverSpec(over.logicWindow());
        if (overSpec.getGroups().size() != 1) {
            return Match.stock(overSpec.getGroups().size() + " windows in one OverAggregate: the native over "
                    + "computes one frame");
        }
        OverSpec.GroupSpec group = overSpec.getGroups().get(0);
        RowType in = PlanContext.rowType(over.getInput());
        int[] order = group.getSort().getFieldIndices();
        if (order.length != 1 || !group.getSort().getAscendingOrders()[0]) {
            return Match.stock("ORDER BY " + group.getSort() + ": the native over orders by one ascending time "
                    + "attribute");
        }
        LogicalType orderType = in.getTypeAt(order[0]);
        boolean rowtime = LogicalTypeChecks.isRowtimeAttribute(orderType);
        if (!rowtime && !LogicalTypeChecks.isProctimeAttribute(orderType)) {
            return Match.stock("ORDER BY " + in.getFieldNames().get(order[0]) + " (" + orderType.asSummaryString()
                    + "), not a time attribute: the native over orders by rowtime or proctime");
        }
        RexWindowBound lower = group.getLowerBound();
        if (!group.getUpperBound().isCurrentRow() || !lower.isPreceding()) {
            return Match.stock("frame BETWEEN " + lower + " AND " + group.getUpperBound()
                    + ": the native over has frames from … PRECEDING to CURRENT ROW");
        }
        String preceding;
        if (lower.isUnbounded()) {
            preceding = "unbounded";
        } else {
            Object bound = OverAggregateUtil.getBoundary(overSpec, lower);
            if (!(bound instanceof Long)) {
                return Match.stock("frame bound " + lower + " (" + bound + "): the native over takes a row count or "
                        + "an interval in milliseconds");
            }
            long n = -(Long) bound; // Flink's boundary of n PRECEDING is -n (StreamExecOverAggregate negates it)
            preceding = Long.toString(n);
        }
        boolean bounded = !lower.isUnbounded();
        List<String> aggs = new ArrayList<>();
        for (AggregateCall call : group.getAggCalls()) {
            for (int arg : call.getArgList()) {
                if (arg >= in.getFieldCount()) {
                    return Match.stock("aggregate " + call.getAggregation().getName() + " over a constant: the native "
                            + "over reads input columns only");
                }
            }
            if (call.ignoreNulls()) {
                return Match.stock("aggregate " + call.getAggregation().getName() + " IGNORE NULLS: no native form");
            }
            // GroupAggregateSubstitution.aggregate writes DISTINCT and FILTER as group_agg's
            // `:distinct` / `:filter(c)`, which the native over does not take.
            if (call.isDistinct()) {
                return Match.stock("aggregate " + call.getAggregation().getName() + "(DISTINCT …) OVER: the native "
                        + "over has no distinct aggregates");
            }
            if (call.filterArg >= 0) {
                return Match.stock("aggregate " + call.getAggregation().getName() + " FILTER (WHERE …) OVER: the "
                        + "native over has no filtered calls");
            }
            String a = GroupAggregateSubstitution.aggregate(call, in, bounded);
            if (a.startsWith("!")) {
                return Match.stock(a.substring(1).replace("native group_agg", "native over"));
            }
            aggs.add(a);
        }
        if (aggs.isEmpty()) {
            return Match.stock("OverAggregate without aggregates: nothing to compute natively");
        }
        int[] keys = overSpec.getPartition().getFieldIndices();
        String spec = "over keys=" + KeyedSpecs.list(keys) + " order=" + (rowtime ? "rowtime(" + order[0] + ")"
                : "proctime") + " frame=" + (group.isRows() ? "rows" : "range") + " preceding=" + preceding
                + " aggs=" + String.join(",", aggs);
        reason = KeyedChecks.probe(spec, in, PlanContext.rowType(over));
        if (reason != null) {
            return Match.stock(reason);
        }
        return Match.replace(new StreamPhysicalSluiceKeyed(over.getCluster(), over.getTraitSet(), over.getInput(),
                over.getRowType(), KeyedKind.OVER_AGGREGATE, keys, spec));
    }
}
