package io.sluice.flink.bench;

import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import io.sluice.flink.TestSupport;

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
    static final RowType TYPE = RowType.of(
            new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(), new BigIntType(false)},
            new String[] {"k", "v", "ts"});

    /** Row i: {@link KeyedSqlBenchmark.Gen}'s k and v, plus ts = i / 4 ms after an epoch offset. */
    static final class Gen implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final KeyedSqlBenchmark.Gen keyed;

        Gen(int keys) {
            this.keyed = new KeyedSqlBenchmark.Gen(keys);
        }

        @Override
        public RowData map(Long index) {
            GenericRowData r = keyed.withTimeField(index, 0, 1);
            r.setField(2, 1_700_000_000_000L + index / 4);
            return r;
        }
    }

    static double run(String order, int keys, long rows, boolean installed) throws Exception {
        StreamExecutionEnvironment env = SqlPairs.env();
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed);
        WatermarkStrategy<RowData> wm = WatermarkStrategy.<RowData>forMonotonousTimestamps()
                .withTimestampAssigner((r, prev) -> r.getLong(2));
        DataStream<RowData> src = SqlPairs.generated(env, new Gen(keys), rows, TYPE, wm, "gen");
        tEnv.createTemporaryView("src", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()")
                .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime").watermark("rt", "SOURCE_WATERMARK()").build()));
        tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, v BIGINT, c BIGINT, sv BIGINT) "
                + "WITH ('connector' = 'blackhole')");
        String sql = "INSERT INTO snk SELECT k, v, COUNT(*) OVER w, SUM(v) OVER w FROM src WINDOW w AS "
                + "(PARTITION BY k ORDER BY " + order + " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)";
        return SqlPairs.timedInsert(tEnv, sql, installed, "OverAggregate", rows,
                () -> KeyedSqlBenchmark.firstRowNanos);
    }

    public static void main(String[] args) throws Exception {
        SqlPairs.main(args, rows -> {
            List<SqlPairs.Case> cases = new ArrayList<>();
            for (String order : new String[] {"pt", "rt"}) {
                for (int keys : new int[] {1_024, 65_536}) {
                    String label = (order.equals("pt") ? "proctime" : "rowtime") + " running COUNT/SUM, " + keys + " keys";
                    cases.add(new SqlPairs.Case(label, installed -> run(order, keys, rows, installed)));
                }
            }
            return cases;
        });
    }
}
