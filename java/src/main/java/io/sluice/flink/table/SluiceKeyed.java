package io.sluice.flink.table;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.keyed.KeyedStreams;
import io.sluice.jni.NativeLibrary;
import io.sluice.jni.SluiceException;

/**
 * Table entry of the native keyed operators: GROUP BY, keep-first /
 * keep-last dedup and changelog normalize, from a {@link Table} to a
 * {@link Table} with the columns and changelog stock Flink SQL gives.
 *
 * <p>With the library unavailable and {@code sluice.fallback=true}, the same
 * query runs on Flink's own operators (logged once); with fallback off the
 * load error is thrown.
 */
public final class SluiceKeyed {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceKeyed.class);
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();

    private SluiceKeyed() {}

    /**
     * {@code SELECT keys, aggs FROM table GROUP BY keys}.
     *
     * @param tEnv environment
     * @param table input (insert-only or a changelog)
     * @param keys GROUP BY columns
     * @param aggs calls: COUNT(*), COUNT(c), SUM(c), MIN(c), MAX(c), AVG(c), FIRST_VALUE(c), LAST_VALUE(c)
     * @return keys then one column per call ({@code EXPR$i}, as Flink names them)
     */
    public static Table groupBy(StreamTableEnvironment tEnv, Table table, List<String> keys, List<String> aggs) {
        List<String> names = new ArrayList<>(keys);
        for (int i = 0; i < aggs.size(); i++) {
            names.add("EXPR$" + (keys.size() + i));
        }
        Supplier<Table> stock = () -> tEnv.sqlQuery("SELECT " + cols(keys) + ", " + String.join(", ", aggs)
                + " FROM " + table + " GROUP BY " + cols(keys));
        if (!useNative(tEnv, SluiceOptions.GROUP_AGG_ENABLED)) {
            return stock.get();
        }
        RowType in = rowType(table);
        int[] k = KeyedSpecs.indices(in, keys);
        return run(tEnv, table, k, KeyedSpecs.groupAgg(in, k, aggs), names, "SluiceGroupAggregate", stock);
    }

    /**
     * {@code ROW_NUMBER() OVER (PARTITION BY keys ORDER BY PROCTIME() ASC|DESC) = 1}.
     *
     * @param tEnv environment
     * @param table insert-only input
     * @param keys PARTITION BY columns
     * @param keepLast keep the last row per key (else the first)
     * @return the input's columns
     */
    public static Table deduplicate(StreamTableEnvironment tEnv, Table table, List<String> keys, boolean keepLast) {
        List<String> all = table.getResolvedSchema().getColumnNames();
        Supplier<Table> stock = () -> tEnv.sqlQuery("SELECT " + cols(all)
                + " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY " + cols(keys) + " ORDER BY sluice_pt "
                + (keepLast ? "DESC" : "ASC") + ") AS sluice_rn FROM (SELECT *, PROCTIME() AS sluice_pt FROM " + table
                + ")) WHERE sluice_rn = 1");
        if (!useNative(tEnv, SluiceOptions.DEDUP_ENABLED)) {
            return stock.get();
        }
        RowType in = rowType(table);
        int[] k = KeyedSpecs.indices(in, keys);
        return run(tEnv, table, k, KeyedSpecs.dedup(k, keepLast), all, "SluiceDeduplicate", stock);
    }

    /**
     * Changelog normalize of an upsert table (+I / +U / -D by primary key)
     * into the full changelog (-U before +U, no duplicate updates), as
     * Flink's ChangelogNormalize.
     *
     * @param tEnv environment
     * @param table upsert changelog
     * @param keys primary key columns
     * @return the input's columns, full changelog
     */
    public static Table normalize(StreamTableEnvironment tEnv, Table table, List<String> keys) {
        List<String> all = table.getResolvedSchema().getColumnNames();
        Supplier<Table> stock = () -> {
            Schema.Builder b = Schema.newBuilder();
            for (Column c : table.getResolvedSchema().getColumns()) {
                DataType t = c.getDataType();
                b.column(c.getName(), keys.contains(c.getName()) ? t.notNull() : t);
            }
            Schema schema = b.primaryKey(keys).build();
            DataStream<Row> upsert = tEnv.toChangelogStream(table, Schema.newBuilder()
                    .fromResolvedSchema(table.getResolvedSchema()).build(), ChangelogMode.upsert());
            return tEnv.fromChangelogStream(upsert, schema, ChangelogMode.upsert());
        };
        if (!useNative(tEnv, SluiceOptions.NORMALIZE_ENABLED)) {
            return stock.get();
        }
        RowType in = rowType(table);
        int[] k = KeyedSpecs.indices(in, keys);
        return run(tEnv, table, k, KeyedSpecs.normalize(k), all, "SluiceChangelogNormalize", stock);
    }

    private static Table run(StreamTableEnvironment tEnv, Table table, int[] keys, String spec, List<String> names,
            String name, Supplier<Table> stock) {
        DataType inType = table.getResolvedSchema().toPhysicalRowDataType();
        RowType in = (RowType) inType.getLogicalType();
        RowType out;
        try {
            out = KeyedStreams.outputType(spec, in, names);
        } catch (SluiceException e) {
            // e.g. an aggregate over a type the native operator does not carry
            if (!tEnv.getConfig().get(SluiceOptions.FALLBACK)) {
                throw e;
            }
            LOG.info("sluice: {} runs on Flink's operators: {}", name, e.getMessage());
            return stock.get();
        }
        DataStream<RowData> rows = TableBridge.rows(tEnv, table, name).rows;
        DataStream<RowData> result = KeyedStreams.apply(rows, in, keys, spec, out, tEnv.getConfig(), name);
        return TableBridge.fromChangelog(tEnv, result, out);
    }

    private static RowType rowType(Table table) {
        return (RowType) table.getResolvedSchema().toPhysicalRowDataType().getLogicalType();
    }

    private static String cols(List<String> names) {
        List<String> q = new ArrayList<>();
        for (String n : names) {
            q.add("`" + n.replace("`", "``") + "`");
        }
        return String.join(", ", q);
    }

    /**
     * @return whether the native operator runs; throws when the library is
     *     missing and fallback is off
     */
    static boolean useNative(StreamTableEnvironment tEnv, ConfigOption<Boolean> operator) {
        ReadableConfig c = tEnv.getConfig();
        if (!c.get(SluiceOptions.ENABLED) || !c.get(operator)) {
            return false;
        }
        if (NativeLibrary.isAvailable()) {
            return true;
        }
        if (c.get(SluiceOptions.FALLBACK)) {
            if (FALLBACK_LOGGED.compareAndSet(false, true)) {
                LOG.warn("sluice: native library unavailable ({}); running Flink's own operators",
                        NativeLibrary.unavailableReason());
            }
            return false;
        }
        NativeLibrary.load();
        return true;
    }
}
