package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

import io.sluice.jni.KeyedNative;
import io.sluice.jni.RowBatch;
import io.sluice.jni.RowBlock;

/**
 * Watermarks reach the native operators that fire on event time: a TUMBLE
 * window aggregate emits a window only once the watermark passes its end − 1
 * (Flink's {@code SlicingWindowOperator} fires on the event-time timer at
 * {@code window_end - 1}), and {@link SluiceKeyedOperator} emits those rows
 * before it forwards the watermark.
 */
class WatermarkFiringTest {
    static final RowType TYPE = RowType.of(
            new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(), new TimestampType(3)},
            new String[] {"k", "v", "ts"});
    static final String SPEC = "window keys=0 rowtime=2 window=tumble(10) aggs=count(*),sum(1)";

    static BinaryRowData row(String k, long v, long ts) {
        GenericRowData g = GenericRowData.of(StringData.fromString(k), v, TimestampData.fromEpochMillis(ts));
        return new RowDataSerializer(TYPE).toBinaryRow(g).copy();
    }

    /** key, count, sum, window_start, window_end of each emitted row, in order. */
    static List<String> render(List<RowData> rows) {
        List<String> out = new ArrayList<>();
        for (RowData r : rows) {
            out.add(r.getRowKind().shortString() + " " + r.getString(0) + " " + r.getLong(1) + " " + r.getLong(2) + " "
                    + r.getTimestamp(3, 3).getMillisecond() + " " + r.getTimestamp(4, 3).getMillisecond());
        }
        return out;
    }

    static List<RowData> rows(RowBlock block) {
        List<RowData> out = new ArrayList<>();
        for (int i = 0; i < block.numRows(); i++) {
            out.add(block.row(i, 6, null));
        }
        return out;
    }

    @Test
    void nativeWindowFiresOnlyOnTheWatermark() {
        try (KeyedNative op = KeyedNative.create(SPEC + " max_parallelism=128", TYPE);
                KeyedNative agg = KeyedNative.create(KeyedSpecs.dedup(new int[] {0}, false) + " max_parallelism=128",
                        TYPE)) {
            assertTrue(op.firesOnWatermark());
            assertFalse(agg.firesOnWatermark());
            RowBatch batch = new RowBatch(8);
            batch.add(row("a", 1, 1));
            batch.add(row("a", 2, 9));
            batch.add(row("b", 5, 12));
            assertEquals(0, op.process(batch).numRows(), "a window emits nothing before its watermark");
            assertEquals(List.of(), render(rows(op.advanceWatermark(8))), "watermark 8 < end - 1 = 9");
            assertEquals(List.of("+I a 2 3 0 10"), render(rows(op.advanceWatermark(9))));
            assertEquals(List.of("+I b 1 5 10 20"), render(rows(op.advanceWatermark(Long.MAX_VALUE))));
            assertEquals(0, agg.advanceWatermark(100).numRows());
        }
    }

    @Test
    void operatorEmitsFiredRowsBeforeTheWatermark() throws Exception {
        SluiceKeyedOperator operator = new SluiceKeyedOperator(SPEC, TYPE, 6, 1024, 0);
        KeyProjection key = new KeyProjection(TYPE, new int[] {0});
        try (KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h =
                new KeyedOneInputStreamOperatorTestHarness<>(operator, key, key.getProducedType())) {
            h.open();
            h.processElement(new StreamRecord<>(row("a", 1, 1)));
            h.processElement(new StreamRecord<>(row("a", 2, 25)));
            h.processWatermark(new Watermark(19));
            h.processElement(new StreamRecord<>(row("a", 4, 3))); // late: its window [0, 10) has fired
            h.processWatermark(new Watermark(29));
            List<String> seen = new ArrayList<>();
            for (Object o : h.getOutput()) {
                if (o instanceof Watermark) {
                    seen.add("WM " + ((Watermark) o).getTimestamp());
                } else {
                    @SuppressWarnings("unchecked")
                    StreamRecord<RowData> r = (StreamRecord<RowData>) o;
                    seen.addAll(render(List.of(r.getValue())));
                }
            }
            assertEquals(List.of("+I a 1 1 0 10", "WM 19", "+I a 1 2 20 30", "WM 29"), seen);
        }
    }
}
