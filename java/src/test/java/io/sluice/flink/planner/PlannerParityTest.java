package io.sluice.flink.planner;

import static io.sluice.flink.planner.ParityHarness.Compare.CHANGELOG;
import static io.sluice.flink.planner.ParityHarness.Compare.MATERIALIZED;
import static io.sluice.flink.planner.ParityHarness.Compare.ORDERED;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceExplain;
import io.sluice.flink.TestSupport;
import io.sluice.flink.calc.CalcData;
import io.sluice.flink.planner.ParityHarness.Query;

/**
 * Plain SQL, stock Flink vs sluice installed ({@link ParityHarness}), over {@code t(id, a, b, c,
 * w)} from {@link CalcData} (NULLs, multi-byte and supplementary characters, unpaired surrogates,
 * SHA2 widths incl. invalid ones meeting NULL input). Add a query: one row in {@link #queries()}
 * (keyed queries: expected native nodes such as {@code "GroupAggregate"}; compare
 * {@code MATERIALIZED} where subtasks interleave).
 */
class PlannerParityTest extends ParityTest {
    static final long ROWS = 1_500;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    /** Registers {@code t}: {@link #ROWS} rows of {@link CalcData}. */
    static final BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> TABLES = (env, tEnv) ->
            tEnv.createTemporaryView("t", tEnv.fromDataStream(CalcData.source(env, ROWS)));

    static List<Query> queries() {
        List<Query> q = new ArrayList<>();
        // every function, whole Calc native
        q.add(Query.of("MD5", "SELECT id, MD5(a) FROM t", ORDERED, "Calc"));
        q.add(Query.of("SHA1", "SELECT id, SHA1(b) FROM t", ORDERED, "Calc"));
        q.add(Query.of("SHA2 literal widths", "SELECT id, SHA2(a, 224), SHA2(b, 256), SHA2(c, 384), SHA2(a, 512) FROM t",
                ORDERED, "Calc"));
        q.add(Query.of("SHA2 per-row width", "SELECT id, SHA2(a, w) FROM t", ORDERED, "Calc"));
        q.add(Query.of("SHA224..SHA512", "SELECT id, SHA224(a), SHA256(b), SHA384(c), SHA512(a) FROM t", ORDERED, "Calc"));
        q.add(Query.of("CONCAT", "SELECT id, CONCAT(a, b, c), CONCAT(a, '-', b) FROM t", ORDERED, "Calc"));
        q.add(Query.of("CONCAT_WS", "SELECT id, CONCAT_WS('|', a, b, c), CONCAT_WS(c, a, b) FROM t", ORDERED, "Calc"));
        q.add(Query.of("POSITION/LOCATE", "SELECT id, POSITION(b IN a), LOCATE(b, a), LOCATE('x', a, 3) FROM t",
                ORDERED, "Calc"));
        q.add(Query.of("LIKE", "SELECT id, a LIKE '%ab%', a LIKE 'x_%', a LIKE '%!%%' ESCAPE '!' FROM t", ORDERED, "Calc"));
        q.add(Query.of("REPLACE/SPLIT_INDEX", "SELECT id, REPLACE(a, 'ab', 'XY'), SPLIT_INDEX(a, ',', 1) FROM t",
                ORDERED, "Calc"));
        // two string columns passed through for one native call: the cost rule keeps it stock (below)
        q.add(Query.of("reordered columns with MD5", "SELECT c, MD5(b), id, a FROM t", ORDERED, "Calc")
                .with("sluice.cost.enabled", "false"));
        q.add(Query.of("nested native", "SELECT id, MD5(CONCAT(a, b)), SHA1(REPLACE(c, 'a', 'b')) FROM t", ORDERED, "Calc"));
        q.add(Query.of("unicode", "SELECT id, CONCAT_WS('😀', a, b), POSITION('𝄞' IN a), REPLACE(a, 'ж', '文字') FROM t",
                ORDERED, "Calc"));
        // split: native below, Flink's Calc above
        q.add(Query.of("split UPPER/CAST/arithmetic/CASE",
                "SELECT id, MD5(a), UPPER(c), id + 1, CASE WHEN w > 300 THEN 'big' ELSE CONCAT(b, '!') END, "
                        + "CAST(w AS STRING) FROM t", ORDERED, "Calc"));
        q.add(Query.of("split stock over native", "SELECT id, UPPER(MD5(a)), CHAR_LENGTH(CONCAT_WS(',', a, b)) FROM t",
                ORDERED, "Calc"));
        q.add(Query.of("split with a literal column", "SELECT id, 'x' AS k, MD5(a) FROM t", ORDERED, "Calc"));
        q.add(Query.of("split reuses a native result", "SELECT MD5(a), UPPER(MD5(a)), id FROM t", ORDERED, "Calc"));
        q.add(Query.of("native WHERE", "SELECT id, MD5(b) FROM t WHERE a LIKE 'a%'", ORDERED, "Calc"));
        q.add(Query.of("native WHERE only", "SELECT id, a FROM t WHERE a LIKE '%b%'", ORDERED, "Calc"));
        // The native WHERE runs before the projections: the invalid SHA2 widths are only on rows
        // where a is NULL, which the LIKE drops (Calcite makes a LIKE '%' an IS NOT NULL), so stock Flink (WHERE first) never hashes b with
        // them; a native Calc that projected every row would fail the job on them.
        q.add(Query.of("native WHERE before a failing projection", "SELECT id, SHA2(b, w) FROM t WHERE a LIKE '%_%'",
                ORDERED, "Calc"));
        // Under a stock WHERE the per-row-width SHA2 stays on Flink (Flink's WHERE drops the
        // invalid widths first); the cost rule is off so that it is this rule that decides.
        q.add(Query.stock("failing projection under a stock WHERE", "SELECT id, SHA2(b, w) FROM t WHERE w > 200",
                "Calc", "SHA2 with a column argument could fail").with("sluice.cost.enabled", "false"));
        q.add(Query.of("WHERE native AND stock", "SELECT id, CONCAT(a, c) FROM t WHERE a LIKE '%b%' AND w > 256",
                ORDERED, "Calc"));
        q.add(Query.of("WHERE IS NULL, OR", "SELECT id, SHA1(c) FROM t WHERE a IS NULL OR POSITION('x' IN b) > 0",
                ORDERED, "Calc"));
        q.add(Query.of("SHA2 per-row width inside CASE", "SELECT id, CASE WHEN w IN (224, 256) THEN SHA2(a, w) END, MD5(b) FROM t",
                ORDERED, "Calc"));
        q.add(Query.of("updating input (GROUP BY below)",
                "SELECT k, MD5(k), n FROM (SELECT c AS k, COUNT(*) AS n FROM t GROUP BY c)", ORDERED, "GroupAggregate",
                "Calc"));
        // parallelism 4
        q.add(Query.of("MD5", "SELECT id, MD5(a), CONCAT_WS('|', a, b) FROM t", ORDERED, "Calc").parallelism(4));
        q.add(Query.of("split", "SELECT id, MD5(a), UPPER(c), id * 2 FROM t WHERE b LIKE '%a%'", ORDERED, "Calc")
                .parallelism(4));
        q.add(Query.of("updating input", "SELECT k, SHA1(k), n FROM (SELECT c AS k, COUNT(*) AS n FROM t GROUP BY c)",
                MATERIALIZED, "GroupAggregate", "Calc").parallelism(4));
        q.add(Query.of("CONCAT small batches", "SELECT id, CONCAT(a, b) FROM t", CHANGELOG, "Calc").parallelism(4)
                .with("sluice.batch-size", "7"));
        // must fall back, with the reason
        q.add(Query.stock("pass-through", "SELECT c, id FROM t", "Calc", "no native work"));
        q.add(Query.stock("only stock functions", "SELECT id, UPPER(a), id + 1 FROM t", "Calc", "function UPPER"));
        q.add(Query.stock("|| (unpaired surrogates pair up in Flink's)", "SELECT id, a || b FROM t", "Calc",
                "function ||"));
        q.add(Query.stock("INSTR (not in the native program)", "SELECT id, INSTR(a, 'b') FROM t", "Calc", "function INSTR"));
        q.add(Query.stock("native over stock", "SELECT id, MD5(UPPER(a)) FROM t", "Calc", "function UPPER"));
        q.add(Query.stock("non-string argument", "SELECT id, MD5(CAST(id AS STRING)) FROM t", "Calc", "function CAST"));
        q.add(Query.stock("operator off", "SELECT id, MD5(a) FROM t", "Calc", "sluice.operator.calc.enabled=false")
                .with("sluice.operator.calc.enabled", "false"));
        q.add(Query.stock("old operator key", "SELECT id, MD5(a) FROM t", "Calc", "sluice.operator.calc.enabled=false")
                .with("sluice.calc.enabled", "false"));
        q.add(Query.stock("function off", "SELECT id, MD5(a) FROM t", "Calc", "sluice.function.MD5.enabled=false")
                .with("sluice.function.MD5.enabled", "false"));
        q.add(Query.stock("function off, rest native", "SELECT id, MD5(a), SHA1(a) FROM t", "Calc",
                "sluice.function.MD5.enabled=false", "Calc").with("sluice.function.MD5.enabled", "false"));
        q.add(Query.stock("cost: string payload over one native call", "SELECT c, MD5(b), id, a FROM t", "Calc",
                "cost: carries 2 string payload columns per row through the entry and exit transposes (a, c) with "
                        + "native work 1 (native calls: MD5)"));
        q.add(Query.stock("cost: native projection under a stock WHERE", "SELECT id, a, REPLACE(b, 'a', '') FROM t "
                + "WHERE w > 256", "Calc", "native work 0 (native calls the WHERE reads"));
        q.add(Query.of("cost: threshold raised", "SELECT c, MD5(b), id, a FROM t", ORDERED, "Calc")
                .with("sluice.cost.payload-per-work", "2"));
        q.add(Query.stock("sluice off", "SELECT id, MD5(a) FROM t", "Calc", "sluice.enabled=false")
                .with("sluice.enabled", "false"));
        return q;
    }

    @Override
    BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> tables() {
        return TABLES;
    }

    @Test
    void tableExplainShowsTheSluiceNode() {
        StreamTableEnvironment tEnv = ParityHarness.installed(TABLES);
        String plan = tEnv.sqlQuery("SELECT id, MD5(a), UPPER(b) FROM t").explain();
        assertTrue(plan.contains("SluiceCalc(select=[$0 AS id, $2 AS b, MD5($1) AS $sluice0])"), plan);
        SluiceExplain e = Sluice.explain(tEnv, "SELECT id, MD5(a), UPPER(b) FROM t");
        assertTrue(e.text().contains("== Sluice ==") && e.text().contains("stock  Calc: rest of a split Calc: function UPPER"),
                e.text());
        // a native WHERE conjunct filters in the sluice node; Flink's Calc keeps only the rest
        String where = tEnv.sqlQuery("SELECT id, UPPER(b) FROM t WHERE a LIKE 'a%' AND w > 256").explain();
        assertTrue(where.contains("SluiceCalc(select=[$0 AS id, $2 AS b, $4 AS w, $1 LIKE 'a%' AS $sluice0], "
                + "where=[$sluice0])"), where);
        assertTrue(where.contains("Calc(select=[id, UPPER(b) AS EXPR$1], where=[>(w, 256)])"), where);
    }
}
