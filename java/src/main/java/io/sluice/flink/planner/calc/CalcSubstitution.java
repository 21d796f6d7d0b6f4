package io.sluice.flink.planner.calc;

import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalc;

import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;

/** The Calc entry of the planner stage (being built: every Calc stays stock for now). */
public final class CalcSubstitution {
    private CalcSubstitution() {}

    /**
     * @param calc Flink's Calc
     * @param ctx the plan context
     * @return the sluice replacement or the reason
     */
    public static Match match(StreamPhysicalCalc calc, PlanContext ctx) {
        return Match.stock("native Calc not built yet");
    }
}
