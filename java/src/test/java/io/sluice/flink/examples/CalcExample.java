package io.sluice.flink.examples;

import static org.apache.flink.table.api.Expressions.row;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceOptions;

/**
 * Runnable example of the planner stage (java/README.md): plain Flink SQL that hashes and joins
 * a few columns, with {@link Sluice#install} before it; prints sluice's explain (which nodes are
 * native, and why the rest are not) and the rows. It lives with the tests, not in the jar (Flink
 * is a provided dependency), and runs on the test classpath:
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
        tEnv.createTemporaryView("users", users);
        Sluice.install(tEnv);
        String sql = "SELECT id, MD5(name) AS name_md5, SHA2(name, w) AS name_sha2, "
                + "CONCAT_WS(' | ', name, city) AS label, UPPER(city) AS city_uc, POSITION('a' IN name) AS pos_a "
                + "FROM users WHERE name LIKE '%a%'";
        System.out.println(Sluice.explain(tEnv, sql).text());
        Table out = tEnv.sqlQuery(sql);
        out.printSchema();
        out.execute().print();
    }
}
