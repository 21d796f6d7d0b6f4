package io.sluice.flink.calc;

import java.util.SplittableRandom;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Seeded test rows {@code (id BIGINT NOT NULL, a STRING, b STRING, c STRING, w INT)}:
 * row {@code i} is a pure function of {@code i}, so every parallel source
 * subtask and every job sees the same data. Strings mix ASCII, Latin-1, 2-
 * and 3-byte characters, supplementary characters (surrogate pairs) and
 * lone surrogates (which Flink's encoder turns into '?'); about 10% of each
 * nullable field is NULL. {@code b} is often a substring of {@code a} (so
 * searches hit); {@code w} is a SHA2 width: 224/256/384/512, 1 (SHA-1 in
 * Flink), NULL, or an invalid width only on rows where {@code a} is NULL
 * (stock Flink fails on an invalid width meeting a non-NULL input).
 */
public final class CalcData {
    private CalcData() {}

    /** The row type. */
    public static final RowType TYPE = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE, VarCharType.STRING_TYPE,
                VarCharType.STRING_TYPE, new IntType()},
            new String[] {"id", "a", "b", "c", "w"});

    private static final String[] PIECES = {
        "a", "b", "x", "ab", ",", "-", "|", " ", "é", "ü", "ж", "ба", "中", "文字", "😀", "𝄞",
        "\uD800", "\uDC00z", "%", "_", "hello", "XY"
    };

    /** @return row {@code i} with Java-String-backed (lazy) strings */
    public static GenericRowData row(long i) {
        SplittableRandom r = new SplittableRandom(0x5EED_CA1CL ^ (i * 0x9E3779B97F4A7C15L));
        String a = r.nextInt(10) == 0 ? null : text(r, r.nextInt(40));
        String b;
        if (r.nextInt(10) == 0) {
            b = null;
        } else if (a != null && !a.isEmpty() && r.nextBoolean()) {
            int s = r.nextInt(a.length());
            b = a.substring(s, s + r.nextInt(Math.min(4, a.length() - s) + 1));
        } else {
            b = text(r, r.nextInt(6));
        }
        String c = r.nextInt(10) == 0 ? null : text(r, r.nextInt(12));
        Integer w;
        int k = r.nextInt(14);
        if (k < 8) {
            w = new int[] {224, 256, 384, 512}[k % 4];
        } else if (k < 10) {
            w = 1;
        } else if (k < 12 || a != null) {
            w = null;
        } else {
            w = new int[] {0, -1, 160, 7}[r.nextInt(4)];
        }
        return GenericRowData.of(i, str(a), str(b), str(c), w);
    }

    private static StringData str(String s) {
        return s == null ? null : StringData.fromString(s);
    }

    private static String text(SplittableRandom r, int pieces) {
        StringBuilder sb = new StringBuilder();
        boolean ascii = r.nextInt(3) == 0;
        for (int j = 0; j < pieces; j++) {
            sb.append(ascii ? PIECES[r.nextInt(8)] : PIECES[r.nextInt(PIECES.length)]);
        }
        return sb.toString();
    }

    /**
     * @param env the environment
     * @param rows how many rows
     * @return a parallel source of rows {@code 0 .. rows-1}
     */
    public static DataStream<RowData> source(StreamExecutionEnvironment env, long rows) {
        GeneratorFunction<Long, RowData> gen = CalcData::row;
        DataGeneratorSource<RowData> src = new DataGeneratorSource<>(gen, rows, InternalTypeInfo.of(TYPE));
        return env.fromSource(src, WatermarkStrategy.noWatermarks(), "calc-data");
    }

    /**
     * As {@link #source}, each row already a {@code BinaryRowData} (as rows
     * arrive from a network exchange or a format), so the Calc takes its
     * column handover.
     *
     * @param env the environment
     * @param rows how many rows
     * @return a parallel source of binary rows {@code 0 .. rows-1}
     */
    public static DataStream<RowData> binarySource(StreamExecutionEnvironment env, long rows) {
        GeneratorFunction<Long, RowData> gen = i -> new RowDataSerializer(TYPE).toBinaryRow(row(i)).copy();
        DataGeneratorSource<RowData> src = new DataGeneratorSource<>(gen, rows, InternalTypeInfo.of(TYPE));
        return env.fromSource(src, WatermarkStrategy.noWatermarks(), "calc-data-binary");
    }
}
