package io.sluice.flink.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

import io.sluice.jni.SluiceException;

/**
 * The Calc operator's native WHERE ({@code filters}), step by step through Flink's operator test
 * harness over {@link CalcData} rows, whose invalid SHA2 widths are only on rows where {@code a}
 * is NULL: with the filter {@code a LIKE '%'} (FALSE for no string, NULL for a NULL {@code a}) the
 * dropped rows are not emitted, the watermarks keep their places between the rows, and
 * {@code SHA2(b, w)} is never evaluated on a dropped row, so the invalid widths do not fail the
 * batch (they do without the filter, as Flink fails on them).
 */
class NativeWhereHarnessTest {
    static final int ROWS = 512;
    static final String[] EXPRS = {"id", "a LIKE '%'", "SHA2(b, w)"};

    static OneInputStreamOperatorTestHarness<RowData, RowData> harness(int[] filters) throws Exception {
        SluiceCalcOperator op = new SluiceCalcOperator(CalcData.TYPE, EXPRS, null, 16, 0, false, true, filters);
        OneInputStreamOperatorTestHarness<RowData, RowData> h = new OneInputStreamOperatorTestHarness<>(op);
        h.setup(new RowDataSerializer(
                RowType.of(new BigIntType(false), new BooleanType(), VarCharType.STRING_TYPE)));
        h.open();
        return h;
    }

    /**
     * Feeds rows {@code 0..ROWS} with a watermark after every 10th row: String-backed rows (the
     * row path) or {@code BinaryRowData} (the column handover).
     */
    static void feed(OneInputStreamOperatorTestHarness<RowData, RowData> h, boolean binary) throws Exception {
        RowDataSerializer in = new RowDataSerializer(CalcData.TYPE);
        for (long i = 0; i < ROWS; i++) {
            RowData row = CalcData.row(i);
            h.processElement(binary ? in.toBinaryRow(row).copy() : row, i * 10);
            if (i % 10 == 9) {
                h.processWatermark(i * 10);
            }
        }
        h.endInput();
    }

    @Test
    void droppedRowsAreNeitherProjectedNorEmitted() throws Exception {
        List<String> expected = new ArrayList<>();
        int invalid = 0;
        int kept = 0;
        for (long i = 0; i < ROWS; i++) {
            GenericRowData r = CalcData.row(i);
            if (!r.isNullAt(1)) {
                expected.add("r" + i + "@" + i * 10);
                kept++;
            } else if (!r.isNullAt(4) && !Set.of(1, 224, 256, 384, 512).contains(r.getInt(4))) {
                invalid++;
            }
            if (i % 10 == 9) {
                expected.add("w" + i * 10);
            }
        }
        assertTrue(invalid > 0, "the rows must hold an invalid width on a dropped row");
        assertTrue(kept < ROWS, "some rows must be dropped");
        for (boolean binary : new boolean[] {false, true}) {
            try (OneInputStreamOperatorTestHarness<RowData, RowData> h = harness(new int[] {1})) {
                feed(h, binary);
                assertEquals(expected, WatermarkHoldingHarnessTest.drain(h), binary ? "binary rows" : "String rows");
            }
        }
        // The control: projecting every row meets the invalid widths.
        OneInputStreamOperatorTestHarness<RowData, RowData> h = harness(new int[0]);
        Exception e = assertThrows(Exception.class, () -> feed(h, true));
        Throwable t = e;
        while (t != null && !(t instanceof SluiceException)) {
            t = t.getCause();
        }
        assertTrue(t != null && t.getMessage().contains("MessageDigest not available"), String.valueOf(e));
        try {
            h.close();
        } catch (SluiceException again) {
            // the failed batch is still buffered: closing flushes it, and fails, once more
        }
    }

    @Test
    void aFilterThatIsNotBooleanIsRefusedAtOpen() {
        Exception e = assertThrows(SluiceException.class, () -> harness(new int[] {2}).close());
        assertTrue(e.getMessage().contains("filter column 2 is VARCHAR"), e.getMessage());
    }
}
