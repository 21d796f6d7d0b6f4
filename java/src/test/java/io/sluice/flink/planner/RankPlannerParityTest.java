package io.sluice.flink.planner;

import static io.sluice.flink.planner.ParityHarness.Compare.MATERIALIZED;
import static io.sluice.flink.planner.ParityHarness.Compare.ORDERED;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.Sluice;
import io.sluice.flink.TestSupport;
import io.sluice.flink.planner.ParityHarness.Query;

/**
 * Plain SQL ROW_NUMBER Top-N, stock Flink vs sluice installed ({@link ParityHarness}) over the
 * tables of {@link KeyedSqlData}: append-only Top-3 per partition with and without the rank
 * column (Flink's AppendOnlyTopNFunction), Top-1 (FastTop1Function), a rank range with an offset,
 * a Top-N over a GROUP BY result (RetractableTopNFunction, retracting input), a Top-N by COUNT(*)
 * over a GROUP BY (UpdatableTopNFunction: an upsert input whose sort key only grows), parallelism
 * 1 and 4, and the queries that must stay stock with their reasons.
 */
class RankPlannerParityTest extends ParityTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    /** Top-N of kt per k by v DESC (NULLs, ties and BIGINT extremes in v). */
    static final String TOP_N = "SELECT %s FROM (SELECT id, k, v, s, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) "
            + "AS rn FROM kt) WHERE %s";
    /** Top-N over a GROUP BY: SUM(v) goes up and down, so the Rank consumes -U/+U (RetractStrategy). */
    static final String OVER_GROUP_BY = "SELECT %s FROM (SELECT g, k, sv, ROW_NUMBER() OVER (PARTITION BY g ORDER BY sv "
            + "DESC, k) AS rn FROM (SELECT g, k, SUM(v) AS sv FROM kt GROUP BY g, k)) WHERE rn <= 3";

    /**
     * Top-3 by COUNT(*) DESC per g over a GROUP BY g, k: the counts only grow and (g, k) is a unique
     * key containing g, so Flink plans UpdateFastStrategy and runs UpdatableTopNFunction.
     */
    static final String BY_COUNT = "SELECT %s FROM (SELECT g, k, cnt, ROW_NUMBER() OVER (PARTITION BY g ORDER BY cnt "
            + "DESC%s) AS rn FROM (SELECT g, k, COUNT(*) AS cnt FROM kt GROUP BY g, k)) WHERE rn <= 3";

    static List<Query> queries() {
        List<Query> q = new ArrayList<>();
        for (int p : new int[] {1, 4}) {
            q.add(Query.of("append-only Top-3 with rank", String.format(TOP_N, "*", "rn <= 3"), ORDERED, "Rank")
                    .parallelism(p));
            q.add(Query.of("append-only Top-3 without rank", String.format(TOP_N, "id, k, v, s", "rn <= 3"), ORDERED,
                    "Rank").parallelism(p));
            q.add(Query.of("Top-N over a GROUP BY with rank", String.format(OVER_GROUP_BY, "*"), p == 1 ? ORDERED
                    : MATERIALIZED, "GroupAggregate", "Rank").parallelism(p));
            q.add(Query.of("Top-N over a GROUP BY without rank", String.format(OVER_GROUP_BY, "g, k, sv"),
                    p == 1 ? ORDERED : MATERIALIZED, "GroupAggregate", "Rank").parallelism(p));
        }
        // Ties in cnt, resolved by arrival order: deterministic at parallelism 1 only.
        q.add(Query.of("Top-3 by COUNT(*) with rank", String.format(BY_COUNT, "*", ""), ORDERED, "GroupAggregate",
                "Rank"));
        q.add(Query.of("Top-3 by COUNT(*) without rank", String.format(BY_COUNT, "g, k, cnt", ""), ORDERED,
                "GroupAggregate", "Rank"));
        // With k breaking the ties (constant per row key, so still monotone), the final top 3 does not
        // depend on how the four aggregate tasks interleave.
        q.add(Query.of("Top-3 by COUNT(*), k with rank", String.format(BY_COUNT, "*", ", k"), MATERIALIZED,
                "GroupAggregate", "Rank").parallelism(4));
        q.add(Query.of("Top-3 by COUNT(*), k without rank", String.format(BY_COUNT, "g, k, cnt", ", k"),
                MATERIALIZED, "GroupAggregate", "Rank").parallelism(4));
        q.add(Query.of("Top-1", String.format(TOP_N, "id, k, v", "rn <= 1"), ORDERED, "Rank"));
        q.add(Query.of("rank range with offset", String.format(TOP_N, "*", "rn BETWEEN 2 AND 3"), ORDERED, "Rank"));
        q.add(Query.of("rn = 2 without rank", String.format(TOP_N, "id, k, v", "rn = 2"), ORDERED, "Rank"));
        // must stay stock, with the reason
        q.add(Query.stock("ORDER BY DOUBLE", "SELECT * FROM (SELECT id, k, d, ROW_NUMBER() OVER (PARTITION BY k "
                + "ORDER BY d) AS rn FROM kt) WHERE rn <= 2", "Rank", "ORDER BY a DOUBLE"));
        q.add(Query.stock("rank off", String.format(TOP_N, "*", "rn <= 3"), "Rank", "sluice.operator.rank.enabled=false")
                .with("sluice.operator.rank.enabled", "false"));
        return q;
    }

    /**
     * The Top-N by COUNT(*) is Flink's UpdateFastStrategy, so it runs the native update ranker keyed by
     * the strategy's primary key (g, k), not the retracting one.
     */
    @Test
    void topNByCountRunsTheUpdateRanker() {
        for (String tie : new String[] {"", ", k"}) {
            StreamTableEnvironment tEnv = ParityHarness.installed(KeyedSqlData.TABLES);
            String text = Sluice.explain(tEnv, String.format(BY_COUNT, "*", tie)).text();
            assertTrue(text.contains("strategy=update row_key=0,1 "), () -> text);
        }
    }

    @Override
    BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> tables() {
        return KeyedSqlData.TABLES;
    }
}
