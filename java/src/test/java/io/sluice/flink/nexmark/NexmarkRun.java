package io.sluice.flink.nexmark;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableDescriptor;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceExplain;

/**
 * One Nexmark query run from a fresh table environment, stock or with sluice installed, its
 * result folded into a digest of the materialized result (so a 10M-event result need not be
 * held), and for the installed run the planner's node reports. Two ways to the digest:
 * <ul>
 *   <li>{@link Output#COLLECT}: {@code execute().collect()} to the client, each row hashed there
 *       from its external {@code Row} (the parity test's independent path); the time is from
 *       submission to the last row;</li>
 *   <li>{@link Output#DIGEST_SINK}: {@code INSERT INTO} the in-job digest sink
 *       ({@link NexmarkDigestSinkFactory}, Nexmark's blackhole sink that still hashes), the
 *       benchmark's path; the time is from the sources' first generated event to the job's end,
 *       so job submission and start are not counted.</li>
 * </ul>
 */
public final class NexmarkRun {
    /** The run's outcome. */
    record Result(Digest digest, double seconds, SluiceExplain explain) {}

    /** Where the result goes. */
    enum Output { COLLECT, DIGEST_SINK }

    /**
     * The materialized result as a multiset digest: +I/+U add a row's two 64-bit hashes, -U/-D
     * subtract them, so equal materialized results have equal digests whatever the order of the
     * changelog; {@code rows} is the net row count, {@code changes} the changelog length
     * ({@link NexmarkDigest} computes it).
     */
    public record Digest(long rows, long h1, long h2, long changes) {
        @Override
        public String toString() {
            return rows + " rows / " + changes + " changes / " + Long.toHexString(h1) + Long.toHexString(h2);
        }

        /** @return whether {@code o} is the same materialized result (the changelogs may differ) */
        public boolean sameResult(Digest o) {
            return rows == o.rows && h1 == o.h1 && h2 == o.h2;
        }
    }

    private static final AtomicLong RUNS = new AtomicLong();

    private NexmarkRun() {}

    /**
     * Runs {@code sql} over {@code events} events of {@code gen} at {@code parallelism}, with
     * {@code options} set on the table environment, its result to {@code output}.
     */
    static Result run(String sql, boolean installed, NexmarkGenerator gen, long events, int parallelism,
            Map<String, String> options, Output output) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        options.forEach((k, v) -> tEnv.getConfig().getConfiguration().setString(k, v));
        String run = "nexmark-" + RUNS.incrementAndGet();
        NexmarkTables.register(tEnv, gen.seed(), gen.rate(), events, run);
        SluiceExplain explain = null;
        if (installed) {
            Sluice.install(tEnv);
            explain = Sluice.explain(tEnv, sql);
        }
        return output == Output.COLLECT ? collect(tEnv, sql, explain, run) : digestSink(tEnv, sql, explain, run);
    }

    private static Result collect(StreamTableEnvironment tEnv, String sql, SluiceExplain explain, String run)
            throws Exception {
        NexmarkDigest digest = new NexmarkDigest();
        long start = System.nanoTime();
        try (CloseableIterator<Row> it = tEnv.sqlQuery(sql).execute().collect()) {
            while (it.hasNext()) {
                Row r = it.next();
                digest.add(r.getKind(), NexmarkDigest.rowText(r));
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        NexmarkSourceFactory.firstEventNanos(run);
        return new Result(digest.digest(), seconds, explain);
    }

    private static Result digestSink(StreamTableEnvironment tEnv, String sql, SluiceExplain explain, String run)
            throws Exception {
        Table query = tEnv.sqlQuery(sql);
        Schema schema = Schema.newBuilder().fromRowDataType(query.getResolvedSchema().toPhysicalRowDataType()).build();
        TableDescriptor sink = TableDescriptor.forConnector(NexmarkDigestSinkFactory.IDENTIFIER).schema(schema)
                .option(NexmarkDigestSinkFactory.RUN, run).build();
        long submitted = System.nanoTime();
        query.insertInto(sink).execute().await();
        long end = System.nanoTime();
        long first = NexmarkSourceFactory.firstEventNanos(run);
        long start = first == 0 || first < submitted ? submitted : first;
        return new Result(NexmarkDigestSinkFactory.take(run), (end - start) / 1e9, explain);
    }

    /** The native nodes of a plan, in plan order, e.g. {@code Calc, Calc}. */
    static String natives(SluiceExplain e) {
        List<String> out = new ArrayList<>();
        for (NodeReport n : e.nodes()) {
            if (n.isNative()) {
                out.add(n.node());
            }
        }
        return out.isEmpty() ? "-" : String.join(", ", out);
    }

    /** The stock nodes of a plan with their reasons, each distinct pair once (sources and sinks included). */
    static String stock(SluiceExplain e) {
        Set<String> out = new LinkedHashSet<>();
        for (NodeReport n : e.nodes()) {
            if (!n.isNative()) {
                out.add(n.node() + " (" + n.reason() + ")");
            }
        }
        return out.isEmpty() ? "-" : String.join("; ", out);
    }
}
