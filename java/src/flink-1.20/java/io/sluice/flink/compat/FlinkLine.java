package io.sluice.flink.compat;

/**
 * Which Flink line this jar was built for (Flink 1.20). Each line's source tree
 * (src/flink-1.20/java, compiled only by the flink-1.20 profile; src/flink-2/java
 * holds the same class for the other line) carries its own copy, so the
 * answer is fixed at build time; the thin adapters over the Flink APIs that
 * differ between the lines live beside it ({@link CalcCompat}).
 */
public final class FlinkLine {
    private FlinkLine() {}

    /** @return the Flink line this jar was built for */
    public static String name() {
        return "flink-1.20";
    }
}
