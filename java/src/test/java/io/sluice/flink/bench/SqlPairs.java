package io.sluice.flink.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import io.sluice.flink.Sluice;

/**
 * What the plain-SQL benches ({@link KeyedSqlBenchmark}, {@link JoinSqlBenchmark},
 * {@link OverSqlBenchmark}, {@link WindowSqlBenchmark}) share, so each states only its query and
 * data: one MiniCluster (one TaskManager, two slots) as the context environment; a timed
 * {@code INSERT} whose substitution is asserted before it runs (a bench of a node that silently
 * stayed stock would measure stock against stock); and the pairing: a warm-up pair, then
 * alternating stock / installed pairs (stock first on even pairs) in one JVM, so every ratio is
 * measured side by side on a shared machine, and their median.
 */
final class SqlPairs {
    private SqlPairs() {}

    /** One run of a bench case: its throughput in rows/s, stock or installed. */
    @FunctionalInterface
    interface Run {
        double rowsPerSecond(boolean installed) throws Exception;
    }

    /** A bench's body, run with the MiniCluster as the context environment. */
    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body} on a fresh MiniCluster at parallelism 1, closed afterwards. */
    static void onMiniCluster(Body body) throws Exception {
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(new Configuration())
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(2).build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, 1);
        try {
            body.run();
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
    }

    /**
     * A warm-up pair, then {@code pairs} alternating pairs of {@code run}; prints each pair and
     * the median installed / stock ratio under {@code label}.
     *
     * @return the median ratio
     */
    static double pairs(String label, int pairs, Run run) throws Exception {
        run.rowsPerSecond(false);
        run.rowsPerSecond(true);
        List<Double> ratios = new ArrayList<>();
        for (int p = 0; p < pairs; p++) {
            boolean nativeFirst = p % 2 == 1;
            double a = run.rowsPerSecond(nativeFirst);
            double b = run.rowsPerSecond(!nativeFirst);
            double st = nativeFirst ? b : a;
            double nt = nativeFirst ? a : b;
            ratios.add(nt / st);
            System.out.printf(Locale.ROOT, "  %s pair %d: stock %.0f rows/s, installed %.0f rows/s, %.2fx%n", label, p,
                    st, nt, nt / st);
        }
        double median = median(ratios);
        System.out.printf(Locale.ROOT, "%s: median ratio %.2fx%n", label, median);
        return median;
    }

    /**
     * Runs the {@code INSERT} {@code sql} to its end, after checking (when {@code installed}) that
     * Flink node {@code node} runs native.
     *
     * @param firstRowNanos when the source made its first row ({@link System#nanoTime}), or 0 to
     *     time from submission; job set-up before the first row is not counted
     * @return {@code rows} per second
     */
    static double timedInsert(StreamTableEnvironment tEnv, String sql, boolean installed, String node, long rows,
            LongSupplier firstRowNanos) throws Exception {
        if (installed && Sluice.explain(tEnv, sql).nodes().stream().noneMatch(n -> n.isNative() && n.node().equals(node))) {
            throw new IllegalStateException(node + " is not native: " + Sluice.explain(tEnv, sql).text());
        }
        long t0 = System.nanoTime();
        tEnv.executeSql(sql).await();
        long end = System.nanoTime();
        long first = firstRowNanos.getAsLong();
        long start = first < t0 ? t0 : first;
        return rows / ((end - start) / 1e9);
    }

    /** The median of {@code v} (the upper one of an even count). */
    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(Double::compare);
        return s.get(s.size() / 2);
    }
}
