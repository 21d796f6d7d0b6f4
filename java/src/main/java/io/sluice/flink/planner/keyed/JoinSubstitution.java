package io.sluice.flink.planner.keyed;

import java.util.ArrayList;
import java.util.List;

import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.hint.RelHint;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.planner.plan.nodes.exec.spec.JoinSpec;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalJoin;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.compat.FlinkLine;
import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.planner.CostRule;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;
import io.sluice.jni.JoinNative;
import io.sluice.jni.SluiceException;

/**
 * A regular (updating) join ({@code StreamPhysicalJoin}: not an interval, temporal, lookup or
 * window join, which are other node classes) → the native {@code join}, reproducing
 * {@code StreamExecJoin}'s {@code StreamingJoinOperator}:
 *
 * <ul>
 *   <li>the join type (INNER / LEFT / RIGHT / FULL) and the equi-join keys of its
 *       {@code JoinSpec}, with {@code IS NOT DISTINCT FROM} keys ({@code getFilterNulls} false)
 *       as {@code null_safe};</li>
 *   <li>each input's state view as {@code JoinUtil.analyzeJoinInput} picks it from the upsert keys
 *       {@code StreamPhysicalJoin.translateToExecNode} passes ({@code getUpsertKeys(input, keys)}):
 *       the smallest unique key contained in the join key, else the smallest unique key, else
 *       none ({@code left_unique} / {@code right_unique});</li>
 *   <li>the non-equi condition when it is a conjunction of comparisons between a left and a right
 *       column ({@code condition}), anything else stays stock;</li>
 *   <li>the changelog order of the Flink line ({@code line=flink1} on 1.20, {@code flink2} on 2.x).</li>
 * </ul>
 *
 * Stays stock: SEMI / ANTI joins (IN / EXISTS), state TTL ({@code table.exec.state.ttl} or a
 * {@code STATE_TTL} hint: native state does not expire), Flink 2.x's mini-batch join
 * ({@code MiniBatchStreamingJoinOperator}, which folds each bundle), FLOAT / DOUBLE comparisons in
 * the condition, any type the native join refuses (the probe), and joins whose string payload columns
 * outweigh the native work ({@link io.sluice.flink.planner.CostRule}).
 */
public final class JoinSubstitution {
    private JoinSubstitution() {}

    /**
     * @param join the join node
     * @param ctx the plan
     * @return the native node, or the reason
     */
    public static Match match(StreamPhysicalJoin join, PlanContext ctx) {
        JoinSpec js = join.joinSpec();
        String type;
        switch (js.getJoinType()) {
            case INNER: type = "inner"; break;
            case LEFT: type = "left"; break;
            case RIGHT: type = "right"; break;
            case FULL: type = "full"; break;
            default:
                return Match.stock(js.getJoinType() + " join (IN / EXISTS): the native join is INNER, LEFT, RIGHT "
                        + "or FULL only");
        }
        for (RelHint h : join.getHints()) {
            if (h.hintName.equalsIgnoreCase("STATE_TTL")) {
                return Match.stock("state TTL (STATE_TTL hint " + h.kvOptions + "): native keyed state does not expire");
            }
        }
        String reason = KeyedChecks.ttl(ctx.config(), null);
        if (reason == null && FlinkLine.name().equals("flink-2")
                && ctx.config().get(ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ENABLED)) {
            reason = "mini-batch join (" + ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ENABLED.key()
                    + "=true): Flink 2.x runs MiniBatchStreamingJoinOperator, which folds each bundle; the native "
                    + "join emits the per-row changelog";
        }
        if (reason != null) {
            return Match.stock(reason);
        }
        if (js.getLeftKeys().length == 0) {
            return Match.stock("a join without equi-join keys: the native join is keyed by them");
        }
        RowType left = PlanContext.rowType(join.getLeft());
        RowType right = PlanContext.rowType(join.getRight());
        StringBuilder spec = new StringBuilder("join type=").append(type)
                .append(" left_keys=").append(KeyedSpecs.list(js.getLeftKeys()))
                .append(" right_keys=").append(KeyedSpecs.list(js.getRightKeys()));
        // Upsert keys of the inputs as Flink planned them (its metadata does not know sluice nodes).
        appendUnique(spec, "left_unique", join.getUpsertKeys(ctx.original(join.getLeft()), js.getLeftKeys()),
                js.getLeftKeys());
        appendUnique(spec, "right_unique", join.getUpsertKeys(ctx.original(join.getRight()), js.getRightKeys()),
                js.getRightKeys());
        List<String> nullSafe = new ArrayList<>();
        boolean[] filterNulls = js.getFilterNulls();
        for (int i = 0; i < filterNulls.length; i++) {
            if (!filterNulls[i]) {
                nullSafe.add(Integer.toString(i));
            }
        }
        if (!nullSafe.isEmpty()) {
            spec.append(" null_safe=").append(String.join(",", nullSafe));
        }
        if (js.getNonEquiCondition().isPresent()) {
            List<String> terms = new ArrayList<>();
            reason = condition(js.getNonEquiCondition().get(), left, right, terms);
            if (reason != null) {
                return Match.stock(reason);
            }
            spec.append(" condition=").append(String.join(",", terms));
        }
        RowType out = PlanContext.rowType(join);
        reason = CostRule.decline(ctx, payload(js, out, left.getFieldCount()), CostRule.Work.JOIN);
        if (reason != null) {
            return Match.stock(reason);
        }
        spec.append(" line=").append(FlinkLine.name().equals("flink-1.20") ? "flink1" : "flink2");
        reason = probe(spec.toString(), left, right, out);
        if (reason != null) {
            return Match.stock(reason);
        }
        return Match.replace(new StreamPhysicalSluiceJoin(join.getCluster(), join.getTraitSet(), join.getLeft(),
                join.getRight(), join.getRowType(), js.getLeftKeys(), js.getRightKeys(), spec.toString()));
    }

    /**
     * The unique key {@code JoinUtil.analyzeJoinInput} picks: the first smallest of the upsert keys
     * contained in the join key, else the first smallest of all ({@code getSmallestKey}).
     */
    private static void appendUnique(StringBuilder spec, String option, scala.collection.immutable.List<int[]> upsert,
            int[] joinKeys) {
        List<int[]> keys = scala.collection.JavaConverters.seqAsJavaList(upsert);
        if (keys.isEmpty()) {
            return;
        }
        List<int[]> contained = new ArrayList<>();
        for (int[] k : keys) {
            boolean all = true;
            for (int c : k) {
                boolean found = false;
                for (int j : joinKeys) {
                    found |= j == c;
                }
                all &= found;
            }
            if (all) {
                contained.add(k);
            }
        }
        int[] smallest = null;
        for (int[] k : contained.isEmpty() ? keys : contained) {
            if (smallest == null || k.length < smallest.length) {
                smallest = k;
            }
        }
        spec.append(' ').append(option).append('=').append(KeyedSpecs.list(smallest));
    }

    /** The string columns of the joined row (left, then right) that are no join key and not in the condition. */
    private static List<String> payload(JoinSpec js, RowType out, int leftCount) {
        int[] rightKeys = js.getRightKeys().clone();
        for (int i = 0; i < rightKeys.length; i++) {
            rightKeys[i] += leftCount;
        }
        int[] condition = js.getNonEquiCondition().map(c -> RelOptUtil.InputFinder.bits(c).toArray())
                .orElse(new int[0]);
        return CostRule.payload(out, js.getLeftKeys(), rightKeys, condition);
    }

    /** Terms {@code left_col op right_col} of a conjunction, or the reason it is not one. */
    private static String condition(RexNode cond, RowType left, RowType right, List<String> terms) {
        List<RexNode> conjuncts = cond.getKind() == SqlKind.AND ? ((RexCall) cond).getOperands() : List.of(cond);
        int n = left.getFieldCount();
        for (RexNode c : conjuncts) {
            String op = op(c.getKind());
            List<RexNode> ops = c instanceof RexCall ? ((RexCall) c).getOperands() : List.of();
            if (op == null || ops.size() != 2 || !(ops.get(0) instanceof RexInputRef)
                    || !(ops.get(1) instanceof RexInputRef)) {
                return "non-equi condition " + cond + ": the native join takes only comparisons of a left and a "
                        + "right column (" + c + " is not one)";
            }
            int a = ((RexInputRef) ops.get(0)).getIndex();
            int b = ((RexInputRef) ops.get(1)).getIndex();
            if ((a < n) == (b < n)) {
                return "non-equi condition " + cond + ": " + c + " compares two columns of one input";
            }
            if (a >= n) {
                op = flip(op);
                int t = a;
                a = b;
                b = t;
            }
            LogicalType t = left.getTypeAt(a);
            if (t.getTypeRoot() == LogicalTypeRoot.FLOAT || t.getTypeRoot() == LogicalTypeRoot.DOUBLE) {
                return "non-equi condition " + cond + ": a " + t.asSummaryString() + " comparison (Flink and the "
                        + "native comparison order -0.0 and NaN differently)";
            }
            terms.add(a + op + (b - n));
        }
        return null;
    }

    private static String op(SqlKind kind) {
        switch (kind) {
            case EQUALS: return "=";
            case NOT_EQUALS: return "<>";
            case LESS_THAN: return "<";
            case LESS_THAN_OR_EQUAL: return "<=";
            case GREATER_THAN: return ">";
            case GREATER_THAN_OR_EQUAL: return ">=";
            default: return null;
        }
    }

    /** {@code a op b} as {@code b op' a}. */
    private static String flip(String op) {
        switch (op) {
            case "<": return ">";
            case "<=": return ">=";
            case ">": return "<";
            case ">=": return "<=";
            default: return op;
        }
    }

    /** Creates the native join once, as the job will, and compares its output with Flink's row type. */
    private static String probe(String spec, RowType left, RowType right, RowType out) {
        RowType nat;
        try (JoinNative probe = JoinNative.create(spec, PlanContext.nativeInput(left),
                PlanContext.nativeInput(right))) {
            nat = probe.outputType(out.getFieldNames());
        } catch (SluiceException | IllegalArgumentException e) {
            return "native join refuses `" + spec + "` over " + left.asSummaryString() + " and "
                    + right.asSummaryString() + ": " + e.getMessage();
        }
        return KeyedChecks.layoutMismatch(out, nat);
    }
}
