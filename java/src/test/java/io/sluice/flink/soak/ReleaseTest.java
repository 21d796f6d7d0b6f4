package io.sluice.flink.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceOptions;
import io.sluice.flink.TestSupport;
import io.sluice.jni.NativeHandle;
import io.sluice.jni.SluiceNative;

/**
 * A job that ends early releases every native handle it created, through its operators' own
 * {@code close()} (the cleaner frees none), and the JVM lives on: a job cancelled while its native
 * operators hold half-filled batches, a job whose sink fails (no restart), and a job cancelled
 * while a task thread is inside a native Calc call.
 */
class ReleaseTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    static final String KEYED_SQL = "SELECT g, COUNT(*), SUM(v), MAX(h) FROM (SELECT g, v, MD5(s) AS h FROM ("
            + "SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM src) WHERE rn = 1) GROUP BY g";

    private long handles;
    private long unclosed;

    @BeforeEach
    void baseline() throws InterruptedException {
        handles = SoakJob.quiesce();
        unclosed = NativeHandle.freedUnclosed();
    }

    /** Every handle the job created is freed, by its owner. */
    private void assertReleased(String what) throws InterruptedException {
        assertEquals(handles, SoakJob.awaitHandles(handles, Duration.ofSeconds(30)), what + ": live native handles");
        assertEquals(unclosed, NativeHandle.freedUnclosed(), what + ": handles the cleaner had to free");
    }

    private static StreamTableEnvironment tables(StreamExecutionEnvironment env, DataStream<Row> in) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        // the keep-last dedup carries s, which the cost rule keeps stock: this test is about native handles
        tEnv.getConfig().set(SluiceOptions.COST_ENABLED, false);
        Sluice.install(tEnv);
        tEnv.createTemporaryView("src", tEnv.fromDataStream(in, org.apache.flink.table.api.Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()").build()));
        return tEnv;
    }

    private static List<String> natives(StreamTableEnvironment tEnv, String sql) {
        return Sluice.explain(tEnv, sql).nodes().stream().filter(NodeReport::isNative).map(NodeReport::node).toList();
    }

    private static DataStream<Row> soakInput(StreamExecutionEnvironment env, long rows, double perSecond) {
        return env.fromSource(new DataGeneratorSource<>(SoakJob::row, rows, RateLimiterStrategy.perSecond(perSecond),
                SoakJob.typeInfo()), WatermarkStrategy.noWatermarks(), "gen").setParallelism(1);
    }

    @Test
    void cancelWithBatchesInFlight() throws Exception {
        StreamExecutionEnvironment env = SoakJob.env(2, 1_000);
        StreamTableEnvironment tEnv = tables(env, soakInput(env, Long.MAX_VALUE, 5_000));
        assertTrue(natives(tEnv, KEYED_SQL).containsAll(List.of("Calc", "Deduplicate", "GroupAggregate")));
        CloseableIterator<Row> it = tEnv.toChangelogStream(tEnv.sqlQuery(KEYED_SQL)).collectAsync();
        JobClient job = env.executeAsync("cancel-mid-batch");
        long live = 0;
        for (int read = 0; read < 200 && it.hasNext(); read++) {
            it.next();
            live = Math.max(live, SluiceNative.liveHandles());
        }
        assertTrue(live > handles, "the job's native handles were alive while it ran");
        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        it.close();
        assertReleased("cancelled job");
    }

    @Test
    void failingSink() throws Exception {
        StreamExecutionEnvironment env = SoakJob.env(2, 0);
        StreamTableEnvironment tEnv = tables(env, soakInput(env, Long.MAX_VALUE, 5_000));
        tEnv.toChangelogStream(tEnv.sqlQuery(KEYED_SQL)).sinkTo(failingSink(300)).name("failing-sink");
        JobClient job = env.executeAsync("failing-sink");
        ExecutionException e = assertThrows(ExecutionException.class, () -> job.getJobExecutionResult().get());
        assertTrue(ExceptionUtils.findThrowableWithMessage(e, "sink: injected failure").isPresent(),
                "the job failed with the sink's error: " + ExceptionUtils.stringifyException(e));
        assertReleased("job with a failing sink");
    }

    @Test
    void cancelDuringNativeCall() throws Exception {
        StreamExecutionEnvironment env = SoakJob.env(1, 1_000);
        DataStream<Row> in = env.fromSource(new DataGeneratorSource<>(ReleaseTest::bigRow, Long.MAX_VALUE,
                RateLimiterStrategy.noOp(), BIG_INFO), WatermarkStrategy.noWatermarks(), "big").setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        Sluice.install(tEnv);
        tEnv.createTemporaryView("big", tEnv.fromDataStream(in));
        String sql = "SELECT SHA2(s, 512), SHA1(s), MD5(s), REPLACE(s, 'a', 'bc') FROM big";
        assertEquals(List.of("Calc"), natives(tEnv, sql));
        tEnv.toChangelogStream(tEnv.sqlQuery(sql)).sinkTo(failingSink(Long.MAX_VALUE)).name("discard");
        JobClient job = env.executeAsync("cancel-in-native");
        Thread inNative = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (inNative == null && System.nanoTime() < deadline) {
            inNative = threadInNativeCalc();
            if (inNative == null) {
                Thread.sleep(1);
            }
        }
        assertTrue(inNative != null, "a task thread was seen inside CalcNative's native method");
        job.cancel().get();
        awaitStatus(job, JobStatus.CANCELED);
        assertReleased("job cancelled during a native call");
    }

    /** A task thread whose top frame is a native method of {@code io.sluice.jni.CalcNative}, if any. */
    private static Thread threadInNativeCalc() {
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] st = e.getValue();
            if (st.length > 0 && st[0].isNativeMethod() && st[0].getClassName().equals("io.sluice.jni.CalcNative")
                    && st[0].getMethodName().startsWith("process")) {
                return e.getKey();
            }
        }
        return null;
    }

    static final DataType BIG = DataTypes.ROW(DataTypes.FIELD("s", DataTypes.STRING()));

    @SuppressWarnings("unchecked")
    static final TypeInformation<Row> BIG_INFO = (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(BIG);

    /** 16 KiB strings: a batch of them keeps the native Calc busy for a while. */
    static Row bigRow(long i) {
        StringBuilder b = new StringBuilder(16_384);
        for (int n = 0; b.length() < 16_384; n++) {
            b.append("abc").append(i).append('-').append(n);
        }
        return Row.of(b.toString());
    }

    private static void awaitStatus(JobClient job, JobStatus want) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JobStatus s = job.getJobStatus().get();
        while (s != want && System.nanoTime() < deadline) {
            Thread.sleep(50);
            s = job.getJobStatus().get();
        }
        assertEquals(want, s, "job status");
    }

    /**
     * A sink that throws at its {@code failAt}-th row (never for {@code Long.MAX_VALUE}). Built as a
     * proxy of {@link Sink}, whose abstract {@code createWriter} takes another context type on each
     * Flink line; the writer itself is the same on both.
     */
    @SuppressWarnings("unchecked")
    static Sink<Row> failingSink(long failAt) {
        return (Sink<Row>) Proxy.newProxyInstance(ReleaseTest.class.getClassLoader(), new Class<?>[] {Sink.class},
                new SinkHandler(failAt));
    }

    private static final class SinkHandler implements java.lang.reflect.InvocationHandler, java.io.Serializable {
        private static final long serialVersionUID = 1L;
        private final long failAt;

        SinkHandler(long failAt) {
            this.failAt = failAt;
        }

        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method m, Object[] args) {
            return switch (m.getName()) {
                case "createWriter" -> new FailingWriter(failAt);
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                case "toString" -> "FailingSink(" + failAt + ")";
                default -> throw new UnsupportedOperationException(m.toString());
            };
        }
    }

    private static final class FailingWriter implements SinkWriter<Row> {
        private final long failAt;
        private long seen;

        FailingWriter(long failAt) {
            this.failAt = failAt;
        }

        @Override
        public void write(Row row, Context context) {
            if (++seen >= failAt) {
                throw new RuntimeException("sink: injected failure at row " + seen);
            }
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
    }
}
