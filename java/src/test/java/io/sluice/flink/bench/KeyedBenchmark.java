package io.sluice.flink.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.keyed.KeyedStreams;

/**
 * Stock Flink SQL vs the native keyed operators on the same generated
 * {@code RowData} stream (k STRING with 65,536 distinct keys, v BIGINT, s STRING):
 * {@code GROUP BY k} with COUNT(*), SUM(v), MIN(s), MAX(s), and keep-last dedup
 * (ROW_NUMBER() OVER (PARTITION BY k ORDER BY PROCTIME() DESC) = 1).
 *
 * <p>Both sides: generator (parallelism 1) → keyed exchange → operator →
 * a sink that drops rows (stock: the SQL blackhole connector, which asks for
 * no UPDATE_BEFORE; native: DiscardingSink with update_before=false, the
 * same changelog). Same JVM, one MiniCluster, warm-up pairs then
 * alternating pairs; the figure is rows per second from the generator's
 * first row to the job's end (planning, submission and deployment, which
 * differ between a SQL job and a DataStream job and are not throughput, are
 * left out; {@code -Dsluice.bench.whole-job=true} times whole jobs instead).
 *
 * <pre>
 *   java/target: mvn -Pflink-1.20 test-compile, then
 *   java -cp ... io.sluice.flink.bench.KeyedBenchmark [rows] [pairs] [batchSize]
 * </pre>
 */
public final class KeyedBenchmark {
    static final int KEYS = 65_536;

    /** Rows per second since {@code t0}, or since the first generated row (see the class comment). */
    static double rate(long rows, long t0) {
        long end = System.nanoTime();
        long first = KeyedSqlBenchmark.firstRowNanos;
        long start = Boolean.getBoolean("sluice.bench.whole-job") || first < t0 ? t0 : first;
        return rows / ((end - start) / 1e9);
    }

    static final RowType TYPE = KeyedSqlBenchmark.TYPE;

    /** {@link KeyedSqlBenchmark.Gen} over {@link #KEYS} keys, at parallelism 1. */
    static DataStream<RowData> source(StreamExecutionEnvironment env, long rows) {
        return SqlPairs.generated(env, new KeyedSqlBenchmark.Gen(KEYS), rows, TYPE, WatermarkStrategy.noWatermarks(),
                "gen");
    }

    static double stock(String which, long rows) throws Exception {
        StreamExecutionEnvironment env = SqlPairs.env();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        DataStream<RowData> src = source(env, rows);
        long t0 = System.nanoTime();
        if (which.equals("groupby")) {
            tEnv.createTemporaryView("src", tEnv.fromDataStream(src));
            tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, c BIGINT, sv BIGINT, mins STRING, maxs STRING) "
                    + "WITH ('connector' = 'blackhole')");
            tEnv.executeSql("INSERT INTO snk SELECT k, COUNT(*), SUM(v), MIN(s), MAX(s) FROM src GROUP BY k").await();
        } else {
            tEnv.createTemporaryView("src", tEnv.fromDataStream(src,
                    Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build()));
            tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, v BIGINT, s STRING) WITH ('connector' = 'blackhole')");
            tEnv.executeSql("INSERT INTO snk SELECT k, v, s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
                    + "ORDER BY pt DESC) AS rn FROM src) WHERE rn = 1").await();
        }
        return rate(rows, t0);
    }

    static double sluice(String which, long rows, int batchSize) throws Exception {
        StreamExecutionEnvironment env = SqlPairs.env();
        DataStream<RowData> src = source(env, rows);
        int[] keys = {0};
        String spec;
        List<String> names;
        if (which.equals("groupby")) {
            spec = KeyedSpecs.groupAgg(TYPE, keys, List.of("COUNT(*)", "SUM(v)", "MIN(s)", "MAX(s)"));
            names = List.of("k", "c", "sv", "mins", "maxs");
        } else {
            spec = KeyedSpecs.dedup(keys, true);
            names = List.of("k", "v", "s");
        }
        spec += " update_before=false";
        RowType out = KeyedStreams.outputType(spec, TYPE, names);
        Configuration conf = new Configuration();
        conf.set(SluiceOptions.BATCH_SIZE, batchSize);
        KeyedStreams.apply(src, TYPE, keys, spec, out, conf, "sluice-" + which).sinkTo(new DiscardingSink<>());
        long t0 = System.nanoTime();
        env.execute("sluice-" + which);
        return rate(rows, t0);
    }

    static double baseline(long rows) throws Exception {
        StreamExecutionEnvironment env = SqlPairs.env();
        source(env, rows).keyBy(r -> r.getString(0).toString()).map(r -> r).returns(InternalTypeInfo.of(TYPE))
                .sinkTo(new DiscardingSink<>());
        long t0 = System.nanoTime();
        env.execute("baseline");
        return rate(rows, t0);
    }

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int batchSize = args.length > 2 ? Integer.parseInt(args[2]) : 8192;
        SqlPairs.onMiniCluster(() -> {
            System.out.printf(Locale.ROOT, "rows %d, pairs %d (after 1 warm-up pair), batch %d, %d keys%n", rows, pairs,
                    batchSize, KEYS);
            for (String which : new String[] {"groupby", "dedup-last"}) {
                stock(which, rows);
                sluice(which, rows, batchSize);
                List<Double> s = new ArrayList<>();
                List<Double> n = new ArrayList<>();
                List<Double> ratios = new ArrayList<>();
                for (int p = 0; p < pairs; p++) {
                    boolean nativeFirst = p % 2 == 1;
                    double a = nativeFirst ? sluice(which, rows, batchSize) : stock(which, rows);
                    double b = nativeFirst ? stock(which, rows) : sluice(which, rows, batchSize);
                    double st = nativeFirst ? b : a;
                    double nt = nativeFirst ? a : b;
                    s.add(st);
                    n.add(nt);
                    ratios.add(nt / st);
                    System.out.printf(Locale.ROOT, "  %s pair %d: stock %.0f rows/s, sluice %.0f rows/s, %.2fx%n", which,
                            p, st, nt, nt / st);
                }
                System.out.printf(Locale.ROOT, "%s: median stock %.0f rows/s, sluice %.0f rows/s, median ratio %.2fx%n",
                        which, SqlPairs.median(s), SqlPairs.median(n), SqlPairs.median(ratios));
            }
            System.out.printf(Locale.ROOT, "context, after warm-up: generator -> keyBy(String) -> identity map: %.0f rows/s%n",
                    baseline(rows));
        });
    }
}
