package io.sluice.flink.planner;

import static io.sluice.flink.planner.ParityHarness.Compare.CHANGELOG;
import static io.sluice.flink.planner.ParityHarness.Compare.ORDERED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.flink.TestSupport;
import io.sluice.flink.planner.ParityHarness.Query;

/**
 * Plain SQL OVER aggregation, stock Flink vs sluice installed ({@link ParityHarness}) over the
 * tables of {@link OverSqlData}: every frame the native over has (ROWS / RANGE unbounded, ROWS n
 * PRECEDING, RANGE INTERVAL PRECEDING), by processing time and by event time, with out of
 * order rows, ties and late rows (punctuated watermarks), NULLs, string MIN/MAX, several
 * aggregates per OVER, no PARTITION BY, parallelism 1 and 4, and the queries that must stay stock
 * with their reasons.
 *
 * <p>Processing-time results are compared in order at parallelism 1 (each key's rows arrive in
 * source order and the OVER emits per row); event-time results as the complete changelog
 * multiset (every row is an insert carrying its id and its frame's values, so the multiset fixes
 * each row's result; the order across keys of rows whose timers fire on one watermark is the
 * timer queue's, which Flink does not define).
 */
class OverPlannerParityTest extends ParityTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    /** A select list over one named window {@code w}. */
    static String over(String table, String aggs, String window) {
        return "SELECT id, k, v, " + aggs + " FROM " + table + " WINDOW w AS (" + window + ")";
    }

    static final String BIGINT_AGGS = "COUNT(*) OVER w, COUNT(v) OVER w, SUM(v) OVER w, AVG(v) OVER w, "
            + "MIN(v) OVER w, MAX(v) OVER w, FIRST_VALUE(v) OVER w, LAST_VALUE(v) OVER w";
    static final String STRING_AGGS = "COUNT(s) OVER w, MIN(s) OVER w, MAX(s) OVER w, FIRST_VALUE(s) OVER w, "
            + "LAST_VALUE(s) OVER w";
    static final String DOUBLE_AGGS = "COUNT(d) OVER w, SUM(d) OVER w, AVG(d) OVER w, FIRST_VALUE(d) OVER w";
    /** Bounded frames retract, so Flink's MIN/MAX(DOUBLE) there compare as the native ones do. */
    static final String BOUNDED_DOUBLE = DOUBLE_AGGS + ", MIN(d) OVER w, MAX(d) OVER w";

    static final String PT_ROWS = "PARTITION BY k ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
    static final String PT_RANGE = "PARTITION BY k ORDER BY pt RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
    static final String PT_ROWS_3 = "PARTITION BY k ORDER BY pt ROWS BETWEEN 3 PRECEDING AND CURRENT ROW";
    static final String RT_ROWS = "PARTITION BY k ORDER BY rt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
    static final String RT_RANGE = "PARTITION BY k ORDER BY rt RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
    static final String RT_ROWS_2 = "PARTITION BY k ORDER BY rt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW";
    static final String RT_RANGE_5S = "PARTITION BY k ORDER BY rt RANGE BETWEEN INTERVAL '5' SECOND PRECEDING "
            + "AND CURRENT ROW";

    static List<Query> queries() {
        List<Query> q = new ArrayList<>();
        for (int p : new int[] {1, 4}) {
            q.add(Query.of("proctime ROWS unbounded", over("op", BIGINT_AGGS + ", " + STRING_AGGS, PT_ROWS), ORDERED,
                    "OverAggregate").parallelism(p));
            q.add(Query.of("proctime ROWS 3 PRECEDING", over("op", BIGINT_AGGS + ", " + STRING_AGGS + ", "
                    + BOUNDED_DOUBLE, PT_ROWS_3), ORDERED, "OverAggregate").parallelism(p));
            q.add(Query.of("rowtime ROWS unbounded", over("orow", BIGINT_AGGS + ", " + STRING_AGGS, RT_ROWS), CHANGELOG,
                    "OverAggregate").parallelism(p));
            q.add(Query.of("rowtime RANGE unbounded", over("orow", BIGINT_AGGS + ", " + DOUBLE_AGGS, RT_RANGE),
                    CHANGELOG, "OverAggregate").parallelism(p));
            q.add(Query.of("rowtime ROWS 2 PRECEDING", over("orow", BIGINT_AGGS + ", " + STRING_AGGS, RT_ROWS_2),
                    CHANGELOG, "OverAggregate").parallelism(p));
            q.add(Query.of("rowtime RANGE 5 s PRECEDING", over("orow", BIGINT_AGGS + ", " + STRING_AGGS + ", "
                    + BOUNDED_DOUBLE, RT_RANGE_5S), CHANGELOG, "OverAggregate").parallelism(p));
        }
        q.add(Query.of("proctime RANGE unbounded", over("op", DOUBLE_AGGS + ", " + STRING_AGGS, PT_RANGE), ORDERED,
                "OverAggregate"));
        q.add(Query.of("proctime, no PARTITION BY", over("op", "COUNT(*) OVER w, SUM(v) OVER w, MAX(s) OVER w",
                "ORDER BY pt ROWS BETWEEN 5 PRECEDING AND CURRENT ROW"), ORDERED, "OverAggregate").parallelism(4));
        q.add(Query.of("rowtime, no PARTITION BY", over("orow", "COUNT(*) OVER w, SUM(v) OVER w, MIN(s) OVER w",
                "ORDER BY rt RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW"), CHANGELOG, "OverAggregate"));
        q.add(Query.of("rowtime ROWS 0 PRECEDING, rt selected", "SELECT id, k, rt, SUM(v) OVER (PARTITION BY k "
                + "ORDER BY rt ROWS BETWEEN 0 PRECEDING AND CURRENT ROW) FROM orow", CHANGELOG, "OverAggregate"));
        q.add(Query.of("several keys", "SELECT id, k, i, COUNT(*) OVER (PARTITION BY k, i ORDER BY pt), "
                + "MAX(v) OVER (PARTITION BY k, i ORDER BY pt) FROM op", ORDERED, "OverAggregate").parallelism(4));
        // mini-batch does not change Flink's OVER functions (no mini-batch OVER exists): still native
        q.add(Query.of("mini-batch on", over("orow", BIGINT_AGGS, RT_ROWS_2), CHANGELOG, "OverAggregate")
                .with("table.exec.mini-batch.enabled", "true").with("table.exec.mini-batch.allow-latency", "100 ms")
                .with("table.exec.mini-batch.size", "100"));
        // must stay stock, with the reason
        q.add(Query.stock("COUNT(DISTINCT) OVER", over("op", "COUNT(DISTINCT v) OVER w", PT_ROWS), "OverAggregate",
                "no distinct aggregates"));
        // SUM(x) OVER plans as COUNT(x) and $SUM0(x) OVER (a Calc makes it NULL over no values): COUNT is refused first
        q.add(Query.stock("SUM(INT) OVER", over("op", "SUM(i) OVER w", PT_ROWS), "OverAggregate", "over nullable INT"));
        q.add(Query.stock("MAX(INT) OVER", over("op", "MAX(i) OVER w", PT_ROWS), "OverAggregate", "MAX over INT"));
        q.add(Query.stock("MIN(DOUBLE) unbounded", over("op", "MIN(d) OVER w", PT_ROWS), "OverAggregate",
                "MIN over DOUBLE"));
        q.add(Query.stock("LISTAGG OVER", over("op", "LISTAGG(s) OVER w", PT_ROWS), "OverAggregate",
                "aggregate LISTAGG"));
        q.add(Query.stock("state TTL", over("op", BIGINT_AGGS, PT_ROWS), "OverAggregate", "table.exec.state.ttl")
                .with("table.exec.state.ttl", "1 h"));
        q.add(Query.stock("over off", over("op", BIGINT_AGGS, PT_ROWS), "OverAggregate",
                "sluice.operator.over-aggregate.enabled=false").with("sluice.operator.over-aggregate.enabled", "false"));
        return q;
    }

    @Override
    BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> tables() {
        return OverSqlData.TABLES;
    }

    /**
     * The event-time table has late rows (a row at or below the watermark before it, which the
     * unbounded functions drop), but not too many: the rowtime cases above exercise dropping.
     */
    @Test
    void eventTimeTableHasLateRows() {
        long max = Long.MIN_VALUE;
        long watermark = Long.MIN_VALUE;
        int late = 0;
        List<org.apache.flink.types.Row> rows = OverSqlData.rows();
        for (int n = 0; n < rows.size(); n++) {
            long ts = (Long) rows.get(n).getField(6);
            if (ts <= watermark) {
                late++;
            }
            max = Math.max(max, ts);
            if ((n + 1) % 10 == 0) {
                watermark = Math.max(watermark, max - 8_000);
            }
        }
        assertTrue(late > 30 && late < OverSqlData.ROWS / 5, "late rows: " + late);
    }

    /**
     * Proctime RANGE INTERVAL (Flink's ProcTimeRangeBoundedPrecedingFunction) runs natively. Its
     * output depends on the wall clock (rows of one key and millisecond share one value, and which
     * rows share a millisecond differs from run to run, even between two stock runs), so only what
     * is deterministic is compared, on stock and installed alike, against the input: with an
     * interval far longer than the run every frame holds all earlier rows of its key, so each key's
     * final rows (the largest COUNT) carry the key's row count, SUM and MAX over all its rows, and
     * the same MIN(s) on both sides; every input row comes out once, with its columns ({@code opl}
     * lingers after its last row so that Flink's timers all fire before the input ends).
     */
    @ParameterizedTest(name = "p = {0}")
    @ValueSource(ints = {1, 4})
    void proctimeRangeInterval(int p) throws Exception {
        Query q = Query.of("proctime RANGE 1 h PRECEDING", over("opl", "COUNT(*) OVER w, SUM(v) OVER w, "
                + "MAX(v) OVER w, MIN(s) OVER w", "PARTITION BY k ORDER BY pt RANGE BETWEEN INTERVAL '1' HOUR "
                + "PRECEDING AND CURRENT ROW"), CHANGELOG, "OverAggregate").parallelism(p);
        List<org.apache.flink.types.Row> input = OverSqlData.rows();
        Map<String, List<Object>> stock = finalRows(ParityHarness.results(q, tables(), false), input);
        Map<String, List<Object>> installed = finalRows(ParityHarness.results(q, tables(), true), input);
        assertEquals(stock, installed);
    }

    /**
     * Checks an OVER result against the input (every row once, with its columns; each key's
     * final COUNT, SUM and MAX over all its rows) and returns each key's final aggregate values.
     */
    private static Map<String, List<Object>> finalRows(List<org.apache.flink.types.Row> out,
            List<org.apache.flink.types.Row> input) {
        List<String> in = new ArrayList<>();
        Map<String, long[]> want = new HashMap<>(); // key -> {count, sum, max, non-null values}
        for (org.apache.flink.types.Row r : input) {
            in.add(List.of(r.getField(0), String.valueOf(r.getField(1)), String.valueOf(r.getField(2))).toString());
            long[] w = want.computeIfAbsent(String.valueOf(r.getField(1)), k -> new long[] {0, 0, Long.MIN_VALUE, 0});
            w[0]++;
            if (r.getField(2) != null) {
                long v = (Long) r.getField(2);
                w[1] += v; // BIGINT SUM wraps, as Flink's does
                w[2] = Math.max(w[2], v);
                w[3]++;
            }
        }
        List<String> got = new ArrayList<>();
        Map<String, List<Object>> last = new HashMap<>();
        for (org.apache.flink.types.Row r : out) {
            assertEquals(org.apache.flink.types.RowKind.INSERT, r.getKind());
            String k = String.valueOf(r.getField(1));
            got.add(List.of(r.getField(0), k, String.valueOf(r.getField(2))).toString());
            List<Object> aggs = java.util.Arrays.asList(r.getField(3), r.getField(4), r.getField(5), r.getField(6));
            last.merge(k, aggs, (a, b) -> (Long) a.get(0) >= (Long) b.get(0) ? a : b);
        }
        in.sort(null);
        got.sort(null);
        assertEquals(in, got, "every input row once");
        assertEquals(want.keySet(), last.keySet());
        want.forEach((k, w) -> {
            List<Object> a = last.get(k);
            assertEquals(w[0], a.get(0), "COUNT of " + k);
            assertEquals(w[3] == 0 ? null : w[1], a.get(1), "SUM of " + k);
            assertEquals(w[3] == 0 ? null : w[2], a.get(2), "MAX of " + k);
        });
        return last;
    }
}
