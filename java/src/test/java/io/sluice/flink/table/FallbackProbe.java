package io.sluice.flink.table;

import static org.apache.flink.table.api.Expressions.row;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import io.sluice.flink.SluiceOptions;
import io.sluice.jni.SluiceLoadException;

/**
 * Runs {@code SluiceCalc.select(MD5(name))} in a fresh JVM (SluiceCalcFallbackTest)
 * and prints, as its last line, which plan ran and the result, or the load error.
 */
public final class FallbackProbe {
    private FallbackProbe() {}

    /** @param args {@code [fallback true|false]} */
    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(SluiceOptions.FALLBACK, Boolean.parseBoolean(args[0]));
        Table in = tEnv.fromValues(DataTypes.ROW(DataTypes.FIELD("name", DataTypes.STRING())), row("abc"));
        try {
            Table out = SluiceCalc.select(tEnv, in, "MD5(name)");
            String plan = out.explain().contains("SluiceCalc(") ? "native" : "stock";
            try (CloseableIterator<Row> it = out.execute().collect()) {
                System.out.println(plan + " " + it.next().getField(0));
            }
        } catch (SluiceLoadException e) {
            System.out.println("SluiceLoadException: " + e.getMessage());
        }
        System.exit(0);
    }
}
