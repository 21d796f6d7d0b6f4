package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pass-through path of {@link SluiceKeyedOperator} ({@link AppendedRows}): a proctime ROWS /
 * RANGE UNBOUNDED PRECEDING OVER keeps its input rows and takes only the aggregate values from
 * native code, exactly when object reuse is off; every other OVER, and object reuse on, takes the
 * whole row path. Either way the output is each input row followed by its running
 * {@code COUNT(*)}, {@code COUNT(v)}, {@code SUM(v)} (a plainly written fold per key), as
 * {@code +I}, in input order: keys with supplementary characters and a NULL key, NULL arguments,
 * a payload column the fold never reads, batches of 7 rows (the last one partial).
 */
class OverPassThroughTest {
    static final RowType TYPE = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH),
        new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()}, new String[] {"k", "p", "v"});
    static final RowType OUT = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH),
        new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(), new BigIntType(false), new BigIntType(false),
        new BigIntType()}, new String[] {"k", "p", "v", "c", "cv", "s"});
    static final String AGGS = " aggs=count(*),count(2),sum(2)";
    static final String[] KEYS = {"a", "\uD834\uDD1Eb", "c\uD83D\uDE00", null};
    static final int ROWS = 100;

    static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness(SluiceKeyedOperator op)
            throws Exception {
        KeyProjection key = new KeyProjection(TYPE, new int[] {0});
        KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h =
                new KeyedOneInputStreamOperatorTestHarness<>(op, key, key.getProducedType());
        h.setup(new RowDataSerializer(OUT)); // the harness keeps a copy of each output row
        return h;
    }

    static GenericRowData input(int i) {
        String k = KEYS[i % KEYS.length];
        Long v = i % 5 == 0 ? null : (long) i * 3 - 100;
        return GenericRowData.of(k == null ? null : StringData.fromString(k), StringData.fromString("payload " + i), v);
    }

    /** The plainly written running fold: each input row, then COUNT(*), COUNT(v), SUM(v) of its key so far. */
    static List<String> expected() {
        Map<String, long[]> acc = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            GenericRowData r = input(i);
            long[] a = acc.computeIfAbsent(String.valueOf(r.getField(0)), k -> new long[3]);
            a[0]++;
            if (r.getField(2) != null) {
                a[1]++;
                a[2] += (Long) r.getField(2);
            }
            out.add(r.getField(0) + "|" + r.getField(1) + "|" + r.getField(2) + "|" + a[0] + "|" + a[1] + "|"
                    + (a[1] == 0 ? null : a[2]) + "|" + RowKind.INSERT);
        }
        return out;
    }

    /** Runs all rows through {@code spec}; returns whether it passed through, and the output. */
    static List<String> run(String spec, boolean objectReuse, boolean[] passedThrough) throws Exception {
        return run(spec, objectReuse, true, passedThrough);
    }

    /** As above, with the pass-through property set to {@code property} while the operator starts. */
    static List<String> run(String spec, boolean objectReuse, boolean property, boolean[] passedThrough)
            throws Exception {
        String before = System.setProperty(SluiceKeyedOperator.PASS_THROUGH_PROPERTY, Boolean.toString(property));
        try {
            return runWithProperty(spec, objectReuse, passedThrough);
        } finally {
            if (before == null) {
                System.clearProperty(SluiceKeyedOperator.PASS_THROUGH_PROPERTY);
            } else {
                System.setProperty(SluiceKeyedOperator.PASS_THROUGH_PROPERTY, before);
            }
        }
    }

    private static List<String> runWithProperty(String spec, boolean objectReuse, boolean[] passedThrough)
            throws Exception {
        SluiceKeyedOperator op = new SluiceKeyedOperator(spec, TYPE, OUT.getFieldCount(), 7, 0);
        List<String> out = new ArrayList<>();
        try (KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h = harness(op)) {
            if (objectReuse) {
                h.getExecutionConfig().enableObjectReuse();
            }
            h.open();
            passedThrough[0] = op.passesThrough();
            for (int i = 0; i < ROWS; i++) {
                h.processElement(new StreamRecord<>(new RowDataSerializer(TYPE).toBinaryRow(input(i)).copy()));
            }
            h.endInput();
            for (Object o : h.getOutput()) {
                if (o instanceof StreamRecord) {
                    RowData r = (RowData) ((StreamRecord<?>) o).getValue();
                    out.add((r.isNullAt(0) ? null : r.getString(0)) + "|" + r.getString(1) + "|" + (r.isNullAt(2) ? null : r.getLong(2)) + "|"
                            + r.getLong(3) + "|" + r.getLong(4) + "|" + (r.isNullAt(5) ? null : r.getLong(5)) + "|"
                            + r.getRowKind());
                }
            }
        }
        return out;
    }

    @ParameterizedTest(name = "frame = {0}")
    @ValueSource(strings = {"rows", "range"})
    void runningFoldPassesItsInputRowsThrough(String frame) throws Exception {
        boolean[] passed = new boolean[1];
        List<String> out = run("over keys=0 order=proctime frame=" + frame + " preceding=unbounded" + AGGS, false, passed);
        assertTrue(passed[0], "a proctime running fold with object reuse off passes its input rows through");
        assertEquals(expected(), out);
    }

    @Test
    void withoutThePropertyTheRunningFoldTakesTheWholeRowPath() throws Exception {
        boolean[] passed = new boolean[1];
        List<String> out = run("over keys=0 order=proctime frame=rows preceding=unbounded" + AGGS, false, false, passed);
        assertFalse(passed[0], "the pass-through is off by default");
        assertEquals(expected(), out);
    }

    @Test
    void objectReuseTakesTheWholeRowPath() throws Exception {
        boolean[] passed = new boolean[1];
        List<String> out = run("over keys=0 order=proctime frame=rows preceding=unbounded" + AGGS, true, passed);
        assertFalse(passed[0], "with object reuse on, the input rows may be overwritten: no pass-through");
        assertEquals(expected(), out);
    }

    @Test
    void boundedFrameTakesTheWholeRowPath() throws Exception {
        boolean[] passed = new boolean[1];
        run("over keys=0 order=proctime frame=rows preceding=3" + AGGS, false, passed);
        assertFalse(passed[0], "a bounded frame keeps its rows natively: no pass-through");
    }
}
