package io.sluice.jni;

import java.util.List;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * Row types as the native keyed classes ({@link KeyedNative}, {@link JoinNative}) exchange them:
 * field names and {@link LogicalType#asSerializableString()} strings in, type strings out.
 */
final class RowTypes {
    private RowTypes() {}

    /** @return the field names of {@code type} */
    static String[] names(RowType type) {
        return type.getFieldNames().toArray(new String[0]);
    }

    /** @return the serializable type string of every field of {@code type} */
    static String[] types(RowType type) {
        List<RowType.RowField> fields = type.getFields();
        String[] out = new String[fields.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = fields.get(i).getType().asSerializableString();
        }
        return out;
    }

    /**
     * @param types type strings a native {@code outputTypes} returned
     * @param names the field names to give them (one per type)
     * @return the row type
     */
    static RowType parse(String[] types, List<String> names) {
        if (names.size() != types.length) {
            throw new IllegalArgumentException(types.length + " output fields, " + names.size() + " names given");
        }
        LogicalType[] t = new LogicalType[types.length];
        for (int i = 0; i < t.length; i++) {
            t[i] = LogicalTypeParser.parse(types[i], RowTypes.class.getClassLoader());
        }
        return RowType.of(t, names.toArray(new String[0]));
    }
}
