package io.sluice.flink.bench;

import java.util.Locale;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;

import io.sluice.flink.TestSupport;

/**
 * Plain SQL window TVF aggregates, stock Flink vs the same SQL with {@code Sluice.install}: TUMBLE
 * and HOP with COUNT(*), SUM(v), MAX(s) grouped by k over 1,024 keys: at 1 row per ms of event
 * time (default) TUMBLE 10 s and HOP 10 s every 2 s, at N rows per ms (third argument) TUMBLE 1 s
 * and HOP 1 s every 0.2 s. Generated {@code RowData} (k STRING, v BIGINT with NULLs, s STRING,
 * ts TIMESTAMP(3), in order) from {@code fromDataStream} with a watermark on {@code ts},
 * blackhole sink, parallelism 1, one MiniCluster; a warm-up pair, then alternating pairs; rows per
 * second from the generator's first row to the job's end. Each installed run asserts that the
 * window aggregate is native.
 *
 * <pre>
 *   scripts/java-bench.sh window-sql [rows] [pairs] [rows per ms of event time]
 * </pre>
 */
public final class WindowSqlBenchmark {
    static final int KEYS = 1_024;
    /** Rows per millisecond of event time (third argument, default 1). */
    static int rowsPerMs = 1;

    static final RowType TYPE = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH),
            new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH), new TimestampType(false, 3)},
            new String[] {"k", "v", "s", "ts"});

    /** Row i: {@link KeyedSqlBenchmark.Gen}'s row over 1,024 keys, plus ts = i / perMs ms of event time. */
    static final class Gen implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final KeyedSqlBenchmark.Gen keyed = new KeyedSqlBenchmark.Gen(KEYS);
        private final int perMs;

        Gen(int perMs) {
            this.perMs = perMs;
        }

        @Override
        public RowData map(Long index) {
            GenericRowData r = keyed.withTimeField(index, 0, 1, 2);
            r.setField(3, TimestampData.fromEpochMillis(1_700_000_000_000L + index / perMs));
            return r;
        }
    }

    static double run(String tvf, long rows, boolean installed) throws Exception {
        StreamExecutionEnvironment env = SqlPairs.env();
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed);
        DataStream<RowData> src = SqlPairs.generated(env, new Gen(rowsPerMs), rows, TYPE, WatermarkStrategy.noWatermarks(),
                "gen");
        tEnv.createTemporaryView("src", tEnv.fromDataStream(src, Schema.newBuilder().columnByExpression("rt", "ts")
                .watermark("rt", "rt - INTERVAL '0.001' SECOND").build()));
        tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, sv BIGINT, "
                + "maxs STRING) WITH ('connector' = 'blackhole')");
        String sql = "INSERT INTO snk SELECT k, window_start, window_end, COUNT(*), SUM(v), MAX(s) FROM TABLE(" + tvf
                + ") GROUP BY k, window_start, window_end";
        return SqlPairs.timedInsert(tEnv, sql, installed, "WindowAggregate", rows,
                () -> KeyedSqlBenchmark.firstRowNanos);
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        rowsPerMs = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        String[] windows = rowsPerMs == 1 ? new String[] {"10", "2"} : new String[] {"1", "0.2"};
        SqlPairs.onMiniCluster(() -> {
            System.out.printf(Locale.ROOT, "window: %d rows, %d keys, %d rows per ms of event time, pairs %d "
                    + "(after 1 warm-up pair)%n", rows, KEYS, rowsPerMs, pairs);
            String size = "INTERVAL '" + windows[0] + "' SECOND";
            String slide = "INTERVAL '" + windows[1] + "' SECOND";
            String[][] cases = {
                {"TUMBLE " + windows[0] + " s", "TUMBLE(TABLE src, DESCRIPTOR(rt), " + size + ")"},
                {"HOP " + windows[0] + " s / " + windows[1] + " s", "HOP(TABLE src, DESCRIPTOR(rt), " + slide + ", "
                        + size + ")"}};
            for (String[] c : cases) {
                SqlPairs.pairs(c[0], pairs, installed -> run(c[1], rows, installed));
            }
        });
    }
}
