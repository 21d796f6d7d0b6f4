package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.flink.TestSupport;
import io.sluice.flink.table.SluiceKeyed;

/**
 * The native keyed operators against stock Flink SQL on the same generated
 * rows: the complete changelog per key, in order (one source subtask feeds
 * the keyed exchange, so each key's rows arrive in one order on both sides).
 * 30,000 rows over 1,500 keys: 20 changes per key, as many as the 100,000-row
 * run this class started with, in a third of its time (the CI budget).
 */
class KeyedParityTest {
    static final int ROWS = 30_000;
    static final int KEYS = 1_500;

    @RegisterExtension
    static final MiniClusterExtension MINI = TestSupport.fourSlotCluster();

    static List<Row> data;

    @BeforeAll
    static void generate() {
        data = KeyedTestData.rows(ROWS, KEYS);
    }

    static Map<String, List<String>> run(int parallelism, boolean procTime,
            BiFunction<StreamTableEnvironment, Table, Table> query) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        DataStream<Row> src = env.fromData(data, KeyedTestData.typeInfo()).setParallelism(1);
        Table t = procTime
                ? tEnv.fromDataStream(src, Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build())
                : tEnv.fromDataStream(src);
        Table result = query.apply(tEnv, t);
        return KeyedTestData.byKey(tEnv.toChangelogStream(result).executeAndCollect());
    }

    static void assertSameChangelog(Map<String, List<String>> stock, Map<String, List<String>> sluice) {
        assertTrue(KeyedTestData.count(stock) > 0);
        assertEquals(stock.keySet(), sluice.keySet(), "keys");
        for (Map.Entry<String, List<String>> e : stock.entrySet()) {
            List<String> want = e.getValue();
            List<String> got = sluice.get(e.getKey());
            for (int i = 0; i < Math.min(want.size(), got.size()); i++) {
                int at = i;
                assertEquals(want.get(i), got.get(i), () -> "key " + e.getKey() + ", change " + at + " of "
                        + want.size() + "; stock around it " + want.subList(Math.max(0, at - 3), Math.min(want.size(), at + 3))
                        + ", sluice " + got.subList(Math.max(0, at - 3), Math.min(got.size(), at + 3)));
            }
            assertEquals(want.size(), got.size(), "changes of key " + e.getKey());
        }
        assertEquals(KeyedTestData.count(stock), KeyedTestData.count(sluice));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void groupAggregate(int parallelism) throws Exception {
        Map<String, List<String>> stock = run(parallelism, false, (tEnv, t) -> tEnv.sqlQuery(
                "SELECT k, COUNT(*), COUNT(s), SUM(v), MIN(s), MAX(s), MIN(v), MAX(v), AVG(v), FIRST_VALUE(s), "
                        + "LAST_VALUE(s) FROM " + t + " GROUP BY k"));
        Map<String, List<String>> sluice = run(parallelism, false, (tEnv, t) -> SluiceKeyed.groupBy(tEnv, t,
                List.of("k"), List.of("COUNT(*)", "COUNT(s)", "SUM(v)", "MIN(s)", "MAX(s)", "MIN(v)", "MAX(v)",
                        "AVG(v)", "FIRST_VALUE(s)", "LAST_VALUE(s)")));
        assertSameChangelog(stock, sluice);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void dedupKeepFirst(int parallelism) throws Exception {
        dedup(parallelism, false);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void dedupKeepLast(int parallelism) throws Exception {
        dedup(parallelism, true);
    }

    static void dedup(int parallelism, boolean keepLast) throws Exception {
        Map<String, List<String>> stock = run(parallelism, true, (tEnv, t) -> tEnv.sqlQuery(
                "SELECT k, v, s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt "
                        + (keepLast ? "DESC" : "ASC") + ") AS rn FROM " + t + ") WHERE rn = 1"));
        Map<String, List<String>> sluice = run(parallelism, false,
                (tEnv, t) -> SluiceKeyed.deduplicate(tEnv, t, List.of("k"), keepLast));
        assertSameChangelog(stock, sluice);
    }

    /** An upsert changelog: +I / +U / -D by key k (insert-only kinds chosen per row, seeded). */
    static List<Row> upserts(int n, int keys) {
        List<Row> out = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Row r = KeyedTestData.row(i, keys);
            if (r.getField(0) == null) {
                r.setField(0, "null-key");
            }
            int kind = new java.util.Random(i * 31L + 7).nextInt(10);
            r.setKind(kind < 6 ? org.apache.flink.types.RowKind.UPDATE_AFTER
                    : kind < 9 ? org.apache.flink.types.RowKind.INSERT : org.apache.flink.types.RowKind.DELETE);
            if (kind == 5) {
                // a repeat of the previous row of the key is likely equal: Flink drops it
                r.setField(1, null);
                r.setField(2, null);
            }
            out.add(r);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void changelogNormalize(int parallelism) throws Exception {
        List<Row> input = upserts(ROWS, 600);
        Map<String, List<String>> stock = normalizeRun(parallelism, input, true);
        Map<String, List<String>> sluice = normalizeRun(parallelism, input, false);
        assertSameChangelog(stock, sluice);
    }

    static Map<String, List<String>> normalizeRun(int parallelism, List<Row> input, boolean stock) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        DataStream<Row> src = env.fromData(input, KeyedTestData.typeInfo()).setParallelism(1);
        Table result;
        if (stock) {
            // an upsert source keyed by k: the planner inserts ChangelogNormalize
            result = tEnv.fromChangelogStream(src, Schema.newBuilder()
                    .column("k", org.apache.flink.table.api.DataTypes.STRING().notNull())
                    .column("v", org.apache.flink.table.api.DataTypes.BIGINT())
                    .column("s", org.apache.flink.table.api.DataTypes.STRING())
                    .primaryKey("k").build(), org.apache.flink.table.connector.ChangelogMode.upsert());
        } else {
            // the same rows as a plain changelog (no key: passed through as they are)
            Table upsert = tEnv.fromChangelogStream(src);
            result = SluiceKeyed.normalize(tEnv, upsert, List.of("k"));
        }
        return KeyedTestData.byKey(tEnv.toChangelogStream(result).executeAndCollect());
    }
}
