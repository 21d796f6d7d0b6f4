package io.sluice.jni;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

/** CalcNative straight from Java: rows by reference in, BinaryRowData out. */
class CalcNativeTest {
    static final RowType TYPE = RowType.of(
            new LogicalType[] {VarCharType.STRING_TYPE, new IntType()}, new String[] {"s", "w"});
    static final String[] NAMES = {"s", "w"};
    static final String[] TYPES = {"STRING", "INT"};

    @Test
    void projectsABatchKeepingRowKinds() {
        RowDataSerializer ser = new RowDataSerializer(TYPE);
        RowBatch batch = new RowBatch(4);
        String[] values = {"abc", null, "Zoë 😀"};
        RowKind[] kinds = {RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.DELETE};
        for (int i = 0; i < values.length; i++) {
            GenericRowData g = GenericRowData.of(values[i] == null ? null : StringData.fromString(values[i]), 256);
            g.setRowKind(kinds[i]);
            assertTrue(batch.add(ser.toBinaryRow(g).copy()));
        }
        try (CalcNative calc = new CalcNative(NAMES, TYPES, new String[] {"md5(s)", "CONCAT(s, '-', s) AS d", "w"}, null)) {
            assertArrayEquals(new String[] {"CHAR(32)", "VARCHAR(2147483647)", "INT"}, calc.outputTypes());
            assertArrayEquals(new String[] {"EXPR$0", "d", "w"}, calc.outputNames());
            RowBlock block = calc.process(batch);
            assertEquals(3, block.numRows());
            BinaryRowData r0 = block.row(0, 3, null);
            assertEquals("900150983cd24fb0d6963f7d28e17f72", r0.getString(0).toString());
            assertEquals("abc-abc", r0.getString(1).toString());
            assertEquals(256, r0.getInt(2));
            BinaryRowData r1 = block.row(1, 3, null);
            assertEquals(RowKind.UPDATE_BEFORE, r1.getRowKind());
            assertTrue(r1.isNullAt(0) && r1.isNullAt(1));
            BinaryRowData r2 = block.row(2, 3, null);
            assertEquals(RowKind.DELETE, r2.getRowKind());
            assertEquals("Zoë 😀-Zoë 😀", r2.getString(1).toString());
        }
    }

    @Test
    void badExpressionsThrowTheNativeMessage() {
        SluiceException e = assertThrows(SluiceException.class,
                () -> new CalcNative(NAMES, TYPES, new String[] {"md5(s", "w"}, null));
        assertEquals(SluiceException.INVALID_ARGUMENT, e.status());
        assertEquals("CalcNative.create: expression 1 (md5(s): at byte 5: expected ',' or ')', found the end", e.getMessage());
        e = assertThrows(SluiceException.class, () -> new CalcNative(NAMES, TYPES, new String[] {"upper(s)"}, null));
        assertTrue(e.getMessage().contains("unknown function upper"), e.getMessage());
    }

    @Test
    void closedHandleIsRefusedOnTheJavaSide() {
        CalcNative calc = new CalcNative(NAMES, TYPES, new String[] {"s"}, null);
        calc.close();
        calc.close();
        assertThrows(IllegalStateException.class, () -> calc.process(new RowBatch(1)));
    }
}
