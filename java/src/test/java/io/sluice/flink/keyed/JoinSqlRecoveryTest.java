package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.TestSupport;


/**
 * Plain SQL LEFT join with sluice installed and the native join switched on, through a failure
 * after a completed checkpoint at parallelism 2: the job restores both inputs' native state from
 * Flink's raw keyed state and ends with the materialized result of an undisturbed stock run (the
 * two inputs' interleaving, and so the changelog, is not defined; the result is).
 */
class JoinSqlRecoveryTest {
    static final int KEYS = 1_000;
    static final long ROWS = 12_000;
    static final String SQL = "SELECT l.k, l.v, r.v AS rv, r.s FROM l LEFT JOIN r ON l.k = r.k";

    @RegisterExtension
    static final MiniClusterExtension MINI = TestSupport.fourSlotCluster();

    /** Two generators (left: ROWS rows, right: a tenth of them, same keys) → SQL LEFT JOIN → FailOnce. */
    static DataStream<Row> pipeline(StreamExecutionEnvironment env, boolean installed, double perSecond) {
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed, "sluice.operator.join.enabled", "true");
        DataStream<Row> left = env.fromSource(new DataGeneratorSource<>(i -> KeyedTestData.row(i, KEYS), ROWS,
                RateLimiterStrategy.perSecond(perSecond), KeyedTestData.typeInfo()), WatermarkStrategy.noWatermarks(),
                "left").setParallelism(1).uid("left");
        DataStream<Row> right = env.fromSource(new DataGeneratorSource<>(i -> KeyedTestData.row(i + 1_000_000, KEYS),
                ROWS / 10, RateLimiterStrategy.perSecond(perSecond / 10), KeyedTestData.typeInfo()),
                WatermarkStrategy.noWatermarks(), "right").setParallelism(1).uid("right");
        tEnv.createTemporaryView("l", tEnv.fromDataStream(left));
        tEnv.createTemporaryView("r", tEnv.fromDataStream(right));
        if (installed) {
            Recovery.assertOnlyNative(tEnv, SQL, "Join", "the join runs natively");
        }
        return tEnv.toChangelogStream(tEnv.sqlQuery(SQL)).map(new Recovery.FailOnce<Row>()).uid("fail-once");
    }

    /** The changelog applied: row text → multiplicity (zeros removed). */
    static Map<String, Integer> materialize(CloseableIterator<Row> rows) throws Exception {
        Map<String, Integer> m = new HashMap<>();
        try (rows) {
            while (rows.hasNext()) {
                Row r = rows.next();
                boolean add = r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER;
                Row copy = Row.copy(r);
                copy.setKind(RowKind.INSERT);
                m.merge(copy.toString(), add ? 1 : -1, Integer::sum);
            }
        }
        m.values().removeIf(v -> v == 0);
        return m;
    }

    @Test
    void failureAfterCheckpointGivesStockResult() throws Exception {
        Recovery.Runs<Map<String, Integer>> runs =
                Recovery.failingOnceAfterCheckpoint(JoinSqlRecoveryTest::pipeline, JoinSqlRecoveryTest::materialize, 6_000);
        assertTrue(!runs.expected().isEmpty());
        assertEquals(runs.expected(), runs.got());
    }
}
