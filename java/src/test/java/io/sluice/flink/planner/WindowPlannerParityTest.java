package io.sluice.flink.planner;

import static io.sluice.flink.planner.ParityHarness.Compare.CHANGELOG;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.NodeReport;
import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceExplain;
import io.sluice.flink.TestSupport;
import io.sluice.flink.planner.ParityHarness.Query;

/**
 * Plain SQL window TVF aggregates, stock Flink vs sluice installed ({@link ParityHarness}):
 * TUMBLE, HOP, CUMULATE over a TIMESTAMP(3) rowtime, with and without GROUP BY keys and
 * window_time, COUNT/SUM/AVG/MIN/MAX incl. string MIN/MAX and NULLs, the two-phase (local/global)
 * plan Flink's AUTO strategy picks for these windows, the same with TWO_PHASE + mini-batch, and the
 * one-phase node (ONE_PHASE), parallelism 1 and 4, late rows (view {@code wl}, watermark 1 s
 * behind rows up to 3 s out of order; parallelism 1 only, where which rows are late is defined),
 * and the shapes that must stay stock with their reasons. Output is insert-only and Flink's order
 * among the keys of one window end is its timer queue's, so results compare as a multiset.
 */
class WindowPlannerParityTest extends ParityTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    static final int ROWS = 3_000;
    static final int KEYS = 20;
    private static final String[] PREFIXES = {"k", "ключ", "鍵", "😀𝄞", "", "é"};

    static final DataType WT = SqlRows.withTime(DataTypes.TIMESTAMP(3).notNull());

    /** Row n: event time n × 100 ms minus up to 3 s, NULLs in k, v, d, s, i. */
    static Row row(int n) {
        Random r = new Random(n * 0x9E3779B97F4A7C15L + 17);
        String k = SqlRows.key(r, KEYS, PREFIXES);
        Long v = SqlRows.nullOneIn(r, 8, () -> SqlRows.around0(r));
        Double d = SqlRows.nullOneIn(r, 8, () -> SqlRows.eighths(r));
        String s = SqlRows.nullOneIn(r, 8, () -> SqlRows.string(r, PREFIXES));
        Integer i = SqlRows.nullOneIn(r, 8, () -> r.nextInt(1000));
        LocalDateTime ts = LocalDateTime.of(2024, 2, 29, 12, 0).plusNanos((n * 100L - r.nextInt(3001)) * 1_000_000L);
        return Row.of(n, k, v, d, s, i, ts);
    }

    static List<Row> rows() {
        return SqlRows.rows(ROWS, WindowPlannerParityTest::row);
    }

    /**
     * {@code wl}: rowtime {@code rt} (TIMESTAMP(3)), watermark 1 s behind (late rows); {@code wo}: 10 s behind
     * (no row is late however subtasks interleave); {@code wz}: a TIMESTAMP_LTZ(3) rowtime; {@code wp}: proctime.
     */
    static final BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> TABLES = (env, tEnv) -> {
        DataStream<Row> src = env.fromData(rows(), KeyedSqlData.info(WT)).setParallelism(1);
        tEnv.createTemporaryView("wl", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("rt", "ts").watermark("rt", "rt - INTERVAL '1' SECOND").build()));
        tEnv.createTemporaryView("wo", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("rt", "ts").watermark("rt", "rt - INTERVAL '10' SECOND").build()));
        tEnv.createTemporaryView("wz", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("rt", "TO_TIMESTAMP_LTZ(1700000000000 + id * 100, 3)")
                .watermark("rt", "rt - INTERVAL '10' SECOND").build()));
        tEnv.createTemporaryView("wp", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()").build()));
    };

    static final String AGGS = "COUNT(*) AS c, COUNT(s) AS cs, SUM(v) AS sv, AVG(v) AS av, MIN(v) AS mnv, "
            + "MAX(v) AS mxv, MIN(s) AS mns, MAX(s) AS mxs";

    static String tumble(String table) {
        return "TABLE(TUMBLE(TABLE " + table + ", DESCRIPTOR(rt), INTERVAL '5' SECOND))";
    }

    static String hop(String table) {
        return "TABLE(HOP(TABLE " + table + ", DESCRIPTOR(rt), INTERVAL '2' SECOND, INTERVAL '6' SECOND))";
    }

    static String cumulate(String table) {
        return "TABLE(CUMULATE(TABLE " + table + ", DESCRIPTOR(rt), INTERVAL '2' SECOND, INTERVAL '8' SECOND))";
    }

    static String keyed(String tvf) {
        return "SELECT k, window_start, window_end, " + AGGS + " FROM " + tvf + " GROUP BY k, window_start, window_end";
    }

    static Query twoPhase(Query q) {
        return q.with("table.optimizer.agg-phase-strategy", "TWO_PHASE").with("table.exec.mini-batch.enabled", "true")
                .with("table.exec.mini-batch.allow-latency", "100 ms").with("table.exec.mini-batch.size", "200");
    }

    /** Flink's AUTO strategy plans the local/global pair for these windows; this forces the one-phase node. */
    static Query onePhase(Query q) {
        return q.with("table.optimizer.agg-phase-strategy", "ONE_PHASE");
    }

    /** A query whose {@code node} stays stock with {@code reason}; rows compare as a multiset (timer order). */
    static Query stock(String name, String sql, String node, String reason) {
        return new Query(name, sql, 1, CHANGELOG, List.of(), node, reason, java.util.Map.of());
    }

    static List<Query> queries() {
        List<Query> q = new ArrayList<>();
        for (int p : new int[] {1, 4}) {
            q.add(Query.of("TUMBLE by key", keyed(tumble("wo")), CHANGELOG, "WindowAggregate").parallelism(p));
            q.add(Query.of("HOP by key", keyed(hop("wo")), CHANGELOG, "WindowAggregate").parallelism(p));
            q.add(Query.of("CUMULATE by key", keyed(cumulate("wo")), CHANGELOG, "WindowAggregate").parallelism(p));
            q.add(twoPhase(Query.of("two-phase HOP by key", keyed(hop("wo")), CHANGELOG, "WindowAggregate"))
                    .parallelism(p));
            q.add(onePhase(Query.of("one-phase TUMBLE by key", keyed(tumble("wo")), CHANGELOG, "WindowAggregate"))
                    .parallelism(p));
            q.add(onePhase(Query.of("one-phase HOP by key", keyed(hop("wo")), CHANGELOG, "WindowAggregate"))
                    .parallelism(p));
        }
        q.add(Query.of("TUMBLE late rows", keyed(tumble("wl")), CHANGELOG, "WindowAggregate"));
        q.add(Query.of("HOP late rows", keyed(hop("wl")), CHANGELOG, "WindowAggregate"));
        q.add(Query.of("CUMULATE late rows", keyed(cumulate("wl")), CHANGELOG, "WindowAggregate"));
        q.add(onePhase(Query.of("one-phase CUMULATE late rows", keyed(cumulate("wl")), CHANGELOG,
                "WindowAggregate")));
        q.add(onePhase(Query.of("one-phase HOP late rows", keyed(hop("wl")), CHANGELOG, "WindowAggregate")));
        q.add(twoPhase(Query.of("two-phase TUMBLE late rows", keyed(tumble("wl")), CHANGELOG, "WindowAggregate")));
        q.add(twoPhase(Query.of("two-phase CUMULATE late rows", keyed(cumulate("wl")), CHANGELOG,
                "WindowAggregate")));
        q.add(Query.of("TUMBLE without keys, window_time", "SELECT window_start, window_end, window_time, COUNT(*), "
                + "MAX(s), SUM(v) FROM " + tumble("wl") + " GROUP BY window_start, window_end, window_time", CHANGELOG,
                "WindowAggregate"));
        q.add(twoPhase(Query.of("two-phase HOP without keys", "SELECT window_start, window_end, COUNT(v), MIN(s) FROM "
                + hop("wo") + " GROUP BY window_start, window_end", CHANGELOG, "WindowAggregate")).parallelism(4));
        // GROUP BY key and window with no aggregate call (Nexmark q8's two windows).
        q.add(Query.of("TUMBLE by key without aggregates", "SELECT k, window_start, window_end FROM " + tumble("wl")
                + " GROUP BY k, window_start, window_end", CHANGELOG, "WindowAggregate"));
        q.add(twoPhase(Query.of("two-phase HOP by key without aggregates", "SELECT k, window_end FROM " + hop("wo")
                + " GROUP BY k, window_start, window_end", CHANGELOG, "WindowAggregate")).parallelism(4));
        // A window aggregate over an upstream window aggregate's windows (WindowAttachedWindowingStrategy, as
        // Nexmark q5's MaxBids): each row belongs to the window its window_end names.
        String counts = "SELECT k, window_start, window_end, COUNT(*) AS c, MAX(s) AS m FROM " + hop("wl")
                + " GROUP BY k, window_start, window_end";
        q.add(Query.of("attached window over HOP", "SELECT window_start, window_end, MAX(c), COUNT(*), MIN(m) FROM ("
                + counts + ") GROUP BY window_start, window_end", CHANGELOG, "WindowAggregate", "WindowAggregate"));
        q.add(onePhase(Query.of("one-phase attached window by key", "SELECT window_end, SUM(c) FROM (" + counts
                + ") GROUP BY m, window_start, window_end", CHANGELOG, "WindowAggregate", "WindowAggregate"))
                .parallelism(4));
        // must stay stock, with the reason
        q.add(stock("FIRST_VALUE", "SELECT k, window_start, window_end, FIRST_VALUE(v) FROM " + tumble("wl")
                + " GROUP BY k, window_start, window_end", "WindowAggregate", "FIRST_VALUE"));
        q.add(stock("COUNT DISTINCT", "SELECT k, window_start, window_end, COUNT(DISTINCT v) FROM "
                + tumble("wl") + " GROUP BY k, window_start, window_end", "GlobalWindowAggregate", "DISTINCT"));
        q.add(stock("COUNT(*) FILTER", "SELECT k, window_start, window_end, COUNT(*) FILTER (WHERE v > 10) FROM "
                + tumble("wl") + " GROUP BY k, window_start, window_end", "GlobalWindowAggregate", "FILTER"));
        q.add(stock("SUM(INT)", "SELECT k, window_start, window_end, SUM(i) FROM " + tumble("wl")
                + " GROUP BY k, window_start, window_end", "GlobalWindowAggregate", "SUM over INT"));
        q.add(stock("TIMESTAMP_LTZ rowtime", keyed(tumble("wz")), "GlobalWindowAggregate", "TIMESTAMP_LTZ"));
        q.add(stock("offset", "SELECT k, window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE wl, "
                + "DESCRIPTOR(rt), INTERVAL '5' SECOND, INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end",
                "GlobalWindowAggregate", "offset"));
        q.add(stock("option off", keyed(tumble("wl")), "GlobalWindowAggregate",
                "sluice.operator.window-aggregate.enabled=false")
                .with("sluice.operator.window-aggregate.enabled", "false"));
        return q;
    }

    /** A processing-time window's result depends on the wall clock, so only its plan is compared. */
    @Test
    void processingTimeWindowStaysStock() {
        StreamTableEnvironment tEnv = ParityHarness.installed(TABLES);
        SluiceExplain e = Sluice.explain(tEnv, "SELECT k, window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE "
                + "wp, DESCRIPTOR(pt), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end");
        NodeReport w = ParityHarness.report(e, "WindowAggregate");
        assertFalse(w.isNative(), e.text());
        assertTrue(w.reason().contains("processing-time"), w.reason());
    }

    @Override
    BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> tables() {
        return TABLES;
    }
}
