package io.sluice.flink.compat;

import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;

/** Calc operator adapter over the Flink APIs that differ per line (flink-1.20). */
public final class CalcCompat {
    private CalcCompat() {}

    /**
     * Lets {@code operator} chain to its input. Flink 1.20: operators default to HEAD; chain the Calc to its input like the planner's Calc.
     *
     * @param operator the operator
     */
    public static void chainAlways(AbstractStreamOperator<?> operator) {
        operator.setChainingStrategy(ChainingStrategy.ALWAYS);
    }
}
