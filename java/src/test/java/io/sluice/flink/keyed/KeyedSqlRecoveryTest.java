package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.flink.TestSupport;

/**
 * Plain SQL with sluice installed (the planner stage puts the native GroupAggregate into the
 * plan) through Flink checkpoints: a failure after a completed checkpoint, and a savepoint at
 * parallelism 2 restored at parallelism 3, both end with exactly the per-key changelog of an
 * undisturbed stock Flink run of the same query.
 */
class KeyedSqlRecoveryTest {
    static final int KEYS = 2_000;
    static final long ROWS = 30_000;
    static final String SQL = "SELECT k, COUNT(*), SUM(v), MIN(s), MAX(s), LAST_VALUE(v) FROM src GROUP BY k";

    @RegisterExtension
    static final MiniClusterExtension MINI = TestSupport.fourSlotCluster();

    /** generator → SQL GROUP BY (native when installed) → FailOnce → collect. */
    static DataStream<Row> pipeline(StreamExecutionEnvironment env, boolean installed, double perSecond) {
        DataStream<Row> in = KeyedTestData.source(env, KEYS, ROWS, perSecond);
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed);
        tEnv.createTemporaryView("src", tEnv.fromDataStream(in));
        if (installed) {
            Recovery.assertOnlyNative(tEnv, SQL, "GroupAggregate", "the GROUP BY runs natively");
        }
        Table result = tEnv.sqlQuery(SQL);
        return tEnv.toChangelogStream(result).map(new Recovery.FailOnce<Row>()).uid("fail-once");
    }

    @Test
    void failureAfterCheckpointGivesStockChangelog() throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.failingOnceAfterCheckpoint(KeyedSqlRecoveryTest::pipeline, KeyedTestData::byKey, 12_000);
        assertEquals(runs.expected(), runs.got());
    }

    @Test
    void savepointAtTwoRestoresAtThree(@TempDir Path dir) throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.rescaledAgainstStock(KeyedSqlRecoveryTest::pipeline, 10_000, "sql-rescale-p2", dir);
        Recovery.assertSameChangelogs(runs.expected(), runs.got());
    }
}
