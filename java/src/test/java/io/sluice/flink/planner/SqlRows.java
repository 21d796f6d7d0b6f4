package io.sluice.flink.planner;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

/**
 * What the planner parity tests' seeded row generators ({@link KeyedSqlData}, {@link OverSqlData},
 * {@link WindowPlannerParityTest}) share: the draws of a column value (a key over a fixed number of
 * keys plus NULL, values with a chance of NULL, BIGINT near the limits, strings with multi-byte
 * and supplementary characters) and the table of rows {@code 0..n}. Each generator keeps its own
 * seed and odds, so its rows stay what they were.
 */
final class SqlRows {
    private SqlRows() {}

    /** Key and string prefixes: ASCII, Cyrillic, CJK, supplementary characters, empty, accented, a space. */
    static final String[] PREFIXES = {"k", "ключ", "鍵", "😀𝄞", "", "é", "a b"};

    /** @return {@code (id INT NOT NULL, k STRING, v BIGINT, d DOUBLE, s STRING, i INT, ts)} */
    static DataType withTime(DataType ts) {
        return DataTypes.ROW(
                DataTypes.FIELD("id", DataTypes.INT().notNull()),
                DataTypes.FIELD("k", DataTypes.STRING()),
                DataTypes.FIELD("v", DataTypes.BIGINT()),
                DataTypes.FIELD("d", DataTypes.DOUBLE()),
                DataTypes.FIELD("s", DataTypes.STRING()),
                DataTypes.FIELD("i", DataTypes.INT()),
                DataTypes.FIELD("ts", ts));
    }

    /** @return rows {@code 0..count} of {@code row} */
    static List<Row> rows(int count, IntFunction<Row> row) {
        List<Row> out = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            out.add(row.apply(n));
        }
        return out;
    }

    /** @return one of {@code keys} keys (prefix by key number), or NULL as often as one key */
    static String key(Random r, int keys, String[] prefixes) {
        int kn = r.nextInt(keys + 1);
        return kn == keys ? null : prefixes[kn % prefixes.length] + kn;
    }

    /** @return NULL one time in {@code oneIn}, else {@code value} (drawn only then) */
    static <T> T nullOneIn(Random r, int oneIn, Supplier<T> value) {
        return r.nextInt(oneIn) == 0 ? null : value.get();
    }

    /** @return a random prefix followed by a number below 1,000 */
    static String string(Random r, String[] prefixes) {
        return prefixes[r.nextInt(prefixes.length)] + r.nextInt(1000);
    }

    /** @return a BIGINT in [-1,000,000, 1,000,000] */
    static long around0(Random r) {
        return r.nextInt(2_000_001) - 1_000_000;
    }

    /** @return one time in {@code oneIn} a BIGINT within 2 of a limit (SUM wraps), else {@link #around0} */
    static long nearLimits(Random r, int oneIn) {
        return r.nextInt(oneIn) == 0 ? (r.nextBoolean() ? Long.MAX_VALUE - r.nextInt(3) : Long.MIN_VALUE + r.nextInt(3))
                : around0(r);
    }

    /** @return a multiple of 1/8 in [-125, 125] (exact in binary) */
    static double eighths(Random r) {
        return (r.nextInt(2001) - 1000) / 8.0;
    }
}
