package io.sluice.flink.keyed;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.writer.BinaryWriter;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

/**
 * The key of a row as Flink SQL keys it: a {@code BinaryRowData} of the key
 * columns written with {@link BinaryRowWriter} exactly like the planner's
 * generated projection inside {@code BinaryRowDataKeySelector}
 * ({@code ProjectionCodeGenerator}; NULLs as {@code CodeGenUtils.binaryWriterWriteNull}:
 * non-compact DECIMAL / TIMESTAMP reserve their variable part). Its
 * {@code hashCode()} therefore gives the key group Flink's keyBy routes by,
 * which is the key group the native operator files the key's state under.
 */
public final class KeyProjection implements KeySelector<RowData, RowData>, ResultTypeQueryable<RowData> {
    private static final long serialVersionUID = 1L;

    private final int[] columns;
    private final LogicalType[] types;
    private final RowType keyType;
    private transient BinaryRowData key;
    private transient BinaryRowWriter writer;
    private transient RowData.FieldGetter[] getters;
    private transient TypeSerializer<?>[] serializers;
    /** Per key column: {@link #nullPrecision(LogicalType)}. */
    private transient int[] nullPrecision;

    /**
     * @param inputType the rows' type
     * @param columns key column indices
     */
    public KeyProjection(RowType inputType, int[] columns) {
        this.columns = columns.clone();
        this.types = new LogicalType[columns.length];
        String[] names = new String[columns.length];
        for (int i = 0; i < columns.length; i++) {
            types[i] = inputType.getTypeAt(columns[i]);
            names[i] = inputType.getFieldNames().get(columns[i]);
        }
        this.keyType = RowType.of(types, names);
    }

    /** @return the key row type */
    public RowType keyType() {
        return keyType;
    }

    @Override
    public RowData getKey(RowData row) {
        return project(row).copy();
    }

    /**
     * @param row an input row
     * @return the key, in a buffer reused by the next call
     */
    public BinaryRowData project(RowData row) {
        if (writer == null) {
            key = new BinaryRowData(columns.length);
            writer = new BinaryRowWriter(key);
            getters = new RowData.FieldGetter[columns.length];
            serializers = new TypeSerializer<?>[columns.length];
            nullPrecision = new int[columns.length];
            for (int i = 0; i < columns.length; i++) {
                getters[i] = RowData.createFieldGetter(types[i], columns[i]);
                serializers[i] = InternalSerializers.create(types[i]);
                nullPrecision[i] = nullPrecision(types[i]);
            }
        }
        writer.reset();
        for (int i = 0; i < columns.length; i++) {
            if (row.isNullAt(columns[i])) {
                writeNull(i);
            } else {
                BinaryWriter.write(writer, i, getters[i].getFieldOrNull(row), types[i], serializers[i]);
            }
        }
        writer.complete();
        return key;
    }

    private void writeNull(int i) {
        int p = nullPrecision[i];
        if (p < 0) {
            writer.setNullAt(i);
        } else if (types[i].getTypeRoot() == LogicalTypeRoot.DECIMAL) {
            writer.writeDecimal(i, null, p);
        } else {
            writer.writeTimestamp(i, null, p);
        }
    }

    /**
     * @return the precision of a non-compact DECIMAL or TIMESTAMP (its NULL reserves the variable
     *     part, as {@code CodeGenUtils.binaryWriterWriteNull} writes it), else -1 (a plain NULL bit)
     */
    private static int nullPrecision(LogicalType t) {
        switch (t.getTypeRoot()) {
            case DECIMAL: {
                int p = LogicalTypeChecks.getPrecision(t);
                return DecimalData.isCompact(p) ? -1 : p;
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int p = LogicalTypeChecks.getPrecision(t);
                return TimestampData.isCompact(p) ? -1 : p;
            }
            default:
                return -1;
        }
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return InternalTypeInfo.of(keyType);
    }
}
