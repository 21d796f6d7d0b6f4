package io.sluice.flink.compat;

/**
 * The thin adapter over the Flink APIs that differ between 1.20 and 2.x.
 * This tree (src/flink-1.20) is compiled by the flink-1.20 profile; src/flink-2
 * holds the same class for Flink 2.x.
 */
public final class FlinkLine {
    private FlinkLine() {}

    /** @return the Flink line this jar was built for */
    public static String name() {
        return "flink-1.20";
    }
}
