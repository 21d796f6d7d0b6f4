package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Assumptions;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.compat.FlinkLine;

/**
 * What the recovery tests ({@link KeyedRecoveryTest} and the SQL ones) share: the job environment
 * (checkpoints every 200 ms, restarts, max parallelism 128, optionally from a savepoint), the
 * injected failure ({@link FailOnce}), and the two scenarios: a stock reference at parallelism 1
 * against an installed run at parallelism 2 that fails once after a completed checkpoint, and an
 * installed run at parallelism 2 stopped with a savepoint and restored at parallelism 3.
 */
final class Recovery {
    private Recovery() {}

    /** Fails once, after a checkpoint completed and more rows went through. */
    static final class FailOnce<T> implements MapFunction<T, T>, CheckpointListener {
        private static final long serialVersionUID = 1L;
        static volatile boolean armed;
        static volatile boolean checkpointed;
        static final AtomicBoolean FAILED = new AtomicBoolean();
        private long seen;

        @Override
        public T map(T row) {
            if (armed && checkpointed && ++seen > 500 && FAILED.compareAndSet(false, true)) {
                throw new RuntimeException("injected failure after a completed checkpoint");
            }
            return row;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed = true;
        }
    }

    /** A test's job: its rows, stock or with sluice installed, the source at {@code perSecond}. */
    @FunctionalInterface
    interface Pipeline {
        DataStream<Row> build(StreamExecutionEnvironment env, boolean installed, double perSecond);
    }

    /** How a test reads a job's rows for its comparison (by key, sorted, materialized). */
    @FunctionalInterface
    interface Reader<R> {
        R read(CloseableIterator<Row> rows) throws Exception;
    }

    /** The stock reference's result and the installed run's. */
    record Runs<R>(R expected, R got) {}

    static StreamExecutionEnvironment env(int parallelism, String savepoint) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        if (savepoint != null) {
            conf.set(ConfigOptions.key("execution.savepoint.path").stringType().noDefaultValue(), savepoint);
            conf.set(ConfigOptions.key("execution.savepoint.ignore-unclaimed-state").booleanType().defaultValue(false), true);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.setMaxParallelism(128);
        env.enableCheckpointing(200);
        return env;
    }

    /** @return the stock job's result at parallelism 1, source unthrottled, no failure armed */
    static <R> R stockReference(Pipeline pipeline, Reader<R> reader) throws Exception {
        FailOnce.armed = false;
        return reader.read(pipeline.build(env(1, null), false, 1e9).executeAndCollect());
    }

    /**
     * The stock reference, then the installed job at parallelism 2 with its source at
     * {@code perSecond} and {@link FailOnce} armed; asserts that the failure was injected.
     */
    static <R> Runs<R> failingOnceAfterCheckpoint(Pipeline pipeline, Reader<R> reader, double perSecond)
            throws Exception {
        R expected = stockReference(pipeline, reader);
        FailOnce.FAILED.set(false);
        FailOnce.checkpointed = false;
        FailOnce.armed = true;
        R got;
        try {
            got = reader.read(pipeline.build(env(2, null), true, perSecond).executeAndCollect());
        } finally {
            FailOnce.armed = false;
        }
        assertTrue(FailOnce.FAILED.get(), "the failure was injected");
        return new Runs<>(expected, got);
    }

    /**
     * Runs {@code before} installed at parallelism 2 (source at {@code perSecond}) until 3,000 rows
     * arrived, stops it with a savepoint in {@code dir} (job name {@code name}), runs
     * {@code after} from that savepoint at parallelism 3 to its end, and asserts that both
     * produced rows.
     *
     * @return the rows of both jobs, by key (the first job's first)
     */
    static Map<String, List<String>> rescaledThroughSavepoint(Pipeline before, Pipeline after, double perSecond,
            String name, Path dir) throws Exception {
        StreamExecutionEnvironment first = env(2, null);
        CloseableIterator<Row> it = before.build(first, true, perSecond).collectAsync();
        KeyedTestData.Stopped stopped = KeyedTestData.runUntilSavepoint(first, it, name, 3_000, dir);
        Map<String, List<String>> got = stopped.rowsByKey();
        int firstPart = KeyedTestData.count(got);
        Map<String, List<String>> restored =
                KeyedTestData.byKey(after.build(env(3, stopped.savepoint()), true, 1e9).executeAndCollect());
        int secondPart = KeyedTestData.count(restored);
        assertTrue(firstPart > 0 && secondPart > 0, "both jobs produced rows: " + firstPart + ", " + secondPart);
        restored.forEach((k, v) -> got.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
        return got;
    }

    /**
     * The stock reference's per-key changelog, and {@link #rescaledThroughSavepoint} of
     * {@code pipeline} both before and after the savepoint. Flink 1.20 skips it (a named
     * assumption, reported as skipped): its collect sink fails its own sanity check after this
     * restore ("userVisibleTail should not be larger than offset",
     * {@code AbstractCollectResultBuffer}); an open defect of these tests, which need another sink
     * to read the restored job's rows on 1.20, not a passing case.
     */
    static Runs<Map<String, List<String>>> rescaledAgainstStock(Pipeline pipeline, double perSecond, String name,
            Path dir) throws Exception {
        Assumptions.assumeTrue(FlinkLine.name().equals("flink-2"),
                "Flink 1.20: collect sink after a savepoint restore (Recovery.rescaledAgainstStock)");
        Map<String, List<String>> expected = stockReference(pipeline, KeyedTestData::byKey);
        return new Runs<>(expected, rescaledThroughSavepoint(pipeline, pipeline, perSecond, name, dir));
    }

    /** Asserts the same keys, and per key the same changelog. */
    static void assertSameChangelogs(Map<String, List<String>> expected, Map<String, List<String>> got) {
        assertEquals(expected.keySet(), got.keySet());
        for (String k : expected.keySet()) {
            assertEquals(expected.get(k), got.get(k), "changelog of key " + k);
        }
    }

    /** Asserts that {@code node} is the one node of {@code sql} that runs natively. */
    static void assertOnlyNative(StreamTableEnvironment tEnv, String sql, String node, String message) {
        List<String> natives = Sluice.explain(tEnv, sql).nodes().stream().filter(NodeReport::isNative)
                .map(NodeReport::node).toList();
        assertEquals(List.of(node), natives, message);
    }
}
