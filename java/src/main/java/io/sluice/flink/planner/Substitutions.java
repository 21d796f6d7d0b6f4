package io.sluice.flink.planner;

import java.util.List;

import org.apache.calcite.rel.RelNode;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalc;

import io.sluice.flink.planner.calc.CalcSubstitution;

/**
 * The registry: every {@link Substitution} the stage can make, one per Flink node class. A node
 * is offered to the first entry that owns its class. Adding an operator = one line here (see
 * {@code package-info.java}).
 */
public final class Substitutions {
    private Substitutions() {}

    /** All entries, in the order a node is offered to them. */
    public static final List<Substitution<?>> ALL = List.of(
            Substitution.of("calc", StreamPhysicalCalc.class, CalcSubstitution::match).acceptingChangelog());

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
