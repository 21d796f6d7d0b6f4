package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * {@link SluiceKeyedOperator} drives a proctime RANGE INTERVAL OVER from Flink's processing-time
 * service: the case of Flink's {@code OverAggregateHarnessTest.testProcTimeBoundedRangeOver}
 * ({@code MIN(c)}, {@code MAX(c)} over {@code RANGE BETWEEN INTERVAL '4' SECOND PRECEDING}, the
 * harness setting processing time, once back from 3003 to 5), with batch size 1 so that each row
 * is stamped on arrival as Flink's function stamps it; Flink's expected rows, compared sorted as
 * Flink compares them. Then the same run snapshotted while rows wait for their timer and restored
 * into a fresh operator: the buffered rows fire after the restore.
 */
class ProcessingTimeFiringTest {
    static final RowType TYPE = RowType.of(
            new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()}, new String[] {"b", "c"});
    static final String SPEC = "over keys=0 order=proctime frame=range preceding=4000 aggs=min(1),max(1)";

    static BinaryRowData row(String b, long c) {
        return new RowDataSerializer(TYPE).toBinaryRow(GenericRowData.of(StringData.fromString(b), c)).copy();
    }

    static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness() throws Exception {
        KeyProjection key = new KeyProjection(TYPE, new int[] {0});
        return new KeyedOneInputStreamOperatorTestHarness<>(new SluiceKeyedOperator(SPEC, TYPE, 4, 1, 0), key,
                key.getProducedType());
    }

    /** Flink's steps: a processing time, then the rows arriving at it. */
    static final Object[][] STEPS = {
        {3L, "aaa", 1L, "bbb", 10L}, {4L, "aaa", 2L}, {3003L, "aaa", 3L, "bbb", 20L}, {5L, "aaa", 4L}, {6002L},
        {7002L, "aaa", 5L, "aaa", 6L, "bbb", 30L}, {11002L, "aaa", 7L},
        {11004L, "aaa", 8L, "aaa", 9L, "aaa", 10L, "bbb", 40L}, {11006L},
    };

    static final List<String> EXPECTED = sorted(List.of("aaa 1 1 1", "bbb 10 10 10", "aaa 2 1 2", "aaa 3 1 4",
            "bbb 20 10 20", "aaa 4 1 4", "aaa 5 3 6", "aaa 6 3 6", "bbb 30 20 30", "aaa 7 5 7", "aaa 8 7 10",
            "aaa 9 7 10", "aaa 10 7 10", "bbb 40 40 40"));

    static void run(KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h, int from, int to)
            throws Exception {
        for (int s = from; s < to; s++) {
            Object[] step = STEPS[s];
            h.setProcessingTime((Long) step[0]);
            for (int i = 1; i < step.length; i += 2) {
                h.processElement(new StreamRecord<>(row((String) step[i], (Long) step[i + 1])));
            }
        }
    }

    static List<String> output(KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h) {
        List<String> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord) {
                RowData r = (RowData) ((StreamRecord<?>) o).getValue();
                out.add(r.getString(0) + " " + r.getLong(1) + " " + r.getLong(2) + " " + r.getLong(3));
            }
        }
        return out;
    }

    static List<String> sorted(List<String> s) {
        List<String> c = new ArrayList<>(s);
        c.sort(null);
        return c;
    }

    @Test
    void flinkProcTimeBoundedRangeOver() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h = harness()) {
            h.open();
            run(h, 0, STEPS.length);
            assertEquals(EXPECTED, sorted(output(h)));
        }
    }

    @Test
    void bufferedRowsFireAfterRestore() throws Exception {
        OperatorSubtaskState snapshot;
        List<String> out = new ArrayList<>();
        try (KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h = harness()) {
            h.open();
            run(h, 0, 3); // aaa 3 and bbb 20 wait for their timer at 3004
            snapshot = h.snapshot(1, 3003);
            out.addAll(output(h));
        }
        assertEquals(3, out.size(), "the rows of 3 and 4 fired before the snapshot");
        try (KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h = harness()) {
            h.setProcessingTime(3003);
            h.initializeState(snapshot);
            h.open();
            run(h, 3, STEPS.length);
            out.addAll(output(h));
        }
        assertEquals(EXPECTED, sorted(out));
    }
}
