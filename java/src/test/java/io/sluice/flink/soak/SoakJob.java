package io.sluice.flink.soak;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceOptions;
import io.sluice.jni.SluiceNative;

/**
 * The soak job: unchanged SQL over a rate-limited generator — a keep-last dedup per key
 * ({@code ROW_NUMBER() ... ORDER BY pt DESC = 1}), a projection with MD5 and a GROUP BY over the
 * deduplicated (so retracting) rows — with sluice installed (the planner stage puts the native
 * Deduplicate, Calc and GroupAggregate into the plan) or stock. Checkpoints every second; a map
 * after the query ({@link Injector}) throws every {@code failEvery}, each time after a checkpoint
 * completed since the last failure, and the fixed-delay restart strategy restarts the job from
 * that checkpoint. The collect sink is exactly-once under checkpoints, so the changelog it returns,
 * folded into a table, is the job's final result.
 *
 * <p>While the job runs a sampler records, once a second: process RSS, JVM heap in use, live
 * native handles ({@link SluiceNative#liveHandles()}), the native operators' retained state bytes
 * (the {@code stateBytes} gauges, read through Flink's {@link InMemoryReporter}) and the failures
 * injected so far.
 */
final class SoakJob {
    private SoakJob() {}

    static final int KEYS = 3_000;
    static final int GROUPS = 32;
    static final String SQL = "SELECT g, COUNT(*) AS n, SUM(v) AS sv, MAX(h) AS hi, MIN(h) AS lo FROM ("
            + "SELECT g, v, MD5(s) AS h FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn "
            + "FROM src) WHERE rn = 1) GROUP BY g";

    static final DataType TYPE = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.BIGINT()),
            DataTypes.FIELD("k", DataTypes.STRING()),
            DataTypes.FIELD("g", DataTypes.INT()),
            DataTypes.FIELD("v", DataTypes.BIGINT()),
            DataTypes.FIELD("s", DataTypes.STRING()));

    private static final String[] PREFIXES = {"k", "ключ", "鍵", "😀𝄞", "", "é", "a b"};

    /** Row {@code i} of the input: deterministic, over {@link #KEYS} keys (and NULL). */
    static Row row(long i) {
        Random r = new Random(i * 0x9E3779B97F4A7C15L + 4242);
        int kn = r.nextInt(KEYS + 1);
        String k = kn == KEYS ? null : PREFIXES[kn % PREFIXES.length] + kn;
        Long v = r.nextInt(9) == 0 ? null : (long) (r.nextInt(2_000_001) - 1_000_000);
        String s = r.nextInt(9) == 0 ? null : PREFIXES[r.nextInt(PREFIXES.length)] + r.nextInt(100_000);
        return Row.of(i, k, r.nextInt(GROUPS), v, s);
    }

    /** One run's settings. */
    record Settings(boolean installed, long rows, double rowsPerSecond, Duration failEvery, int parallelism) {}

    /** One sample of the process while the job ran. */
    record Sample(double seconds, long rssBytes, long heapBytes, long liveHandles, long stateBytes, int failures) {}

    /** A finished run: the final table (row text to multiplicity) and the samples. */
    record Result(Map<String, Integer> table, List<Sample> samples, int failures, List<String> nativeNodes) {}

    /** Throws every {@code failEvery}, after a checkpoint completed since the last throw. */
    static final class Injector implements MapFunction<Row, Row>, CheckpointListener {
        private static final long serialVersionUID = 1L;
        static volatile long everyMillis = Long.MAX_VALUE;
        static volatile boolean checkpointed;
        static final AtomicLong LAST = new AtomicLong();
        static final AtomicInteger FAILURES = new AtomicInteger();

        static void arm(Duration every) {
            FAILURES.set(0);
            checkpointed = false;
            LAST.set(System.currentTimeMillis());
            everyMillis = every.toMillis();
        }

        static void disarm() {
            everyMillis = Long.MAX_VALUE;
        }

        @Override
        public Row map(Row row) {
            long last = LAST.get();
            long now = System.currentTimeMillis();
            if (checkpointed && now - last >= everyMillis && LAST.compareAndSet(last, now)) {
                checkpointed = false;
                int n = FAILURES.incrementAndGet();
                throw new RuntimeException("soak: injected failure " + n);
            }
            return row;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed = true;
        }
    }

    @SuppressWarnings("unchecked")
    static TypeInformation<Row> typeInfo() {
        return (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(TYPE);
    }

    /** Checkpoints every second; {@code restarts} fixed-delay restarts (0: none). */
    static StreamExecutionEnvironment env(int parallelism, int restarts) {
        Configuration conf = new Configuration();
        if (restarts == 0) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.setMaxParallelism(128);
        env.enableCheckpointing(1_000);
        return env;
    }

    /** Generator → SQL (native when installed) → Injector; returns the changelog and the native nodes. */
    static DataStream<Row> pipeline(StreamExecutionEnvironment env, Settings s, List<String> nativeNodes) {
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(SoakJob::row, s.rows(),
                RateLimiterStrategy.perSecond(s.rowsPerSecond()), typeInfo());
        DataStream<Row> in = env.fromSource(source, WatermarkStrategy.noWatermarks(), "gen").setParallelism(1)
                .uid("gen");
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (s.installed()) {
            // the keep-last dedup carries s, which the cost rule keeps stock: the soak is about native state
            tEnv.getConfig().set(SluiceOptions.COST_ENABLED, false);
            Sluice.install(tEnv);
        }
        tEnv.createTemporaryView("src", tEnv.fromDataStream(in, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()").build()));
        if (s.installed()) {
            Sluice.explain(tEnv, SQL).nodes().stream().filter(NodeReport::isNative).map(NodeReport::node)
                    .forEach(nativeNodes::add);
        }
        DataStream<Row> changelog = tEnv.toChangelogStream(tEnv.sqlQuery(SQL));
        return changelog.map(new Injector()).returns(changelog.getType()).uid("inject");
    }

    /** Runs one job to its end, sampling the process if {@code reporter} is given. */
    static Result run(Settings s, InMemoryReporter reporter) throws Exception {
        StreamExecutionEnvironment env = env(s.parallelism(), 1_000);
        List<String> nativeNodes = new ArrayList<>();
        CloseableIterator<Row> it = pipeline(env, s, nativeNodes).collectAsync();
        if (s.failEvery() != null) {
            Injector.arm(s.failEvery());
        } else {
            Injector.disarm();
        }
        List<Sample> samples = new ArrayList<>();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try {
            JobClient client = env.executeAsync("soak");
            if (reporter != null) {
                long start = System.nanoTime();
                JobID job = client.getJobID();
                sampler.scheduleAtFixedRate(() -> {
                    Sample x = sample((System.nanoTime() - start) / 1e9, stateBytes(reporter, job));
                    synchronized (samples) {
                        samples.add(x);
                    }
                }, 0, 1, TimeUnit.SECONDS);
            }
            Map<String, Integer> table = fold(it);
            client.getJobExecutionResult().get();
            return new Result(table, samples, Injector.FAILURES.get(), nativeNodes);
        } finally {
            Injector.disarm();
            sampler.shutdownNow();
            sampler.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Applies a changelog to a table of row texts; a retraction of an absent row fails. */
    static Map<String, Integer> fold(CloseableIterator<Row> changelog) throws Exception {
        Map<String, Integer> table = new HashMap<>();
        try (CloseableIterator<Row> rows = changelog) {
            while (rows.hasNext()) {
                Row r = rows.next();
                RowKind kind = r.getKind();
                r.setKind(RowKind.INSERT);
                String text = r.toString();
                if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
                    table.merge(text, 1, Integer::sum);
                } else {
                    Integer n = table.get(text);
                    assertTrue(n != null, "retraction of a row the table does not hold: " + kind + text);
                    if (n == 1) {
                        table.remove(text);
                    } else {
                        table.put(text, n - 1);
                    }
                }
            }
        }
        return table;
    }

    static Sample sample(double seconds, long stateBytes) {
        Runtime rt = Runtime.getRuntime();
        return new Sample(seconds, rssBytes(), rt.totalMemory() - rt.freeMemory(), SluiceNative.liveHandles(),
                stateBytes, Injector.FAILURES.get());
    }

    /** The sum of the job's {@code stateBytes} gauges (the native keyed operators' retained bytes). */
    static long stateBytes(InMemoryReporter reporter, JobID job) {
        long sum = 0;
        try {
            for (Metric m : reporter.findMetrics(job, ".*stateBytes").values()) {
                if (m instanceof Gauge<?> g && g.getValue() instanceof Number n) {
                    sum += n.longValue();
                }
            }
        } catch (RuntimeException e) {
            // the metric registry changes under a restart; this sample counts what it saw
        }
        return sum;
    }

    /** VmRSS of this process ({@code /proc/self/status}), in bytes. */
    static long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return 1024 * Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** Writes the samples as CSV (the columns of {@link Sample}). */
    static void writeCsv(Path file, List<Sample> samples) throws IOException {
        StringBuilder b = new StringBuilder("seconds,rss_bytes,heap_bytes,live_handles,state_bytes,failures\n");
        for (Sample x : samples) {
            b.append(String.format("%.1f,%d,%d,%d,%d,%d%n", x.seconds(), x.rssBytes(), x.heapBytes(),
                    x.liveHandles(), x.stateBytes(), x.failures()));
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, b);
    }

    /**
     * Lets the cleaner free what earlier tests left unreachable, then returns the live native
     * handles once the count holds still for half a second: the baseline a test compares with.
     */
    static long quiesce() throws InterruptedException {
        long live = SluiceNative.liveHandles();
        for (int i = 0; i < 20; i++) {
            System.gc();
            Thread.sleep(500);
            long now = SluiceNative.liveHandles();
            if (now == live) {
                return now;
            }
            live = now;
        }
        return live;
    }

    /**
     * Waits (up to {@code timeout}) until the live native handles are back at {@code baseline}: a
     * failed or cancelled task closes its operators on its own thread, which may finish just after
     * the job reports its end.
     *
     * @return the last count seen
     */
    static long awaitHandles(long baseline, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long live = SluiceNative.liveHandles();
        while (live != baseline && System.nanoTime() < deadline) {
            Thread.sleep(50);
            live = SluiceNative.liveHandles();
        }
        return live;
    }
}
