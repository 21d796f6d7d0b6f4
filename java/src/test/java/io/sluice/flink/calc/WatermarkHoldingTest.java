package io.sluice.flink.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.flink.compat.CalcCompat;
import io.sluice.flink.metrics.OperatorMetrics;

/**
 * The Calc holding watermarks back ({@code sluice.batch.max-delay}) in a real
 * job: a source emits a watermark after every 5th row; the events the Calc
 * emits (rows with RowKind and timestamp, and watermarks, in order) are
 * recorded by a chained operator and compared with the input's own sequence
 * (computed here, MD5 by the JDK) for a long max delay and for 0 (flush on
 * every watermark); the batches metric shows how many native calls each made.
 */
class WatermarkHoldingTest {
    static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = OperatorMetrics.cluster(REPORTER);

    static final int ROWS = 20_000;
    static final int EVERY = 5;
    static final int BATCH = 1000;

    /** Row i: timestamp 10 i, RowKind cycling over all four kinds. */
    static RowData row(long i) {
        GenericRowData r = CalcData.row(i);
        r.setRowKind(RowKind.values()[(int) (i % 4)]);
        return r;
    }

    /** A watermark (the row's timestamp) right after every {@link #EVERY}-th row. */
    static final class EveryFew implements WatermarkGenerator<RowData> {
        private long seen;

        @Override
        public void onEvent(RowData event, long eventTimestamp, WatermarkOutput output) {
            if (++seen % EVERY == 0) {
                output.emitWatermark(new Watermark(eventTimestamp));
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /** Records rows and watermarks as text, in the order they arrive. */
    static final class Recorder extends AbstractStreamOperator<String> implements OneInputStreamOperator<RowData, String> {
        private static final long serialVersionUID = 1L;

        Recorder() {
            CalcCompat.chainAlways(this);
        }

        @Override
        public void processElement(StreamRecord<RowData> e) {
            RowData r = e.getValue();
            output.collect(new StreamRecord<>(text(r.getRowKind(), e.hasTimestamp() ? e.getTimestamp() : null,
                    r.getLong(0), r.isNullAt(1) ? null : r.getString(1).toString())));
        }

        @Override
        public void processWatermark(org.apache.flink.streaming.api.watermark.Watermark mark) throws Exception {
            output.collect(new StreamRecord<>("watermark " + mark.getTimestamp()));
            super.processWatermark(mark);
        }
    }

    static String text(RowKind kind, Long ts, long id, String md5) {
        return kind.shortString() + " @" + ts + " " + id + " " + md5;
    }

    static List<String> expected() throws Exception {
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        List<String> out = new ArrayList<>();
        for (long i = 0; i < ROWS; i++) {
            GenericRowData r = CalcData.row(i);
            String a = r.isNullAt(1) ? null : r.getString(1).toString();
            String hash = a == null ? null : HexFormat.of().formatHex(md5.digest(a.getBytes(StandardCharsets.UTF_8)));
            out.add(text(RowKind.values()[(int) (i % 4)], i * 10, i, hash));
            if ((i + 1) % EVERY == 0) {
                out.add("watermark " + i * 10);
            }
        }
        out.add("watermark " + Long.MAX_VALUE); // end of input
        return out;
    }

    static OperatorMetrics.Run<String> run(String name, long maxDelayMillis) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        GeneratorFunction<Long, RowData> gen = WatermarkHoldingTest::row;
        WatermarkStrategy<RowData> wm = WatermarkStrategy.<RowData>forGenerator(c -> new EveryFew())
                .withTimestampAssigner((r, t) -> r.getLong(0) * 10);
        DataStream<RowData> in = env.fromSource(new DataGeneratorSource<>(gen, ROWS, InternalTypeInfo.of(CalcData.TYPE)),
                wm, "rows-and-watermarks");
        DataStream<String> out = in
                .transform(name, InternalTypeInfo.of(RowType.of(new BigIntType(false), new CharType(32))),
                        new SluiceCalcOperator(CalcData.TYPE, new String[] {"id", "MD5(a)"}, null, BATCH, maxDelayMillis))
                .transform("recorder", Types.STRING, new Recorder());
        return OperatorMetrics.run(env, out);
    }

    @Test
    void heldWatermarksKeepTheirPlaceAndBatchesStayFull() throws Exception {
        List<String> want = expected();
        // one hour: only a full batch and the end of input flush (no checkpoints in this job)
        OperatorMetrics.Run<String> held = run("calc-held", 3_600_000);
        OperatorMetrics.Run<String> eager = run("calc-eager", 0);
        assertSequence(want, eager.output);
        assertSequence(want, held.output);

        Map<String, Long> h = OperatorMetrics.counters(REPORTER, held.jobId, "calc-held");
        Map<String, Long> e = OperatorMetrics.counters(REPORTER, eager.jobId, "calc-eager");
        // flushing on every watermark: one native call per 5 rows; holding: full batches only
        assertEquals(ROWS / EVERY, e.get("batches"), e.toString());
        assertEquals((ROWS + BATCH - 1) / BATCH, h.get("batches"), h.toString());
        assertEquals(ROWS, h.get("rowsOut"), h.toString());
        System.out.printf("native calls / native ns: held %d / %d, flush on every watermark %d / %d%n",
                h.get("batches"), h.get("nativeTimeNanos"), e.get("batches"), e.get("nativeTimeNanos"));
    }

    static void assertSequence(List<String> want, List<String> got) {
        for (int i = 0; i < Math.min(want.size(), got.size()); i++) {
            int at = i;
            assertEquals(want.get(i), got.get(i), () -> "event " + at + "; expected around it "
                    + want.subList(Math.max(0, at - 3), Math.min(want.size(), at + 3)) + ", got "
                    + got.subList(Math.max(0, at - 3), Math.min(got.size(), at + 3)));
        }
        assertEquals(want.size(), got.size(), "events");
        assertTrue(want.size() > ROWS + ROWS / EVERY);
    }
}
