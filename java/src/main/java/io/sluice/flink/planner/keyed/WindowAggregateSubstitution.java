package io.sluice.flink.planner.keyed;

import java.util.ArrayList;
import java.util.List;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.flink.table.planner.plan.logical.CumulativeWindowSpec;
import org.apache.flink.table.planner.plan.logical.HoppingWindowSpec;
import org.apache.flink.table.planner.plan.logical.TimeAttributeWindowingStrategy;
import org.apache.flink.table.planner.plan.logical.TumblingWindowSpec;
import org.apache.flink.table.planner.plan.logical.WindowAttachedWindowingStrategy;
import org.apache.flink.table.planner.plan.logical.WindowSpec;
import org.apache.flink.table.planner.plan.logical.WindowingStrategy;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalExchange;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalGlobalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalLocalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWindowAggregateBase;
import org.apache.flink.table.planner.plan.trait.FlinkRelDistribution;
import org.apache.flink.table.runtime.groupwindow.NamedWindowProperty;
import org.apache.flink.table.runtime.groupwindow.RowtimeAttribute;
import org.apache.flink.table.runtime.groupwindow.WindowEnd;
import org.apache.flink.table.runtime.groupwindow.WindowStart;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;

/**
 * Flink's window TVF aggregate → the native {@code window} (keyed/src/window, slicing as
 * Flink's {@code WindowAggOperator} / {@code SlicingWindowOperator}), fired on the watermark by
 * {@code SluiceKeyedOperator}. Two plan shapes:
 * <ul>
 *   <li>one phase: {@code StreamPhysicalWindowAggregate} behind the hash (or singleton) exchange
 *       Flink planned, kept as the native node's input;</li>
 *   <li>two phases ({@code table.optimizer.agg-phase-strategy} TWO_PHASE, or AUTO with mini-batch):
 *       {@code StreamPhysicalLocalWindowAggregate} → exchange → {@code StreamPhysicalGlobalWindowAggregate}
 *       (Flink's {@code TwoStageOptimizedWindowAggregateRule}). The global half is replaced by one
 *       native node over the local half's input behind a new exchange hashed on the same keys: the
 *       local half only pre-folds slices, which the global half merges back, so the windows' results
 *       are those of the one-phase aggregate and equal stock's.</li>
 * </ul>
 * Supported: TUMBLE, HOP, CUMULATE ({@code TimeAttributeWindowingStrategy}, the TVF fused into the
 * aggregate) over a {@code TIMESTAMP(3)} rowtime attribute without offset, the aggregates
 * {@link GroupAggregateSubstitution#aggregate} writes except FIRST_VALUE / LAST_VALUE, and the
 * window properties {@code window_start, window_end[, window_time]} in that order (the native
 * operator's output layout). Everything else stays stock with its reason: processing time,
 * TIMESTAMP_LTZ (Flink shifts window boundaries by the session time zone), SESSION, offsets,
 * a window attached by an upstream TVF ({@code WindowAttachedWindowingStrategy}), DISTINCT,
 * FILTER, other property layouts, state TTL.
 */
public final class WindowAggregateSubstitution {
    private WindowAggregateSubstitution() {}

    /**
     * @param agg the one-phase node
     * @param ctx the plan
     * @return the native node, or the reason
     */
    public static Match match(StreamPhysicalWindowAggregate agg, PlanContext ctx) {
        String reason = KeyedChecks.ttl(ctx.config(), null);
        if (reason != null) {
            return Match.stock(reason);
        }
        return build(agg, agg.getInput(), agg.grouping(), agg.windowing(), agg.getRowType(), ctx);
    }

    /**
     * The local half stays as it is until its global half is offered: only the pair is replaced.
     *
     * @param local the local half
     * @param ctx the plan
     * @return the reason (shown only when the global half stays stock too)
     */
    public static Match local(StreamPhysicalLocalWindowAggregate local, PlanContext ctx) {
        return Match.stock("the local window aggregate is replaced together with its global half, or not at all");
    }

    /**
     * @param global the global half, its input the exchange over the local half
     * @param ctx the plan
     * @return one native node over the local half's input, or the reason
     */
    public static Match global(StreamPhysicalGlobalWindowAggregate global, PlanContext ctx) {
        String reason = KeyedChecks.ttl(ctx.config(), null);
        if (reason != null) {
            return Match.stock(reason);
        }
        RelNode exchange = global.getInput();
        if (!(exchange instanceof StreamPhysicalExchange)
                || !(((StreamPhysicalExchange) exchange).getInput() instanceof StreamPhysicalLocalWindowAggregate)) {
            return Match.stock("a global window aggregate whose input is not an exchange over its local half");
        }
        StreamPhysicalExchange ex = (StreamPhysicalExchange) exchange;
        StreamPhysicalLocalWindowAggregate local = (StreamPhysicalLocalWindowAggregate) ex.getInput();
        if (!local.aggCalls().equals(global.aggCalls())) {
            return Match.stock("the local and global window aggregates carry different calls");
        }
        int[] keys = local.grouping();
        FlinkRelDistribution dist = keys.length == 0 ? FlinkRelDistribution.SINGLETON()
                : FlinkRelDistribution.hash(keys, true);
        RelNode input = new StreamPhysicalExchange(ex.getCluster(), ex.getTraitSet().replace(dist), local.getInput(),
                dist);
        return build(global, input, keys, local.windowing(), global.getRowType(), ctx);
    }

    private static Match build(StreamPhysicalWindowAggregateBase agg, RelNode input, int[] keys,
            WindowingStrategy windowing, org.apache.calcite.rel.type.RelDataType rowType, PlanContext ctx) {
        // The column the native window reads its time from: the rowtime, or for a window attached by an
        // upstream window aggregate (Nexmark q5's second aggregate) that aggregate's window_end, which names
        // the one window a row belongs to (SliceAssigners.WindowedSliceAssigner).
        int rowtime;
        boolean attached = windowing instanceof WindowAttachedWindowingStrategy;
        if (windowing instanceof TimeAttributeWindowingStrategy) {
            rowtime = ((TimeAttributeWindowingStrategy) windowing).getTimeAttributeIndex();
        } else if (attached) {
            rowtime = ((WindowAttachedWindowingStrategy) windowing).getWindowEnd();
        } else {
            return Match.stock("windowing " + windowing.getClass().getSimpleName() + ": the native window takes a "
                    + "rowtime column or a window attached by an upstream window aggregate");
        }
        if (!windowing.isRowtime()) {
            return Match.stock("a processing-time window: the native window fires on event time only");
        }
        if (windowing.getTimeAttributeType().getTypeRoot() != LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE) {
            return Match.stock("a " + windowing.getTimeAttributeType().asSummaryString() + " rowtime: Flink shifts "
                    + "window boundaries by the session time zone (TimeWindowUtil), the native window does not");
        }
        String win = window(windowing.getWindow());
        if (win.startsWith("!")) {
            return Match.stock(win.substring(1));
        }
        String props = properties(agg.namedWindowProperties());
        if (props.startsWith("!")) {
            return Match.stock(props.substring(1));
        }
        RowType in = PlanContext.rowType(input);
        List<AggregateCall> calls = scala.collection.JavaConverters.seqAsJavaList(agg.aggCalls());
        List<String> aggs = new ArrayList<>();
        for (AggregateCall call : calls) {
            SqlKind kind = call.getAggregation().getKind();
            if (kind == SqlKind.FIRST_VALUE || kind == SqlKind.LAST_VALUE) {
                return Match.stock("aggregate " + call.getAggregation().getName() + " in a window: the native window "
                        + "has no FIRST_VALUE / LAST_VALUE");
            }
            if (call.isDistinct()) {
                return Match.stock("aggregate " + call.getAggregation().getName() + "(DISTINCT …) in a window: Flink "
                        + "keeps a distinct view per slice, the native window has none");
            }
            if (call.filterArg >= 0) {
                // GroupAggregateSubstitution.aggregate would write group_agg's `:filter(c)`.
                return Match.stock("aggregate " + call.getAggregation().getName() + " FILTER (WHERE …) in a window: "
                        + "the native window has no filtered calls");
            }
            String a = GroupAggregateSubstitution.aggregate(call, in, false);
            if (a.startsWith("!")) {
                return Match.stock(a.substring(1));
            }
            aggs.add(a);
        }
        String spec = "window keys=" + KeyedSpecs.list(keys) + " rowtime=" + rowtime + " window=" + win
                + (aggs.isEmpty() ? "" : " aggs=" + String.join(",", aggs)) + " window_time=" + props.equals("time")
                + (attached ? " attached=true" : "");
        RowType out = PlanContext.rowType(agg);
        String reason = KeyedChecks.probe(spec, in, out);
        if (reason != null) {
            return Match.stock(reason);
        }
        return Match.replace(new StreamPhysicalSluiceKeyed(agg.getCluster(), agg.getTraitSet(), input, rowType,
                KeyedKind.WINDOW_AGGREGATE, keys, spec));
    }

    /** The native {@code window=} value, or {@code "!"} + the reason. */
    private static String window(WindowSpec w) {
        if (w instanceof TumblingWindowSpec) {
            TumblingWindowSpec t = (TumblingWindowSpec) w;
            return offset(t.getOffset()) != null ? offset(t.getOffset()) : "tumble(" + t.getSize().toMillis() + ")";
        }
        if (w instanceof HoppingWindowSpec) {
            HoppingWindowSpec h = (HoppingWindowSpec) w;
            return offset(h.getOffset()) != null ? offset(h.getOffset())
                    : "hop(" + h.getSize().toMillis() + "," + h.getSlide().toMillis() + ")";
        }
        if (w instanceof CumulativeWindowSpec) {
            CumulativeWindowSpec c = (CumulativeWindowSpec) w;
            return offset(c.getOffset()) != null ? offset(c.getOffset())
                    : "cumulate(" + c.getMaxSize().toMillis() + "," + c.getStep().toMillis() + ")";
        }
        return "!window " + w.getClass().getSimpleName() + ": the native window has TUMBLE, HOP and CUMULATE";
    }

    private static String offset(java.time.Duration offset) {
        return offset == null || offset.isZero() ? null
                : "!a window offset (" + offset + "): not substituted (no parity test covers offsets)";
    }

    /**
     * @return {@code "time"} for window_start, window_end, window_time; {@code "plain"} for
     *     window_start, window_end; else {@code "!"} + the reason
     */
    private static String properties(scala.collection.Seq<NamedWindowProperty> named) {
        List<NamedWindowProperty> p = scala.collection.JavaConverters.seqAsJavaList(named);
        boolean startEnd = p.size() >= 2 && p.get(0).getProperty() instanceof WindowStart
                && p.get(1).getProperty() instanceof WindowEnd;
        if (startEnd && p.size() == 2) {
            return "plain";
        }
        if (startEnd && p.size() == 3 && p.get(2).getProperty() instanceof RowtimeAttribute) {
            return "time";
        }
        StringBuilder names = new StringBuilder();
        for (NamedWindowProperty n : p) {
            names.append(names.length() == 0 ? "" : ", ").append(n.getProperty().getClass().getSimpleName());
        }
        return "!window properties [" + names + "]: the native window emits window_start, window_end[, window_time]";
    }
}
