package io.sluice.flink.nexmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Nexmark stock Flink vs sluice installed ({@code make nexmark}, scripts/nexmark.sh): after one
 * q0 pair on up to 2M events that warms the code every run shares (the generator, the digest
 * sink), for each query of {@link NexmarkQueries#ALL} one warm-up pair on a tenth of the events,
 * then {@code pairs} pairs of stock / installed runs in this JVM at the same settings (stock first
 * on even pairs, installed first on odd ones); the best time of each side gives events/s and the
 * ratio stock time / installed time. Every run's materialized
 * result digest must equal the first stock run's (q9, q12 excepted: {@link NexmarkQueries#comparable}).
 *
 * <p>Writes {@code <out>/nexmark.md} (the table, ending with {@code geomean: X.XXx} and the
 * queries whose results differ) and {@code <out>/nexmark.csv} (query, ratio; for the chart).
 *
 * <p>Arguments: {@code events parallelism pairs out-dir [queries,comma,separated]}.
 *
 * <p>The method follows Nexmark's own so that the fixed costs both sides share do not swamp the
 * operators compared: the tables are the {@code sluice-nexmark} source, which emits
 * {@code RowData} directly ({@link NexmarkSourceFactory}; no external-{@code Row} conversion, no
 * computed-column Calc); the result goes to an in-job digest sink
 * ({@link NexmarkDigestSinkFactory}, a blackhole that hashes the materialized result for the
 * parity check) instead of being collected to the client; and the timed span is from the sources'
 * first generated event to the job's end ({@link NexmarkRun.Output#DIGEST_SINK}), so job
 * submission, planning and start are not counted.
 */
public final class NexmarkBenchmark {
    private NexmarkBenchmark() {}

    public static void main(String[] args) throws Exception {
        long events = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        int p = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        Path out = Path.of(args.length > 3 ? args[3] : "target/nexmark");
        List<String> only = args.length > 4 ? List.of(args[4].split(",")) : List.copyOf(NexmarkQueries.ALL.keySet());
        NexmarkGenerator gen = new NexmarkGenerator(42, 10_000_000L);
        StringBuilder md = new StringBuilder();
        StringBuilder csv = new StringBuilder("query,ratio\n");
        md.append(String.format(Locale.ROOT, "Nexmark, %,d events, parallelism %d, best of %d alternating pairs%n%n",
                events, p, pairs));
        md.append("| query | stock ev/s | sluice ev/s | ratio | parity | native nodes | stock nodes (why) |\n");
        md.append("|---|---:|---:|---:|---|---|---|\n");
        double logSum = 0;
        int n = 0;
        List<String> differ = new ArrayList<>();
        // The generator and the digest sink are the same classes in every run: JIT them once on
        // a full-sized q0 pair, or the first timed run pays for it (a 200,000-event run after only
        // the per-query warm-up put q0's identical stock and installed plans at 2.38 s and 1.21 s).
        run(NexmarkQueries.ALL.get("q0"), false, gen, Math.min(events, 2_000_000L), p);
        run(NexmarkQueries.ALL.get("q0"), true, gen, Math.min(events, 2_000_000L), p);
        for (String q : only) {
            String sql = NexmarkQueries.ALL.get(q);
            run(sql, false, gen, Math.max(events / 10, 1000), p);
            run(sql, true, gen, Math.max(events / 10, 1000), p);
            double stock = Double.MAX_VALUE;
            double installed = Double.MAX_VALUE;
            NexmarkRun.Digest expected = null;
            boolean same = true;
            NexmarkRun.Result last = null;
            for (int i = 0; i < pairs; i++) {
                // Stock first on even pairs, installed first on odd ones, so neither side always
                // runs right after the warm-up (a JIT or GC debt would fall on one side only).
                NexmarkRun.Result s;
                if (i % 2 == 0) {
                    s = run(sql, false, gen, events, p);
                    last = run(sql, true, gen, events, p);
                } else {
                    last = run(sql, true, gen, events, p);
                    s = run(sql, false, gen, events, p);
                }
                System.out.printf(Locale.ROOT, "%s pair %d: stock %.2fs %s, sluice %.2fs %s%n", q, i, s.seconds(),
                        s.digest(), last.seconds(), last.digest());
                expected = expected == null ? s.digest() : expected;
                same &= s.digest().sameResult(expected) && last.digest().sameResult(expected);
                stock = Math.min(stock, s.seconds());
                installed = Math.min(installed, last.seconds());
            }
            boolean compared = NexmarkQueries.comparable(q);
            if (compared && !same) {
                differ.add(q);
            }
            double ratio = stock / installed;
            logSum += Math.log(ratio);
            n++;
            String why = q.equals("q12") ? "proctime" : "join order";
            String parity = !compared ? "n/a (" + why + ")" : same ? "same (" + expected.rows() + " rows)" : "DIFFERS";
            md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %.2fx | %s | %s | %s |%n", q,
                    events / stock, events / installed, ratio, parity, NexmarkRun.natives(last.explain()),
                    NexmarkRun.stock(last.explain()).replace("|", "\\|")));
            csv.append(String.format(Locale.ROOT, "%s,%.4f%n", q, ratio));
            System.out.printf(Locale.ROOT, "%s stock %.2fs sluice %.2fs ratio %.2fx %s%n", q, stock, installed, ratio,
                    parity);
        }
        md.append(String.format(Locale.ROOT, "%nresults differ: %s%n", differ.isEmpty() ? "none" : String.join(", ",
                differ)));
        md.append(String.format(Locale.ROOT, "geomean: %.2fx%n", Math.exp(logSum / Math.max(n, 1))));
        write(out, md.toString(), csv.toString());
        System.out.print(md);
    }

    private static NexmarkRun.Result run(String sql, boolean installed, NexmarkGenerator gen, long events, int p)
            throws Exception {
        return NexmarkRun.run(sql, installed, gen, events, p, java.util.Map.of(), NexmarkRun.Output.DIGEST_SINK);
    }

    private static void write(Path out, String md, String csv) throws IOException {
        Files.createDirectories(out);
        Files.writeString(out.resolve("nexmark.md"), md);
        Files.writeString(out.resolve("nexmark.csv"), csv);
    }
}
