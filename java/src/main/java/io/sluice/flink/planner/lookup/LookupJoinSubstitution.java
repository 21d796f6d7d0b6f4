package io.sluice.flink.planner.lookup;

import java.util.List;

import org.apache.calcite.rel.core.JoinRelType;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalLookupJoin;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.compat.PlannerCompat;
import io.sluice.flink.lookup.SluiceLookupJoinOperator;
import io.sluice.flink.planner.CostRule;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;
import io.sluice.jni.CalcNative;
import io.sluice.jni.SluiceException;

/**
 * The matcher of Flink's {@code LookupJoin}: a synchronous lookup (the connector's
 * {@code LookupFunction} / {@code TableFunction}, with or without Flink's lookup cache), INNER or
 * LEFT, becomes {@link StreamPhysicalSluiceLookupJoin}. The lookup itself runs in Flink's own
 * runner, so what Flink generates around it is kept as it is: a projection or filter of the
 * temporal table ({@code LookupJoinWithCalcRunner}), a condition on the probe row evaluated before
 * the lookup and a condition on the joined row beyond the lookup keys (Flink's generated join
 * collector). Stays Flink's, with the reason: an async lookup (Flink's {@code AsyncWaitOperator}),
 * a retry strategy, the upsert materialization of an updating input, a lookup shuffle (Flink
 * 2.x), a column whose type the column handover does not carry, and the cost rule's payload
 * limit.
 */
public final class LookupJoinSubstitution {
    private LookupJoinSubstitution() {}

    /**
     * @param node Flink's lookup join, its input already rewritten
     * @param ctx the plan
     * @return the replacement or the reason it stays stock
     */
    public static Match match(StreamPhysicalLookupJoin node, PlanContext ctx) {
        String reason = unsupported(node);
        if (reason != null) {
            return Match.stock(reason);
        }
        RowType out = PlanContext.nativeInput(PlanContext.rowType(node));
        reason = columnReason(out);
        if (reason != null) {
            return Match.stock(reason);
        }
        // Every string column is carried: none is computed on natively (the lookup runs in Java).
        reason = CostRule.decline(ctx, CostRule.payload(out), CostRule.Work.LOOKUP_JOIN);
        return reason != null ? Match.stock(reason) : Match.replace(new StreamPhysicalSluiceLookupJoin(node));
    }

    private static String unsupported(StreamPhysicalLookupJoin node) {
        JoinRelType type = node.joinType();
        if (type != JoinRelType.INNER && type != JoinRelType.LEFT) {
            return "join type " + type + " (sluice supports INNER and LEFT lookup joins)";
        }
        if (node.isAsyncEnabled()) {
            return "async lookup (Flink's AsyncWaitOperator); sluice runs synchronous lookups only";
        }
        if (node.retryOptions().isDefined()) {
            return "a lookup retry strategy (LOOKUP hint 'retry-predicate')";
        }
        if (node.upsertMaterialize()) {
            return "upsert materialization of an updating input";
        }
        if (PlannerCompat.lookupShuffle(node)) {
            return "a lookup shuffle (LOOKUP hint 'shuffle'='true')";
        }
        return null;
    }

    /** Why a column of {@code out} cannot be collected into a column, or null. */
    private static String columnReason(RowType out) {
        int[] kinds;
        try (CalcNative identity = SluiceLookupJoinOperator.identity(out)) {
            kinds = identity.columnKinds();
        } catch (SluiceException e) {
            return "type: " + e.getMessage();
        }
        List<RowType.RowField> fields = out.getFields();
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i] < 0) {
                return "type " + fields.get(i).getType().asSummaryString() + " of column "
                        + fields.get(i).getName() + " (the column handover carries strings, binary, boolean, "
                        + "integers, floating point, DATE and TIMESTAMP(1..3))";
            }
        }
        return null;
    }
}
