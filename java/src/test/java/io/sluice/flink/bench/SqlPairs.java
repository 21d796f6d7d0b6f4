package io.sluice.flink.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.Sluice;

/**
 * What the plain-SQL benches ({@link KeyedSqlBenchmark}, {@link JoinSqlBenchmark},
 * {@link OverSqlBenchmark}, {@link WindowSqlBenchmark}) share, so each states only its query and
 * data: one MiniCluster (one TaskManager, two slots) as the context environment; the job set-up
 * (parallelism 1, sluice installed or not, a generator source at full speed); a timed
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

    /**
     * A bench case: its label, its run, and a check run once before its pairs (that the two plans
     * give the same result, say), which throws to fail the bench.
     */
    record Case(String label, Run run, Body check) {
        Case(String label, Run run) {
            this(label, run, () -> {});
        }
    }

    /**
     * A bench's {@code main}: {@code [rows] [pairs]} from {@code args} (default 2,000,000 rows, 3
     * pairs), then on one MiniCluster, for every case {@code cases} gives for that many rows, its
     * check and its {@link #pairs}.
     */
    static void main(String[] args, Function<Long, List<Case>> cases) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        onMiniCluster(() -> {
            System.out.printf(Locale.ROOT, "rows %d, pairs %d (after 1 warm-up pair)%n", rows, pairs);
            for (Case c : cases.apply(rows)) {
                c.check().run();
                pairs(c.label(), pairs, c.run());
            }
        });
    }

    /** Runs {@code body} on a fresh MiniCluster at parallelism 1, closed afterwards. */
    static void onMiniCluster(Body body) throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0"); // any free port: other jobs on the machine may hold 8081
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
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

    /** @return the context environment at parallelism 1 */
    static StreamExecutionEnvironment env() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        return env;
    }

    /** @return {@code rows} rows of {@code type} from {@code gen}, unthrottled, at parallelism 1 */
    static DataStream<RowData> generated(StreamExecutionEnvironment env, GeneratorFunction<Long, RowData> gen, long rows,
            RowType type, WatermarkStrategy<RowData> watermarks, String name) {
        return env.fromSource(new DataGeneratorSource<>(gen, rows, RateLimiterStrategy.noOp(), InternalTypeInfo.of(type)),
                watermarks, name).setParallelism(1);
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
