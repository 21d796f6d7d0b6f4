package io.sluice.flink.planner;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;

/**
 * The planner's cost rule: where a native node would be slower than Flink's, it is not
 * substituted.
 *
 * <p>A native node pays for every row it takes in and gives back: the entry transpose writes the
 * row into the native batch (a {@code BinaryRowData} copy, or Flink's serializer first for any
 * other row, which encodes a String-backed string to UTF-8) and the exit transpose builds the
 * output row (whose strings the next operator reads as UTF-8). For a fixed-width column that is 8
 * bytes; for a string it is the string's bytes, twice. Flink's own operator hands the row object
 * on by reference and its heap state keeps the reference. So a string column that a node carries
 * from its input to its output without computing on it (a <em>payload</em> column: not a key, a
 * sort key, a join key or condition column, nor a native function's own result) is pure cost, and
 * what pays for it is the native work the node does per row. The rule, per node:
 *
 * <pre>
 *   stock when  payload string columns  &gt;  {@code sluice.cost.payload-per-work} × native work units
 * </pre>
 *
 * <p>The work units per row ({@link Work}), counted in the payload string columns that work was
 * measured to pay for (benches/RESULTS.md, the Nexmark section and the Java benches):
 * <ul>
 *   <li>Calc: one per native function call every row needs (nested calls count each). When part
 *       of the WHERE stays on Flink, only the calls the WHERE reads count: Flink's generated Calc
 *       computes the projections only for the rows that pass, the native part for every row.
 *       Measured: Nexmark q22 (3 SPLIT_INDEX, 1 payload) wins 1.27x; q14 (REPLACE under a stock
 *       WHERE, 1 payload) lost 0.85x.</li>
 *   <li>ChangelogNormalize: 1 (a keyed state read and write per row).</li>
 *   <li>Deduplicate (keep-first, and keep-last by event time): 0. Measured: Nexmark q18 (rowtime
 *       keep-last, 3 payload) lost 0.70x; the plain-SQL bench ({@code KeyedSqlBenchmark}, 1
 *       payload, Flink 2.3.0) measured keep-first by processing time 0.89x
 *       and keep-last by event time 0.89x stock, for the reason given for keep-last by
 *       processing time below.</li>
 *   <li>Keep-last deduplication by processing time: 0. Flink's heap state keeps the row object,
 *       so its per-row work is a hash probe and a reference store; the native operator takes
 *       about a third less CPU per row than Flink's, but with a string payload column the
 *       plain-SQL bench ({@code KeyedSqlBenchmark}, 1 payload) measured 0.81-0.97x stock: a job
 *       whose producer (the source and its chained copies and Calc) is as busy as the stock
 *       deduplication gains nothing from a cheaper deduplication, and the batching costs it.
 *       With no string payload it stays native.</li>
 *   <li>Join: 3 (a state insert, a probe of the other side and the joined rows per row). Measured:
 *       the join bench (2 payload) wins 1.8-3x, q3 (3) 1.22x; q9 (4) and q20 (6) lost.</li>
 *   <li>Rank (Top-N): 3 (a sorted per-key buffer update per row). Measured: q19 (3) wins 1.20x;
 *       q9's Rank (4) lost with its join.</li>
 * </ul>
 * Nodes whose output is keys and aggregates (GroupAggregate, WindowAggregate) carry no payload;
 * the OVER aggregate is not costed (its measured gains are 3-4x, on rows without payload).
 * {@code sluice.cost.enabled=false} substitutes whatever the rule says (parity tests, measurements).
 */
public final class CostRule {
    private CostRule() {}

    /** The native work of a keyed node per row, in payload string columns it pays for. */
    public enum Work {
        /** Keep-first deduplication, and keep-last by event time (see the class comment). */
        DEDUPLICATE(0, "a keyed state read and write per row: measured slower than stock with one string payload "
                + "column"),
        /** Keep-last deduplication by processing time (see the class comment). */
        DEDUPLICATE_KEEP_LAST_PROCTIME(0, "a keyed state read and write per row, which Flink's heap state does by "
                + "reference: measured slower than stock with one string payload column"),
        /** Upsert normalization. */
        CHANGELOG_NORMALIZE(1, "a keyed state read and write per row"),
        /** The regular join. */
        JOIN(3, "a state insert, a probe of the other side and the joined rows per row"),
        /** A ROW_NUMBER Top-N. */
        RANK(3, "a sorted per-key buffer update per row"),
        /**
         * The lookup join: the lookup itself stays Flink's; what sluice does per row is collect the
         * joined row into columns and build it natively.
         */
        LOOKUP_JOIN(1, "the joined row built from columns per row");

        private final int units;
        private final String what;

        Work(int units, String what) {
            this.units = units;
            this.what = what;
        }
    }

    /**
     * @param row a node's input or output row type
     * @param computedOn the columns the node computes on, in groups (keys, sort keys, condition columns)
     * @return the names of the string columns of {@code row} in no group of {@code computedOn}: what
     *     the node would carry through its transposes unused
     */
    public static List<String> payload(RowType row, int[]... computedOn) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < row.getFieldCount(); i++) {
            if (isString(row.getTypeAt(i)) && !contains(computedOn, i)) {
                out.add(row.getFieldNames().get(i));
            }
        }
        return out;
    }

    /** @return whether values of {@code t} are variable-length bytes in a row (CHAR, VARCHAR, BINARY, VARBINARY) */
    public static boolean isString(LogicalType t) {
        return t.is(LogicalTypeFamily.CHARACTER_STRING) || t.is(LogicalTypeFamily.BINARY_STRING);
    }

    /**
     * @param ctx the plan (the {@code sluice.cost.*} options)
     * @param payload the payload string columns the node would carry
     * @param work the node's kind of work
     * @return why the node stays stock, or null if it may be native
     */
    public static String decline(PlanContext ctx, List<String> payload, Work work) {
        return decline(ctx, payload, work.units, work.units + " (" + work.what + ")");
    }

    /**
     * @param ctx the plan (the {@code sluice.cost.*} options)
     * @param payload the payload string columns the node would carry
     * @param units the node's native work units per row
     * @param work the work, as the reason names it (e.g. {@code "1 (native calls: REPLACE)"})
     * @return why the node stays stock, or null if it may be native
     */
    public static String decline(PlanContext ctx, List<String> payload, int units, String work) {
        if (!ctx.config().get(SluiceOptions.COST_ENABLED)) {
            return null;
        }
        double perWork = ctx.config().get(SluiceOptions.COST_PAYLOAD_PER_WORK);
        if (payload.size() <= perWork * units) {
            return null;
        }
        return String.format(Locale.ROOT, "cost: carries %d string payload column%s per row through the entry and "
                + "exit transposes (%s) with native work %s; %s=%s allows %s (%s=false substitutes anyway)",
                payload.size(), payload.size() == 1 ? "" : "s", String.join(", ", payload), work,
                SluiceOptions.COST_PAYLOAD_PER_WORK.key(), perWork, trim(perWork * units),
                SluiceOptions.COST_ENABLED.key());
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static boolean contains(int[][] groups, int v) {
        for (int[] g : groups) {
            for (int x : g) {
                if (x == v) {
                    return true;
                }
            }
        }
        return false;
    }
}
