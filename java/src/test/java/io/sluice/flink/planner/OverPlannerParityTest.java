package io.sluice.flink.planner;

import static io.sluice.flink.planner.ParityHarness.Compare.CHANGELOG;
import static io.sluice.flink.planner.ParityHarness.Compare.ORDERED;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceExplain;
import io.sluice.flink.TestSupport;
import io.sluice.flink.planner.ParityHarness.Query;

/**
 * Plain SQL OVER aggregation, stock Flink vs sluice installed ({@link ParityHarness}) over the
 * tables of {@link OverSqlData}: every frame the native over has (ROWS / RANGE unbounded, ROWS n
 * PRECEDING, rowtime RANGE INTERVAL PRECEDING), by processing time and by event time, with out of
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
     * A proctime RANGE INTERVAL frame stays stock: Flink's ProcTimeRangeBoundedPrecedingFunction
     * emits per wall-clock millisecond, so even two stock runs differ and only the plan is checked.
     */
    @Test
    void proctimeRangeIntervalStaysStock() {
        StreamTableEnvironment tEnv = ParityHarness.installed(OverSqlData.TABLES);
        SluiceExplain explain = Sluice.explain(tEnv, over("op", "COUNT(*) OVER w", "PARTITION BY k ORDER BY pt "
                + "RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW"));
        NodeReport r = ParityHarness.report(explain, "OverAggregate");
        assertFalse(r.isNative(), explain.text());
        assertTrue(r.reason().contains("ProcTimeRangeBoundedPrecedingFunction"), r.reason());
    }
}
