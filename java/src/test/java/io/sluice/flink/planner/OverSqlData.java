package io.sluice.flink.planner;

import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

/**
 * The OVER parity tests' tables, from one source subtask, so that each partition's rows arrive in
 * one order on both sides and every watermark sits at one place between rows (at parallelism 4
 * the OVER subtasks read one upstream channel each, so arrival order and watermark positions per
 * key stay defined):
 * <ul>
 *   <li>{@code op(id INT NOT NULL, k STRING, v BIGINT, d DOUBLE, s STRING, i INT, ts BIGINT,
 *       pt AS PROCTIME())}: NULLs in every nullable column (keys too), unicode keys with
 *       supplementary characters, BIGINT values near the limits (SUM wraps);</li>
 *   <li>{@code orow}: the same rows with {@code rt}, a rowtime attribute (TIMESTAMP_LTZ(3)) from
 *       {@code ts}: out of order by up to 6 s, ties of two rows per second, and punctuated
 *       watermarks ({@code SOURCE_WATERMARK()}) 8 s behind the largest timestamp every 10 rows, so
 *       a defined set of rows is late;</li>
 *   <li>{@code opl}: {@code op} whose source waits {@link #LINGER_MS} after its last row before
 *       it ends, so that every processing-time timer (a proctime RANGE INTERVAL OVER emits a
 *       millisecond after each row) fires before the input ends: Flink drops the timers still
 *       pending at end of input, and with them the rows they would emit.</li>
 * </ul>
 */
final class OverSqlData {
    private OverSqlData() {}

    static final int ROWS = 3_000;
    static final int KEYS = 40;
    static final long BASE = 1_700_000_000_000L;

    static final DataType TYPE = SqlRows.withTime(DataTypes.BIGINT().notNull());

    private static final String[] PREFIXES = SqlRows.PREFIXES;

    static Row row(int n) {
        Random r = new Random(n * 0x9E3779B97F4A7C15L + 7);
        String k = SqlRows.key(r, KEYS, PREFIXES);
        Long v = SqlRows.nullOneIn(r, 9, () -> SqlRows.nearLimits(r, 60));
        Double d = SqlRows.nullOneIn(r, 9, () -> SqlRows.eighths(r));
        String s = SqlRows.nullOneIn(r, 9, () -> SqlRows.string(r, PREFIXES));
        Integer i = SqlRows.nullOneIn(r, 9, () -> r.nextInt(2001) - 1000);
        long ts = BASE + (n / 2 + r.nextInt(13) - 6) * 1000L;
        return Row.of(n, k, v, d, s, i, ts);
    }

    static List<Row> rows() {
        return SqlRows.rows(ROWS, OverSqlData::row);
    }

    /** A watermark 8 s behind the largest timestamp after every 10th row. */
    static final class Punctuated implements WatermarkGenerator<Row> {
        private long max = Long.MIN_VALUE;
        private long seen;

        @Override
        public void onEvent(Row row, long ts, WatermarkOutput out) {
            max = Math.max(max, ts);
            if (++seen % 10 == 0) {
                out.emitWatermark(new Watermark(max - 8_000));
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput out) {
            // punctuated only: no watermark depends on wall-clock time
        }
    }

    static final long LINGER_MS = 1_000;

    /** Passes rows on; after the last one, waits {@link #LINGER_MS}. */
    static final class Linger implements FlatMapFunction<Row, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(Row row, Collector<Row> out) throws Exception {
            out.collect(row);
            if ((Integer) row.getField(0) == ROWS - 1) {
                Thread.sleep(LINGER_MS);
            }
        }
    }

    /** Registers op, orow and opl. */
    static final BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> TABLES = (env, tEnv) -> {
        DataStream<Row> src = env.fromData(rows(), KeyedSqlData.info(TYPE)).setParallelism(1);
        tEnv.createTemporaryView("op", tEnv.fromDataStream(src, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()").build()));
        DataStream<Row> timed = src.assignTimestampsAndWatermarks(WatermarkStrategy.<Row>forGenerator(c -> new Punctuated())
                .withTimestampAssigner((row, prev) -> (Long) row.getField(6))).setParallelism(1);
        tEnv.createTemporaryView("orow", tEnv.fromDataStream(timed, Schema.newBuilder()
                .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime").watermark("rt", "SOURCE_WATERMARK()").build()));
        DataStream<Row> lingering = src.flatMap(new Linger()).returns(KeyedSqlData.info(TYPE)).setParallelism(1);
        tEnv.createTemporaryView("opl", tEnv.fromDataStream(lingering, Schema.newBuilder()
                .columnByExpression("pt", "PROCTIME()").build()));
    };
}
