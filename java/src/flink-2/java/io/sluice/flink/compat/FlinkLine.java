package io.sluice.flink.compat;

/**
 * The thin adapter over the Flink APIs that differ between 1.20 and 2.x.
 * This tree (src/flink-2) is compiled by the flink-2 profile; src/flink-1.20
 * holds the same class for Flink 1.20.
 */
public final class FlinkLine {
    private FlinkLine() {}

    /** @return the Flink line this jar was built for */
    public static String name() {
        return "flink-2";
    }
}
