package io.sluice.flink.planner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceExplain;

/**
 * The parity harness (in the spirit of StreamFusion's NativeParity): a {@link Query} runs from a
 * fresh environment on stock Flink and from another with sluice installed; the results are
 * compared as the query's {@link Compare} says, and the installed plan's node reports must name
 * exactly the expected native nodes (a silent fallback fails) and, for a query that must fall
 * back, the expected reason.
 */
final class ParityHarness {
    private ParityHarness() {}

    /** How the two results are compared. */
    enum Compare {
        /** The complete changelog, RowKinds and order included (Flink's order is defined: one source split, parallelism 1). */
        ORDERED,
        /** The complete changelog with RowKinds, as a multiset (several subtasks interleave). */
        CHANGELOG,
        /** The materialized result: the changelog applied (+I/+U add a row, -U/-D remove one). */
        MATERIALIZED
    }

    /**
     * One parity query.
     *
     * @param name the test's name
     * @param sql the query over the tables {@code setup} registers
     * @param parallelism the environments' parallelism
     * @param compare how results are compared
     * @param nativeNodes the node names expected native, in plan order (sources first), e.g. {@code ["Calc"]}
     * @param stockReason for a query that must fall back: a text the reason of its first stock
     *     {@code stockNode} contains; null otherwise
     * @param stockNode the node that must be stock with {@code stockReason} (e.g. {@code Calc})
     * @param options extra {@code sluice.*} / {@code table.*} options set on both environments
     */
    record Query(String name, String sql, int parallelism, Compare compare, List<String> nativeNodes,
            String stockNode, String stockReason, Map<String, String> options) {
        @Override
        public String toString() {
            return name;
        }

        /** A query expected to run these nodes natively. */
        static Query of(String name, String sql, Compare compare, String... nativeNodes) {
            return new Query(name, sql, 1, compare, List.of(nativeNodes), null, null, Map.of());
        }

        /** A query whose {@code node} must stay stock with a reason containing {@code reason}. */
        static Query stock(String name, String sql, String node, String reason, String... nativeNodes) {
            return new Query(name, sql, 1, Compare.ORDERED, List.of(nativeNodes), node, reason, Map.of());
        }

        Query parallelism(int p) {
            return new Query(name + " @p" + p, sql, p, p == 1 ? compare : relax(compare), nativeNodes, stockNode,
                    stockReason, options);
        }

        Query with(String key, String value) {
            Map<String, String> o = new HashMap<>(options);
            o.put(key, value);
            return new Query(name + " [" + key + "=" + value + "]", sql, parallelism, compare, nativeNodes, stockNode,
                    stockReason, Map.copyOf(o));
        }

        private static Compare relax(Compare c) {
            return c == Compare.ORDERED ? Compare.CHANGELOG : c;
        }
    }

    /**
     * Runs {@code q} on stock Flink and with sluice installed and asserts parity and substitution.
     *
     * @param q the query
     * @param setup registers the query's tables in a fresh environment
     * @return the installed plan's explain
     */
    static SluiceExplain check(Query q, BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> setup) throws Exception {
        StreamTableEnvironment stock = env(q, setup);
        List<Row> expected = run(stock, q.sql());
        StreamTableEnvironment installed = env(q, setup);
        SluiceExplain explain = install(q, installed);
        if (q.stockReason() != null) {
            NodeReport r = explain.nodes().stream().filter(n -> !n.isNative() && n.node().equals(q.stockNode()))
                    .findFirst().orElseThrow(() -> new AssertionError("no stock " + q.stockNode() + "\n" + explain.text()));
            assertTrue(r.reason().contains(q.stockReason()),
                    () -> "reason of " + q.name() + ": " + r.reason() + "\n" + explain.text());
        }
        List<Row> actual = run(installed, q.sql());
        assertTrue(!expected.isEmpty() || q.sql().contains("WHERE"), () -> "no rows from " + q.name());
        switch (q.compare()) {
            case ORDERED:
                assertEquals(strings(expected), strings(actual), q.name());
                break;
            case CHANGELOG:
                assertEquals(sorted(strings(expected)), sorted(strings(actual)), q.name());
                break;
            default:
                assertEquals(materialize(expected), materialize(actual), q.name());
        }
        return explain;
    }

    /**
     * Runs {@code q} once, on stock Flink or with sluice installed (then asserting its native
     * nodes), for a test whose results differ between runs and which compares only what is
     * deterministic.
     *
     * @param q the query
     * @param setup registers the query's tables in a fresh environment
     * @param installed whether sluice is installed
     * @return the result rows, in arrival order
     */
    static List<Row> results(Query q, BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> setup,
            boolean installed) throws Exception {
        StreamTableEnvironment tEnv = env(q, setup);
        if (installed) {
            install(q, tEnv);
        }
        return run(tEnv, q.sql());
    }

    /** Installs sluice in {@code tEnv} and asserts the native nodes of {@code q}'s plan. */
    private static SluiceExplain install(Query q, StreamTableEnvironment tEnv) {
        Sluice.install(tEnv);
        SluiceExplain explain = Sluice.explain(tEnv, q.sql());
        List<String> natives = explain.nodes().stream().filter(NodeReport::isNative).map(NodeReport::node)
                .collect(Collectors.toList());
        assertEquals(q.nativeNodes(), natives, () -> "native nodes of " + q.name() + "\n" + explain.text());
        return explain;
    }

    /**
     * For the tests that check only a plan.
     *
     * @param setup registers the tables
     * @param options configuration pairs (key, value, ...) set first
     * @return a fresh table environment with the tables and sluice installed
     */
    static StreamTableEnvironment installed(BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> setup,
            String... options) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        for (int i = 0; i < options.length; i += 2) {
            tEnv.getConfig().getConfiguration().setString(options[i], options[i + 1]);
        }
        setup.accept(env, tEnv);
        Sluice.install(tEnv);
        return tEnv;
    }

    /** @return the first report of Flink node {@code node} in {@code explain} (fails with the explain text if none) */
    static NodeReport report(SluiceExplain explain, String node) {
        return explain.nodes().stream().filter(n -> n.node().equals(node)).findFirst()
                .orElseThrow(() -> new AssertionError(explain.text()));
    }

    private static StreamTableEnvironment env(Query q, BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> setup) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(q.parallelism());
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        q.options().forEach((k, v) -> tEnv.getConfig().getConfiguration().setString(k, v));
        setup.accept(env, tEnv);
        return tEnv;
    }

    private static List<Row> run(StreamTableEnvironment tEnv, String sql) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.sqlQuery(sql).execute().collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    /** A row with its RowKind, fields printed so that byte-different strings differ. */
    private static List<String> strings(List<Row> rows) {
        List<String> out = new ArrayList<>(rows.size());
        for (Row r : rows) {
            out.add(r.getKind().shortString() + text(r));
        }
        return out;
    }

    private static String text(Row r) {
        Object[] f = new Object[r.getArity()];
        for (int i = 0; i < f.length; i++) {
            Object v = r.getField(i);
            f[i] = v instanceof byte[] ? Arrays.toString((byte[]) v) : v;
        }
        return Arrays.deepToString(f);
    }

    private static List<String> sorted(List<String> s) {
        List<String> c = new ArrayList<>(s);
        c.sort(null);
        return c;
    }

    private static Map<String, Integer> materialize(List<Row> rows) {
        Map<String, Integer> m = new HashMap<>();
        for (Row r : rows) {
            boolean add = r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER;
            m.merge(text(r), add ? 1 : -1, Integer::sum);
        }
        m.values().removeIf(v -> v == 0);
        return m;
    }
}
