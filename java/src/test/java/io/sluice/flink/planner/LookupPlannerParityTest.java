package io.sluice.flink.planner;

import static io.sluice.flink.planner.ParityHarness.Compare.ORDERED;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.TestSupport;
import io.sluice.flink.planner.ParityHarness.Query;

/**
 * Plain SQL lookup joins, stock Flink vs sluice installed ({@link ParityHarness}): {@code kp}
 * ({@link KeyedSqlData}'s 3,000 rows with a processing-time attribute; string key {@code k} with
 * NULLs, multi-byte and supplementary characters) looks up {@code dim} / {@code dimc} (the
 * in-memory {@code sluice-test-lookup} table, without / with Flink's partial lookup cache: keys
 * with no row, keys with two rows, NULL values), INNER and LEFT, at parallelism 1 (the changelog
 * compared in order: Flink's output order, each probe row's looked-up rows in the function's
 * order and the LEFT padding included) and 4, plus the lookup joins that must stay stock with
 * their reasons. The cost rule is off where a native node is expected: these rows carry more
 * string payload than the rule allows, and the test is about results.
 */
class LookupPlannerParityTest extends ParityTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    static final String COST = "sluice.cost.enabled";
    static final String ON = "sluice.operator.lookup-join.enabled";

    /** kt, kp, kr, ku and the two dimension tables. */
    static final BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> TABLES = (env, tEnv) -> {
        KeyedSqlData.TABLES.accept(env, tEnv);
        for (String[] t : new String[][] {{"dim", "false", "false"}, {"dimc", "true", "false"},
            {"dima", "false", "true"}}) {
            tEnv.executeSql("CREATE TEMPORARY TABLE " + t[0] + " (k STRING, w BIGINT, t STRING) WITH ("
                    + "'connector' = 'sluice-test-lookup', 'cache' = '" + t[1] + "', 'async' = '" + t[2] + "')");
        }
    };

    static final String JOIN = "SELECT l.id, l.k, l.v, l.ts, d.w, d.t, d.k AS dk FROM kp AS l %s JOIN %s "
            + "FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.k";

    static List<Query> queries() {
        List<Query> q = new ArrayList<>();
        for (String type : new String[] {"INNER", "LEFT"}) {
            for (String dim : new String[] {"dim", "dimc"}) {
                for (int p : new int[] {1, 4}) {
                    q.add(Query.of(type + " " + dim, String.format(JOIN, type, dim), ORDERED, "LookupJoin")
                            .parallelism(p).with(COST, "false").with(ON, "true"));
                }
            }
        }
        q.add(Query.of("LEFT, small batches", String.format(JOIN, "LEFT", "dimc"), ORDERED, "LookupJoin")
                .with(COST, "false").with(ON, "true").with("sluice.batch-size", "7"));
        q.add(Query.of("LEFT, probe strings, projected dimension", "SELECT l.s, d.t, l.b, l.dt, l.d, l.i FROM kp AS l "
                + "LEFT JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.k", ORDERED, "LookupJoin")
                .with(COST, "false").with(ON, "true"));
        // Flink's runner evaluates these; sluice collects what it emits
        q.add(Query.of("INNER non-equi condition", "SELECT l.id, d.w, l.v FROM kp AS l JOIN dimc FOR SYSTEM_TIME AS OF "
                + "l.pt AS d ON l.k = d.k AND d.w > l.v", ORDERED, "LookupJoin").with(COST, "false").with(ON, "true"));
        q.add(Query.of("LEFT non-equi condition", "SELECT l.id, d.w, l.i FROM kp AS l LEFT JOIN dim FOR SYSTEM_TIME AS OF "
                + "l.pt AS d ON l.k = d.k AND d.w < l.i * 10", ORDERED, "LookupJoin").with(COST, "false").with(ON, "true"));
        q.add(Query.of("LEFT with a probe-side condition", "SELECT l.id, d.w, d.t FROM kp AS l LEFT JOIN dim FOR "
                + "SYSTEM_TIME AS OF l.pt AS d ON l.k = d.k AND l.v > 0", ORDERED, "LookupJoin").parallelism(4)
                .with(COST, "false").with(ON, "true"));
        q.add(Query.of("filter on the dimension", "SELECT l.id, d.w FROM kp AS l JOIN dim FOR SYSTEM_TIME AS OF l.pt "
                + "AS d ON l.k = d.k AND d.w > 100", ORDERED, "LookupJoin").with(COST, "false").with(ON, "true"));
        // must stay stock, with the reason
        q.add(stock("async lookup", String.format(JOIN, "LEFT", "dima"), "async"));
        q.add(stock("DECIMAL column", "SELECT l.id, l.m, d.w, d.t, d.k FROM kp AS l JOIN dim FOR SYSTEM_TIME AS OF "
                + "l.pt AS d ON l.k = d.k", "type DECIMAL"));
        q.add(stock("switched off", String.format(JOIN, "INNER", "dim"), "sluice.operator.lookup-join.enabled=false")
                .with(ON, "false"));
        q.add(new Query("cost rule", String.format(JOIN, "INNER", "dim"), 1, ORDERED, List.of(), "LookupJoin",
                "cost: carries", Map.of(ON, "true")));
        q.add(Query.of("on by default", String.format(JOIN, "INNER", "dim"), ORDERED, "LookupJoin").with(COST, "false"));
        return q;
    }

    /** A lookup join that must stay stock with a reason containing {@code reason}. */
    private static Query stock(String name, String sql, String reason) {
        return new Query(name, sql, 1, ORDERED, List.of(), "LookupJoin", reason, Map.of(COST, "false", ON, "true"));
    }

    @Override
    BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> tables() {
        return TABLES;
    }
}
