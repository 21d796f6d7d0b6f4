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

    /** {@code Row} → internal {@code RowData}. */
    public static final class ToInternal implements MapFunction<Row, RowData> {
        private static final long serialVersionUID = 1L;
        private final DataType type;
        private transient DataStructureConverter<Object, Object> converter;

        /** @param type the rows' physical data type */
        public ToInternal(DataType type) {
            this.type = type;
        }

        @Override
        public RowData map(Row row) {
            if (converter == null) {
                converter = DataStructureConverters.getConverter(type);
                converter.open(RowConversions.class.getClassLoader());
            }
            return (RowData) converter.toInternal(row);
        }
    }

    /** Internal {@code RowData} → {@code Row}. */
    public static final class ToExternal implements MapFunction<RowData, Row> {
        private static final long serialVersionUID = 1L;
        private final DataType type;
        private transient DataStructureConverter<Object, Object> converter;

        /** @param type the rows' data type */
        public ToExternal(DataType type) {
            this.type = type;
        }

        @Override
        public Row map(RowData row) {
            if (converter == null) {
                converter = DataStructureConverters.getConverter(type);
                converter.open(RowConversions.class.getClassLoader());
            }
            return (Row) converter.toExternal(row);
        }
    }
}
