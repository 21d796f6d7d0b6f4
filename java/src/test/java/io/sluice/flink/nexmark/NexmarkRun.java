package io.sluice.flink.nexmark;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceExplain;

/**
 * One Nexmark query run from a fresh environment, stock or with sluice installed: the collected
 * changelog folded into a digest of the materialized result (so a 10M-event result need not be
 * held), the wall time from submission to the last row, and for the installed run the planner's
 * node reports.
 */
final class NexmarkRun {
    /** The run's outcome. */
    record Result(Digest digest, double seconds, SluiceExplain explain) {}

    /**
     * The materialized result as a multiset digest: +I/+U add a row's two 64-bit hashes, -U/-D
     * subtract them, so equal materialized results have equal digests whatever the order of the
     * changelog; {@code rows} is the net row count, {@code changes} the changelog length.
     */
    record Digest(long rows, long h1, long h2, long changes) {
        @Override
        public String toString() {
            return rows + " rows / " + changes + " changes / " + Long.toHexString(h1) + Long.toHexString(h2);
        }

        boolean sameResult(Digest o) {
            return rows == o.rows && h1 == o.h1 && h2 == o.h2;
        }
    }

    private NexmarkRun() {}

    static Result run(String sql, boolean installed, NexmarkGenerator gen, long events, int parallelism)
            throws Exception {
        return run(sql, installed, gen, events, parallelism, java.util.Map.of());
    }

    /** As {@link #run(String, boolean, NexmarkGenerator, long, int)}, with {@code options} set on the environment. */
    static Result run(String sql, boolean installed, NexmarkGenerator gen, long events, int parallelism,
            java.util.Map<String, String> options) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        options.forEach((k, v) -> tEnv.getConfig().getConfiguration().setString(k, v));
        NexmarkTables.register(env, tEnv, gen, events);
        SluiceExplain explain = null;
        if (installed) {
            Sluice.install(tEnv);
            explain = Sluice.explain(tEnv, sql);
        }
        long rows = 0;
        long h1 = 0;
        long h2 = 0;
        long changes = 0;
        long start = System.nanoTime();
        try (CloseableIterator<Row> it = tEnv.sqlQuery(sql).execute().collect()) {
            while (it.hasNext()) {
                Row r = it.next();
                long sign = r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER ? 1 : -1;
                String text = text(r);
                rows += sign;
                h1 += sign * fnv(text);
                h2 += sign * mix(text.hashCode() * 0x9E3779B97F4A7C15L + text.length());
                changes++;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result(new Digest(rows, h1, h2, changes), seconds, explain);
    }

    /** The fields of a row as one string (RowKind excluded: the digest applies it). */
    private static String text(Row r) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < r.getArity(); i++) {
            sb.append(r.getField(i)).append('\u0001');
        }
        return sb.toString();
    }

    private static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h = (h ^ s.charAt(i)) * 0x100000001b3L;
        }
        return mix(h);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
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
