package sluice.golden;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.writer.BinaryWriter;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.types.RowKind;

/**
 * Writes golden BinaryRowData bytes with Flink's own classes for the sluice-transpose tests.
 *
 * <p>Output (stdout), line-oriented:
 *
 * <pre>
 * typestr &lt;input&gt; =&gt; &lt;LogicalType.asSerializableString()&gt;
 * case &lt;name&gt; &lt;serializer|projection&gt;
 * type &lt;ROW type, asSerializableString()&gt;
 * row &lt;+I|-U|+U|-D&gt; &lt;hex of the row bytes&gt;
 * end
 * </pre>
 *
 * <p>"serializer" rows come from {@code RowDataSerializer.toBinaryRow(GenericRowData)} (NULL
 * fields via {@code setNullAt}); "projection" rows are written field by field with {@code
 * BinaryRowWriter} the way the planner's generated projections do ({@code
 * CodeGenUtils.binaryWriterWriteNull}: {@code writeDecimal(i, null, p)} / {@code
 * writeTimestamp(i, null, p)} for non-compact NULLs). Values are documented next to each case; the
 * Rust test (transpose/tests/golden.rs) rebuilds them independently.
 */
public final class GoldenRows {

    private GoldenRows() {}

    // ---------------------------------------------------------------- helpers

    static StringData s(String v) {
        return StringData.fromString(v);
    }

    static DecimalData dec(String v, int p, int sc) {
        DecimalData d = DecimalData.fromBigDecimal(new BigDecimal(v), p, sc);
        if (d == null) {
            throw new IllegalArgumentException("does not fit: " + v);
        }
        return d;
    }

    static TimestampData ts(long millis, int nanos) {
        return TimestampData.fromEpochMillis(millis, nanos);
    }

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    static byte[] seq(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    static GenericArrayData arr(Object... v) {
        return new GenericArrayData(v);
    }

    static GenericMapData map(Object... kv) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return new GenericMapData(m);
    }

    static GenericRowData row(Object... v) {
        return GenericRowData.of(v);
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    static byte[] copy(BinaryRowData r) {
        return BinarySegmentUtils.copyToBytes(r.getSegments(), r.getOffset(), r.getSizeInBytes());
    }

    static RowType parseRow(String t) {
        return (RowType) LogicalTypeParser.parse(t, GoldenRows.class.getClassLoader());
    }

    /** RowDataSerializer.toBinaryRow path. */
    static byte[] serializerRow(RowType type, RowKind kind, Object[] values) {
        GenericRowData g = GenericRowData.ofKind(kind, values);
        return copy(new RowDataSerializer(type).toBinaryRow(g));
    }

    /** Generated-projection path: BinaryRowWriter, codegen NULL handling. */
    static byte[] projectionRow(RowType type, RowKind kind, Object[] values) {
        List<LogicalType> fields = type.getChildren();
        BinaryRowData out = new BinaryRowData(fields.size());
        BinaryRowWriter w = new BinaryRowWriter(out);
        w.reset();
        w.writeRowKind(kind);
        for (int i = 0; i < fields.size(); i++) {
            LogicalType t = fields.get(i);
            if (values[i] == null) {
                if (t instanceof DecimalType && !DecimalData.isCompact(((DecimalType) t).getPrecision())) {
                    w.writeDecimal(i, null, ((DecimalType) t).getPrecision());
                } else if (t instanceof TimestampType
                        && !TimestampData.isCompact(((TimestampType) t).getPrecision())) {
                    w.writeTimestamp(i, null, ((TimestampType) t).getPrecision());
                } else if (t instanceof LocalZonedTimestampType
                        && !TimestampData.isCompact(((LocalZonedTimestampType) t).getPrecision())) {
                    w.writeTimestamp(i, null, ((LocalZonedTimestampType) t).getPrecision());
                } else {
                    w.setNullAt(i);
                }
            } else {
                BinaryWriter.write(w, i, values[i], t, InternalSerializers.create(t));
            }
        }
        w.complete();
        return copy(out);
    }

    static void emit(String name, String layout, String typeString, List<RowKind> kinds, List<Object[]> rows) {
        RowType type = parseRow(typeString);
        System.out.println("case " + name + " " + layout);
        System.out.println("type " + type.asSerializableString());
        for (int i = 0; i < rows.size(); i++) {
            byte[] b =
                    layout.equals("serializer")
                            ? serializerRow(type, kinds.get(i), rows.get(i))
                            : projectionRow(type, kinds.get(i), rows.get(i));
            System.out.println("row " + kinds.get(i).shortString() + " " + hex(b));
        }
        System.out.println("end");
    }

    // ---------------------------------------------------------------- cases

    /** 29 fields: every scalar type; field 28 is NOT NULL. */
    static final String SCALARS =
            "ROW<b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, fl FLOAT, db DOUBLE,"
                    + " d10 DECIMAL(10, 2), d18 DECIMAL(18, 4), d19 DECIMAL(19, 0), d38 DECIMAL(38, 10),"
                    + " c CHAR(5), vc VARCHAR(20), s STRING, bin BINARY(3), vb VARBINARY(10), by BYTES,"
                    + " dt DATE, t0 TIME(0), t3 TIME(3), t6 TIME(6), t9 TIME(9),"
                    + " ts0 TIMESTAMP(0), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ts9 TIMESTAMP(9),"
                    + " ltz3 TIMESTAMP_LTZ(3), ltz6 TIMESTAMP_LTZ(6), bnn BIGINT NOT NULL>";

    static Object[] scalarsA() {
        return new Object[] {
            true, (byte) 1, (short) 2, 42, 1234567890123L, 1.5f, 2.25,
            dec("123.45", 10, 2), dec("12345678901234.5678", 18, 4),
            dec("1234567890123456789", 19, 0), dec("-1234567890123456789012345678.0123456789", 38, 10),
            s("abcde"), s("hello world!"), s(""), bytes(1, 2, 3), bytes(), seq(8),
            19000, 3_600_000, 45_296_789, 1_000, 86_399_999,
            ts(1_700_000_000_000L, 0), ts(1_700_000_000_123L, 0), ts(1000, 123_000), ts(1000, 123_456),
            ts(-1, 0), ts(-1, 999_000), 7L
        };
    }

    static Object[] scalarsB() {
        StringBuilder longS = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            longS.append('a');
        }
        longS.append("中文");
        return new Object[] {
            false, (byte) -128, (short) -32768, Integer.MIN_VALUE, Long.MIN_VALUE, -0.0f,
            Double.POSITIVE_INFINITY,
            dec("-0.01", 10, 2), dec("-99999999999999.9999", 18, 4), dec("0", 19, 0),
            dec("0.0000000001", 38, 10),
            s("\uD83D\uDE00é"), s("éééé"), s(longS.toString()), bytes(255, 0, 128),
            bytes(9, 8, 7, 6, 5, 4, 3), seq(20),
            -719162, 0, 0, 86_399_999, 1,
            ts(-86_400_000L, 0), ts(-1, 0), ts(-1, 0), ts(-1, 999_999),
            ts(253402300799999L, 0), ts(0, 1000), -7L
        };
    }

    static Object[] mask(Object[] v, int keepParity) {
        Object[] out = v.clone();
        for (int i = 0; i < 28; i++) {
            if (i % 2 != keepParity) {
                out[i] = null;
            }
        }
        return out;
    }

    static void scalars(String layout) {
        Object[] allNull = new Object[29];
        allNull[28] = 0L;
        List<Object[]> rows =
                Arrays.asList(scalarsA(), scalarsB(), allNull, mask(scalarsA(), 1), mask(scalarsB(), 0));
        List<RowKind> kinds =
                Arrays.asList(
                        RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE,
                        RowKind.INSERT);
        emit("scalars", layout, SCALARS, kinds, rows);
    }

    static final String NESTED =
            "ROW<ai ARRAY<INT>, ast ARRAY<STRING>, m MAP<STRING, INT>, r ROW<x INT, y STRING>,"
                    + " ar ARRAY<ROW<p BIGINT, q DECIMAL(20, 2)>>, ma MAP<INT, ARRAY<STRING>>,"
                    + " ad ARRAY<DOUBLE>, ab ARRAY<BOOLEAN>, asi ARRAY<SMALLINT>, ats ARRAY<TIMESTAMP(6)>,"
                    + " adec ARRAY<DECIMAL(25, 3)>,"
                    + " rr ROW<r ROW<s INT, t STRING>, u DECIMAL(30, 5), v TIMESTAMP(9)>,"
                    + " aai ARRAY<ARRAY<INT>>, ati ARRAY<TINYINT>, af ARRAY<FLOAT>, ad2 ARRAY<DATE>>";

    static void nested() {
        Object[] ati = new Object[40];
        for (int i = 0; i < 40; i++) {
            ati[i] = i % 7 == 0 ? null : (byte) (i - 20);
        }
        Object[] n0 = {
            arr(1, null, 3),
            arr(s("a"), s("0123456789"), null, s("")),
            map(s("a"), 10, s("0123456789"), 20, s("k"), null),
            row(1, s("x")),
            arr(row(1L, dec("1.23", 20, 2)), null, row(null, dec("-123456789012345678.90", 20, 2))),
            map(1, arr(s("x"), s("longer than seven")), 2, null, 3, arr()),
            arr(1.5, Double.NaN, -0.0, null),
            arr(true, false, null),
            arr((short) 1, (short) -1, null, (short) 300),
            arr(ts(0, 1000), null, ts(-5, 999_000)),
            arr(dec("1.234", 25, 3), null, dec("-9999999999999999999999.999", 25, 3)),
            row(row(7, s("seven chars!")), dec("12345.67890", 30, 5), ts(123, 456_789)),
            arr(arr(1, 2), null, arr(), arr((Object) null)),
            new GenericArrayData(ati),
            arr(Float.NaN, 1.0f),
            arr(0, null, 19000)
        };
        Object[] n1 = {
            arr(), arr(), map(), row(null, null), arr(), map(), arr(), arr(), arr(), arr(), arr(),
            row(null, null, null), arr(), arr(), arr(), arr()
        };
        Object[] n2 = new Object[16];
        Object[] n3 = new Object[16];
        n3[0] = arr((Object) null);
        n3[2] = map(s(""), 0);
        n3[11] = row(null, dec("0.00001", 30, 5), null);
        List<Object[]> rows = Arrays.asList(n0, n1, n2, n3);
        List<RowKind> kinds =
                Arrays.asList(RowKind.INSERT, RowKind.DELETE, RowKind.UPDATE_AFTER, RowKind.UPDATE_BEFORE);
        emit("nested", "serializer", NESTED, kinds, rows);
    }

    /** 130 INT fields (24 bytes of null bits); row 0 has field i NULL when i % 5 == 0. */
    static void wide() {
        StringBuilder t = new StringBuilder("ROW<");
        for (int i = 0; i < 130; i++) {
            t.append(i == 0 ? "" : ", ").append("f").append(i).append(" INT");
        }
        t.append(">");
        Object[] r0 = new Object[130];
        Object[] r1 = new Object[130];
        for (int i = 0; i < 130; i++) {
            r0[i] = i % 5 == 0 ? null : i * 1000;
            r1[i] = -i;
        }
        emit("wide", "serializer", t.toString(), Arrays.asList(RowKind.INSERT, RowKind.DELETE), Arrays.asList(r0, r1));
    }

    /** NaN payloads: kept in a row's DOUBLE, canonicalised in an ARRAY<DOUBLE>. */
    static void nan() {
        double payload = Double.longBitsToDouble(0x7ff8000000000001L);
        float fpayload = Float.intBitsToFloat(0x7fc00001);
        Object[] r0 = {payload, fpayload, arr(payload), arr(fpayload)};
        emit(
                "nan",
                "serializer",
                "ROW<d DOUBLE, f FLOAT, ad ARRAY<DOUBLE>, af ARRAY<FLOAT>>",
                Arrays.asList(RowKind.INSERT),
                Arrays.<Object[]>asList(r0));
    }

    static final String[] TYPE_STRINGS = {
        "BOOLEAN", "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE",
        "DECIMAL", "DECIMAL(38, 10)", "DEC(5)", "NUMERIC(20,3)",
        "CHAR", "CHAR(5)", "VARCHAR(20)", "STRING", "BINARY(3)", "VARBINARY(10)", "BYTES",
        "DATE", "TIME", "TIME(3)", "TIMESTAMP", "TIMESTAMP(3)", "TIMESTAMP(9) WITHOUT TIME ZONE",
        "TIMESTAMP_LTZ(3)", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ",
        "BIGINT NOT NULL", "STRING NOT NULL", "ARRAY<INT NOT NULL>", "ARRAY<STRING> NOT NULL",
        "MAP<STRING, INT>", "MAP<INT NOT NULL, ARRAY<DOUBLE>>",
        "ROW<a INT, b STRING>", "ROW<`a b` INT NOT NULL, `c``d` ROW<x DATE>>",
        "ROW<a INT 'the ''a'' field', b STRING>", "ROW<>", "ROW(a INT, b BOOLEAN) NOT NULL"
    };

    public static void main(String[] args) {
        for (String t : TYPE_STRINGS) {
            LogicalType lt = LogicalTypeParser.parse(t, GoldenRows.class.getClassLoader());
            System.out.println("typestr " + t + " => " + lt.asSerializableString());
        }
        scalars("serializer");
        scalars("projection");
        nested();
        wide();
        nan();
        // keep the charset import honest for the multibyte literals above
        if (!"é".equals(new String("é".getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))) {
            throw new IllegalStateException("source encoding");
        }
        new ArrayList<>();
    }
}
