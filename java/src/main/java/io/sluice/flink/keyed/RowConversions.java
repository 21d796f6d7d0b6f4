package io.sluice.flink.keyed;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

/** Row ⇄ RowData maps (RowKind kept) at the Table / DataStream border. */
public final class RowConversions {
    private RowConversions() {}

    /**
     * A map through Flink's converter for one data type, one way: opened on first use (after
     * deserialization, in the task's class loader context).
     */
    abstract static class Converting<I, O> implements MapFunction<I, O> {
        private static final long serialVersionUID = 1L;
        private final DataType type;
        private final boolean toInternal;
        private transient DataStructureConverter<Object, Object> converter;

        Converting(DataType type, boolean toInternal) {
            this.type = type;
            this.toInternal = toInternal;
        }

        @Override
        @SuppressWarnings("unchecked")
        public final O map(I value) {
            if (converter == null) {
                converter = DataStructureConverters.getConverter(type);
                converter.open(RowConversions.class.getClassLoader());
            }
            return (O) (toInternal ? converter.toInternal(value) : converter.toExternal(value));
        }
    }

    /** {@code Row} → internal {@code RowData}. */
    public static final class ToInternal extends Converting<Row, RowData> {
        private static final long serialVersionUID = 1L;

        /** @param type the rows' physical data type */
        public ToInternal(DataType type) {
            super(type, true);
        }
    }

    /** Internal {@code RowData} → {@code Row}. */
    public static final class ToExternal extends Converting<RowData, Row> {
        private static final long serialVersionUID = 1L;

        /** @param type the rows' data type */
        public ToExternal(DataType type) {
            super(type, false);
        }
    }
}
