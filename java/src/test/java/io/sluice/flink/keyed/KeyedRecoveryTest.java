package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native keyed state through Flink checkpoints: a failure after a completed
 * checkpoint, and a savepoint at parallelism 2 restored at parallelism 3,
 * both end with exactly the changelog of an undisturbed run.
 */
class KeyedRecoveryTest {
    static final int KEYS = 2_000;
    static final String SPEC_AGGS = "COUNT(*),SUM(v),MIN(s),MAX(s)";

    @RegisterExtension
    static final MiniClusterExtension MINI = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    static final RowType IN = (RowType) KeyedTestData.TYPE.getLogicalType();

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

    /** generator → keyBy → native GROUP BY → (FailOnce) → Row. */
    static DataStream<Row> pipeline(StreamExecutionEnvironment env, long rows, double perSecond, boolean tail) {
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(i -> KeyedTestData.row(i, KEYS), rows,
                RateLimiterStrategy.perSecond(perSecond), KeyedTestData.typeInfo());
        DataStream<RowData> in = env.fromSource(source, WatermarkStrategy.noWatermarks(), "gen").setParallelism(1)
                .uid("gen").map(new RowConversions.ToInternal(KeyedTestData.TYPE)).returns(InternalTypeInfo.of(IN))
                .setParallelism(1).uid("to-internal");
        int[] keys = {0};
        String spec = KeyedSpecs.groupAgg(IN, keys, List.of(SPEC_AGGS.split(",")));
        RowType out = KeyedStreams.outputType(spec, IN, List.of("k", "c", "sv", "mins", "maxs"));
        DataStream<RowData> agg = KeyedStreams.apply(in, IN, keys, spec, out, new Configuration(), "agg").uid("agg")
                .map(new FailOnce<RowData>()).returns(InternalTypeInfo.of(out)).uid("fail-once");
        DataType outType = TypeConversions.fromLogicalToDataType(out);
        @SuppressWarnings("unchecked")
        org.apache.flink.api.common.typeinfo.TypeInformation<Row> rowInfo =
                (org.apache.flink.api.common.typeinfo.TypeInformation<Row>) (Object)
                        org.apache.flink.table.runtime.typeutils.ExternalTypeInfo.of(outType);
        DataStream<Row> result = agg.map(new RowConversions.ToExternal(outType)).returns(rowInfo).uid("to-row");
        if (tail) {
            result = result.map(r -> r).returns(rowInfo).uid("tail");
        }
        return result;
    }

    static Map<String, List<String>> reference(long rows) throws Exception {
        FailOnce.armed = false;
        return KeyedTestData.byKey(pipeline(env(1, null), rows, 1e9, false).executeAndCollect());
    }

    @Test
    void failureAfterCheckpointGivesTheSameChangelog() throws Exception {
        long rows = 30_000;
        Map<String, List<String>> expected = reference(rows);
        FailOnce.FAILED.set(false);
        FailOnce.checkpointed = false;
        FailOnce.armed = true;
        Map<String, List<String>> got;
        try {
            got = KeyedTestData.byKey(pipeline(env(2, null), rows, 12_000, false).executeAndCollect());
        } finally {
            FailOnce.armed = false;
        }
        assertTrue(FailOnce.FAILED.get(), "the failure was injected");
        assertEquals(expected, got);
    }

    @Test
    void savepointAtTwoRestoresAtThree(@TempDir Path dir) throws Exception {
        long rows = 30_000;
        FailOnce.armed = false;
        Map<String, List<String>> expected = reference(rows);

        StreamExecutionEnvironment first = env(2, null);
        CloseableIterator<Row> it = pipeline(first, rows, 10_000, false).collectAsync();
        KeyedTestData.Stopped stopped = KeyedTestData.runUntilSavepoint(first, it, "rescale-p2", 3_000, dir);
        Map<String, List<String>> got = stopped.rowsByKey();
        String savepoint = stopped.savepoint();
        int firstPart = KeyedTestData.count(got);
        Map<String, List<String>> after =
                KeyedTestData.byKey(pipeline(env(3, savepoint), rows, 1e9, true).executeAndCollect());
        assertTrue(KeyedTestData.count(after) > 0 && firstPart > 0, "both jobs produced rows");
        after.forEach((k, v) -> got.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
        assertEquals(expected.keySet(), got.keySet());
        for (String k : expected.keySet()) {
            assertEquals(expected.get(k), got.get(k), "changelog of key " + k);
        }
    }
}
