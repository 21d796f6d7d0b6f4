package io.sluice.flink.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * When the Calc releases held watermarks, driven step by step through
 * Flink's operator test harness (its processing time is set by the test, so
 * the max-delay timer fires at exact instants): after max delay, on a full
 * batch, on a watermark status change, before a checkpoint barrier and at end
 * of input; each watermark exactly between the rows it separated.
 */
class WatermarkHoldingHarnessTest {
    static final int BATCH = 4;
    static final long DELAY = 100;

    OneInputStreamOperatorTestHarness<RowData, RowData> harness(long maxDelay) throws Exception {
        SluiceCalcOperator op = new SluiceCalcOperator(CalcData.TYPE, new String[] {"id"}, null, BATCH, maxDelay);
        OneInputStreamOperatorTestHarness<RowData, RowData> h = new OneInputStreamOperatorTestHarness<>(op);
        h.setup(new RowDataSerializer(RowType.of(new BigIntType(false))));
        h.setProcessingTime(0);
        h.open();
        return h;
    }

    static void row(OneInputStreamOperatorTestHarness<RowData, RowData> h, long id) throws Exception {
        h.processElement(CalcData.row(id), id * 10);
    }

    /** Drains the harness output as text: {@code r<id>@<ts>}, {@code w<ts>}, {@code idle}/{@code active}. */
    static List<String> drain(OneInputStreamOperatorTestHarness<RowData, RowData> h) {
        List<String> out = new ArrayList<>();
        for (Object o; (o = h.getOutput().poll()) != null;) {
            if (o instanceof StreamRecord) {
                StreamRecord<?> r = (StreamRecord<?>) o;
                out.add("r" + ((RowData) r.getValue()).getLong(0) + "@" + r.getTimestamp());
            } else if (o instanceof Watermark) {
                out.add("w" + ((Watermark) o).getTimestamp());
            } else if (o instanceof WatermarkStatus) {
                out.add(((WatermarkStatus) o).isIdle() ? "idle" : "active");
            } else {
                out.add(o.toString());
            }
        }
        return out;
    }

    @Test
    void heldWatermarksAreReleasedInPlace() throws Exception {
        try (OneInputStreamOperatorTestHarness<RowData, RowData> h = harness(DELAY)) {
            row(h, 0);
            row(h, 1);
            h.processWatermark(10);
            row(h, 2);
            h.processWatermark(20);
            h.processWatermark(25); // no row since w20: supersedes it
            assertEquals(List.of(), drain(h), "all held");
            h.setProcessingTime(DELAY - 1);
            assertEquals(List.of(), drain(h), "before max delay");
            h.setProcessingTime(DELAY);
            assertEquals(List.of("r0@0", "r1@10", "w10", "r2@20", "w25"), drain(h), "max delay");

            h.setProcessingTime(150);
            row(h, 3);
            row(h, 4);
            h.processWatermark(40); // timer for 250
            row(h, 5);
            row(h, 6); // batch full
            assertEquals(List.of("r3@30", "r4@40", "w40", "r5@50", "r6@60"), drain(h), "full batch");

            h.setProcessingTime(200);
            row(h, 7);
            h.processWatermark(70); // held since 200: due at 300, the pending timer is for 250
            h.setProcessingTime(250);
            h.setProcessingTime(299);
            assertEquals(List.of(), drain(h), "an earlier hold's timer does not release a later one early");
            h.setProcessingTime(300);
            assertEquals(List.of("r7@70", "w70"), drain(h), "max delay of the later hold");

            row(h, 8);
            h.processWatermark(80);
            h.processWatermarkStatus(WatermarkStatus.IDLE);
            assertEquals(List.of("r8@80", "w80", "idle"), drain(h), "status change");
            h.processWatermarkStatus(WatermarkStatus.ACTIVE);
            assertEquals(List.of("active"), drain(h));

            row(h, 9);
            h.processWatermark(90);
            h.prepareSnapshotPreBarrier(1);
            assertEquals(List.of("r9@90", "w90"), drain(h), "checkpoint barrier");

            h.processWatermark(95); // nothing buffered: forwarded at once
            assertEquals(List.of("w95"), drain(h));

            row(h, 10);
            h.processWatermark(100);
            row(h, 11);
            h.endInput();
            assertEquals(List.of("r10@100", "w100", "r11@110"), drain(h), "end of input");
        }
    }

    @Test
    void zeroDelayFlushesOnEveryWatermark() throws Exception {
        try (OneInputStreamOperatorTestHarness<RowData, RowData> h = harness(0)) {
            row(h, 0);
            row(h, 1);
            h.processWatermark(10);
            assertEquals(List.of("r0@0", "r1@10", "w10"), drain(h));
            row(h, 2);
            h.endInput();
            assertEquals(List.of("r2@20"), drain(h));
        }
    }

    @Test
    void negativeDelayIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new SluiceCalcOperator(CalcData.TYPE, new String[] {"id"}, null, BATCH, -1));
    }
}
