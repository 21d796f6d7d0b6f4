package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.TestSupport;

/**
 * Plain SQL ROW_NUMBER Top-N with sluice installed (the planner stage puts the native topn into
 * the plan) through Flink checkpoints, against an undisturbed stock run of the same query:
 * <ul>
 *   <li>append-only Top-3 per k by v DESC with the rank column (Flink's
 *       {@code AppendOnlyTopNFunction}; NULLs and ties in v): the source's single subtask fixes
 *       each key's order, so each key's changelog is defined and must be stock's exactly;</li>
 *   <li>retracting Top-3 per g over {@code GROUP BY g, k} ({@code RetractableTopNFunction}; a
 *       SUM that goes up and down): at parallelism 2 the aggregate's subtasks interleave their
 *       updates into the Rank, so the changelog is not defined but the materialized result
 *       (the final Top-3 of every g) is, and must be stock's.</li>
 * </ul>
 * Each through a failure after a completed checkpoint at parallelism 2 (the native Top-N state
 * restored from Flink's raw keyed state), and through a savepoint at parallelism 2 restored at parallelism 3 (key groups move
 * between subtasks; 2.x only, for the reason {@link Recovery#rescaledAgainstStock} gives).
 */
class RankSqlRecoveryTest {
    static final int KEYS = 300;
    static final long ROWS = 24_000;

    static final String APPEND = "SELECT k, v, s, rn FROM (SELECT k, v, s, ROW_NUMBER() OVER (PARTITION BY k "
            + "ORDER BY v DESC) AS rn FROM src) WHERE rn <= 3";
    /** g: the key's length (the prefixes of {@link KeyedTestData#row} give a handful of partitions of varied size). */
    static final String RETRACT = "SELECT g, k, sv, rn FROM (SELECT g, k, sv, ROW_NUMBER() OVER (PARTITION BY g "
            + "ORDER BY sv DESC, k) AS rn FROM (SELECT CHAR_LENGTH(k) AS g, k, SUM(v) AS sv FROM src "
            + "GROUP BY CHAR_LENGTH(k), k)) WHERE rn <= 3";

    @RegisterExtension
    static final MiniClusterExtension MINI = TestSupport.fourSlotCluster();

    /** generator → SQL Top-N (native when installed) → FailOnce → collect. */
    static DataStream<Row> pipeline(StreamExecutionEnvironment env, String sql, boolean installed, double perSecond) {
        DataStream<Row> in = KeyedTestData.source(env, KEYS, ROWS, perSecond);
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed);
        tEnv.createTemporaryView("src", tEnv.fromDataStream(in));
        if (!installed) {
            String strategy = sql.equals(RETRACT) ? "RetractStrategy" : "AppendFastStrategy";
            assertTrue(tEnv.explainSql(sql).contains("Rank(strategy=[" + strategy), "Flink plans the " + strategy);
        } else {
            List<String> natives = Sluice.explain(tEnv, sql).nodes().stream().filter(NodeReport::isNative)
                    .map(NodeReport::node).toList();
            assertTrue(natives.contains("Rank"), "the Top-N runs natively: " + natives);
        }
        return tEnv.toChangelogStream(tEnv.sqlQuery(sql)).map(new Recovery.FailOnce<Row>()).uid("fail-once");
    }

    /** {@link #pipeline} of {@code sql}. */
    static Recovery.Pipeline job(String sql) {
        return (env, installed, perSecond) -> pipeline(env, sql, installed, perSecond);
    }

    /** Per-key changelogs (as {@link KeyedTestData#byKey} gives them) applied: row text → multiplicity, zeros removed. */
    static Map<String, Integer> materialize(Map<String, List<String>> byKey) {
        Map<String, Integer> m = new HashMap<>();
        for (List<String> rows : byKey.values()) {
            for (String r : rows) {
                boolean add = r.startsWith("+I") || r.startsWith("+U");
                assertTrue(add || r.startsWith("-U") || r.startsWith("-D"), r);
                m.merge(r.substring(2), add ? 1 : -1, Integer::sum);
            }
        }
        m.values().removeIf(v -> v == 0);
        return m;
    }

    @Test
    void appendOnlyFailureAfterCheckpointGivesStockChangelog() throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.failingOnceAfterCheckpoint(job(APPEND), KeyedTestData::byKey, 10_000);
        assertTrue(KeyedTestData.count(runs.expected()) > KEYS * 3, "the Top-3s changed");
        Recovery.assertSameChangelogs(runs.expected(), runs.got());
    }

    @Test
    void retractFailureAfterCheckpointGivesStockResult() throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.failingOnceAfterCheckpoint(job(RETRACT), KeyedTestData::byKey, 10_000);
        Map<String, Integer> expected = materialize(runs.expected());
        assertFalse(expected.isEmpty());
        assertTrue(KeyedTestData.count(runs.expected()) > expected.size() * 4, "the Top-3s changed");
        assertEquals(expected, materialize(runs.got()));
    }

    @Test
    void appendOnlySavepointAtTwoRestoresAtThree(@TempDir Path dir) throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.rescaledAgainstStock(job(APPEND), 8_000, "rank-append-rescale-p2", dir);
        Recovery.assertSameChangelogs(runs.expected(), runs.got());
    }

    @Test
    void retractSavepointAtTwoRestoresAtThree(@TempDir Path dir) throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.rescaledAgainstStock(job(RETRACT), 8_000, "rank-retract-rescale-p2", dir);
        assertEquals(materialize(runs.expected()), materialize(runs.got()));
    }
}
