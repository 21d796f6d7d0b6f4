package io.sluice.flink.calc;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.writer.BinaryWriter;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.jni.Utf16Columns;

/**
 * Writes rows for the Calc's UTF-16 way: each row as
 * {@link RowDataSerializer#toBinaryRow} writes it, except that its CHAR /
 * VARCHAR fields are left NULL in the row and their values go, one
 * {@link String#getChars} copy each, into {@link #columns()} (native code
 * encodes them once, into Arrow). A lazy {@code BinaryStringData} hands over
 * the {@code String} it holds ({@code getJavaObject()}, no copy); a
 * materialised one is decoded with {@code toString()} (Flink caches it).
 * Not thread-safe; one per operator.
 */
public final class Utf16RowWriter {
    /** Per input field: its UTF-16 column index, or -1 (not CHAR / VARCHAR). */
    private final int[] column;
    private final LogicalType[] types;
    private final RowData.FieldGetter[] getters;
    private final TypeSerializer<?>[] serializers;
    private final Utf16Columns columns;
    private final BinaryRowData row;
    private final BinaryRowWriter writer;

    private Utf16RowWriter(int[] column, LogicalType[] types, int[] fields, int capacity) {
        int arity = types.length;
        this.column = column;
        this.types = types;
        getters = new RowData.FieldGetter[arity];
        serializers = new TypeSerializer<?>[arity];
        for (int i = 0; i < arity; i++) {
            getters[i] = RowData.createFieldGetter(types[i], i);
            serializers[i] = InternalSerializers.create(types[i]);
        }
        columns = new Utf16Columns(fields, capacity);
        row = new BinaryRowData(arity);
        writer = new BinaryRowWriter(row);
    }

    /**
     * @param type the rows' type
     * @param capacity expected rows per batch
     * @return a writer, or null when {@code type} has no top-level CHAR / VARCHAR field
     */
    public static Utf16RowWriter create(RowType type, int capacity) {
        LogicalType[] types = type.getChildren().toArray(new LogicalType[0]);
        int[] column = new int[types.length];
        int k = 0;
        for (int i = 0; i < types.length; i++) {
            LogicalTypeRoot root = types[i].getTypeRoot();
            column[i] = root == LogicalTypeRoot.CHAR || root == LogicalTypeRoot.VARCHAR ? k++ : -1;
        }
        if (k == 0) {
            return null;
        }
        int[] fields = new int[k];
        for (int i = 0; i < types.length; i++) {
            if (column[i] >= 0) {
                fields[column[i]] = i;
            }
        }
        return new Utf16RowWriter(column, types, fields, capacity);
    }

    /**
     * Writes {@code in} without its string fields and appends those to
     * {@link #columns()}.
     *
     * @param in the row
     * @return the written row (reused: copy it before the next call)
     */
    public BinaryRowData write(RowData in) {
        BinaryRowWriter w = writer;
        w.reset();
        w.writeRowKind(in.getRowKind());
        for (int i = 0; i < column.length; i++) {
            int c = column[i];
            if (in.isNullAt(i)) {
                w.setNullAt(i);
                if (c >= 0) {
                    columns.addNull(c);
                }
            } else if (c >= 0) {
                w.setNullAt(i);
                columns.add(c, javaString(in.getString(i)));
            } else {
                BinaryWriter.write(w, i, getters[i].getFieldOrNull(in), types[i], serializers[i]);
            }
        }
        w.complete();
        columns.endRow();
        return row;
    }

    /** @return the string columns of the rows written since the last {@link Utf16Columns#clear()} */
    public Utf16Columns columns() {
        return columns;
    }

    /**
     * @param s a string value
     * @return the {@code String} it holds, or its decoding
     */
    static String javaString(StringData s) {
        if (s instanceof BinaryStringData) {
            String j = ((BinaryStringData) s).getJavaObject();
            if (j != null) {
                return j;
            }
        }
        return s.toString();
    }
}
