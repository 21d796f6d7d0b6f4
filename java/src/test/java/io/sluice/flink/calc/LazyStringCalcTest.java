package io.sluice.flink.calc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.flink.TestSupport;
import io.sluice.jni.CalcNative;
import io.sluice.jni.RowBatch;
import io.sluice.jni.RowBlock;
import io.sluice.jni.SluiceException;
import io.sluice.jni.Utf16Columns;

/**
 * Rows whose strings are lazy {@code BinaryStringData} (holding only a
 * {@code java.lang.String}) through the Calc's UTF-16 way, against Flink's
 * own encoding of the same strings ({@code BinaryStringData.fromString(s).toBytes()}).
 */
class LazyStringCalcTest {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(1).build());

    static final RowType IN = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE, new VarCharType(10), new IntType()},
            new String[] {"id", "s", "t", "n"});
    static final String[] EXPRS = {"id", "s", "t", "MD5(s)", "CONCAT_WS('|', s, t)", "n"};
    static final String[] OUT_TYPES = {"BIGINT NOT NULL", "STRING", "VARCHAR(10)", "CHAR(32)", "STRING", "INT"};
    static final RowType OUT = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE, new VarCharType(10), new CharType(32),
                VarCharType.STRING_TYPE, new IntType()},
            new String[] {"id", "s", "t", "m", "c", "n"});

    /** ASCII, Latin-1, CJK, supplementary pairs, lone surrogates, empty, NULL, and runs. */
    static final String[] VALUES = {
        "plain ascii", "héllo wörld ç", "中文字符串", "𝄞 clef 😀", "lone \uD800 high", "lone \uDC00 low",
        "\uDBFF", "", null, "ünïcødé", "a\uD83D\uDE00b\uD800"
    };

    static String valueS(int i) {
        // runs of 5 equal values every 40 rows, otherwise cycling through VALUES
        return i % 40 < 5 ? "repeated ü run" : VALUES[i % VALUES.length];
    }

    static String valueT(int i) {
        return i % 7 == 3 ? null : (i % 2 == 0 ? "t" + (i % 10) : "é" + (i % 3));
    }

    static GenericRowData lazyRow(int i) {
        String s = valueS(i);
        String t = valueT(i);
        GenericRowData r = GenericRowData.of((long) i, s == null ? null : StringData.fromString(s),
                t == null ? null : StringData.fromString(t), i % 5 == 0 ? null : i * 3);
        r.setRowKind(i % 3 == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT);
        return r;
    }

    static byte[] flinkBytes(String s) {
        return BinaryStringData.fromString(s).toBytes();
    }

    static byte[] concatWs(String s, String t) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        boolean first = true;
        for (String v : new String[] {s, t}) {
            if (v != null) {
                if (!first) {
                    b.write('|');
                }
                b.writeBytes(flinkBytes(v));
                first = false;
            }
        }
        return b.toByteArray();
    }

    static void check(RowData r) throws Exception {
        int i = (int) r.getLong(0);
        String s = valueS(i);
        String t = valueT(i);
        assertEquals(i % 3 == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT, r.getRowKind(), "row " + i);
        if (s == null) {
            assertTrue(r.isNullAt(1) && r.isNullAt(3), "row " + i);
        } else {
            assertArrayEquals(flinkBytes(s), r.getString(1).toBytes(), "s of row " + i);
            String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(flinkBytes(s)));
            assertEquals(md5, r.getString(3).toString(), "MD5(s) of row " + i);
        }
        if (t == null) {
            assertTrue(r.isNullAt(2), "row " + i);
        } else {
            assertArrayEquals(flinkBytes(t), r.getString(2).toBytes(), "t of row " + i);
        }
        assertArrayEquals(concatWs(s, t), r.getString(4).toBytes(), "CONCAT_WS of row " + i);
        assertEquals(i % 5 == 0, r.isNullAt(5));
        if (i % 5 != 0) {
            assertEquals(i * 3, r.getInt(5));
        }
    }

    /**
     * GenericRowData with String-backed strings through the operator on a
     * MiniCluster, with object reuse (strings stay lazy) and without (Flink
     * copies rows between chained operators, materialising the strings but
     * keeping their String); every 9th row arrives as a BinaryRowData, so
     * batches of both kinds meet rows of the other.
     */
    @ParameterizedTest(name = "object reuse {0}")
    @ValueSource(booleans = {true, false})
    void lazyRowsEncodeAsFlinkDoes(boolean objectReuse) throws Exception {
        StreamExecutionEnvironment env = TestSupport.singleEnv(objectReuse);
        int n = 2_000;
        // A generator makes the rows at run time (a collection source would
        // hand over deserialised BinaryRowData).
        DataStream<RowData> in = env.fromSource(new DataGeneratorSource<>(new Rows(), n, InternalTypeInfo.of(IN)),
                WatermarkStrategy.noWatermarks(), "lazy rows");
        DataStream<RowData> out = in.transform("sluice-calc", InternalTypeInfo.of(OUT),
                new SluiceCalcOperator(IN, EXPRS, OUT_TYPES, 37, true));
        int seen = 0;
        boolean[] ids = new boolean[n];
        try (CloseableIterator<RowData> it = out.executeAndCollect()) {
            while (it.hasNext()) {
                RowData r = it.next();
                check(r);
                ids[(int) r.getLong(0)] = true;
                seen++;
            }
        }
        assertEquals(n, seen);
        for (int i = 0; i < n; i++) {
            assertTrue(ids[i], "row " + i + " missing");
        }
    }

    /** Row {@code i}: a GenericRowData with lazy strings, every 9th as a BinaryRowData. */
    static final class Rows implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private transient RowDataSerializer ser;

        @Override
        public RowData map(Long i) {
            GenericRowData g = lazyRow((int) (long) i);
            if (i % 9 != 4) {
                return g;
            }
            if (ser == null) {
                ser = new RowDataSerializer(IN);
            }
            return ser.toBinaryRow(g).copy();
        }
    }

    /** Writes rows without their string fields (as the operator does) and fills the UTF-16 columns. */
    static RowBatch bare(int from, int to, Utf16Columns cols) {
        RowBatch batch = new RowBatch(to - from);
        for (int i = from; i < to; i++) {
            GenericRowData g = lazyRow(i);
            BinaryRowData r = new BinaryRowData(4);
            BinaryRowWriter w = new BinaryRowWriter(r);
            w.writeRowKind(g.getRowKind());
            w.writeLong(0, g.getLong(0));
            w.setNullAt(1);
            w.setNullAt(2);
            if (g.isNullAt(3)) {
                w.setNullAt(3);
            } else {
                w.writeInt(3, g.getInt(3));
            }
            w.complete();
            batch.add(r);
            for (int c = 0; c < 2; c++) {
                if (g.isNullAt(c + 1)) {
                    cols.addNull(c);
                } else {
                    cols.add(c, g.getString(c + 1).toString());
                }
            }
            cols.endRow();
        }
        return batch;
    }

    /** CalcNative directly: outputs as Flink encodes, and the encode cache counts its hits on runs. */
    @Test
    void cacheServesRunsAndOutputMatchesFlink() throws Exception {
        String[] names = IN.getFieldNames().toArray(new String[0]);
        String[] types = IN.getChildren().stream().map(LogicalType::asSerializableString).toArray(String[]::new);
        try (CalcNative calc = new CalcNative(names, types, EXPRS, OUT_TYPES)) {
            assertNull(calc.encodeCacheStats(1), "no UTF-16 batch yet");
            // rows 0..5: the run of 5 "repeated ü run", then one plain value
            Utf16Columns cols = new Utf16Columns(new int[] {1, 2}, 4); // capacity 4: grows
            RowBatch batch = bare(0, 6, cols);
            RowBlock block = calc.process(batch, cols);
            BinaryRowData row = new BinaryRowData(EXPRS.length);
            for (int i = 0; i < 6; i++) {
                check(block.row(i, EXPRS.length, row));
            }
            long[] st = calc.encodeCacheStats(1);
            assertNotNull(st);
            assertEquals(4, st[0], "hits: the run's 4 repeats");
            assertEquals(1, st[1], "misses: the run's first value");
            assertEquals(1, st[2], "ineligible: the plain one narrows (its lone surrogate is one '?')");
            // a long batch (several runs, every kind of value), cache kept across batches
            cols.clear();
            batch = bare(6, 406, cols);
            block = calc.process(batch, cols);
            for (int i = 0; i < 400; i++) {
                check(block.row(i, EXPRS.length, row));
            }
            long[] after = calc.encodeCacheStats(1);
            long total = 0;
            for (int i = 0; i < 406; i++) {
                total += valueS(i) == null ? 0 : 1;
            }
            assertEquals(total, after[0] + after[1] + after[2] + after[3], "every non-NULL value counted once");
            assertTrue(after[0] >= 4, "hits " + after[0]);
        }
    }

    @Test
    void aNonStringUtf16ColumnIsRefused() {
        String[] names = IN.getFieldNames().toArray(new String[0]);
        String[] types = IN.getChildren().stream().map(LogicalType::asSerializableString).toArray(String[]::new);
        try (CalcNative calc = new CalcNative(names, types, EXPRS, OUT_TYPES)) {
            Utf16Columns cols = new Utf16Columns(new int[] {0}, 2);
            RowBatch batch = new RowBatch(2);
            cols.add(0, "x");
            cols.endRow();
            BinaryRowData r = new BinaryRowData(4);
            BinaryRowWriter w = new BinaryRowWriter(r);
            w.writeLong(0, 1);
            w.complete();
            batch.add(r);
            SluiceException e = assertThrows(SluiceException.class, () -> calc.process(batch, cols));
            assertTrue(e.getMessage().contains("UTF-16 input for a BIGINT NOT NULL column"), e.getMessage());
        }
    }
}
