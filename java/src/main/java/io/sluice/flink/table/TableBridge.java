package io.sluice.flink.table;

import java.util.stream.Collectors;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.flink.keyed.RowConversions;

/**
 * Table ⇄ DataStream of internal {@code RowData}, shared by {@link SluiceCalc}
 * and {@link SluiceKeyed}.
 *
 * <p>An insert-only table goes through {@code toDataStream} as internal rows,
 * with every field typed nullable: a NOT NULL field would make the planner
 * put a ConstraintEnforcer (one more chained hop, one more row copy) in front
 * of the operator, a check stock Flink's own operators do not make on their
 * input either. {@code toDataStream} refuses an updating table (a changelog,
 * e.g. a GROUP BY result); that goes through {@code toChangelogStream} and a
 * chained {@code Row → RowData} map, RowKinds kept, and comes back through
 * {@link #fromChangelog}.
 */
final class TableBridge {
    private static final Logger LOG = LoggerFactory.getLogger(TableBridge.class);

    private TableBridge() {}

    /** The rows of a table as internal {@code RowData}, and which way they came. */
    static final class Input {
        /** The rows, in the table's physical row type. */
        final DataStream<RowData> rows;
        /** True: {@code toDataStream} (insert-only); false: the changelog bridge. */
        final boolean insertOnly;

        Input(DataStream<RowData> rows, boolean insertOnly) {
            this.rows = rows;
            this.insertOnly = insertOnly;
        }
    }

    /**
     * @param tEnv the table's environment
     * @param table insert-only or updating
     * @param name the consuming operator's name (for the log)
     * @return the table's rows as internal {@code RowData}
     */
    static Input rows(StreamTableEnvironment tEnv, Table table, String name) {
        DataType type = table.getResolvedSchema().toPhysicalRowDataType();
        RowType rowType = (RowType) type.getLogicalType();
        try {
            return new Input(tEnv.toDataStream(table,
                    TypeConversions.fromLogicalToDataType(nullableFields(rowType)).bridgedTo(RowData.class)), true);
        } catch (TableException updating) {
            LOG.debug("sluice: {} input is a changelog: {}", name, updating.getMessage());
        }
        DataStream<Row> changelog = tEnv.toChangelogStream(table);
        SingleOutputStreamOperator<RowData> internal = changelog
                .map(new RowConversions.ToInternal(type)).returns(InternalTypeInfo.of(rowType));
        if (changelog.getParallelism() > 0) {
            // chained to the conversion: rows keep their order up to the operator (or its keyed exchange)
            internal.setParallelism(changelog.getParallelism());
        }
        return new Input(internal, false);
    }

    /**
     * A changelog of internal rows back to a table ({@code RowData → Row}
     * map, then {@code fromChangelogStream}).
     *
     * @param tEnv the environment
     * @param rows the rows, RowKinds set
     * @param rowType their type
     * @return the table
     */
    static Table fromChangelog(StreamTableEnvironment tEnv, DataStream<RowData> rows, RowType rowType) {
        DataType type = TypeConversions.fromLogicalToDataType(rowType);
        DataStream<Row> external = rows.map(new RowConversions.ToExternal(type)).returns(ExternalTypeInfo.of(type));
        return tEnv.fromChangelogStream(external);
    }

    /** {@code type} with every field nullable (same physical layout). */
    static RowType nullableFields(RowType type) {
        return new RowType(true, type.getFields().stream()
                .map(f -> new RowType.RowField(f.getName(), f.getType().copy(true), f.getDescription().orElse(null)))
                .collect(Collectors.toList()));
    }
}
