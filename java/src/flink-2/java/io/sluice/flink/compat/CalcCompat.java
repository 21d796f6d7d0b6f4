package io.sluice.flink.compat;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;

/** Calc operator adapter over the Flink APIs that differ per line (flink-2). */
public final class CalcCompat {
    private CalcCompat() {}

    /**
     * Lets {@code operator} chain to its input. Flink 2.x: the operator factory chains by default (ChainingStrategy.DEFAULT_CHAINING_STRATEGY = ALWAYS).
     *
     * @param operator the operator
     */
    public static void chainAlways(AbstractStreamOperator<?> operator) {
        // Flink 2.x: SimpleOperatorFactory defaults to ALWAYS; nothing to do.
    }
}
