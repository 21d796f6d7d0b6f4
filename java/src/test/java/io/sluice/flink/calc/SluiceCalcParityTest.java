package io.sluice.flink.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.TestSupport;
import io.sluice.flink.table.SluiceCalc;
import io.sluice.jni.SluiceException;

/**
 * The native Calc against stock Flink SQL on a MiniCluster: the same
 * expressions over the same generated rows ({@link CalcData}), complete
 * outputs compared (every row, RowKind included; rows matched by the unique
 * {@code id}, so order does not matter), plus the output schema.
 */
class SluiceCalcParityTest {
    static final long ROWS = 120_000;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = TestSupport.fourSlotCluster();

    static final String[] EXPRESSIONS = {
        "id",
        "MD5(a)", "SHA1(b)", "SHA2(a, 224)", "SHA2(b, 256)", "SHA2(c, 384)", "SHA2(a, 512)", "SHA2(a, w)",
        "CONCAT(a, b, c)", "CONCAT(a, '-', b)", "CONCAT_WS('|', a, b, c)", "CONCAT_WS(c, a, b)",
        "POSITION(b IN a)", "LOCATE(b, a)", "LOCATE('x', a, 3)",
        "a LIKE '%ab%'", "a LIKE 'x_%'", "REPLACE(a, 'ab', 'XY')", "SPLIT_INDEX(a, ',', 1)",
        "c AS pass_c", "w"
    };

    private StreamExecutionEnvironment env;

    StreamTableEnvironment tableEnv(int parallelism, int batchSize) {
        env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(SluiceOptions.BATCH_SIZE, batchSize);
        return tEnv;
    }

    @ParameterizedTest(name = "parallelism {0}, object reuse {1}, binary rows {2}")
    @CsvSource({"1, false, false", "4, false, false", "4, true, false", "1, false, true", "4, true, true"})
    void everyFunctionMatchesStockFlink(int parallelism, boolean objectReuse, boolean binaryRows) throws Exception {
        // An odd batch size: full batches and a partial last one per subtask.
        StreamTableEnvironment tEnv = tableEnv(parallelism, 1000 + 7 * parallelism);
        if (objectReuse) {
            // the operator must copy rows it buffers (upstream may reuse them)
            env.getConfig().enableObjectReuse();
        }
        // Binary rows take the operator's column handover (checked below).
        Table input = tEnv.fromDataStream(binaryRows ? CalcData.binarySource(env, ROWS) : CalcData.source(env, ROWS));
        tEnv.createTemporaryView("t", input);
        Table stock = tEnv.sqlQuery("SELECT " + String.join(", ", EXPRESSIONS) + " FROM t");
        Table sluice = SluiceCalc.select(tEnv, input, EXPRESSIONS);
        assertEquals(stock.getResolvedSchema().toPhysicalRowDataType().getLogicalType(),
                sluice.getResolvedSchema().toPhysicalRowDataType().getLogicalType(), "output schema");
        // select() installed the planner stage: stock is planned with sluice.enabled=false, sluice with it on.
        tEnv.getConfig().set(SluiceOptions.ENABLED, false);
        assertTrue(stock.explain().contains("MD5(") && !stock.explain().contains("SluiceCalc("), stock.explain());
        List<Row> want = collectSortedById(stock);
        tEnv.getConfig().set(SluiceOptions.ENABLED, true);
        assertTrue(sluice.explain().contains("SluiceCalc("), sluice.explain());
        long columnBatches = SluiceCalcOperator.COLUMN_BATCHES.get();
        List<Row> got = collectSortedById(sluice);
        if (binaryRows) {
            assertTrue(SluiceCalcOperator.COLUMN_BATCHES.get() - columnBatches >= ROWS / (1000 + 7 * parallelism),
                    "binary rows went through the column handover");
        }
        assertEquals(ROWS, want.size());
        assertEquals(want.size(), got.size(), "row count");
        List<String> diffs = new ArrayList<>();
        for (int i = 0; i < want.size() && diffs.size() < 10; i++) {
            Row w = want.get(i);
            Row g = got.get(i);
            if (w.getKind() != g.getKind()) {
                diffs.add("row id " + w.getField(0) + ": RowKind " + w.getKind() + " vs " + g.getKind());
            }
            for (int f = 0; f < w.getArity(); f++) {
                if (!java.util.Objects.equals(w.getField(f), g.getField(f))) {
                    diffs.add("row id " + w.getField(0) + ", " + EXPRESSIONS[f] + ": stock " + w.getField(f)
                            + " vs sluice " + g.getField(f));
                }
            }
        }
        if (!diffs.isEmpty()) {
            fail("sluice differs from stock Flink:\n" + String.join("\n", diffs));
        }
        assertEquals(want, got);
    }

    /**
     * An updating input (a GROUP BY result) goes through the changelog bridge:
     * at parallelism 1 the complete changelog, RowKinds and order included,
     * equals stock Flink's; at 4 (where the aggregate's update order depends
     * on arrival order, in stock Flink too) the materialised result does.
     */
    @ParameterizedTest(name = "parallelism {0}")
    @CsvSource({"1", "4"})
    void anUpdatingInputKeepsItsChangelog(int parallelism) throws Exception {
        StreamTableEnvironment tEnv = tableEnv(parallelism, 64);
        tEnv.createTemporaryView("src", tEnv.fromDataStream(CalcData.source(env, 20_000)));
        Table agg = tEnv.sqlQuery(
                "SELECT MOD(id, 97) AS k, MAX(a) AS a, MIN(c) AS c, COUNT(*) AS n FROM src GROUP BY MOD(id, 97)");
        tEnv.createTemporaryView("agg", agg);
        String[] exprs = {"k", "MD5(a)", "CONCAT_WS('|', a, c)", "SHA2(c, 256)", "n"};
        Table stock = tEnv.sqlQuery("SELECT " + String.join(", ", exprs) + " FROM agg");
        Table sluice = SluiceCalc.select(tEnv, agg, exprs);
        tEnv.getConfig().set(SluiceOptions.ENABLED, false);
        List<Row> want = collect(stock);
        tEnv.getConfig().set(SluiceOptions.ENABLED, true);
        assertTrue(sluice.explain().contains("SluiceCalc("), sluice.explain());
        List<Row> got = collect(sluice);
        assertTrue(want.stream().anyMatch(r -> r.getKind() == RowKind.UPDATE_BEFORE), "the input is updating");
        if (parallelism == 1) {
            assertEquals(want, got);
        } else {
            assertEquals(materialise(want), materialise(got));
        }
    }

    private static List<Row> collect(Table t) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = t.execute().collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    /** Applies a changelog keyed by field 0; returns the final row per key (as +I). */
    private static Map<Object, Row> materialise(List<Row> changelog) {
        Map<Object, Row> state = new TreeMap<>();
        for (Row r : changelog) {
            if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
                Row copy = Row.copy(r);
                copy.setKind(RowKind.INSERT);
                state.put(r.getField(0), copy);
            } else {
                state.remove(r.getField(0));
            }
        }
        return state;
    }

    static List<Row> collectSortedById(Table t) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = t.execute().collect()) {
            it.forEachRemaining(rows::add);
        }
        rows.sort(Comparator.comparingLong(r -> (Long) r.getField(0)));
        return rows;
    }

    @Test
    void aNativeFailureFailsTheJobWithTheNativeMessage() {
        StreamTableEnvironment tEnv = tableEnv(2, 64);
        GeneratorFunction<Long, RowData> gen = i -> GenericRowData.of(i, StringData.fromString("v" + i), null, null, i == 500 ? 7 : 256);
        DataStream<RowData> src = env.fromSource(
                new DataGeneratorSource<>(gen, 1000, InternalTypeInfo.of(CalcData.TYPE)), WatermarkStrategy.noWatermarks(), "bad-width");
        Table out = SluiceCalc.select(tEnv, tEnv.fromDataStream(src), "id", "SHA2(a, w)");
        Exception e = assertThrows(Exception.class, () -> collectSortedById(out));
        for (Throwable t = e; t != null; t = t.getCause()) {
            boolean sluice = t instanceof SluiceException
                    || (t instanceof SerializedThrowable
                            && SluiceException.class.getName().equals(((SerializedThrowable) t).getOriginalErrorClassName()));
            if (sluice) {
                assertTrue(t.getMessage().contains("SHA-7 MessageDigest not available"), t.getMessage());
                return;
            }
        }
        fail("no SluiceException in the cause chain", e);
    }
}
