package io.sluice.flink.bench;

import java.util.Locale;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import io.sluice.flink.Sluice;

/**
 * Plain SQL OVER aggregation, stock Flink vs the same SQL with {@code Sluice.install} (the
 * planner stage puts the native over into the plan): a running {@code COUNT(*)} and
 * {@code SUM(v)} per key ({@code ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW}), ordered by
 * processing time and by event time (monotonous timestamps, the source's watermarks), over 1,024
 * and 65,536 keys. Same generated {@code RowData} (k STRING, v BIGINT with NULLs, ts BIGINT) from
 * {@code fromDataStream}, same blackhole sink, parallelism 1, one MiniCluster; a warm-up pair,
 * then alternating pairs; rows per second from the generator's first row to the job's end. Each
 * installed run asserts that the OverAggregate is native.
 *
 * <pre>
 *   scripts/java-bench.sh over-sql [rows] [pairs]
 * </pre>
 */
public final class OverSqlBenchmark {
    static volatile long firstRowNanos;

    static final RowType TYPE = RowType.of(
            new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(), new BigIntType(false)},
            new String[] {"k", "v", "ts"});

    /** Row i: key (i * 40503) mod keys, v = i mod 1000 (NULL every 97th), ts = i / 4 ms after an epoch offset. */
    static final class Gen implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int keys;
        private transient StringData[] keyStrings;

        Gen(int keys) {
            this.keys = keys;
        }

        @Override
        public RowData map(Long index) {
            if (keyStrings == null) {
                keyStrings = new StringData[keys];
                for (int i = 0; i < keys; i++) {
                    keyStrings[i] = StringData.fromString(String.format(Locale.ROOT, "key-%05d-ключ", i));
                }
            }
            long i = index;
            if (i == 0) {
                firstRowNanos = System.nanoTime();
            }
            GenericRowData r = new GenericRowData(3);
            r.setField(0, keyStrings[(int) Long.remainderUnsigned(i * 40503, keys)]);
            r.setField(1, i % 97 == 0 ? null : i % 1000);
            r.setField(2, 1_700_000_000_000L + i / 4);
            return r;
        }
    }

    static double run(String order, int keys, long rows, boolean installed) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (installed) {
            Sluice.install(tEnv);
        }
        WatermarkStrategy<RowData> wm = WatermarkStrategy.<RowData>forMonotonousTimestamps()
                .withTimestampAssigner((r, prev) -> r.getLong(2));
        DataStream<RowData> src = env.fromSource(new DataGeneratorSource<>(new Gen(keys), rows, RateLimiterStrategy.noOp(),
                InternalTypeInfo.of(TYPE)), wm, "gen").setParallelism(1);
        tEnv.createTemporaryView("src", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()")
                .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime").watermark("rt", "SOURCE_WATERMARK()").build()));
        tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, v BIGINT, c BIGINT, sv BIGINT) "
                + "WITH ('connector' = 'blackhole')");
        String sql = "INSERT INTO snk SELECT k, v, COUNT(*) OVER w, SUM(v) OVER w FROM src WINDOW w AS "
                + "(PARTITION BY k ORDER BY " + order + " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)";
        return SqlPairs.timedInsert(tEnv, sql, installed, "OverAggregate", rows, () -> firstRowNanos);
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        SqlPairs.onMiniCluster(() -> {
            System.out.printf(Locale.ROOT, "rows %d, pairs %d (after 1 warm-up pair)%n", rows, pairs);
            Object[][] cases = {{"pt", 1_024}, {"pt", 65_536}, {"rt", 1_024}, {"rt", 65_536}};
            for (Object[] c : cases) {
                String order = (String) c[0];
                int keys = (Integer) c[1];
                String label = (order.equals("pt") ? "proctime" : "rowtime") + " running COUNT/SUM, " + keys + " keys";
                SqlPairs.pairs(label, pairs, installed -> run(order, keys, rows, installed));
            }
        });
    }
}
