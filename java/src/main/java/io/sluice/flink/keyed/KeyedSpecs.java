package io.sluice.flink.keyed;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.table.types.logical.RowType;

/**
 * Native operator specs (engine/src/keyed/spec/mod.rs) from SQL-like aggregate
 * calls and column names.
 */
public final class KeyedSpecs {
    private KeyedSpecs() {}

    private static final Pattern CALL = Pattern.compile("\\s*([A-Za-z_]+)\\s*\\(\\s*(\\*|[^)\\s]+)\\s*\\)\\s*");

    /**
     * @param type input row type
     * @param names column names
     * @return their indices
     */
    public static int[] indices(RowType type, List<String> names) {
        int[] out = new int[names.size()];
        for (int i = 0; i < out.length; i++) {
            int j = type.getFieldNames().indexOf(names.get(i));
            if (j < 0) {
                throw new IllegalArgumentException("no column `" + names.get(i) + "` in " + type);
            }
            out[i] = j;
        }
        return out;
    }

    /**
     * @param cols column indices
     * @return them as a spec writes them, {@code 0,2,3} (empty for none)
     */
    public static String list(int[] cols) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cols.length; i++) {
            b.append(i == 0 ? "" : ",").append(cols[i]);
        }
        return b.toString();
    }

    /**
     * @param type input type
     * @param keys key columns
     * @param aggs calls such as {@code COUNT(*)}, {@code SUM(v)}, {@code MIN(s)},
     *     {@code AVG(v)}, {@code FIRST_VALUE(s)}, {@code LAST_VALUE(s)}
     * @return {@code group_agg keys=.. aggs=..}
     */
    public static String groupAgg(RowType type, int[] keys, List<String> aggs) {
        List<String> parts = new ArrayList<>();
        for (String a : aggs) {
            Matcher m = CALL.matcher(a);
            if (!m.matches()) {
                throw new IllegalArgumentException("not an aggregate call: `" + a + "`");
            }
            String fn = m.group(1).toLowerCase(Locale.ROOT);
            String arg = m.group(2);
            if (arg.equals("*")) {
                parts.add(fn + "(*)");
            } else {
                parts.add(fn + "(" + indices(type, List.of(arg))[0] + ")");
            }
        }
        return "group_agg keys=" + list(keys) + " aggs=" + String.join(",", parts);
    }

    /**
     * The dedup of {@code ROW_NUMBER() OVER (PARTITION BY keys ORDER BY proctime ASC|DESC) = 1}.
     *
     * @param keys PARTITION BY columns
     * @param keepLast keep the last row (else the first), by arrival order
     * @return {@code dedup keys=.. keep=..}
     */
    public static String dedup(int[] keys, boolean keepLast) {
        return "dedup keys=" + list(keys) + " keep=" + (keepLast ? "last" : "first");
    }

    /**
     * @param keys primary key columns
     * @return {@code normalize keys=..}
     */
    public static String normalize(int[] keys) {
        return "normalize keys=" + list(keys);
    }
}
