package io.sluice.flink.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import io.sluice.flink.Sluice;
import io.sluice.flink.TestSupport;

/**
 * Plain SQL, stock Flink vs the same SQL with {@code Sluice.install} (the planner stage puts the
 * native keyed operators into the plan): {@code GROUP BY k} with COUNT(*), SUM(v), MAX(s) over
 * 50 keys, 65,536 keys and all-distinct keys, and deduplication over 65,536 keys
 * (ROW_NUMBER() OVER (PARTITION BY k ORDER BY time) = 1): keep-last and keep-first by
 * {@code PROCTIME()}, keep-last by an event-time attribute (in order, the source's watermarks).
 * Same generated {@code RowData} (k STRING, v BIGINT with NULLs, s STRING; the rowtime case adds
 * ts BIGINT) from {@code fromDataStream}, same blackhole sink, parallelism 1, one MiniCluster; a
 * warm-up pair, then alternating pairs; rows per second from the generator's first row to the
 * job's end. Each installed run asserts that its keyed node is native; the dedup cases run with
 * {@code sluice.cost.enabled=false}, so a shape the cost rule keeps stock (keep-last by proctime
 * with the string payload s: {@link io.sluice.flink.planner.CostRule}) is still measured native.
 *
 * <p>System properties: {@code -Dsluice.bench.only=<label prefix>} runs only the cases whose
 * label starts with it ({@code _} for a space, e.g. {@code dedup-last_65536}),
 * {@code -Dsluice.bench.plan=true} prints each plan, {@code -Dsluice.bench.task-cpu=true} prints
 * each task thread's CPU time per row ({@link TaskCpu}: which thread bounds the job),
 * {@code -Dsluice.bench.batch-size=<rows>} sets {@code sluice.batch-size} (default 8192): a smaller
 * batch makes the native operator's bursts shorter, which matters when the source chain, not the
 * operator, bounds the job.
 *
 * <pre>
 *   scripts/java-bench.sh keyed-sql [rows] [pairs]
 * </pre>
 */
public final class KeyedSqlBenchmark {
    static volatile long firstRowNanos;

    static final RowType TYPE = RowType.of(
            new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH)},
            new String[] {"k", "v", "s"});

    /**
     * Row i: key (i * 40503) mod keys (keys = 0: all distinct), v = i mod 1000 (NULL every 97th), s one of 4,096;
     * the generator of every keyed bench (the others derive their rows from it). Row 0 sets
     * {@link #firstRowNanos}.
     */
    static final class Gen implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final int keys;
        private transient StringData[] keyStrings;
        private transient StringData[] strings;

        Gen(int keys) {
            this.keys = keys;
        }

        @Override
        public RowData map(Long index) {
            if (strings == null) {
                keyStrings = new StringData[keys];
                for (int i = 0; i < keys; i++) {
                    keyStrings[i] = StringData.fromString(String.format(Locale.ROOT, "key-%05d-ключ", i));
                }
                strings = new StringData[4096];
                for (int i = 0; i < strings.length; i++) {
                    strings[i] = StringData.fromString("value " + i * 7919);
                }
            }
            long i = index;
            if (i == 0) {
                firstRowNanos = System.nanoTime();
            }
            GenericRowData r = new GenericRowData(3);
            r.setField(0, keys == 0 ? StringData.fromString("key-" + i + "-ключ")
                    : keyStrings[(int) Long.remainderUnsigned(i * 40503, keys)]);
            r.setField(1, i % 97 == 0 ? null : i % 1000);
            r.setField(2, strings[(int) ((i * 31) & 4095)]);
            return r;
        }

        /**
         * @param fields which of row {@code index}'s fields to keep (0: k, 1: v, 2: s)
         * @return those fields, in a row one field wider for the caller's event time
         */
        GenericRowData withTimeField(Long index, int... fields) {
            GenericRowData row = (GenericRowData) map(index);
            GenericRowData r = new GenericRowData(fields.length + 1);
            for (int f = 0; f < fields.length; f++) {
                r.setField(f, row.getField(fields[f]));
            }
            return r;
        }
    }

    /** Row type of the rowtime dedup: {@link #TYPE} plus ts BIGINT (the event time in epoch millis). */
    static final RowType TIMED_TYPE = RowType.of(
            new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH),
                new BigIntType()},
            new String[] {"k", "v", "s", "ts"});

    /** {@link Gen}'s rows plus ts = i / 4 ms after an epoch offset (in order). */
    static final class TimedGen implements GeneratorFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final Gen keyed;

        TimedGen(int keys) {
            this.keyed = new Gen(keys);
        }

        @Override
        public RowData map(Long index) {
            GenericRowData r = keyed.withTimeField(index, 0, 1, 2);
            r.setField(3, 1_700_000_000_000L + index / 4);
            return r;
        }
    }

    static double run(String which, int keys, long rows, boolean installed) throws Exception {
        StreamExecutionEnvironment env = SqlPairs.env();
        boolean dedup = which.startsWith("dedup");
        // a dedup the cost rule keeps stock is still measured native (what the rule decided against)
        StreamTableEnvironment tEnv = TestSupport.tableEnv(env, installed, "sluice.cost.enabled", dedup ? "false" : "true",
                "sluice.batch-size", System.getProperty("sluice.bench.batch-size", "8192"));
        String sql;
        String node;
        if (!dedup) {
            DataStream<RowData> src = SqlPairs.generated(env, new Gen(keys), rows, TYPE, WatermarkStrategy.noWatermarks(),
                    "gen");
            tEnv.createTemporaryView("src", tEnv.fromDataStream(src));
            tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, c BIGINT, sv BIGINT, maxs STRING) "
                    + "WITH ('connector' = 'blackhole')");
            sql = "INSERT INTO snk SELECT k, COUNT(*), SUM(v), MAX(s) FROM src GROUP BY k";
            node = "GroupAggregate";
        } else {
            String order;
            if (which.endsWith("rowtime")) {
                WatermarkStrategy<RowData> wm = WatermarkStrategy.<RowData>forMonotonousTimestamps()
                        .withTimestampAssigner((r, prev) -> r.getLong(3));
                DataStream<RowData> src = SqlPairs.generated(env, new TimedGen(keys), rows, TIMED_TYPE, wm, "gen");
                tEnv.createTemporaryView("src", tEnv.fromDataStream(src, Schema.newBuilder()
                        .columnByMetadata("rt", DataTypes.TIMESTAMP_LTZ(3), "rowtime")
                        .watermark("rt", "SOURCE_WATERMARK()").build()));
                order = "rt";
            } else {
                DataStream<RowData> src = SqlPairs.generated(env, new Gen(keys), rows, TYPE,
                        WatermarkStrategy.noWatermarks(), "gen");
                tEnv.createTemporaryView("src", tEnv.fromDataStream(src,
                        Schema.newBuilder().columnByExpression("pt", "PROCTIME()").build()));
                order = "pt";
            }
            tEnv.executeSql("CREATE TEMPORARY TABLE snk (k STRING, v BIGINT, s STRING) WITH ('connector' = 'blackhole')");
            sql = "INSERT INTO snk SELECT k, v, s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY " + order
                    + (which.startsWith("dedup-last") ? " DESC" : " ASC") + ") AS rn FROM src) WHERE rn = 1";
            node = "Deduplicate";
        }
        if (Boolean.getBoolean("sluice.bench.plan")) {
            System.out.println(installed ? Sluice.explain(tEnv, sql).text() : tEnv.explainSql(sql));
        }
        return SqlPairs.timedInsert(tEnv, sql, installed, node, rows, () -> firstRowNanos);
    }

    public static void main(String[] args) throws Exception {
        SqlPairs.main(args, rows -> {
            List<SqlPairs.Case> cases = new ArrayList<>();
            Object[][] shapes = {{"groupby", 50}, {"groupby", 65_536}, {"groupby", 0}, {"dedup-last", 65_536},
                {"dedup-first", 65_536}, {"dedup-last-rowtime", 65_536}};
            String only = System.getProperty("sluice.bench.only", "");
            for (Object[] c : shapes) {
                String which = (String) c[0];
                int keys = (Integer) c[1];
                String label = which + " " + (keys == 0 ? "all-distinct" : keys + "") + " keys";
                if (!label.startsWith(only.replace('_', ' '))) {
                    continue;
                }
                cases.add(new SqlPairs.Case(label, installed -> run(which, keys, rows, installed)));
            }
            return cases;
        });
    }
}
