package io.sluice.flink.bench;

import java.util.List;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;

import io.sluice.flink.TestSupport;

/**
 * Plain SQL lookup join, stock Flink vs the same SQL with {@code Sluice.install} and
 * {@code sluice.operator.lookup-join.enabled=true} (the cost rule off, so the bench measures the
 * operator whatever the rule decides): {@code rows} probe rows
 * ({@link KeyedSqlBenchmark.Gen} over 65,536 keys: k STRING, v BIGINT with NULLs, s STRING, plus a
 * processing-time attribute) look up a 65,536-row in-memory dimension
 * ({@code sluice-test-lookup}, shape {@code bench}: k, w BIGINT, t STRING; every probe key hits
 * one row) through its {@code LookupFunction}, INNER without a cache and LEFT with Flink's partial
 * lookup cache (64 rows: mostly misses, so the cache's bookkeeping is measured too), into a
 * blackhole sink; parallelism 1, one MiniCluster, a warm-up pair, then alternating pairs; rows per
 * second from the first generated row to the job's end. Each installed run asserts that the
 * lookup join is native.
 *
 * <pre>
 *   scripts/java-bench.sh lookup-sql [rows] [pairs]
 * </pre>
 */
public final class LookupSqlBenchmark {
    static final int KEYS = 65_536;

    static double run(long rows, String type, boolean cache, boolean installed) throws Exception {
        StreamExecutionEnvironment env = SqlPairs.env();
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed, "sluice.cost.enabled", "false",
                "sluice.operator.lookup-join.enabled", "true");
        DataStream<RowData> probe = SqlPairs.generated(env, new KeyedSqlBenchmark.Gen(KEYS), rows,
                KeyedSqlBenchmark.TYPE, WatermarkStrategy.noWatermarks(), "probe");
        tEnv.createTemporaryView("l", tEnv.fromDataStream(probe, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()").build()));
        tEnv.executeSql("CREATE TEMPORARY TABLE dim (k STRING, w BIGINT, t STRING) WITH ('connector' = "
                + "'sluice-test-lookup', 'shape' = 'bench', 'keys' = '" + KEYS + "', 'cache' = '" + cache + "')");
        tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, v BIGINT, s STRING, w BIGINT, t STRING) "
                + "WITH ('connector' = 'blackhole')");
        String sql = "INSERT INTO snk SELECT l.k, l.v, l.s, d.w, d.t FROM l " + type
                + " JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.k";
        return SqlPairs.timedInsert(tEnv, sql, installed, "LookupJoin", rows, () -> KeyedSqlBenchmark.firstRowNanos);
    }

    public static void main(String[] args) throws Exception {
        SqlPairs.main(args, rows -> List.of(
                new SqlPairs.Case("lookup INNER, 65,536-row dimension, no cache",
                        installed -> run(rows, "INNER", false, installed)),
                new SqlPairs.Case("lookup LEFT, 65,536-row dimension, partial cache",
                        installed -> run(rows, "LEFT", true, installed))));
    }
}
