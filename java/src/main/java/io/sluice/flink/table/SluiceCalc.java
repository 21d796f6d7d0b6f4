package io.sluice.flink.table;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.calc.HandOffRowTypeInfo;
import io.sluice.flink.calc.SluiceCalcOperator;
import io.sluice.flink.keyed.RowConversions;
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
 * {@link SluiceOptions#BATCH_SIZE}, {@link SluiceOptions#BATCH_MAX_DELAY}, and {@link SluiceOptions#FALLBACK}: when
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
                conf.get(SluiceOptions.BATCH_MAX_DELAY).toMillis(), conf.get(SluiceOptions.CALC_UTF16_STRINGS));
        String name = "SluiceCalc" + Arrays.toString(expressions);
        DataStream<RowData> rows;
        try {
            // All fields nullable: a NOT NULL field would make the planner put a
            // ConstraintEnforcer (one more chained hop, one more row copy) in front
            // of the Calc, a check stock Flink's own Calc does not make either.
            rows = tEnv.toDataStream(input,
                    TypeConversions.fromLogicalToDataType(nullableFields(inRow)).bridgedTo(RowData.class));
        } catch (TableException updating) {
            // toDataStream takes insert-only tables; an updating one (e.g. a GROUP
            // BY result) goes through the changelog bridge, RowKinds kept.
            LOG.debug("sluice: Calc input is a changelog: {}", updating.getMessage());
            return changelog(tEnv, input, inType, op, name, TypeConversions.fromLogicalToDataType(outRow));
        }
        handOff(rows.getTransformation(), inRow);
        DataStream<RowData> projected = rows.transform(name, new HandOffRowTypeInfo(outRow), op);
        return tEnv.fromDataStream(projected);
    }

    /**
     * The Calc over an updating table: {@code toChangelogStream} (external
     * {@code Row}s, converted to internal rows in a chained map), the operator,
     * and back through {@code fromChangelogStream}. Every RowKind passes
     * through unchanged, as stock Flink's Calc passes it. The two conversions
     * cost more than the insert-only path's bridge, which stays the default.
     */
    private static Table changelog(StreamTableEnvironment tEnv, Table input, DataType inType, SluiceCalcOperator op,
            String name, DataType outType) {
        RowType inRow = (RowType) inType.getLogicalType();
        DataStream<Row> changelog = tEnv.toChangelogStream(input);
        SingleOutputStreamOperator<RowData> rows = changelog.map(new RowConversions.ToInternal(inType))
                .returns(InternalTypeInfo.of(inRow));
        if (changelog.getParallelism() > 0) {
            rows.setParallelism(changelog.getParallelism()); // chained: order kept
        }
        RowType outRow = (RowType) outType.getLogicalType();
        SingleOutputStreamOperator<RowData> projected = rows.transform(name, InternalTypeInfo.of(outRow), op);
        DataStream<Row> external = projected.map(new RowConversions.ToExternal(outType))
                .returns(ExternalTypeInfo.of(outType));
        return tEnv.fromChangelogStream(external);
    }

    /**
     * Types the edge into the Calc with {@link HandOffRowTypeInfo}, so the
     * chained hop hands each row over without Flink's defensive copy (the
     * Calc copies what it reads). Left as it is if the planner has already
     * used the edge's type (then Flink copies, as before).
     */
    @SuppressWarnings("unchecked")
    private static void handOff(Transformation<RowData> edge, RowType type) {
        try {
            edge.setOutputType(new HandOffRowTypeInfo(type));
        } catch (IllegalStateException typeAlreadyUsed) {
            LOG.debug("sluice: the Calc's input edge keeps its copying type: {}", typeAlreadyUsed.getMessage());
        }
    }

    /** {@code type} with every field nullable (same physical layout). */
    static RowType nullableFields(RowType type) {
        return new RowType(true, type.getFields().stream()
                .map(f -> new RowType.RowField(f.getName(), f.getType().copy(true), f.getDescription().orElse(null)))
                .collect(Collectors.toList()));
    }
}
