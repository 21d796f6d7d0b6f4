package io.sluice.flink.examples;

import static org.apache.flink.table.api.Expressions.row;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.table.SluiceCalc;

/**
 * Runnable example of the native Calc (java/README.md): hashes and joins a
 * few columns through libsluice and prints the schema and the rows. It lives
 * with the tests, not in the jar (Flink is a provided dependency), and runs on
 * the test classpath:
 *
 * <pre>
 * scripts/java-example.sh
 * </pre>
 *
 * <p>scripts/java.sh runs it for each Flink line and checks a row it prints.
 */
public final class CalcExample {
    private CalcExample() {}

    /** @param args unused */
    public static void main(String[] args) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(SluiceOptions.FALLBACK, true); // run stock SQL if libsluice is missing
        Table users = tEnv.fromValues(
                DataTypes.ROW(
                        DataTypes.FIELD("id", DataTypes.BIGINT()),
                        DataTypes.FIELD("name", DataTypes.STRING()),
                        DataTypes.FIELD("city", DataTypes.STRING()),
                        DataTypes.FIELD("w", DataTypes.INT())),
                row(1L, "Ada", "London", 256),
                row(2L, "Grace", "Arlington", 512),
                row(3L, "Linus", null, 224),
                row(4L, "Zoë 😀", "Zürich", null));
        Table out = SluiceCalc.select(tEnv, users,
                "id",
                "MD5(name) AS name_md5",
                "SHA2(name, w) AS name_sha2",
                "CONCAT_WS(' | ', name, city) AS label",
                "POSITION('a' IN name) AS pos_a");
        out.printSchema();
        out.execute().print();
    }
}
