package io.sluice.flink.nexmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CI-sized Nexmark run: every query of {@link NexmarkQueries#ALL} on 20,000 events at
 * parallelism 1, stock Flink and with sluice installed; the materialized results must be equal
 * (q9 and q12, see {@link NexmarkQueries#comparable}, are run on both but only checked to finish). The event-time
 * rate is 500 events/s, so the 40 s of event time span several tumbling, hopping and session
 * windows. Every planner substitution runs at its default (the native join included); each query's
 * native and stock nodes are printed.
 *
 * <p>The tables are the benchmark's {@code RowData} source ({@link NexmarkTables}); the results
 * are collected to the client and hashed from their external rows
 * ({@link NexmarkRun.Output#COLLECT}), a path independent of the benchmark's in-job digest sink.
 * For the queries of {@link #DIGEST_SINK_CHECKED} (or {@code -Dsluice.nexmark.digest-queries=q0,q4},
 * {@code all} for every one) the installed plan runs once more into that sink
 * ({@link NexmarkDigestSinkFactory}), whose digest must equal the collected one: what the
 * benchmark's parity rests on. All jobs share one MiniCluster, so none pays a cluster start.
 */
@Tag("nexmark")
class NexmarkParityTest {
    private static final long EVENTS = 20_000;
    private static final NexmarkGenerator GEN = new NexmarkGenerator(42, 500);
    private static final java.util.Map<String, String> OPTIONS = java.util.Map.of();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    /**
     * The queries whose installed result is also taken through the digest sink: between them every
     * result type the queries make (BIGINT, STRING, TIMESTAMP(3), DECIMAL, INT), append-only,
     * updating (-U/+U) and retracting (rank) results, windows and joins.
     */
    private static final java.util.Set<String> DIGEST_SINK_CHECKED = java.util.Set.of("q1", "q4", "q5", "q14", "q18");

    /**
     * Nodes that must plan native in a query (none of that kind may stay stock; a stock
     * {@code GlobalWindowAggregate} counts as a stock {@code WindowAggregate}): the GroupAggregates of q15-q17
     * (COUNT(*) FILTER, COUNT(DISTINCT …) FILTER), q5's two windows (the second attached to the first), q8's
     * windows without aggregates, and the regular joins. A silent fallback fails them.
     */
    private static final java.util.Map<String, java.util.List<String>> MUST_BE_NATIVE = java.util.Map.of(
            "q3", java.util.List.of("Join"), "q4", java.util.List.of("Join", "GroupAggregate"),
            "q5", java.util.List.of("WindowAggregate"), "q7", java.util.List.of("WindowAggregate"),
            "q8", java.util.List.of("WindowAggregate"), "q13", java.util.List.of("Join"),
            "q15", java.util.List.of("GroupAggregate"), "q16", java.util.List.of("GroupAggregate"),
            "q17", java.util.List.of("GroupAggregate"), "q20", java.util.List.of("Join"));

    /** Every query, or those named in {@code -Dsluice.nexmark.queries=q3,q4} (as {@code QUERIES=} for the benchmark). */
    static Stream<String> queries() {
        String only = System.getProperty("sluice.nexmark.queries", "");
        java.util.List<String> names = java.util.Arrays.asList(only.split(","));
        return NexmarkQueries.ALL.keySet().stream().filter(q -> only.isEmpty() || names.contains(q));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queries")
    void stockAndInstalledAgree(String q) throws Exception {
        String sql = NexmarkQueries.ALL.get(q);
        NexmarkRun.Result stock = NexmarkRun.run(sql, false, GEN, EVENTS, 1, OPTIONS, NexmarkRun.Output.COLLECT);
        NexmarkRun.Result installed = NexmarkRun.run(sql, true, GEN, EVENTS, 1, OPTIONS, NexmarkRun.Output.COLLECT);
        StringBuilder nodes = new StringBuilder("nexmark " + q + ":");
        for (io.sluice.flink.NodeReport r : installed.explain().nodes()) {
            if (r.isNative() || !r.reason().startsWith("sluice has no operator")) {
                nodes.append(r.isNative() ? " native " + r.node() : " stock " + r.node() + " (" + r.reason() + ")")
                        .append(';');
            }
        }
        System.out.println(nodes);
        for (String node : MUST_BE_NATIVE.getOrDefault(q, java.util.List.of())) {
            java.util.List<io.sluice.flink.NodeReport> plan = installed.explain().nodes();
            assertTrue(plan.stream().anyMatch(r -> r.isNative() && r.node().equals(node))
                    && plan.stream().noneMatch(r -> !r.isNative() && r.node().endsWith(node)),
                    () -> q + ": a " + node + " is not native\n" + installed.explain().text());
        }
        if (!NexmarkQueries.comparable(q)) {
            return;
        }
        assertTrue(stock.digest().changes() > 0, () -> q + " produced no rows");
        assertTrue(stock.digest().sameResult(installed.digest()), () -> q + ": stock " + stock.digest()
                + " vs installed " + installed.digest() + "\n" + installed.explain().text());
        String digestQueries = System.getProperty("sluice.nexmark.digest-queries", "");
        if (digestQueries.isEmpty() ? DIGEST_SINK_CHECKED.contains(q)
                : digestQueries.equals("all") || java.util.Arrays.asList(digestQueries.split(",")).contains(q)) {
            NexmarkRun.Digest sunk = NexmarkRun.run(sql, true, GEN, EVENTS, 1, OPTIONS, NexmarkRun.Output.DIGEST_SINK)
                    .digest();
            System.out.println("nexmark " + q + ": collected " + installed.digest() + ", digest sink " + sunk);
            assertTrue(sunk.sameResult(installed.digest()), () -> q + ": digest sink " + sunk + " vs collected "
                    + installed.digest());
        }
    }

    /** The generator's model: proportions, id spacing and determinism. */
    @org.junit.jupiter.api.Test
    void generatorFollowsTheModel() {
        int[] kinds = new int[3];
        for (long n = 0; n < 5000; n++) {
            kinds[NexmarkGenerator.kind(n)]++;
        }
        assertEquals(100, kinds[0]);
        assertEquals(300, kinds[1]);
        assertEquals(4600, kinds[2]);
        assertEquals(1000L, GEN.person(0).getField(0));
        assertEquals(1001L, GEN.person(50).getField(0));
        assertEquals(1000L, GEN.auction(1).getField(0));
        assertEquals(1003L, GEN.auction(51).getField(0));
        assertEquals(GEN.bid(777), new NexmarkGenerator(42, 500).bid(777));
        long category = (Long) GEN.auction(2).getField(8);
        assertTrue(category >= 10 && category < 15);
        assertEquals(NexmarkGenerator.BASE_TIME_MS + 10, GEN.timestamp(5));
    }
}
