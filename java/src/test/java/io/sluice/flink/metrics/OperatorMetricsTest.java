package io.sluice.flink.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.TestSupport;
import io.sluice.flink.calc.CalcData;
import io.sluice.flink.calc.SluiceCalcOperator;
import io.sluice.flink.keyed.KeyedSpecs;
import io.sluice.flink.keyed.KeyedStreams;

/**
 * The operators' metrics as a real job registers them in Flink's metric
 * groups, read back through Flink's {@link InMemoryReporter} after the job
 * finished, against values counted independently from the input and the
 * collected output.
 */
class OperatorMetricsTest {
    static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorMetrics.cluster(REPORTER);

    static final int ROWS = 10_007;
    static final int BATCH = 1000;

    @Test
    void calcCountsRowsBatchesBytesAndNativeTime() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<RowData> in = CalcData.source(env, ROWS);
        String[] exprs = {"id", "MD5(a)", "CONCAT(a, b, c)"};
        DataStream<RowData> out = in.transform("sluice-calc-metrics",
                InternalTypeInfo.of(RowType.of(new BigIntType(false), new CharType(32), VarCharType.STRING_TYPE)),
                new SluiceCalcOperator(CalcData.TYPE, exprs, null, BATCH, 0));
        OperatorMetrics.Run<RowData> run = OperatorMetrics.run(env, out);
        Map<String, Long> m = OperatorMetrics.counters(REPORTER, run.jobId, "sluice-calc-metrics");

        // The program reads id, a, b and c: each row takes the column handover (ColumnBatch), whose
        // bytesCopied is the read fields' bytes: 8 for the BIGINT, each non-NULL string's UTF-8 bytes.
        long bytes = 0;
        for (long i = 0; i < ROWS; i++) {
            GenericRowData row = CalcData.row(i);
            bytes += 8;
            for (int f = 1; f <= 3; f++) {
                bytes += row.isNullAt(f) ? 0 : row.getString(f).toBytes().length;
            }
        }
        assertEquals(ROWS, run.output.size(), "rows collected");
        assertEquals(ROWS, m.get("rowsIn"), m.toString());
        assertEquals(ROWS, m.get("rowsOut"), m.toString());
        assertEquals((ROWS + BATCH - 1) / BATCH, m.get("batches"), m.toString());
        assertEquals(bytes, m.get("bytesCopied"), m.toString());
        assertTrue(bytes > 20L * ROWS, "rows carry strings");
        assertTrue(m.get("nativeTimeNanos") > 0, m.toString());
    }

    static final RowType KEYED_TYPE = RowType.of(
            new LogicalType[] {VarCharType.STRING_TYPE, new BigIntType()}, new String[] {"k", "v"});
    static final int KEYS = 700;

    static GenericRowData keyedRow(long i) {
        return GenericRowData.of(StringData.fromString("key-" + (i * 7919 % KEYS) + "-é"), i);
    }

    /**
     * Group aggregate: rowsIn is the input, rowsOut the changelog rows the job
     * emitted (+I for a key's first row, -U/+U for each later one), bytesCopied
     * the input rows' sizes (each row is gathered into the batch arena once,
     * with or without object reuse).
     */
    @ParameterizedTest(name = "object reuse {0}")
    @ValueSource(booleans = {false, true})
    void keyedCountsRowsInChangelogOutBatchesAndCopies(boolean objectReuse) throws Exception {
        StreamExecutionEnvironment env = TestSupport.singleEnv(objectReuse);
        GeneratorFunction<Long, RowData> gen = OperatorMetricsTest::keyedRow;
        DataStream<RowData> in = env.fromSource(new DataGeneratorSource<>(gen, ROWS, InternalTypeInfo.of(KEYED_TYPE)),
                WatermarkStrategy.noWatermarks(), "keyed-data");
        int[] keys = {0};
        String spec = KeyedSpecs.groupAgg(KEYED_TYPE, keys, List.of("COUNT(*)", "SUM(v)"));
        RowType outType = KeyedStreams.outputType(spec, KEYED_TYPE, List.of("k", "cnt", "total"));
        Configuration conf = new Configuration();
        conf.set(SluiceOptions.BATCH_SIZE, BATCH);
        DataStream<RowData> out = KeyedStreams.apply(in, KEYED_TYPE, keys, spec, outType, conf, "sluice-keyed-metrics");
        OperatorMetrics.Run<RowData> run = OperatorMetrics.run(env, out);
        Map<String, Long> m = OperatorMetrics.counters(REPORTER, run.jobId, "sluice-keyed-metrics");

        Set<String> seen = new HashSet<>();
        long bytes = 0;
        RowDataSerializer ser = new RowDataSerializer(KEYED_TYPE);
        for (long i = 0; i < ROWS; i++) {
            seen.add(keyedRow(i).getString(0).toString());
            bytes += ser.toBinaryRow(keyedRow(i)).getSizeInBytes();
        }
        long changelog = seen.size() + 2L * (ROWS - seen.size());
        assertEquals(changelog, run.output.size(), "changelog rows collected");
        assertEquals(ROWS, m.get("rowsIn"), m.toString());
        assertEquals(changelog, m.get("rowsOut"), m.toString());
        assertEquals((ROWS + BATCH - 1) / BATCH, m.get("batches"), m.toString());
        assertEquals(bytes, m.get("bytesCopied"), m.toString());
        assertTrue(m.get("nativeTimeNanos") > 0, m.toString());
    }
}
