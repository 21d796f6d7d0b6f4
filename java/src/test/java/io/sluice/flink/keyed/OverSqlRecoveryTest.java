package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.flink.TestSupport;

/**
 * Plain SQL OVER aggregation with sluice installed (the planner stage puts the native over into
 * the plan) through a failure after a completed checkpoint at parallelism 2: the job restores the
 * native state (running accumulators; for event time also the frames, the rows waiting for the
 * watermark and the timers) from Flink's raw keyed state and ends with exactly the per-key
 * changelog of an undisturbed stock run. Processing time: a running COUNT/SUM/MAX per key (the
 * source's single subtask fixes each key's order). Event time: a RANGE INTERVAL frame over
 * monotonous timestamps with ties (no row is late on either side, so the result is defined).
 * And the proctime fold through a savepoint at parallelism 2 restored at 3 (2.x).
 */
class OverSqlRecoveryTest {
    static final int KEYS = 300;
    static final long ROWS = 24_000;

    static final String PROCTIME = "SELECT k, v, COUNT(*) OVER w, SUM(v) OVER w, MAX(s) OVER w FROM src "
            + "WINDOW w AS (PARTITION BY k ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)";
    static final String ROWTIME = "SELECT k, v, rt, COUNT(*) OVER w, SUM(v) OVER w, MIN(s) OVER w FROM src "
            + "WINDOW w AS (PARTITION BY k ORDER BY rt RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW)";

    static final DataType TYPE = KeyedTestData.withTime(DataTypes.BIGINT().notNull());

    @RegisterExtension
    static final MiniClusterExtension MINI = TestSupport.fourSlotCluster();

    /** Row i of {@link KeyedTestData#row} plus an event time of i / 2 ms (two rows per millisecond). */
    static Row row(long i) {
        Row r = KeyedTestData.row(i, KEYS);
        return Row.of(r.getField(0), r.getField(1), r.getField(2), 1_700_000_000_000L + i / 2);
    }

    /** generator → SQL OVER (native when installed) → FailOnce → collect. */
    static DataStream<Row> pipeline(StreamExecutionEnvironment env, String sql, boolean installed, double perSecond) {
        @SuppressWarnings("unchecked")
        TypeInformation<Row> info = (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(TYPE);
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(OverSqlRecoveryTest::row, ROWS,
                RateLimiterStrategy.perSecond(perSecond), info);
        WatermarkStrategy<Row> wm = WatermarkStrategy.<Row>forMonotonousTimestamps()
                .withTimestampAssigner((r, prev) -> (Long) r.getField(3));
        DataStream<Row> in = env.fromSource(source, wm, "gen").setParallelism(1).uid("gen");
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed);
        tEnv.createTemporaryView("src", tEnv.fromDataStream(in, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()")
                .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime").watermark("rt", "SOURCE_WATERMARK()").build()));
        if (installed) {
            Recovery.assertOnlyNative(tEnv, sql, "OverAggregate", "the OVER runs natively");
        }
        return tEnv.toChangelogStream(tEnv.sqlQuery(sql)).map(new Recovery.FailOnce<Row>()).uid("fail-once");
    }

    /** {@link #pipeline} of {@code sql}. */
    static Recovery.Pipeline job(String sql) {
        return (env, installed, perSecond) -> pipeline(env, sql, installed, perSecond);
    }

    static void failureAfterCheckpointGivesStockChangelog(String sql) throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.failingOnceAfterCheckpoint(job(sql), KeyedTestData::byKey, 10_000);
        assertEquals(ROWS, KeyedTestData.count(runs.expected()), "every row is emitted once");
        Recovery.assertSameChangelogs(runs.expected(), runs.got());
    }

    /**
     * A savepoint at parallelism 2 restored at 3 (key groups move between subtasks) continues each
     * key's running fold: the rows before the stop and after the restore are, per key, the stock
     * changelog. 2.x only, for the reason {@link Recovery#rescaledAgainstStock} gives.
     */
    @Test
    void proctimeSavepointAtTwoRestoresAtThree(@TempDir Path dir) throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.rescaledAgainstStock(job(PROCTIME), 8_000, "over-rescale-p2", dir);
        Recovery.assertSameChangelogs(runs.expected(), runs.got());
    }

    @Test
    void proctimeRunningFold() throws Exception {
        failureAfterCheckpointGivesStockChangelog(PROCTIME);
    }

    @Test
    void rowtimeRangeFrame() throws Exception {
        failureAfterCheckpointGivesStockChangelog(ROWTIME);
    }
}
