package io.sluice.flink.planner;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * The keyed parity tests' tables, from one source subtask (so each key's rows arrive in one order
 * on both sides):
 * <ul>
 *   <li>{@code kt(id INT NOT NULL, k STRING, g INT, v BIGINT, d DOUBLE, s STRING, i INT,
 *       b BOOLEAN, dt DATE, ts TIMESTAMP(3), m DECIMAL(10, 2))}: insert-only; NULLs in every
 *       nullable column, keys with multi-byte and supplementary characters, BIGINT values near
 *       the limits (SUM wraps), doubles with -0.0 and NaN;</li>
 *   <li>{@code kr}: {@code kt} plus {@code rt}, a rowtime attribute (TIMESTAMP_LTZ(3) from
 *       {@code id}, shuffled, watermark 5 s behind);</li>
 *   <li>{@code ku(k STRING NOT NULL PRIMARY KEY, v BIGINT, s STRING)}: an upsert changelog
 *       (+I / +U / -D, repeats of the stored row included) the planner normalizes.</li>
 * </ul>
 */
final class KeyedSqlData {
    private KeyedSqlData() {}

    static final int ROWS = 3_000;
    static final int KEYS = 150;

    static final DataType KT = DataTypes.ROW(
            DataTypes.FIELD("id", DataTypes.INT().notNull()),
            DataTypes.FIELD("k", DataTypes.STRING()),
            DataTypes.FIELD("g", DataTypes.INT()),
            DataTypes.FIELD("v", DataTypes.BIGINT()),
            DataTypes.FIELD("d", DataTypes.DOUBLE()),
            DataTypes.FIELD("s", DataTypes.STRING()),
            DataTypes.FIELD("i", DataTypes.INT()),
            DataTypes.FIELD("b", DataTypes.BOOLEAN()),
            DataTypes.FIELD("dt", DataTypes.DATE()),
            DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("m", DataTypes.DECIMAL(10, 2)));

    static final DataType KU = DataTypes.ROW(
            DataTypes.FIELD("k", DataTypes.STRING()),
            DataTypes.FIELD("v", DataTypes.BIGINT()),
            DataTypes.FIELD("s", DataTypes.STRING()));

    private static final String[] PREFIXES = SqlRows.PREFIXES;

    @SuppressWarnings("unchecked")
    static TypeInformation<Row> info(DataType t) {
        return (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(t);
    }

    static Row row(int n) {
        Random r = new Random(n * 0x9E3779B97F4A7C15L + 99);
        String k = SqlRows.key(r, KEYS, PREFIXES);
        Long v = SqlRows.nullOneIn(r, 9, () -> SqlRows.nearLimits(r, 50));
        Double d = SqlRows.nullOneIn(r, 9, () -> r.nextInt(200) == 0 ? -0.0 : SqlRows.eighths(r));
        String s = SqlRows.nullOneIn(r, 9, () -> SqlRows.string(r, PREFIXES));
        Integer i = SqlRows.nullOneIn(r, 9, () -> r.nextInt(2001) - 1000);
        Boolean b = r.nextInt(9) == 0 ? null : r.nextBoolean();
        LocalDate dt = r.nextInt(9) == 0 ? null : LocalDate.of(2020, 1, 1).plusDays(r.nextInt(40));
        LocalDateTime ts = r.nextInt(9) == 0 ? null : LocalDateTime.of(2024, 2, 29, 12, 0).plusSeconds(r.nextInt(30));
        BigDecimal m = r.nextInt(9) == 0 ? null : BigDecimal.valueOf(r.nextInt(20_000) - 10_000, 2);
        return Row.of(n, k, r.nextInt(7), v, d, s, i, b, dt, ts, m);
    }

    static List<Row> rows() {
        return SqlRows.rows(ROWS, KeyedSqlData::row);
    }

    /** The upsert changelog of {@code ku}: kinds drawn per row; about one row in ten repeats its key's last row. */
    static List<Row> upserts() {
        List<Row> out = new ArrayList<>(ROWS);
        java.util.Map<String, Row> last = new java.util.HashMap<>();
        for (int n = 0; n < ROWS; n++) {
            Random r = new Random(n * 31L + 7);
            String k = PREFIXES[n % PREFIXES.length] + r.nextInt(KEYS);
            int kind = r.nextInt(10);
            Row prev = last.get(k);
            Row row = kind == 9 && prev != null ? Row.of(k, prev.getField(1), prev.getField(2))
                    : Row.of(k, r.nextInt(6) == 0 ? null : (long) r.nextInt(100), r.nextInt(6) == 0 ? null : "s😀" + r.nextInt(50));
            row.setKind(kind < 6 || kind == 9 ? RowKind.UPDATE_AFTER : kind < 8 ? RowKind.INSERT : RowKind.DELETE);
            last.put(k, row);
            out.add(row);
        }
        return out;
    }

    /** Registers kt, kr and ku. */
    static final BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> TABLES = (env, tEnv) -> {
        DataStream<Row> src = env.fromData(rows(), info(KT)).setParallelism(1);
        tEnv.createTemporaryView("kt", tEnv.fromDataStream(src));
        tEnv.createTemporaryView("kp", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()").build()));
        tEnv.createTemporaryView("kr", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("rt", "TO_TIMESTAMP_LTZ(1700000000000 + MOD(id * 7919, 3000) * 1000, 3)")
                .watermark("rt", "rt - INTERVAL '5' SECOND").build()));
        DataStream<Row> ups = env.fromData(upserts(), info(KU)).setParallelism(1);
        tEnv.createTemporaryView("ku", tEnv.fromChangelogStream(ups, Schema.newBuilder()
                .column("k", DataTypes.STRING().notNull()).column("v", DataTypes.BIGINT())
                .column("s", DataTypes.STRING()).primaryKey("k").build(), ChangelogMode.upsert()));
    };
}
