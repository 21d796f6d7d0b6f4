package io.sluice.flink.bench;

import java.util.Locale;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

import io.sluice.flink.TestSupport;

/**
 * Plain SQL INNER join of two insert-only streams on a string key, stock Flink vs the same SQL
 * with {@code Sluice.install} and {@code sluice.operator.join.enabled=true}: {@code l} has
 * {@code rows} rows over {@code keys} keys (k STRING, v BIGINT with NULLs, s STRING), {@code r}
 * {@code fanOut} rows per key (k STRING, w BIGINT, t STRING), so the join emits {@code fanOut}
 * rows per left row whichever input arrives first. Three shapes: 65,536 keys with one right row
 * each (the flattering one), 64 keys (few keys: every probe hits one of 64 hot state entries), and
 * 8,192 keys with 8 right rows each (fan-out: 8 output rows per left row, where stock emits
 * a lazy {@code JoinedRowData} and the native join builds every output row). Same generators
 * ({@link KeyedSqlBenchmark.Gen} for the left), blackhole sink,
 * parallelism 1, one MiniCluster; a warm-up pair, then alternating pairs; rows per second (left
 * rows) from the job's submission to its end. Each installed run asserts that the join is native.
 *
 * <pre>
 *   scripts/java-bench.sh join-sql [rows] [pairs]
 * </pre>
 */
public final class JoinSqlBenchmark {
    static final int KEYS = 65_536;

    /** Right row i: the key of left key index {@code i % keys}, w = i, t one of 1,024 strings. */
    static final class Dim implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int keys;

        Dim(int keys) {
            this.keys = keys;
        }

        @Override
        public RowData map(Long index) {
            long i = index;
            GenericRowData r = new GenericRowData(3);
            r.setField(0, StringData.fromString(String.format(Locale.ROOT, "key-%05d-ключ", i % keys)));
            r.setField(1, i);
            r.setField(2, StringData.fromString("dim " + (i & 1023)));
            return r;
        }
    }

    static double run(long rows, int keys, int fanOut, boolean installed) throws Exception {
        StreamExecutionEnvironment env = SqlPairs.env();
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed, "sluice.operator.join.enabled", "true");
        DataStream<RowData> left = SqlPairs.generated(env, new KeyedSqlBenchmark.Gen(keys), rows, KeyedSqlBenchmark.TYPE,
                WatermarkStrategy.noWatermarks(), "left");
        DataStream<RowData> right = SqlPairs.generated(env, new Dim(keys), (long) keys * fanOut, KeyedSqlBenchmark.TYPE,
                WatermarkStrategy.noWatermarks(), "right");
        tEnv.createTemporaryView("l", tEnv.fromDataStream(left));
        tEnv.createTemporaryView("r", tEnv.fromDataStream(right).as("k", "w", "t"));
        tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, v BIGINT, s STRING, w BIGINT, t STRING) "
                + "WITH ('connector' = 'blackhole')");
        String sql = "INSERT INTO snk SELECT l.k, l.v, l.s, r.w, r.t FROM l JOIN r ON l.k = r.k";
        // Timed from submission: two sources, no single first row.
        return SqlPairs.timedInsert(tEnv, sql, installed, "Join", rows, () -> 0L);
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        SqlPairs.onMiniCluster(() -> {
            System.out.printf(Locale.ROOT, "join: %d left rows, pairs %d (after 1 warm-up pair)%n", rows, pairs);
            SqlPairs.pairs("INNER join on a string key, 65,536 keys x 1", pairs, installed -> run(rows, KEYS, 1,
                    installed));
            SqlPairs.pairs("INNER join on a string key, 64 keys x 1", pairs, installed -> run(rows, 64, 1, installed));
            // A tenth of the left rows: the join emits 8 rows for each.
            SqlPairs.pairs("INNER join on a string key, 8,192 keys x 8 (fan-out)", pairs, installed -> run(rows / 10,
                    8192, 8, installed));
        });
    }
}
