package io.sluice.flink.table;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import io.sluice.flink.Sluice;
import io.sluice.flink.SluiceOptions;

/**
 * A shorthand for a projection through sluice's planner stage:
 *
 * <pre>{@code
 * Table out = SluiceCalc.select(tEnv, input,
 *         "MD5(name)", "SHA2(name, w) AS h", "CONCAT_WS('|', a, b, c)", "id");
 * }</pre>
 *
 * is {@code Sluice.install(tEnv)} and {@code SELECT <expressions> FROM input}: the query is plain
 * Flink SQL (any expression Flink accepts), typed exactly as stock Flink types it, and the stage
 * runs its native parts in a native Calc directly in the job graph (no Table / DataStream round
 * trip), splitting it where some expressions are not native ({@code io.sluice.flink.planner}).
 * Installing affects every query planned in {@code tEnv} from then on; the options
 * ({@link SluiceOptions#ENABLED}, {@link SluiceOptions#OPERATOR_CALC_ENABLED},
 * {@code sluice.function.<NAME>.enabled}, {@link SluiceOptions#FALLBACK}, the batch options) are
 * read when a query is planned.
 */
public final class SluiceCalc {
    private static final AtomicLong VIEWS = new AtomicLong();

    private SluiceCalc() {}

    /**
     * Projects {@code input} through sluice's planner stage.
     *
     * @param tEnv the table environment {@code input} belongs to (the stage is installed there)
     * @param input the table to project (insert-only or a changelog)
     * @param expressions one SQL expression per output column
     * @return the projected table, typed as stock Flink types it
     */
    public static Table select(StreamTableEnvironment tEnv, Table input, String... expressions) {
        if (expressions.length == 0) {
            throw new IllegalArgumentException("SluiceCalc.select needs at least one expression");
        }
        Sluice.install(tEnv);
        String view = "sluice_calc_input_" + VIEWS.incrementAndGet();
        tEnv.createTemporaryView(view, input);
        return tEnv.sqlQuery("SELECT " + String.join(", ", expressions) + " FROM `" + view + "`");
    }
}
