package io.sluice.flink.nexmark;

import java.time.LocalDate;
import java.time.LocalTime;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * The running multiset digest of a changelog (see {@link NexmarkRun.Digest}): the client side
 * ({@link NexmarkRun}, over collected {@link Row}s) and the in-job sink
 * ({@link NexmarkDigestSinkFactory}, over {@link RowData}) both fold rows into one of these, so
 * the two hash the same text the same way.
 *
 * <p>A row's text is its fields' text, each followed by {@code \u0001}; a field's text is the
 * {@code toString()} of its external value ({@code Long}, {@code String}, {@code LocalDateTime},
 * {@code BigDecimal}, ...; {@code null} as {@code "null"}). {@link #rowText(RowData, Field[])}
 * computes the same text from the internal value by the column's logical type, never by the
 * {@code RowData} implementation, so a stock plan's {@code BinaryRowData} and an installed plan's
 * rows give equal text.
 */
final class NexmarkDigest {
    private long rows;
    private long h1;
    private long h2;
    private long changes;

    /** Folds in one change: +I/+U add the row, -U/-D subtract it. */
    void add(RowKind kind, String text) {
        long sign = kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER ? 1 : -1;
        rows += sign;
        h1 += sign * fnv(text);
        h2 += sign * mix(text.hashCode() * 0x9E3779B97F4A7C15L + text.length());
        changes++;
    }

    /** Adds another digest's changes (a sum, so the merge of parallel subtasks is order-free). */
    void merge(NexmarkDigest o) {
        rows += o.rows;
        h1 += o.h1;
        h2 += o.h2;
        changes += o.changes;
    }

    NexmarkRun.Digest digest() {
        return new NexmarkRun.Digest(rows, h1, h2, changes);
    }

    /** The fields of a collected row as one string (RowKind excluded: {@link #add} applies it). */
    static String rowText(Row r) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < r.getArity(); i++) {
            sb.append(r.getField(i)).append('\u0001');
        }
        return sb.toString();
    }

    /** The same text as {@link #rowText(Row)} from an internal row, field by field. */
    static String rowText(RowData r, Field[] fields) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < fields.length; i++) {
            sb.append(fields[i].text(r)).append('\u0001');
        }
        return sb.toString();
    }

    /** One getter per column of {@code type}, each giving its external value's text. */
    static Field[] fields(RowType type) {
        Field[] out = new Field[type.getFieldCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = field(type.getTypeAt(i), i);
        }
        return out;
    }

    /** A column's text from an internal row. */
    @FunctionalInterface
    interface Field extends java.io.Serializable {
        String text(RowData row);
    }

    private static Field field(LogicalType t, int i) {
        RowData.FieldGetter g = RowData.createFieldGetter(t, i);
        switch (t.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return r -> text(g.getFieldOrNull(r), v -> ((StringData) v).toString());
            case DECIMAL:
                return r -> text(g.getFieldOrNull(r), v -> ((DecimalData) v).toBigDecimal().toString());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return r -> text(g.getFieldOrNull(r), v -> ((TimestampData) v).toLocalDateTime().toString());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return r -> text(g.getFieldOrNull(r), v -> ((TimestampData) v).toInstant().toString());
            case DATE:
                return r -> text(g.getFieldOrNull(r), v -> LocalDate.ofEpochDay((Integer) v).toString());
            case TIME_WITHOUT_TIME_ZONE:
                return r -> text(g.getFieldOrNull(r), v -> LocalTime.ofNanoOfDay((Integer) v * 1_000_000L).toString());
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
                return r -> String.valueOf(g.getFieldOrNull(r));
            default:
                throw new UnsupportedOperationException("the Nexmark digest has no text for " + t
                        + " (add its external value's toString here)");
        }
    }

    private interface Text extends java.io.Serializable {
        String of(Object v);
    }

    private static String text(Object v, Text f) {
        return v == null ? "null" : f.of(v);
    }

    private static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h = (h ^ s.charAt(i)) * 0x100000001b3L;
        }
        return mix(h);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
