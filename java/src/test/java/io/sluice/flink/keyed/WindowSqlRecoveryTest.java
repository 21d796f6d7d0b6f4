package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.flink.TestSupport;
import io.sluice.flink.compat.FlinkLine;

/**
 * Plain SQL HOP window aggregate with sluice installed (the planner stage puts the native window
 * into the plan) through a failure after a completed checkpoint: the job restores the native
 * window's slices, timers and watermark from Flink's raw keyed state and ends with exactly the
 * rows of an undisturbed stock Flink run (compared as a multiset: output is insert-only). And the
 * same query through a savepoint at parallelism 2 restored at 3 (2.x).
 */
class WindowSqlRecoveryTest {
    static final int KEYS = 200;
    static final long ROWS = 30_000;
    static final String SQL = "SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(s), MAX(s) FROM TABLE(HOP("
            + "TABLE src, DESCRIPTOR(rt), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end";
    static final DataType TYPE = KeyedTestData.withTime(DataTypes.TIMESTAMP(3).notNull());

    @RegisterExtension
    static final MiniClusterExtension MINI = TestSupport.fourSlotCluster();

    /** Row i: 10 ms of event time per row, up to 400 ms out of order; NULLs in v and s. */
    static Row row(long i) {
        java.util.Random r = new java.util.Random(i * 0x9E3779B97F4A7C15L + 5);
        String k = "k😀" + r.nextInt(KEYS);
        Long v = r.nextInt(7) == 0 ? null : (long) r.nextInt(1_000_000);
        String s = r.nextInt(7) == 0 ? null : "s" + r.nextInt(5_000);
        LocalDateTime ts = LocalDateTime.of(2024, 1, 1, 0, 0).plusNanos((i * 10 - r.nextInt(401)) * 1_000_000L);
        return Row.of(k, v, s, ts);
    }

    @SuppressWarnings("unchecked")
    static TypeInformation<Row> info() {
        return (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(TYPE);
    }

    /** generator → SQL HOP aggregate (native when installed) → FailOnce → collect. */
    static DataStream<Row> pipeline(StreamExecutionEnvironment env, boolean installed, double perSecond) {
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(WindowSqlRecoveryTest::row, ROWS,
                RateLimiterStrategy.perSecond(perSecond), info());
        DataStream<Row> in = env.fromSource(source, WatermarkStrategy.noWatermarks(), "gen").setParallelism(1)
                .uid("gen");
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed);
        // 1 s behind rows at most 400 ms out of order: no row is late however subtasks interleave.
        tEnv.createTemporaryView("src", tEnv.fromDataStream(in, Schema.newBuilder().columnByExpression("rt", "ts")
                .watermark("rt", "rt - INTERVAL '1' SECOND").build()));
        if (installed) {
            Recovery.assertOnlyNative(tEnv, SQL, "WindowAggregate", "the window aggregate runs natively");
        }
        Table result = tEnv.sqlQuery(SQL);
        return tEnv.toChangelogStream(result).map(new Recovery.FailOnce<Row>()).uid("fail-once");
    }

    static List<String> sorted(CloseableIterator<Row> it) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> rows = it) {
            rows.forEachRemaining(r -> out.add(r.toString()));
        }
        out.sort(null);
        return out;
    }

    @Test
    void failureAfterCheckpointGivesStockRows() throws Exception {
        Recovery.Runs<List<String>> runs =
                Recovery.failingOnceAfterCheckpoint(WindowSqlRecoveryTest::pipeline, WindowSqlRecoveryTest::sorted, 12_000);
        assertTrue(runs.expected().size() > 1_000, "rows: " + runs.expected().size());
        assertEquals(runs.expected(), runs.got());
    }

    /**
     * A savepoint at parallelism 2 (stop without drain: open windows stay in state) restored at 3, so
     * key groups move between subtasks with their slices and timers: the rows before the stop and
     * after the restore are, as a multiset, the stock rows. 2.x only, for the reason
     * {@code KeyedSqlRecoveryTest.savepointAtTwoRestoresAtThree} gives (Flink 1.20's collect sink
     * fails its own check after such a restore).
     */
    @Test
    void savepointAtTwoRestoresAtThree(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(FlinkLine.name().equals("flink-2"),
                "Flink 1.20: collect sink after a savepoint restore (KeyedSqlRecoveryTest)");
        List<String> expected = Recovery.stockReference(WindowSqlRecoveryTest::pipeline, WindowSqlRecoveryTest::sorted);
        List<String> got = new ArrayList<>();
        Recovery.rescaledThroughSavepoint(WindowSqlRecoveryTest::pipeline, WindowSqlRecoveryTest::pipeline, 8_000,
                "window-rescale-p2", dir).values().forEach(got::addAll);
        got.sort(null);
        assertEquals(expected, got);
    }
}
