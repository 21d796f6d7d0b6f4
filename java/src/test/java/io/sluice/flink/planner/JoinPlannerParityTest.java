package io.sluice.flink.planner;

import static io.sluice.flink.planner.ParityHarness.Compare.MATERIALIZED;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.Sluice;
import io.sluice.flink.TestSupport;
import io.sluice.flink.planner.ParityHarness.Query;

/**
 * Plain SQL regular joins, stock Flink vs sluice installed ({@link ParityHarness}): {@code kt}
 * ({@link KeyedSqlData}, 3,000 rows, string key {@code k} with NULLs and multi-byte keys) joined
 * with {@code jr} (600 rows of the same shape and key distribution), INNER / LEFT / RIGHT / FULL
 * over insert-only inputs (no unique key), over a GROUP BY result (a unique key contained in the
 * join key; one not contained), over the upsert table {@code ku}, with two key columns, a
 * non-equi condition and {@code IS NOT DISTINCT FROM}, at parallelism 1 and 4, and the joins that
 * must stay stock with their reasons. Results are compared materialized: the two inputs'
 * relative order is not defined, so neither is the changelog's.
 */
class JoinPlannerParityTest extends ParityTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    static final String ON = "sluice.operator.join.enabled";

    /** kt, kp, kr, ku and jr. */
    static final BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> TABLES = (env, tEnv) -> {
        KeyedSqlData.TABLES.accept(env, tEnv);
        List<Row> rows = SqlRows.rows(600, n -> KeyedSqlData.row(100_000 + n));
        DataStream<Row> src = env.fromData(rows, KeyedSqlData.info(KeyedSqlData.KT)).setParallelism(1);
        tEnv.createTemporaryView("jr", tEnv.fromDataStream(src));
    };

    static final String INSERT_ONLY = "SELECT a.id, a.k, a.v, b.id AS bid, b.s FROM kt a %s JOIN jr b ON a.k = b.k";
    /** Left: GROUP BY k (unique key k, contained in the join key). */
    static final String AGG_LEFT = "SELECT a.k, a.c, a.sv, b.id, b.i FROM (SELECT k, COUNT(*) AS c, SUM(v) AS sv "
            + "FROM kt GROUP BY k) a %s JOIN jr b ON a.k = b.k";
    /** Left: GROUP BY k, g (unique key (k, g), not contained in the join key k). */
    static final String AGG_UNIQUE = "SELECT a.k, a.g, a.sv, b.id FROM (SELECT k, g, SUM(v) AS sv FROM kt "
            + "GROUP BY k, g) a %s JOIN jr b ON a.k = b.k";
    /** Both inputs GROUP BY results. */
    static final String AGG_BOTH = "SELECT a.k, a.c, b.mx FROM (SELECT k, COUNT(*) AS c FROM kt GROUP BY k) a %s JOIN "
            + "(SELECT k, MAX(v) AS mx FROM jr GROUP BY k) b ON a.k = b.k";

    static List<Query> queries() {
        List<Query> q = new ArrayList<>();
        for (String t : new String[] {"INNER", "LEFT", "RIGHT", "FULL"}) {
            for (int p : new int[] {1, 4}) {
                q.add(Query.of(t + " insert-only", String.format(INSERT_ONLY, t), MATERIALIZED, "Join")
                        .parallelism(p).with(ON, "true"));
                q.add(Query.of(t + " over GROUP BY k", String.format(AGG_LEFT, t), MATERIALIZED,
                        "GroupAggregate", "Join").parallelism(p).with(ON, "true"));
            }
            q.add(Query.of(t + " over GROUP BY k, g", String.format(AGG_UNIQUE, t), MATERIALIZED,
                    "GroupAggregate", "Join").with(ON, "true"));
            q.add(Query.of(t + " both GROUP BY", String.format(AGG_BOTH, t), MATERIALIZED, "GroupAggregate",
                    "GroupAggregate", "Join").parallelism(4).with(ON, "true"));
        }
        q.add(Query.of("INNER on two keys", "SELECT a.id, b.id, a.g FROM kt a JOIN jr b ON a.k = b.k AND a.g = b.g",
                MATERIALIZED, "Join").with(ON, "true"));
        q.add(Query.of("LEFT with a non-equi condition", "SELECT a.id, b.id, a.v, b.v FROM kt a LEFT JOIN jr b "
                + "ON a.k = b.k AND a.v < b.v AND b.i <> a.i", MATERIALIZED, "Join")
                .parallelism(4).with(ON, "true"));
        q.add(Query.of("FULL IS NOT DISTINCT FROM", "SELECT a.id, b.id FROM kt a FULL JOIN jr b "
                + "ON a.k IS NOT DISTINCT FROM b.k AND a.g = b.g", MATERIALIZED, "Join")
                .with(ON, "true"));
        q.add(Query.of("LEFT over the upsert table", "SELECT u.k, u.v, b.id FROM ku u LEFT JOIN jr b ON u.k = b.k",
                MATERIALIZED, "ChangelogNormalize", "Join").with(ON, "true"));
        // must stay stock, with the reason
        q.add(stock("join switched off", String.format(INSERT_ONLY, "INNER"), "Join",
                "sluice.operator.join.enabled=false").with(ON, "false"));
        q.add(stock("state TTL", String.format(INSERT_ONLY, "LEFT"), "Join", "state TTL")
                .with(ON, "true").with("table.exec.state.ttl", "1 h"));
        q.add(stock("semi join", "SELECT id, k FROM kt WHERE k IN (SELECT k FROM jr)", "Join", "IN / EXISTS").with(ON, "true"));
        q.add(stock("DOUBLE comparison", "SELECT a.id, b.id FROM kt a JOIN jr b ON a.k = b.k AND a.d < b.d",
                "Join", "DOUBLE").with(ON, "true"));
        return q;
    }

    /** A join that must stay stock with a reason containing {@code reason}; results compared materialized. */
    private static Query stock(String name, String sql, String node, String reason) {
        return new Query(name, sql, 1, MATERIALIZED, List.of(), node, reason, java.util.Map.of());
    }

    /**
     * Each input's state view is the one Flink's {@code StreamExecJoin} picks (its plan prints
     * {@code leftInputSpec} / {@code rightInputSpec}), although the GROUP BY below is native and
     * Flink's metadata does not know sluice's nodes.
     */
    @Test
    void stateViewsFollowFlink() {
        String[][] cases = {
            {String.format(AGG_LEFT, "LEFT"), "left_keys=0 right_keys=1 left_unique=0 line="},
            {String.format(AGG_UNIQUE, "FULL"), "left_keys=0 right_keys=1 left_unique=0,1 line="},
            {String.format(AGG_BOTH, "INNER"), "left_keys=0 right_keys=0 left_unique=0 right_unique=0 line="},
            {String.format(INSERT_ONLY, "RIGHT"), "left_keys=1 right_keys=1 line="},
        };
        for (String[] c : cases) {
            StreamTableEnvironment tEnv = ParityHarness.installed(TABLES, ON, "true");
            String text = Sluice.explain(tEnv, c[0]).text();
            assertTrue(text.contains(c[1]), () -> "expected `" + c[1] + "` in\n" + text);
        }
    }

    @Override
    BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> tables() {
        return TABLES;
    }
}
