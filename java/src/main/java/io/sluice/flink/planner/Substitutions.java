package io.sluice.flink.planner;

import java.util.List;

import org.apache.calcite.rel.RelNode;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalc;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalChangelogNormalize;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalGlobalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalGlobalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalJoin;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalLocalGroupAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalLookupJoin;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalOverAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalLocalWindowAggregate;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRank;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWindowAggregate;

import io.sluice.flink.compat.KeyedPlannerCompat;
import io.sluice.flink.planner.calc.CalcSubstitution;
import io.sluice.flink.planner.keyed.ChangelogNormalizeSubstitution;
import io.sluice.flink.planner.keyed.DeduplicateSubstitution;
import io.sluice.flink.planner.keyed.GroupAggregateSubstitution;
import io.sluice.flink.planner.keyed.JoinSubstitution;
import io.sluice.flink.planner.keyed.OverAggregateSubstitution;
import io.sluice.flink.planner.keyed.RankSubstitution;
import io.sluice.flink.planner.keyed.WindowAggregateSubstitution;
import io.sluice.flink.planner.lookup.LookupJoinSubstitution;

/**
 * The registry: every {@link Substitution} the stage can make, one per Flink node class. A node
 * is offered to the first entry that owns its class. Adding an operator = one line here (see
 * {@code package-info.java}).
 */
public final class Substitutions {
    private Substitutions() {}

    /** All entries, in the order a node is offered to them. */
    public static final List<Substitution<?>> ALL = List.of(
            Substitution.of("calc", StreamPhysicalCalc.class, CalcSubstitution::match).acceptingChangelog(),
            Substitution.of("group-aggregate", StreamPhysicalGroupAggregate.class, GroupAggregateSubstitution::match)
                    .acceptingChangelog(),
            Substitution.of("group-aggregate", StreamPhysicalLocalGroupAggregate.class,
                    GroupAggregateSubstitution::twoPhase).acceptingChangelog(),
            Substitution.of("group-aggregate", StreamPhysicalGlobalGroupAggregate.class,
                    GroupAggregateSubstitution::twoPhase).acceptingChangelog(),
            Substitution.of("rank", StreamPhysicalRank.class, RankSubstitution::match)
                    .ownsWhen(KeyedPlannerCompat::isTopN).acceptingChangelog(),
            Substitution.of("over-aggregate", StreamPhysicalOverAggregate.class, OverAggregateSubstitution::match),
            Substitution.of("deduplicate", KeyedPlannerCompat.deduplicateNode(), DeduplicateSubstitution::match),
            Substitution.of("changelog-normalize", StreamPhysicalChangelogNormalize.class,
                    ChangelogNormalizeSubstitution::match).acceptingChangelog(),
            Substitution.of("join", StreamPhysicalJoin.class, JoinSubstitution::match).acceptingChangelog(),
            Substitution.of("lookup-join", StreamPhysicalLookupJoin.class, LookupJoinSubstitution::match),
            Substitution.of("window-aggregate", StreamPhysicalWindowAggregate.class, WindowAggregateSubstitution::match),
            Substitution.of("window-aggregate", StreamPhysicalLocalWindowAggregate.class,
                    WindowAggregateSubstitution::local),
            Substitution.of("window-aggregate", StreamPhysicalGlobalWindowAggregate.class,
                    WindowAggregateSubstitution::global));

    /** @return the entry owning {@code node}'s class, or null */
    static Substitution<?> owner(RelNode node) {
        for (Substitution<?> s : ALL) {
            if (s.owns(node)) {
                return s;
            }
        }
        return null;
    }
}
