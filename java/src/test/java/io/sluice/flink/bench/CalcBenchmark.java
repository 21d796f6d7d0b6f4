package io.sluice.flink.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceOptions;
import io.sluice.flink.TestSupport;

/**
 * Plain Flink SQL, stock vs with sluice's planner stage installed ({@link Sluice#install}), on
 * generated rows (scripts/java-bench.sh). A case is a select list, optionally followed by
 * {@code WHERE ...}; both sides run {@code SELECT <case> FROM v}.
 *
 * <p>Timing: the span from the first to the last row reaching the sink
 * (a chained map stamps both), so job submission, deployment and teardown
 * are excluded; one MiniCluster serves every job.
 *
 * <p>How the operator is isolated: the rows are materialised once as
 * {@code BinaryRowData} in a static array before any job runs; the source
 * (a {@code DataGeneratorSource}) emits references into that array, and the
 * sink discards. Both variants run the same pipeline at parallelism 1 in one
 * local MiniCluster ({@code source → fromDataStream → Calc → toDataStream →
 * discard}), so they differ only in what the planner made of the Calc: Flink's generated Calc,
 * or {@code SluiceCalcOperator} (entry transpose + kernels + exit transpose), or for a split
 * Calc the native part below Flink's Calc for the rest; a pass-through stays Flink's.
 * A third job without any Calc ({@code SELECT id}: a projection of one
 * BIGINT) measures the pipeline floor, which is subtracted to give the
 * Calc's own time. Jobs alternate stock / sluice after warm-up; each figure
 * is the median of the measured pairs.
 *
 * <p>Args: {@code [rows] [pairs] [warmup pairs] [nocurve | curve=32,128,...]} (default
 * 2,000,000 5 2): {@code nocurve} skips the batch-size curve, {@code curve=<sizes>} runs only
 * the curve, at the given batch sizes (default curve: 32, 512, 8192).
 *
 * <p>Input shapes ({@code -Dsluice.bench.input}): {@code binary} (default) emits the
 * pre-materialised {@code BinaryRowData}, as a table source or a network shuffle hands rows
 * over; {@code string} emits a new {@code GenericRowData} per row whose strings are
 * {@code StringData.fromString} over pre-built Java {@code String}s (lazy {@code BinaryStringData}
 * holding only the {@code String}), as {@code fromDataStream} over a user's POJOs or {@code Row}s
 * gives them; both sides pay the same source. {@code scripts/java-bench.sh calc-shapes} runs the
 * table for both shapes on both Flink lines.
 *
 * <p>System properties: {@code -Dsluice.bench.object-reuse=true} runs every job (stock and
 * sluice alike) with Flink's object reuse on; {@code -Dsluice.bench.column-handover=false} sets
 * {@code sluice.calc.column-handover=false} (the gather path); {@code -Dsluice.bench.only=<expression>} runs one
 * case of the table; {@code -Dsluice.bench.plan=true} prints each job's execution plan.
 */
public final class CalcBenchmark {
    /** The pre-materialised rows (read by the source in this JVM); null for String input. */
    static volatile BinaryRowData[] rows;
    /** The rows' strings {@code a, b, c} and widths {@code w}, which String input builds rows from. */
    static volatile String[][] strings;
    static volatile int[] widths;
    /** Average size of a row as {@code BinaryRowData}, bytes. */
    static volatile int avgRowBytes;

    /** {@code -Dsluice.bench.input=string}: rows with String-backed strings (class docs). */
    static final boolean STRING_INPUT = "string".equals(System.getProperty("sluice.bench.input", "binary"));

    static final RowType TYPE = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE, VarCharType.STRING_TYPE,
                VarCharType.STRING_TYPE, new IntType()},
            new String[] {"id", "a", "b", "c", "w"});

    private CalcBenchmark() {}

    /** @param args [rows] [pairs] [warmup pairs] */
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int warm = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        nocurve = args.length > 3 && args[3].equals("nocurve");
        if (args.length > 3 && args[3].startsWith("curve=")) {
            curveSizes = Arrays.stream(args[3].substring(6).split(",")).mapToInt(Integer::parseInt).toArray();
        }
        if (STRING_INPUT) {
            materialise(n); // the rows are built per emission from the strings
        } else {
            rows = materialise(n);
        }
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0"); // any free port: other jobs on the machine hold 8081
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(1).build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, 1);
        try {
            measure(n, pairs, warm);
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
    }

    private static boolean nocurve;
    /** Batch sizes of the curve; non-null from a {@code curve=} argument: the curve only. */
    private static int[] curveSizes;

    private static void measure(int n, int pairs, int warm) throws Exception {
        System.out.printf(Locale.ROOT,
                "rows %,d (%s); avg row %d bytes; pairs %d after %d warm-up pairs; parallelism 1; object reuse %s; %s%n",
                n, STRING_INPUT ? "GenericRowData, String-backed strings" : "BinaryRowData", avgRowBytes, pairs, warm,
                OBJECT_REUSE ? "on" : "off (Flink's default)",
                CPU_TIME ? "task-thread CPU time" : "wall time");

        String[][] cases = {
            {"id"}, // a pass-through: the stage leaves it to Flink ("no native work")
            {"c, id"}, // a reordering Calc: stays Flink's too
            {"MD5(a)"},
            {"SHA2(a, w)"},
            {"CONCAT(a, b, c)"},
            {"CONCAT_WS('|', a, b, c)"},
            // mixed: split into native MD5 + LIKE filter below, Flink's Calc for UPPER and + above
            {"id + 1, MD5(a), UPPER(b) WHERE c LIKE '%a%'"},
        };
        String header = "| function | stock s | sluice s | floor s | stock Mrows/s | sluice Mrows/s | ratio | Calc-only ratio (floor subtracted) |";
        if (curveSizes == null) {
            System.out.println(header);
            System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
            String only = System.getProperty("sluice.bench.only");
            for (String[] c : cases) {
                if (only != null && !only.equals(c[0])) {
                    continue;
                }
                report(c[0] + " (batch 8192)", runs(c[0], 8192, n, warm, pairs, true), n);
                if (c[0].contains(" WHERE ")) {
                    System.out.printf(Locale.ROOT, "(%,d of %,d rows pass the WHERE)%n", filtered, n);
                }
            }
            System.out.println();
        }
        if (nocurve) {
            return;
        }
        System.out.println("batch-size curve (rows per native call):");
        System.out.println(header);
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (String f : new String[] {"MD5(a)", "CONCAT(a, b, c)"}) {
            for (int bs : curveSizes == null ? new int[] {32, 512, 8192} : curveSizes) {
                report(f + " (batch " + bs + ")", runs(f, bs, n, warm, pairs, true), n);
            }
        }
        System.out.println();
        encodeCosts();
    }

    private static void report(String name, double[][] t, int n) {
        double s = median(t[0]);
        double x = median(t[1]);
        double f = median(t[2]);
        System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.3f | %.2f | %.2f | %.2fx | %.2fx |%n",
                name, s, x, f, n / s / 1e6, n / x / 1e6, s / x, Math.max(s - f, 1e-3) / Math.max(x - f, 1e-3));
    }

    /**
     * Rounds of floor / stock / sluice jobs, in that order, after {@code warm}
     * unmeasured rounds; returns {stock, sluice, floor} times.
     */
    private static double[][] runs(String expr, int batch, int n, int warm, int pairs, boolean floor) throws Exception {
        double[][] t = new double[3][pairs];
        for (int i = -warm; i < pairs; i++) {
            double f = floor ? run("id", false, batch, n) : 0;
            double s = run(expr, false, batch, n);
            double x = run(expr, true, batch, n);
            if (i >= 0) {
                t[0][i] = s;
                t[1][i] = x;
                t[2][i] = f;
            }
        }
        return t;
    }

    /** One job; returns its wall time in seconds (submission to completion). */
    private static double run(String expr, boolean sluice, int batch, int n) throws Exception {
        StreamExecutionEnvironment env = TestSupport.singleEnv(OBJECT_REUSE);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(SluiceOptions.BATCH_SIZE, batch);
        tEnv.getConfig().set(SluiceOptions.CALC_COLUMN_HANDOVER, COLUMN_HANDOVER);
        GeneratorFunction<Long, RowData> gen = STRING_INPUT ? CalcBenchmark::stringRow : i -> rows[(int) (long) i];
        DataStream<RowData> src = env.fromSource(
                new DataGeneratorSource<>(gen, n, InternalTypeInfo.of(TYPE)), WatermarkStrategy.noWatermarks(), "rows");
        tEnv.createTemporaryView("v", tEnv.fromDataStream(src));
        if (sluice) {
            Sluice.install(tEnv);
        }
        int where = expr.indexOf(" WHERE ");
        String sql = where < 0 ? "SELECT " + expr + " FROM v"
                : "SELECT " + expr.substring(0, where) + " FROM v" + expr.substring(where);
        Table out = tEnv.sqlQuery(sql);
        DataStream<RowData> projected =
                tEnv.toDataStream(out, out.getResolvedSchema().toPhysicalRowDataType().bridgedTo(RowData.class));
        projected.map(new Stamp(where < 0 ? n : -1))
                .returns(InternalTypeInfo.of((RowType) out.getResolvedSchema().toPhysicalRowDataType().getLogicalType()))
                .sinkTo(new DiscardingSink<>());
        if (Boolean.getBoolean("sluice.bench.plan")) {
            System.out.println("plan of " + (sluice ? "sluice " : "stock ") + expr + ":\n" + env.getExecutionPlan());
        }
        firstNanos = 0;
        lastNanos = 0;
        env.execute("bench " + (sluice ? "sluice " : "stock ") + expr);
        if (lastNanos == 0) {
            throw new IllegalStateException("the sink did not see all " + n + " rows");
        }
        if (where >= 0) {
            filtered = seenRows;
        }
        return (CPU_TIME ? lastCpuNanos - firstCpuNanos : lastNanos - firstNanos) / 1e9;
    }

    /** {@code -Dsluice.bench.object-reuse=true}: both variants with Flink's object reuse on. */
    static final boolean OBJECT_REUSE = Boolean.getBoolean("sluice.bench.object-reuse");

    /** {@code -Dsluice.bench.column-handover=false}: the sluice jobs gather whole rows. */
    static final boolean COLUMN_HANDOVER =
            Boolean.parseBoolean(System.getProperty("sluice.bench.column-handover", "true"));

    static volatile long firstNanos;
    static volatile long lastNanos;
    /** The task thread's CPU time at the first and last row (the whole chain runs in it). */
    static volatile long firstCpuNanos;
    static volatile long lastCpuNanos;
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();
    /**
     * {@code -Dsluice.bench.cpu=true}: time each job by the task thread's CPU time from the first
     * to the last row instead of wall time (source, Calc, native calls and sink run chained in that
     * one thread at parallelism 1), for a machine whose other load would otherwise dominate.
     */
    static final boolean CPU_TIME = Boolean.getBoolean("sluice.bench.cpu");

    /** Rows that passed the last filtered case's WHERE (printed with its line). */
    static volatile long filtered;
    static volatile long seenRows;

    /**
     * Records when the first and the last row reach the sink: the job's
     * steady-state span, without submission, deployment and teardown. With a
     * WHERE ({@code n = -1}) the row count is not known in advance: every row
     * stamps the time (the same cost on both sides).
     */
    static final class Stamp implements MapFunction<RowData, RowData> {
        private static final long serialVersionUID = 1L;
        private final long n;
        private long seen;

        Stamp(long n) {
            this.n = n;
        }

        @Override
        public RowData map(RowData r) {
            if (seen++ == 0) {
                firstNanos = System.nanoTime();
                firstCpuNanos = THREADS.getCurrentThreadCpuTime();
            }
            if (seen == n || n < 0) {
                lastNanos = System.nanoTime();
                lastCpuNanos = THREADS.getCurrentThreadCpuTime();
                seenRows = seen;
            }
            return r;
        }
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    /**
     * Draws the rows' values ({@link #strings}, {@link #widths}: 16..64-character mixed strings,
     * ASCII-heavy, and a width in {224, 256, 384, 512}) and returns the rows as
     * {@code BinaryRowData}.
     */
    static BinaryRowData[] materialise(int n) {
        String[][] str = new String[n][];
        int[] w = new int[n];
        SplittableRandom r = new SplittableRandom(42);
        int[] choices = {224, 256, 384, 512};
        for (int i = 0; i < n; i++) {
            str[i] = new String[] {text(r, 16 + r.nextInt(49)), text(r, 8 + r.nextInt(17)), text(r, 8 + r.nextInt(17))};
            w[i] = choices[r.nextInt(4)];
        }
        strings = str;
        widths = w;
        RowDataSerializer ser = new RowDataSerializer(TYPE);
        BinaryRowData[] bin = new BinaryRowData[n];
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            bin[i] = ser.toBinaryRow(stringRow(i)).copy();
            bytes += bin[i].getSizeInBytes();
        }
        avgRowBytes = (int) (bytes / n);
        return bin;
    }

    /** Row {@code i} as a new {@code GenericRowData} with String-backed (lazy) strings. */
    static RowData stringRow(long i) {
        String[] s = strings[(int) i];
        return GenericRowData.of(i, StringData.fromString(s[0]), StringData.fromString(s[1]),
                StringData.fromString(s[2]), widths[(int) i]);
    }

    private static String text(SplittableRandom r, int len) {
        StringBuilder sb = new StringBuilder(len);
        for (int j = 0; j < len; j++) {
            int k = r.nextInt(100);
            sb.append(k < 90 ? (char) ('a' + r.nextInt(26)) : k < 97 ? 'é' : '中');
        }
        return sb.toString();
    }

    /**
     * What a lazy (Java-String-backed) string costs to encode per string, by
     * representation: the JDK's {@code getBytes(UTF_8)}, Flink's
     * {@code BinaryStringData.fromString(s)} materialised (Flink's encoder, path
     * (a) of the operator), and {@code String.getChars} into a shared
     * {@code char[]} (the Java half of a UTF-16 path; its native half is not
     * wired through JNI yet).
     */
    static void encodeCosts() {
        String ascii = "The quick brown fox jumps over the lazy dog, 0123456789 abcdefghi".substring(0, 64);
        StringBuilder m = new StringBuilder();
        for (int i = 0; m.length() < 64; i++) {
            m.append(i % 2 == 0 ? 'ж' : '中');
        }
        String mixed = m.toString();
        System.out.println("lazy string encode cost per 64-char string (ns):");
        System.out.println("| representation | JDK getBytes(UTF_8) | Flink BinaryStringData encode | String.getChars to char[] |");
        System.out.println("| --- | --- | --- | --- |");
        for (String[] c : new String[][] {{"Latin-1 ASCII", ascii}, {"mixed 2/3-byte", mixed}}) {
            String s = c[1];
            double jdk = 0;
            double flink = 0;
            double chars = 0;
            for (int round = 0; round < 5; round++) {
                jdk = nanos(() -> s.getBytes(StandardCharsets.UTF_8).length);
                flink = nanos(() -> {
                    BinaryStringData b = BinaryStringData.fromString(s);
                    b.ensureMaterialized();
                    return b.getSizeInBytes();
                });
                char[] buf = new char[64];
                chars = nanos(() -> {
                    s.getChars(0, s.length(), buf, 0);
                    return buf[3];
                });
            }
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f |%n", c[0], jdk, flink, chars);
        }
    }

    private static double nanos(java.util.function.IntSupplier f) {
        int iters = 2_000_000;
        long sink = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            sink += f.getAsInt();
        }
        long t = System.nanoTime() - t0;
        if (sink == 42) {
            System.out.print("");
        }
        return (double) t / iters;
    }
}
