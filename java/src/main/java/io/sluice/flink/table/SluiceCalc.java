package io.sluice.flink.table;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.calc.HandOffRowTypeInfo;
import io.sluice.flink.calc.SluiceCalcOperator;
import io.sluice.jni.CalcNative;
import io.sluice.jni.NativeLibrary;

/**
 * The Table / SQL entry point of the native Calc.
 *
 * <pre>{@code
 * Table out = SluiceCalc.select(tEnv, input,
 *         "MD5(name)", "SHA2(name, w) AS h", "CONCAT_WS('|', a, b, c)", "id");
 * }</pre>
 *
 * <p>Each expression is Flink SQL over the input's column names, restricted
 * to the functions libsluice evaluates: MD5, SHA1, SHA2 (literal or column
 * width), CONCAT, CONCAT_WS, POSITION(x IN s), LOCATE, {@code LIKE [ESCAPE]},
 * REPLACE, SPLIT_INDEX, bare columns and {@code AS} aliases. The result has
 * exactly the column names and types stock Flink gives
 * {@code SELECT <expressions> FROM input}: the same query is planned (not
 * run) to obtain them, and the native program is told to produce them.
 *
 * <p>An insert-only input goes through {@code toDataStream} with rows handed
 * over uncopied ({@link HandOffRowTypeInfo}); an updating one (a changelog,
 * e.g. a GROUP BY result) through {@code toChangelogStream} /
 * {@code fromChangelogStream}, each row keeping its RowKind as in stock
 * Flink's Calc.
 *
 * <p>Configuration (the table environment's config): {@link SluiceOptions#ENABLED},
 * {@link SluiceOptions#CALC_ENABLED} (off: the stock query is returned),
 * {@link SluiceOptions#BATCH_SIZE}, {@link SluiceOptions#BATCH_MAX_DELAY},
 * {@link SluiceOptions#CALC_UTF16_STRINGS}, {@link SluiceOptions#CALC_COLUMN_HANDOVER}, and
 * {@link SluiceOptions#FALLBACK}: when
 * libsluice cannot be loaded, true runs the stock query and logs the reason
 * once per JVM; false (default) throws the loader's exception.
 */
public final class SluiceCalc {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceCalc.class);
    private static final AtomicBoolean FALLBACK_LOGGED = new AtomicBoolean();
    private static final AtomicLong VIEWS = new AtomicLong();

    private SluiceCalc() {}

    /**
     * Projects {@code input} through the native Calc.
     *
     * @param tEnv the table environment {@code input} belongs to
     * @param input the table to project (insert-only or a changelog)
     * @param expressions one SQL expression per output column
     * @return the projected table, typed as stock Flink would type it
     */
    public static Table select(StreamTableEnvironment tEnv, Table input, String... expressions) {
        if (expressions.length == 0) {
            throw new IllegalArgumentException("SluiceCalc.select needs at least one expression");
        }
        String view = "sluice_calc_input_" + VIEWS.incrementAndGet();
        tEnv.createTemporaryView(view, input);
        Table stock = tEnv.sqlQuery("SELECT " + String.join(", ", expressions) + " FROM `" + view + "`");
        ReadableConfig conf = tEnv.getConfig();
        if (!conf.get(SluiceOptions.ENABLED) || !conf.get(SluiceOptions.CALC_ENABLED)) {
            return stock;
        }
        if (!NativeLibrary.isAvailable()) {
            if (conf.get(SluiceOptions.FALLBACK)) {
                if (FALLBACK_LOGGED.compareAndSet(false, true)) {
                    LOG.warn("sluice: native Calc unavailable, running stock Flink SQL instead ({}=true): {}",
                            SluiceOptions.FALLBACK.key(), NativeLibrary.unavailableReason());
                }
                return stock;
            }
            NativeLibrary.load(); // throws SluiceLoadException naming the platform and path
        }
        ResolvedSchema inSchema = input.getResolvedSchema();
        DataType inType = inSchema.toPhysicalRowDataType();
        RowType inRow = (RowType) inType.getLogicalType();
        RowType outRow = (RowType) stock.getResolvedSchema().toPhysicalRowDataType().getLogicalType();
        String[] outTypes = outRow.getChildren().stream().map(LogicalType::asSerializableString).toArray(String[]::new);
        // Compile once here so a bad expression fails at planning time, with the native message.
        try (CalcNative probe = new CalcNative(inRow.getFieldNames().toArray(new String[0]),
                inRow.getChildren().stream().map(LogicalType::asSerializableString).toArray(String[]::new),
                expressions, outTypes)) {
            // only validating
        }
        SluiceCalcOperator op = new SluiceCalcOperator(inRow, expressions, outTypes, conf.get(SluiceOptions.BATCH_SIZE),
                conf.get(SluiceOptions.BATCH_MAX_DELAY).toMillis(), conf.get(SluiceOptions.CALC_UTF16_STRINGS),
                conf.get(SluiceOptions.CALC_COLUMN_HANDOVER));
        String name = "SluiceCalc" + Arrays.toString(expressions);
        TableBridge.Input in = TableBridge.rows(tEnv, input, name);
        if (!in.insertOnly) {
            // Stock Flink's Calc passes every RowKind through; so does the operator.
            SingleOutputStreamOperator<RowData> projected = in.rows.transform(name, InternalTypeInfo.of(outRow), op);
            return TableBridge.fromChangelog(tEnv, projected, outRow);
        }
        DataStream<RowData> rows = in.rows;
        handOff(rows.getTransformation(), inRow);
        DataStream<RowData> projected = rows.transform(name, new HandOffRowTypeInfo(outRow), op);
        return tEnv.fromDataStream(projected);
    }

    /**
     * Types the edge into the Calc with {@link HandOffRowTypeInfo}, so the
     * chained hop hands each row over without Flink's defensive copy (the
     * Calc copies what it reads). Left as it is if the planner has already
     * used the edge's type (then Flink copies, as before).
     */
    private static void handOff(Transformation<RowData> edge, RowType type) {
        try {
            edge.setOutputType(new HandOffRowTypeInfo(type));
        } catch (IllegalStateException typeAlreadyUsed) {
            LOG.debug("sluice: the Calc's input edge keeps its copying type: {}", typeAlreadyUsed.getMessage());
        }
    }
}
