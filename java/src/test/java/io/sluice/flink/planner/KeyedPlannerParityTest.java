package io.sluice.flink.planner;

import static io.sluice.flink.planner.ParityHarness.Compare.MATERIALIZED;
import static io.sluice.flink.planner.ParityHarness.Compare.ORDERED;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceOptions;
import io.sluice.flink.TestSupport;
import io.sluice.flink.compat.FlinkLine;
import io.sluice.flink.planner.ParityHarness.Query;

/**
 * Plain SQL GROUP BY, ROW_NUMBER() = 1 and upsert normalization, stock Flink vs sluice installed
 * ({@link ParityHarness}), over the tables of {@link KeyedSqlData}: each keyed node kind, every
 * aggregate the native group_agg has over each type family it takes, keys of many types, NULLs,
 * unicode keys, an updating (retracting) input, FILTER (WHERE …) and DISTINCT calls (also over
 * retractions), parallelism 1 and 4, and the queries that must stay stock with their reasons
 * (DISTINCT over INT, INT sums, insert-only DOUBLE MIN/MAX, mini-batch, state TTL, a STATE_TTL hint, the operator switches).
 */
class KeyedPlannerParityTest extends ParityTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    static final boolean FLINK_2 = FlinkLine.name().equals("flink-2");

    static final String BIGINT_AGGS = "SELECT k, COUNT(*), COUNT(v), SUM(v), AVG(v), MIN(v), MAX(v), FIRST_VALUE(v), "
            + "LAST_VALUE(v) FROM kt GROUP BY k";
    static final String DOUBLE_AGGS = "SELECT k, COUNT(d), SUM(d), AVG(d), FIRST_VALUE(d), LAST_VALUE(d) FROM kt GROUP BY k";
    static final String STRING_AGGS = "SELECT k, COUNT(s), MIN(s), MAX(s), FIRST_VALUE(s), LAST_VALUE(s) FROM kt GROUP BY k";
    /** A GROUP BY over a GROUP BY: the outer one consumes -U/+U (retracting MIN/MAX/FIRST/LAST). */
    static final String RETRACTING = "SELECT c, COUNT(*), SUM(sv), AVG(sv), MIN(sv), MAX(ms), MIN(md), MAX(md), "
            + "FIRST_VALUE(ms), LAST_VALUE(ms), SUM(md) FROM (SELECT k, COUNT(*) AS c, SUM(v) AS sv, MAX(s) AS ms, "
            + "SUM(d) AS md FROM kt GROUP BY k) GROUP BY c";
    static final String RETRACTING_ORDER_FREE = "SELECT c, COUNT(*), SUM(sv), AVG(sv), MIN(sv), MAX(ms), MIN(md), "
            + "MAX(md) FROM (SELECT k, COUNT(*) AS c, SUM(v) AS sv, MAX(s) AS ms, MAX(v) AS md FROM kt GROUP BY k) "
            + "GROUP BY c";
    static final String FILTERED = "SELECT k, COUNT(*) FILTER (WHERE i > 0), SUM(v) FILTER (WHERE s LIKE 'a%'), "
            + "MAX(s) FILTER (WHERE v < 50), AVG(d) FILTER (WHERE i IS NULL), COUNT(*) FROM kt GROUP BY k";
    static final String DISTINCTS = "SELECT k, COUNT(DISTINCT s), COUNT(DISTINCT s) FILTER (WHERE v > 10), "
            + "COUNT(DISTINCT v), SUM(DISTINCT v), COUNT(DISTINCT d) FILTER (WHERE i < 0), COUNT(id) FROM kt GROUP BY k";
    /** The outer GROUP BY sees -U/+U of the inner one's rows. */
    static final String FILTERED_RETRACTING = "SELECT c, COUNT(*) FILTER (WHERE sv > 0), SUM(sv) FILTER (WHERE "
            + "c > 1), COUNT(DISTINCT ms), COUNT(DISTINCT ms) FILTER (WHERE c < 3), COUNT(DISTINCT sv), "
            + "MIN(ms) FILTER (WHERE sv > 0) FROM (SELECT k, COUNT(*) AS c, SUM(v) AS sv, MAX(s) AS ms FROM kt "
            + "GROUP BY k) GROUP BY c";
    static final String DEDUP = "SELECT id, k, v, s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt %s) AS rn "
            + "FROM kp) WHERE rn = 1";
    static final String ROWTIME_DEDUP = "SELECT id, k, v, rt FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
            + "ORDER BY rt %s) AS rn FROM kr) WHERE rn = 1";

    static List<Query> queries() {
        List<Query> q = new ArrayList<>();
        for (int p : new int[] {1, 4}) {
            q.add(Query.of("BIGINT aggregates", BIGINT_AGGS, ORDERED, "GroupAggregate").parallelism(p));
            q.add(Query.of("DOUBLE aggregates", DOUBLE_AGGS, ORDERED, "GroupAggregate").parallelism(p));
            q.add(Query.of("string aggregates", STRING_AGGS, ORDERED, "GroupAggregate").parallelism(p));
            // the cost rule keeps these two stock (they carry s; below): forced native for parity
            q.add(Query.of("dedup keep-first proctime", String.format(DEDUP, "ASC"), ORDERED, "Deduplicate")
                    .parallelism(p).with("sluice.cost.enabled", "false"));
            q.add(Query.of("dedup keep-last proctime", String.format(DEDUP, "DESC"), ORDERED, "Deduplicate")
                    .parallelism(p).with("sluice.cost.enabled", "false"));
            q.add(Query.of("dedup keep-last rowtime", String.format(ROWTIME_DEDUP, "DESC"), ORDERED, "Deduplicate")
                    .parallelism(p));
            q.add(Query.of("changelog normalize", "SELECT k, v, s FROM ku", ORDERED, "ChangelogNormalize")
                    .parallelism(p));
        }
        q.add(Query.of("retracting input", RETRACTING, ORDERED, "GroupAggregate", "GroupAggregate"));
        // at parallelism 4 the outer GROUP BY's input interleaves 4 subtasks: order-free aggregates, materialized
        q.add(Query.of("retracting input", RETRACTING_ORDER_FREE, MATERIALIZED, "GroupAggregate", "GroupAggregate")
                .parallelism(4));
        q.add(Query.of("COUNT of a NOT NULL INT", "SELECT k, COUNT(id), COUNT(*) FROM kt GROUP BY k", ORDERED,
                "GroupAggregate"));
        q.add(Query.of("keys of many types", "SELECT g, b, dt, ts, m, i, COUNT(*), SUM(v), MAX(s) FROM kt "
                + "GROUP BY g, b, dt, ts, m, i", ORDERED, "GroupAggregate").parallelism(4));
        q.add(Query.of("DOUBLE key, keys reordered", "SELECT s, d, COUNT(*), LAST_VALUE(v) FROM kt GROUP BY s, d",
                ORDERED, "GroupAggregate"));
        q.add(Query.of("global aggregate", "SELECT COUNT(*), SUM(v), MIN(s), MAX(v), AVG(d) FROM kt", ORDERED,
                "GroupAggregate"));
        q.add(Query.of("MIN/MAX(DISTINCT)", "SELECT k, MIN(DISTINCT s), MAX(DISTINCT v) FROM kt GROUP BY k", ORDERED,
                "GroupAggregate"));
        q.add(Query.of("aggregate over a changelog source", "SELECT s, COUNT(*), SUM(v), MAX(k) FROM ku GROUP BY s",
                MATERIALIZED, "ChangelogNormalize", "GroupAggregate").parallelism(4));
        if (FLINK_2) {
            q.add(Query.stock("dedup keep-first rowtime", String.format(ROWTIME_DEDUP, "ASC"), "Rank",
                    "RowTimeDeduplicateKeepFirstRowFunction"));
        } else {
            q.add(Query.of("dedup keep-first rowtime", String.format(ROWTIME_DEDUP, "ASC"), ORDERED, "Deduplicate")
                    .parallelism(4));
        }
        for (int p : new int[] {1, 4}) {
            // the LIKE of a FILTER condition is computed by a native Calc below the aggregate (which the cost rule
            // keeps stock by default: it passes k and s through for one LIKE)
            q.add(Query.of("FILTER", FILTERED, ORDERED, "Calc", "GroupAggregate").parallelism(p)
                    .with("sluice.cost.enabled", "false"));
            q.add(Query.of("DISTINCT", DISTINCTS, ORDERED, "GroupAggregate").parallelism(p));
        }
        // an updating input: the outer calls retract values, the distinct counts fall back to 0
        q.add(Query.of("FILTER / DISTINCT over retractions", FILTERED_RETRACTING, ORDERED, "GroupAggregate",
                "GroupAggregate"));
        q.add(Query.of("FILTER / DISTINCT over retractions", FILTERED_RETRACTING, MATERIALIZED, "GroupAggregate",
                "GroupAggregate").parallelism(4));
        q.add(Query.of("DISTINCT over a changelog source", "SELECT s, COUNT(DISTINCT v), COUNT(*) FILTER "
                + "(WHERE v > 0), SUM(DISTINCT v) FILTER (WHERE k <> 'a') FROM ku GROUP BY s", MATERIALIZED,
                "ChangelogNormalize", "GroupAggregate").parallelism(4));
        // must stay stock, with the reason
        q.add(Query.stock("COUNT(DISTINCT INT)", "SELECT k, COUNT(DISTINCT i) FROM kt GROUP BY k", "GroupAggregate",
                "native distinct state takes BIGINT, DOUBLE or strings"));
        q.add(Query.stock("SUM(INT)", "SELECT k, SUM(i) FROM kt GROUP BY k", "GroupAggregate", "SUM over INT"));
        q.add(Query.stock("MIN(DOUBLE) insert-only", "SELECT k, MIN(d) FROM kt GROUP BY k", "GroupAggregate",
                "MIN over DOUBLE on an insert-only input"));
        q.add(Query.stock("LISTAGG", "SELECT k, LISTAGG(s) FROM kt GROUP BY k", "GroupAggregate", "aggregate LISTAGG"));
        q.add(Query.stock("MAX(DECIMAL)", "SELECT k, MAX(m) FROM kt GROUP BY k", "GroupAggregate", "MAX over DECIMAL"));
        q.add(Query.stock("state TTL", BIGINT_AGGS, "GroupAggregate", "table.exec.state.ttl")
                .with("table.exec.state.ttl", "1 h"));
        q.add(Query.stock("STATE_TTL hint", "SELECT /*+ STATE_TTL('kt' = '1h') */ k, COUNT(*) FROM kt GROUP BY k",
                "GroupAggregate", "STATE_TTL hint"));
        if (FLINK_2) {
            // On 1.20 this node still plans native under mini-batch (the option check in
            // KeyedChecks does not fire for it): an open defect, tracked, not a passing case.
            q.add(miniBatch(Query.stock("mini-batch dedup", String.format(DEDUP, "DESC"), "Rank",
                    "table.exec.mini-batch.enabled=true")));
        }
        q.add(miniBatch(Query.stock("mini-batch, one-phase", STRING_AGGS, "GroupAggregate",
                "table.exec.mini-batch.enabled=true").with("table.optimizer.agg-phase-strategy", "ONE_PHASE")));
        q.add(miniBatch(Query.stock("mini-batch, local/global", "SELECT k, COUNT(*), SUM(v), MAX(s) FROM kt GROUP BY k",
                "GlobalGroupAggregate",
                "table.exec.mini-batch.enabled=true")));
        q.add(Query.stock("cost: keep-last proctime dedup with a string payload", String.format(DEDUP, "DESC"),
                FLINK_2 ? "Rank" : "Deduplicate", "cost: carries 1 string payload column per row through the entry and "
                + "exit transposes (s) with native work 0 (a keyed state read and write per row, which Flink's heap "
                + "state does by reference"));
        q.add(Query.stock("cost: keep-first proctime dedup with a string payload", String.format(DEDUP, "ASC"),
                FLINK_2 ? "Rank" : "Deduplicate", "cost: carries 1 string payload column per row through the entry and "
                + "exit transposes (s) with native work 0 (a keyed state read and write per row: measured slower"));
        q.add(Query.of("keep-last proctime dedup without a string payload", "SELECT id, k, v FROM (SELECT id, k, v, "
                + "pt, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM kp) WHERE rn = 1", ORDERED,
                "Deduplicate"));
        q.add(Query.stock("operator off", BIGINT_AGGS, "GroupAggregate", "sluice.operator.group-aggregate.enabled=false")
                .with("sluice.operator.group-aggregate.enabled", "false"));
        q.add(Query.stock("dedup off", String.format(DEDUP, "ASC"), FLINK_2 ? "Rank" : "Deduplicate",
                "sluice.operator.deduplicate.enabled=false").with("sluice.operator.deduplicate.enabled", "false"));
        q.add(Query.stock("normalize off", "SELECT k, v, s FROM ku", "ChangelogNormalize",
                "sluice.operator.changelog-normalize.enabled=false")
                .with("sluice.operator.changelog-normalize.enabled", "false"));
        return q;
    }

    /** Mini-batch on, as users set it (the changelog then depends on bundle timing: compared materialized). */
    static Query miniBatch(Query q) {
        Query m = q.with("table.exec.mini-batch.enabled", "true").with("table.exec.mini-batch.allow-latency", "100 ms")
                .with("table.exec.mini-batch.size", "100");
        return new Query(m.name(), m.sql(), m.parallelism(), MATERIALIZED, m.nativeNodes(), m.stockNode(),
                m.stockReason(), m.options());
    }

    @Override
    BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> tables() {
        return KeyedSqlData.TABLES;
    }

    /** Native state over {@code sluice.state.budget-bytes} fails the job, and the failure names the setting. */
    @Test
    void overBudgetFailsTheJobNamingTheSetting() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        KeyedSqlData.TABLES.accept(env, tEnv);
        tEnv.getConfig().set(SluiceOptions.STATE_BUDGET, 2_048L);
        Sluice.install(tEnv);
        String sql = "SELECT id, COUNT(*), MAX(s) FROM kt GROUP BY id";
        assertTrue(Sluice.explain(tEnv, sql).nodes().stream().anyMatch(n -> n.isNative() && n.node().equals("GroupAggregate")));
        Throwable t = assertThrows(Exception.class, () -> {
            try (CloseableIterator<Row> it = tEnv.sqlQuery(sql).execute().collect()) {
                it.forEachRemaining(r -> { });
            }
        });
        StringBuilder chain = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            chain.append(c).append('\n');
        }
        assertTrue(chain.toString().contains("state budget exceeded")
                && chain.toString().contains("sluice.state.budget-bytes=2048"), chain.toString());
    }
}
