package io.sluice.jni;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/**
 * The column handover ({@link CalcNative#processColumns}) against the row
 * path ({@link CalcNative#process}) on the same rows: the output rows must be
 * byte for byte identical.
 */
class ColumnBatchTest {
    static final LogicalType[] TYPES = {VarCharType.STRING_TYPE, new VarCharType(10), new IntType(),
        new BigIntType(false), new DoubleType(), new BooleanType(), new SmallIntType(), new DateType(),
        new VarBinaryType(20)};
    static final String[] NAMES = {"s", "t", "w", "id", "d", "flag", "sm", "dt", "b"};
    static final RowType TYPE = RowType.of(TYPES, NAMES);
    static final String[] EXPRS = {"md5(s)", "sha2(t, w)", "CONCAT(s, '|', t)", "s", "t", "id", "d", "flag", "sm",
        "dt", "b", "POSITION('b' IN s)"};

    static String[] typeStrings() {
        return Arrays.stream(TYPES).map(LogicalType::asSerializableString).toArray(String[]::new);
    }

    /** Strings of 0, 1, 7 (last inline), 8 (first out of line) and more bytes; NULLs; multi-byte. */
    static final String[] STRINGS = {"", "a", "1234567", "12345678", "abcdefghijklmnop", "Zoë", "😀😀", "ab\uD83D",
        "b".repeat(300)};

    static List<BinaryRowData> rows(int n, long seed) {
        RowDataSerializer ser = new RowDataSerializer(TYPE);
        Random rnd = new Random(seed);
        List<BinaryRowData> out = new ArrayList<>();
        int[] widths = {224, 256, 384, 512};
        for (int i = 0; i < n; i++) {
            GenericRowData g = new GenericRowData(TYPES.length);
            g.setField(0, rnd.nextInt(6) == 0 ? null : StringData.fromString(STRINGS[rnd.nextInt(STRINGS.length)]));
            g.setField(1, rnd.nextInt(6) == 0 ? null : StringData.fromString(STRINGS[rnd.nextInt(7)]));
            g.setField(2, rnd.nextInt(6) == 0 ? null : widths[rnd.nextInt(4)]);
            g.setField(3, rnd.nextLong());
            g.setField(4, rnd.nextInt(6) == 0 ? null : rnd.nextDouble());
            g.setField(5, rnd.nextInt(3) == 0 ? null : rnd.nextBoolean());
            g.setField(6, rnd.nextInt(3) == 0 ? null : (short) rnd.nextInt());
            g.setField(7, rnd.nextInt(3) == 0 ? null : rnd.nextInt(40000));
            byte[] b = new byte[rnd.nextInt(12)];
            rnd.nextBytes(b);
            g.setField(8, rnd.nextInt(4) == 0 ? null : b);
            g.setRowKind(RowKind.fromByteValue((byte) rnd.nextInt(4)));
            out.add(ser.toBinaryRow(g).copy());
        }
        return out;
    }

    /** The same row spread over small segments (the variable part crosses their borders). */
    static BinaryRowData splitAcrossSegments(BinaryRowData row, int segSize, int lead) {
        byte[] bytes = new byte[lead + row.getSizeInBytes()];
        row.getSegments()[0].get(row.getOffset(), bytes, lead, row.getSizeInBytes());
        List<MemorySegment> segs = new ArrayList<>();
        for (int at = 0; at < bytes.length; at += segSize) {
            segs.add(MemorySegmentFactory.wrap(Arrays.copyOfRange(bytes, at, at + segSize)));
        }
        BinaryRowData split = new BinaryRowData(row.getArity());
        split.pointTo(segs.toArray(new MemorySegment[0]), lead, row.getSizeInBytes());
        return split;
    }

    static void assertSameRows(RowBlock want, RowBlock got, int n) {
        assertEquals(n, got.numRows());
        for (int i = 0; i < n; i++) {
            BinaryRowData w = want.row(i, EXPRS.length, null);
            BinaryRowData g = got.row(i, EXPRS.length, null);
            assertEquals(w.getRowKind(), g.getRowKind(), "row " + i);
            assertEquals(w, g, "row " + i);
        }
    }

    static ColumnBatch batchFor(CalcNative calc, int capacity) {
        int[] kinds = calc.columnKinds();
        for (int f = 0; f < kinds.length; f++) {
            assertTrue(kinds[f] != -2, "field " + f + " unsupported");
        }
        return ColumnBatch.forColumnKinds(kinds, capacity);
    }

    @Test
    void columnKindsNameEveryReadField() {
        try (CalcNative calc = new CalcNative(NAMES, typeStrings(), new String[] {"md5(t)", "w"}, null)) {
            assertArrayEquals(new int[] {-1, ColumnBatch.UTF8, ColumnBatch.INT, -1, -1, -1, -1, -1, -1},
                    calc.columnKinds());
        }
    }

    @Test
    void columnsGiveTheSameRowsAsTheRowPath() {
        List<BinaryRowData> rows = rows(3000, 42);
        try (CalcNative calc = new CalcNative(NAMES, typeStrings(), EXPRS, null)) {
            // A small capacity: the arrays grow, and are reused across batches.
            ColumnBatch cols = batchFor(calc, 8);
            for (int start = 0; start < rows.size(); start += 1000) {
                RowBatch batch = new RowBatch(1000);
                cols.clear();
                long strBytes = 0;
                for (BinaryRowData r : rows.subList(start, start + 1000)) {
                    assertTrue(batch.add(r));
                    cols.add(r);
                    strBytes += r.isNullAt(0) ? 0 : r.getString(0).toBytes().length;
                }
                assertTrue(cols.bytesCopied() >= strBytes);
                assertSameRows(calc.process(batch), calc.processColumns(cols), 1000);
            }
        }
    }

    /** Generic rows (String-backed strings, as from {@code fromDataStream}) through the columns. */
    @Test
    void stringBackedGenericRowsGiveTheSameRowsAsTheRowPath() {
        List<BinaryRowData> rows = rows(1000, 7);
        try (CalcNative calc = new CalcNative(NAMES, typeStrings(), EXPRS, null)) {
            ColumnBatch cols = batchFor(calc, 8);
            RowBatch batch = new RowBatch(1000);
            long strBytes = 0;
            for (BinaryRowData r : rows) {
                assertTrue(batch.add(r));
                GenericRowData g = new GenericRowData(r.getRowKind(), TYPES.length);
                for (int f = 0; f < TYPES.length; f++) {
                    Object v = RowData.createFieldGetter(TYPES[f], f).getFieldOrNull(r);
                    g.setField(f, v instanceof StringData ? StringData.fromString(v.toString()) : v);
                }
                cols.add(g);
                strBytes += r.isNullAt(0) ? 0 : r.getString(0).toBytes().length;
            }
            assertTrue(cols.bytesCopied() >= strBytes);
            assertSameRows(calc.process(batch), calc.processColumns(cols), 1000);
        }
    }

    /**
     * Any {@code RowData} (here a {@code JoinedRowData} over two {@code GenericRowData} halves
     * with String-backed strings, as a lookup join emits) goes through the getters and gives the
     * rows the row path gives for the same values.
     */
    @Test
    void genericRowsGiveTheSameRowsAsTheRowPath() {
        List<BinaryRowData> rows = rows(1000, 11);
        RowData.FieldGetter[] getters = new RowData.FieldGetter[TYPES.length];
        for (int f = 0; f < TYPES.length; f++) {
            getters[f] = RowData.createFieldGetter(TYPES[f], f);
        }
        try (CalcNative calc = new CalcNative(NAMES, typeStrings(), EXPRS, null)) {
            RowBatch batch = new RowBatch(1000);
            ColumnBatch cols = batchFor(calc, 16);
            for (BinaryRowData r : rows) {
                assertTrue(batch.add(r));
                GenericRowData left = new GenericRowData(4);
                GenericRowData right = new GenericRowData(TYPES.length - 4);
                for (int f = 0; f < TYPES.length; f++) {
                    Object v = getters[f].getFieldOrNull(r);
                    v = v instanceof StringData ? StringData.fromString(v.toString()) : v;
                    (f < 4 ? left : right).setField(f < 4 ? f : f - 4, v);
                }
                RowData joined = new JoinedRowData(r.getRowKind(), left, right);
                cols.add(joined);
            }
            assertSameRows(calc.process(batch), calc.processColumns(cols), 1000);
        }
    }

    /** TIMESTAMP(3) and TIMESTAMP_LTZ(3) travel as epoch milliseconds, from binary and generic rows. */
    @Test
    void millisecondTimestampsGiveTheSameRowsAsTheRowPath() {
        LogicalType[] types = {new TimestampType(3), new LocalZonedTimestampType(3)};
        RowType type = RowType.of(types, new String[] {"ts", "ltz"});
        String[] typeStrings = Arrays.stream(types).map(LogicalType::asSerializableString).toArray(String[]::new);
        RowDataSerializer ser = new RowDataSerializer(type);
        long[] millis = {0L, -1_234L, 1_700_000_000_123L, 253_402_300_799_999L};
        try (CalcNative calc = new CalcNative(new String[] {"ts", "ltz"}, typeStrings, new String[] {"ltz", "ts"},
                null)) {
            assertArrayEquals(new int[] {ColumnBatch.TIMESTAMP_MS, ColumnBatch.TIMESTAMP_MS}, calc.columnKinds());
            RowBatch batch = new RowBatch(8);
            ColumnBatch binary = batchFor(calc, 2);
            ColumnBatch generic = batchFor(calc, 2);
            for (int i = 0; i < millis.length; i++) {
                GenericRowData g = GenericRowData.of(i % 3 == 1 ? null : TimestampData.fromEpochMillis(millis[i]),
                        i % 2 == 0 ? null : TimestampData.fromEpochMillis(millis[millis.length - 1 - i]));
                BinaryRowData b = ser.toBinaryRow(g).copy();
                assertTrue(batch.add(b));
                binary.add(b);
                generic.add((RowData) g);
            }
            RowBlock want = calc.process(batch);
            assertSameRows(want, calc.processColumns(binary), millis.length);
            assertSameRows(want, calc.processColumns(generic), millis.length);
        }
    }

    @Test
    void rowsSpanningSegmentsAreReadWhole() {
        List<BinaryRowData> rows = rows(500, 7);
        try (CalcNative calc = new CalcNative(NAMES, typeStrings(), EXPRS, null)) {
            RowBatch batch = new RowBatch(500);
            ColumnBatch cols = batchFor(calc, 500);
            int fixed = BinaryRowData.calculateFixPartSizeInBytes(TYPES.length);
            for (int i = 0; i < rows.size(); i++) {
                BinaryRowData r = rows.get(i);
                assertTrue(batch.add(r));
                // Fixed part in the first segment (Flink's rule); the rest in 8..24-byte pieces.
                int lead = i % 5;
                BinaryRowData split = splitAcrossSegments(r, fixed + lead + 8 + i % 17, lead);
                assertEquals(r, split.copy());
                cols.add(split);
            }
            assertSameRows(calc.process(batch), calc.processColumns(cols), 500);
        }
    }

    @Test
    void mistypedColumnsAreRefusedNatively() {
        try (CalcNative calc = new CalcNative(NAMES, typeStrings(), new String[] {"md5(s)"}, null)) {
            ColumnBatch wrongKind = new ColumnBatch(new int[] {0}, new int[] {ColumnBatch.INT}, 4);
            wrongKind.add(rows(1, 1).get(0));
            SluiceException e = assertThrows(SluiceException.class, () -> calc.processColumns(wrongKind));
            assertTrue(e.getMessage().contains("is not a [B array"), e.getMessage());
            ColumnBatch unread = new ColumnBatch(new int[] {2}, new int[] {ColumnBatch.INT}, 4);
            e = assertThrows(SluiceException.class, () -> calc.processColumns(unread));
            assertTrue(e.getMessage().contains("does not read it as a column"), e.getMessage());
        }
    }
}
