package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.flink.TestSupport;

/**
 * Native keyed state through Flink checkpoints: a failure after a completed
 * checkpoint, and a savepoint at parallelism 2 restored at parallelism 3,
 * both end with exactly the changelog of an undisturbed run.
 */
class KeyedRecoveryTest {
    static final int KEYS = 2_000;
    static final String SPEC_AGGS = "COUNT(*),SUM(v),MIN(s),MAX(s)";

    @RegisterExtension
    static final MiniClusterExtension MINI = TestSupport.fourSlotCluster();

    static final RowType IN = (RowType) KeyedTestData.TYPE.getLogicalType();

    /** generator → keyBy → native GROUP BY → (FailOnce) → Row. */
    static DataStream<Row> pipeline(StreamExecutionEnvironment env, long rows, double perSecond, boolean tail) {
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(i -> KeyedTestData.row(i, KEYS), rows,
                RateLimiterStrategy.perSecond(perSecond), KeyedTestData.typeInfo());
        DataStream<RowData> in = env.fromSource(source, WatermarkStrategy.noWatermarks(), "gen").setParallelism(1)
                .uid("gen").map(new RowConversions.ToInternal(KeyedTestData.TYPE)).returns(InternalTypeInfo.of(IN))
                .setParallelism(1).uid("to-internal");
        int[] keys = {0};
        String spec = KeyedSpecs.groupAgg(IN, keys, List.of(SPEC_AGGS.split(",")));
        RowType out = KeyedStreams.outputType(spec, IN, List.of("k", "c", "sv", "mins", "maxs"));
        DataStream<RowData> agg = KeyedStreams.apply(in, IN, keys, spec, out, new Configuration(), "agg").uid("agg")
                .map(new Recovery.FailOnce<RowData>()).returns(InternalTypeInfo.of(out)).uid("fail-once");
        DataType outType = TypeConversions.fromLogicalToDataType(out);
        @SuppressWarnings("unchecked")
        org.apache.flink.api.common.typeinfo.TypeInformation<Row> rowInfo =
                (org.apache.flink.api.common.typeinfo.TypeInformation<Row>) (Object)
                        org.apache.flink.table.runtime.typeutils.ExternalTypeInfo.of(outType);
        DataStream<Row> result = agg.map(new RowConversions.ToExternal(outType)).returns(rowInfo).uid("to-row");
        if (tail) {
            result = result.map(r -> r).returns(rowInfo).uid("tail");
        }
        return result;
    }

    /** {@link #pipeline} of {@code rows} rows; the restored job ends with an extra map (a changed topology). */
    static Recovery.Pipeline job(long rows, boolean tail) {
        return (env, installed, perSecond) -> pipeline(env, rows, perSecond, tail);
    }

    @Test
    void failureAfterCheckpointGivesTheSameChangelog() throws Exception {
        Recovery.Runs<Map<String, List<String>>> runs =
                Recovery.failingOnceAfterCheckpoint(job(30_000, false), KeyedTestData::byKey, 12_000);
        assertEquals(runs.expected(), runs.got());
    }

    @Test
    void savepointAtTwoRestoresAtThree(@TempDir Path dir) throws Exception {
        Map<String, List<String>> expected = Recovery.stockReference(job(30_000, false), KeyedTestData::byKey);
        Map<String, List<String>> got =
                Recovery.rescaledThroughSavepoint(job(30_000, false), job(30_000, true), 10_000, "rescale-p2", dir);
        Recovery.assertSameChangelogs(expected, got);
    }
}
