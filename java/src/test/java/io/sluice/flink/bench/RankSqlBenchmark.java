package io.sluice.flink.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;

import io.sluice.flink.Sluice;
import io.sluice.flink.TestSupport;
import io.sluice.flink.nexmark.NexmarkDigestSinkFactory;
import io.sluice.flink.nexmark.NexmarkRun;

/**
 * Plain SQL ROW_NUMBER Top-N, stock Flink vs the same SQL with {@code Sluice.install} (the planner
 * stage puts the native {@code topn} into the plan), over {@link KeyedSqlBenchmark.Gen}'s rows
 * (k STRING, v BIGINT with NULLs, s STRING):
 * <ul>
 *   <li>append-only Top-3 per k by v DESC over insert-only rows (Flink's
 *       {@code AppendOnlyTopNFunction}): 65,536 partitions without and with the rank column (with
 *       it, every rank a new row shifts is re-emitted), and 64 partitions (few partitions: after
 *       the first rows almost every row is rejected against a hot Top-3, which stock does cheaply
 *       too);</li>
 *   <li>retracting Top-3 over a GROUP BY result ({@code RetractableTopNFunction}): per
 *       g = SUBSTR(k, 5, 3) (656 partitions of about 100 keys), the 3 keys with the largest
 *       SUM(v - 500), a sum that goes up and down, so every input row is a -U/+U pair into the
 *       Rank that can move a key into, within or out of the Top-3; without and with the rank
 *       column, and per g = SUBSTR(k, 5, 1) (7 partitions of about 9,400 keys, few large
 *       partitions). The GROUP BY under it runs native too when installed: the ratio is the
 *       query's.</li>
 * </ul>
 * Each shape first checks itself: the stock plan's Rank has the strategy the shape names, the
 * installed plan's Rank is native, and one stock and one installed run into the digest sink
 * ({@link NexmarkDigestSinkFactory}: a multiset hash of the materialized result, and the changelog's
 * length) agree; it fails
 * otherwise. Then the timed runs: blackhole sink, parallelism 1, one MiniCluster; a warm-up pair,
 * then alternating pairs ({@link SqlPairs}); rows per second from the generator's first row to the
 * job's end.
 *
 * <pre>
 *   scripts/java-bench.sh rank-sql [rows] [pairs]
 * </pre>
 */
public final class RankSqlBenchmark {
    /** A Top-N query over {@code src}: its label, partitions, select list, the rank's input, and Flink's strategy. */
    record Shape(String label, int keys, String select, String from, String strategy) {
        String query() {
            return "SELECT " + select + " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY " + partition()
                    + " ORDER BY " + order() + ") AS rn FROM " + from + ") WHERE rn <= 3";
        }

        private boolean retract() {
            return strategy.equals("RetractStrategy");
        }

        private String partition() {
            return retract() ? "g" : "k";
        }

        private String order() {
            return retract() ? "sv DESC, k" : "v DESC";
        }
    }

    static final String APPEND = "src";
    static final String GROUPED = "(SELECT SUBSTR(k, 5, %d) AS g, k, SUM(v - 500) AS sv FROM src "
            + "GROUP BY SUBSTR(k, 5, %d), k)";

    static List<Shape> shapes() {
        List<Shape> s = new ArrayList<>();
        s.add(new Shape("append-only Top-3, 65,536 partitions", 65_536, "k, v, s", APPEND, "AppendFastStrategy"));
        s.add(new Shape("append-only Top-3 with rank column, 65,536 partitions", 65_536, "k, v, s, rn", APPEND,
                "AppendFastStrategy"));
        s.add(new Shape("append-only Top-3, 64 partitions", 64, "k, v, s", APPEND, "AppendFastStrategy"));
        String grouped656 = String.format(Locale.ROOT, GROUPED, 3, 3);
        s.add(new Shape("retract Top-3 over GROUP BY, 656 partitions x 100 keys", 65_536, "g, k, sv", grouped656,
                "RetractStrategy"));
        s.add(new Shape("retract Top-3 over GROUP BY with rank column, 656 partitions", 65_536, "g, k, sv, rn",
                grouped656, "RetractStrategy"));
        s.add(new Shape("retract Top-3 over GROUP BY, 7 partitions x 9,400 keys", 65_536, "g, k, sv",
                String.format(Locale.ROOT, GROUPED, 1, 1), "RetractStrategy"));
        return s;
    }

    /** A fresh table environment with {@code rows} generated rows as {@code src}, stock or installed. */
    static StreamTableEnvironment tables(Shape shape, long rows, boolean installed) {
        StreamExecutionEnvironment env = SqlPairs.env();
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed);
        DataStream<RowData> src = SqlPairs.generated(env, new KeyedSqlBenchmark.Gen(shape.keys()), rows,
                KeyedSqlBenchmark.TYPE, WatermarkStrategy.noWatermarks(), "gen");
        tEnv.createTemporaryView("src", tEnv.fromDataStream(src));
        return tEnv;
    }

    static String sinkColumns(Shape shape) {
        String cols = shape.strategy().equals("RetractStrategy") ? "g STRING, k STRING, sv BIGINT" : "k STRING, v BIGINT, s STRING";
        return shape.select().endsWith(", rn") ? cols + ", rn BIGINT" : cols;
    }

    static double run(Shape shape, long rows, boolean installed) throws Exception {
        StreamTableEnvironment tEnv = tables(shape, rows, installed);
        tEnv.executeSql("CREATE TEMPORARY TABLE snk (" + sinkColumns(shape) + ") WITH ('connector' = 'blackhole')");
        return SqlPairs.timedInsert(tEnv, "INSERT INTO snk " + shape.query(), installed, "Rank", rows,
                () -> KeyedSqlBenchmark.firstRowNanos);
    }

    /**
     * Checks the shape before it is timed: Flink plans its Rank with the shape's strategy, sluice
     * substitutes it, and stock and installed give the same materialized result through a
     * changelog of the same length.
     */
    static void check(Shape shape, long rows) throws Exception {
        String plan = tables(shape, rows, false).explainSql(shape.query());
        if (!plan.contains("Rank(strategy=[" + shape.strategy())) {
            throw new IllegalStateException(shape.label() + ": Flink does not plan the " + shape.strategy() + ": " + plan);
        }
        NexmarkRun.Digest stock = digest(shape, rows, false);
        NexmarkRun.Digest installed = digest(shape, rows, true);
        if (!stock.sameResult(installed) || stock.changes() != installed.changes()) {
            throw new IllegalStateException(shape.label() + ": results differ: stock " + stock + ", installed " + installed);
        }
        System.out.printf(Locale.ROOT, "%s: %s, same result (stock %s; installed %s)%n", shape.label(),
                shape.strategy(), stock, installed);
    }

    private static NexmarkRun.Digest digest(Shape shape, long rows, boolean installed) throws Exception {
        StreamTableEnvironment tEnv = tables(shape, rows, installed);
        String run = "rank-" + installed + "-" + shape.label();
        tEnv.executeSql("CREATE TEMPORARY TABLE dig (" + sinkColumns(shape) + ") WITH ('connector' = '"
                + NexmarkDigestSinkFactory.IDENTIFIER + "', '" + NexmarkDigestSinkFactory.RUN.key() + "' = '" + run + "')");
        if (installed) {
            if (Sluice.explain(tEnv, shape.query()).nodes().stream().noneMatch(n -> n.isNative() && n.node().equals("Rank"))) {
                throw new IllegalStateException(shape.label() + ": the Rank is not native: "
                        + Sluice.explain(tEnv, shape.query()).text());
            }
        }
        tEnv.executeSql("INSERT INTO dig " + shape.query()).await();
        return NexmarkDigestSinkFactory.take(run);
    }

    public static void main(String[] args) throws Exception {
        SqlPairs.main(args, rows -> {
            List<SqlPairs.Case> cases = new ArrayList<>();
            for (Shape shape : shapes()) {
                cases.add(new SqlPairs.Case(shape.label(), installed -> run(shape, rows, installed),
                        () -> check(shape, rows)));
            }
            return cases;
        });
    }
}
