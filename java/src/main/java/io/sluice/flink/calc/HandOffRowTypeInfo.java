package io.sluice.flink.calc;

import java.util.Objects;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.DataTypeQueryable;
import org.apache.flink.table.types.logical.RowType;

/**
 * The type of the two stream edges that touch {@link SluiceCalcOperator} in
 * {@code SluiceCalc.select}: internal {@code RowData} of a row type, like
 * {@code InternalTypeInfo}, whose serializer does not copy a record handed
 * from one chained operator to the next.
 *
 * <p>Why: with object reuse off (Flink's default) every chained hop copies
 * the record with the edge's serializer ({@code CopyingChainingOutput}), so
 * each string would be copied once more on its way into the native Calc,
 * against the one-copy rule. The copy protects a downstream operator that
 * keeps a reference to its input; neither side of these edges does:
 * <ul>
 *   <li>into the Calc: {@link SluiceCalcOperator#processElement} copies the
 *       fields it reads (column handover) or the whole row (gather) before
 *       it returns and keeps no reference to the input row;</li>
 *   <li>out of the Calc: the consumer is the planner's input conversion of
 *       {@code fromDataStream}, which converts (identity for internal
 *       {@code RowData}) and forwards at once; its own output edge copies as
 *       usual, so nothing past it sees the Calc's reused row object.</li>
 * </ul>
 * Serialization (a network edge, when the hop is not chained) is
 * {@link RowDataSerializer}'s, unchanged. {@link DataTypeQueryable} lets the
 * planner read the row type, as it does from {@code InternalTypeInfo}.
 */
public final class HandOffRowTypeInfo extends TypeInformation<RowData> implements DataTypeQueryable {
    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final InternalTypeInfo<RowData> internal;

    /** @param rowType the rows' type */
    public HandOffRowTypeInfo(RowType rowType) {
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.internal = InternalTypeInfo.of(rowType);
    }

    /** @return the rows' type */
    public RowType rowType() {
        return rowType;
    }

    @Override
    public DataType getDataType() {
        return internal.getDataType();
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<RowData> getTypeClass() {
        return RowData.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    /**
     * The serializer (Flink 2.x calls this one; Flink 1.20 calls it through the
     * deprecated {@link #createSerializer(ExecutionConfig)} as well).
     *
     * @param config ignored: the serializer depends only on the row type
     * @return a {@link RowDataSerializer} whose copies return their input
     */
    public TypeSerializer<RowData> createSerializer(SerializerConfig config) {
        return new HandOffSerializer(rowType);
    }

    /**
     * The serializer on Flink 1.20, where this overload is the abstract one.
     *
     * @param config ignored
     * @return as {@link #createSerializer(SerializerConfig)}
     */
    @Deprecated
    public TypeSerializer<RowData> createSerializer(ExecutionConfig config) {
        return new HandOffSerializer(rowType);
    }

    @Override
    public String toString() {
        return "HandOffRowTypeInfo(" + rowType.asSummaryString() + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HandOffRowTypeInfo && ((HandOffRowTypeInfo) o).rowType.equals(rowType);
    }

    @Override
    public int hashCode() {
        return rowType.hashCode() * 31 + 7;
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof HandOffRowTypeInfo;
    }

    /** {@link RowDataSerializer} without the chained hop's defensive copy. */
    static final class HandOffSerializer extends RowDataSerializer {
        private static final long serialVersionUID = 1L;
        private final RowType rowType;

        HandOffSerializer(RowType rowType) {
            super(rowType);
            this.rowType = rowType;
        }

        /** Returns {@code from}: the receiving operator keeps no reference (class comment). */
        @Override
        public RowData copy(RowData from) {
            return from;
        }

        /** Returns {@code from}: the receiving operator keeps no reference (class comment). */
        @Override
        public RowData copy(RowData from, RowData reuse) {
            return from;
        }

        @Override
        public TypeSerializer<RowData> duplicate() {
            return new HandOffSerializer(rowType);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof HandOffSerializer && ((HandOffSerializer) o).rowType.equals(rowType);
        }

        @Override
        public int hashCode() {
            return rowType.hashCode() * 31 + 11;
        }
    }
}
