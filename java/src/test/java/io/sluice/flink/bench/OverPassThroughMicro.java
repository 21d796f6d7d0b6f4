package io.sluice.flink.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

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

import io.sluice.flink.keyed.KeyProjection;
import io.sluice.flink.keyed.SluiceKeyedOperator;

/**
 * The native proctime running fold ({@code COUNT(*), SUM(v) OVER (PARTITION BY k ORDER BY pt ROWS
 * UNBOUNDED PRECEDING)}, 1,024 keys, rows k STRING, v BIGINT, ts BIGINT, then none or three
 * payload strings of about 45 bytes the fold does not read) driven through
 * {@link SluiceKeyedOperator} in a test harness, outside a Flink job: the operator thread's CPU
 * time per row (native call included) on the pass-through path (object reuse off) and on the
 * whole-row path (object reuse on, which turns the pass-through off), alternating. CPU time, not
 * wall time, so that a loaded machine slows both paths alike rather than deciding the ratio. The
 * harness keeps no copy of the output (its serializer's copy returns the row itself), and drops
 * it every batch.
 *
 * <pre>
 *   scripts/java-bench.sh over-micro [rows] [rounds]
 * </pre>
 */
public final class OverPassThroughMicro {
    private OverPassThroughMicro() {}

    /** k STRING, v BIGINT, ts BIGINT, then {@code payload} STRING columns the fold does not read. */
    static RowType type(int payload, boolean out) {
        int n = 3 + payload + (out ? 2 : 0);
        LogicalType[] types = new LogicalType[n];
        String[] names = new String[n];
        for (int i = 0; i < n; i++) {
            boolean string = i == 0 || (i >= 3 && i < 3 + payload);
            types[i] = string ? new VarCharType(VarCharType.MAX_LENGTH) : new BigIntType(i != 2 && i != 3 + payload);
            names[i] = "f" + i;
        }
        return RowType.of(types, names);
    }

    static final String SPEC = "over keys=0 order=proctime frame=rows preceding=unbounded aggs=count(*),sum(1)";
    static final int BATCH = 4_096;

    /** The harness's output serializer: no copy (the benchmark reads nothing back). */
    static final class NoCopy extends RowDataSerializer {
        private static final long serialVersionUID = 1L;

        NoCopy(RowType out) {
            super(out);
        }

        @Override
        public RowData copy(RowData from) {
            return from;
        }
    }

    static BinaryRowData[] rows(int n, int payload) {
        RowDataSerializer s = new RowDataSerializer(type(payload, false));
        BinaryRowData[] rows = new BinaryRowData[n];
        for (int i = 0; i < n; i++) {
            GenericRowData g = new GenericRowData(3 + payload);
            g.setField(0, StringData.fromString("key-" + (i * 7919 % 1_024)));
            g.setField(1, i % 10 == 0 ? null : (long) i);
            g.setField(2, 1_700_000_000_000L + i);
            for (int p = 0; p < payload; p++) {
                g.setField(3 + p, StringData.fromString("payload column " + p + " of row " + i + ", forty-odd bytes"));
            }
            rows[i] = s.toBinaryRow(g).copy();
        }
        return rows;
    }

    /** @return operator-thread CPU ns per row over {@code total} rows */
    static double run(BinaryRowData[] rows, int payload, long total, boolean objectReuse) throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        RowType in = type(payload, false);
        RowType out = type(payload, true);
        System.setProperty(SluiceKeyedOperator.PASS_THROUGH_PROPERTY, "true"); // object reuse decides the path
        SluiceKeyedOperator op = new SluiceKeyedOperator(SPEC, in, out.getFieldCount(), BATCH, 0);
        KeyProjection key = new KeyProjection(in, new int[] {0});
        try (KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h =
                new KeyedOneInputStreamOperatorTestHarness<>(op, key, key.getProducedType())) {
            h.setup(new NoCopy(out));
            if (objectReuse) {
                h.getExecutionConfig().enableObjectReuse();
            }
            h.open();
            if (op.passesThrough() == objectReuse) {
                throw new IllegalStateException("pass-through is " + op.passesThrough() + " with object reuse " + objectReuse);
            }
            StreamRecord<RowData> rec = new StreamRecord<>(null);
            long t0 = mx.getCurrentThreadCpuTime();
            for (long i = 0; i < total; i++) {
                h.processElement(rec.replace(rows[(int) (i % rows.length)]));
                if (i % BATCH == BATCH - 1) {
                    h.getOutput().clear();
                }
            }
            h.endInput();
            long t1 = mx.getCurrentThreadCpuTime();
            return (t1 - t0) / (double) total;
        }
    }

    /** @param args rows per run (default 2M), rounds (default 3) */
    public static void main(String[] args) throws Exception {
        long total = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        for (int payload : new int[] {0, 3}) {
            BinaryRowData[] rows = rows(65_536, payload);
            run(rows, payload, total / 4, false); // warm-up
            run(rows, payload, total / 4, true);
            for (int r = 0; r < rounds; r++) {
                double through = run(rows, payload, total, false);
                double whole = run(rows, payload, total, true);
                System.out.printf(Locale.ROOT, "%d payload strings, round %d: pass-through %.1f ns/row, whole row "
                        + "%.1f ns/row, %.2fx%n", payload, r, through, whole, whole / through);
            }
        }
    }
}
