package io.sluice.flink.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import io.sluice.flink.calc.Utf16RowWriter;
import io.sluice.jni.CalcNative;
import io.sluice.jni.RowBatch;
import io.sluice.jni.RowBlock;

/**
 * What a lazy string (a {@code GenericRowData} field holding a
 * {@code java.lang.String}) costs on its way into the native Calc, per
 * representation: the operator's two ways for a batch of such rows, timed
 * alternately in one JVM, each as the operator runs it (row written, gathered
 * into the arena, {@code CalcNative.process}):
 * <ul>
 *   <li><b>toBinaryRow</b>: Flink's {@code RowDataSerializer.toBinaryRow}
 *       (its {@code writeString} uses the JDK's {@code getBytes(UTF_8)}), the
 *       bytes then read from the rows;</li>
 *   <li><b>UTF-16</b>: the row written without the string
 *       ({@link Utf16RowWriter}), the string copied with {@code getChars}
 *       into a {@code char[]} and encoded natively through the column's
 *       repeated-value cache.</li>
 * </ul>
 * Expression {@code POSITION('~' IN s)} (reads every string, writes an INT).
 * Times are this thread's CPU time (the machine is shared); a NULL-string
 * baseline is subtracted to give ns per string. Run by
 * {@code scripts/java-bench.sh lazy}.
 */
public final class LazyStringMicro {
    static final RowType TYPE = RowType.of(
            new LogicalType[] {new BigIntType(false), VarCharType.STRING_TYPE}, new String[] {"id", "s"});
    static final int BATCH = 8192;
    static final int ROWS = 8 * BATCH;

    private static long nativeNanos;
    /** Native (CalcNative.process) ns per row of the last {@link #run}. */
    private static double lastNative;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private LazyStringMicro() {}

    /** This thread's CPU time: on the shared, loaded test machine wall time mostly measures the neighbours. */
    static long cpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /**
     * @param args none: every representation in this JVM (after
     *     {@code CalcBenchmark.encodeCosts()}); {@code ascii} or {@code mixed}: that
     *     representation only (the JIT then sees one String coder)
     */
    public static void main(String[] args) {
        String only = args.length > 0 ? args[0] : "";
        if (only.isEmpty()) {
            CalcBenchmark.encodeCosts();
        }
        String[] names = TYPE.getFieldNames().toArray(new String[0]);
        String[] types = TYPE.getChildren().stream().map(LogicalType::asSerializableString).toArray(String[]::new);
        String[][] all = {
            {"NULL (baseline)", null},
            {"ASCII 64, distinct", "a"},
            {"mixed 2/3-byte 64, distinct", "m"},
            {"ASCII 64, one value repeated", "A"},
            {"mixed 2/3-byte 64, one value repeated", "M"},
        };
        String[][] sets = java.util.Arrays.stream(all)
                .filter(c -> c[1] == null || only.isEmpty() || c[1].equalsIgnoreCase(only.substring(0, 1)))
                .toArray(String[][]::new);
        System.out.println(only.isEmpty() ? "every representation in one JVM:" : "only " + only + " strings in this JVM:");
        double[][] res = new double[sets.length][4];
        for (int k = 0; k < sets.length; k++) {
            GenericRowData[] rows = rows(sets[k][1]);
            try (CalcNative calc = new CalcNative(names, types, new String[] {"POSITION('~' IN s)"}, null)) {
                double a = Double.MAX_VALUE;
                double b = Double.MAX_VALUE;
                for (int round = 0; round < 15; round++) {
                    double t = run(calc, rows, false);
                    if (t < a) {
                        a = t;
                        res[k][2] = lastNative;
                    }
                    t = run(calc, rows, true);
                    if (t < b) {
                        b = t;
                        res[k][3] = lastNative;
                    }
                }
                res[k][0] = a;
                res[k][1] = b;
            }
        }
        System.out.println("first step alone over the same 65,536 strings, thread CPU ns per string (best of 15):");
        System.out.println("| strings | JDK getBytes(UTF_8) | Flink encode (fromString + ensureMaterialized) | getChars into one char[] |");
        System.out.println("| --- | --- | --- | --- |");
        for (int k = 1; k < sets.length; k++) {
            String[] strs = new String[ROWS];
            GenericRowData[] rows = rows(sets[k][1]);
            for (int i = 0; i < ROWS; i++) {
                strs[i] = rows[i].getString(1).toString();
            }
            double g = Double.MAX_VALUE;
            double f = Double.MAX_VALUE;
            double c = Double.MAX_VALUE;
            char[] buf = new char[ROWS * 64];
            for (int round = 0; round < 15; round++) {
                g = Math.min(g, steps(strs, 0, buf));
                f = Math.min(f, steps(strs, 1, buf));
                c = Math.min(c, steps(strs, 2, buf));
            }
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f |%n", sets[k][0], g, f, c);
        }
        System.out.println("lazy strings into the native Calc, thread CPU ns per row (best of 15 alternating rounds, "
                + BATCH + "-row batches); per string = minus the NULL baseline:");
        System.out.println("| strings | toBinaryRow ns/row (native part) | UTF-16 ns/row (native part) "
                + "| toBinaryRow ns/string | UTF-16 ns/string | UTF-16 Java / native ns/string |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        for (int k = 0; k < sets.length; k++) {
            double[] r = res[k];
            double[] z = res[0];
            System.out.printf(Locale.ROOT, "| %s | %.1f (%.1f) | %.1f (%.1f) | %.1f | %.1f | %.1f / %.1f |%n", sets[k][0],
                    r[0], r[2], r[1], r[3], r[0] - z[0], r[1] - z[1], (r[1] - r[3]) - (z[1] - z[3]), r[3] - z[3]);
        }
    }

    /** ns per string of one step: 0 = getBytes(UTF_8), 1 = Flink's encoder, 2 = getChars. */
    static double steps(String[] strs, int step, char[] buf) {
        long sink = 0;
        int at = 0;
        long t0 = cpu();
        for (String s : strs) {
            if (step == 0) {
                sink += s.getBytes(StandardCharsets.UTF_8).length;
            } else if (step == 1) {
                BinaryStringData b = BinaryStringData.fromString(s);
                b.ensureMaterialized();
                sink += b.getSizeInBytes();
            } else {
                s.getChars(0, s.length(), buf, at);
                at += s.length();
            }
        }
        long t = cpu() - t0;
        if (sink == 42 || at == 42) {
            System.out.print("");
        }
        return (double) t / strs.length;
    }

    /** 64-char strings: lower case distinct, upper case one value; a = ASCII, m = 2/3-byte. */
    static GenericRowData[] rows(String kind) {
        GenericRowData[] rows = new GenericRowData[ROWS];
        for (int i = 0; i < ROWS; i++) {
            String s = null;
            if (kind != null) {
                int v = Character.isUpperCase(kind.charAt(0)) ? 7 : i;
                s = kind.equalsIgnoreCase("a") ? ascii(v) : mixed(v);
            }
            rows[i] = GenericRowData.of((long) i, s == null ? null : StringData.fromString(s));
        }
        return rows;
    }

    static String ascii(int v) {
        String base = "The quick brown fox jumps over the lazy dog, 0123456789 abcdefgh";
        String n = Integer.toString(v);
        return n + base.substring(n.length());
    }

    static String mixed(int v) {
        StringBuilder m = new StringBuilder(64);
        for (int i = 0; m.length() < 64; i++) {
            m.append(i % 2 == 0 ? 'ж' : '中');
        }
        // vary the first chars with the value (3-byte CJK)
        for (int i = 0; i < 4; i++) {
            m.setCharAt(i * 2 + 1, (char) ('一' + ((v >> (i * 4)) & 15)));
        }
        return m.toString();
    }

    /** ns per row of one pass over {@code rows} in batches, as the operator runs them. */
    static double run(CalcNative calc, GenericRowData[] rows, boolean utf16) {
        RowDataSerializer ser = new RowDataSerializer(TYPE);
        Utf16RowWriter w = Utf16RowWriter.create(TYPE, BATCH);
        RowBatch batch = new RowBatch(BATCH);
        byte[] arena = new byte[BATCH * 256];
        MemorySegment seg = MemorySegmentFactory.wrap(arena);
        BinaryRowData[] gathered = new BinaryRowData[BATCH];
        for (int i = 0; i < BATCH; i++) {
            gathered[i] = new BinaryRowData(2);
        }
        long sink = 0;
        nativeNanos = 0;
        long t0 = cpu();
        for (int start = 0; start < rows.length; start += BATCH) {
            int used = 0;
            for (int i = 0; i < BATCH; i++) {
                BinaryRowData bin = utf16 ? w.write(rows[start + i]) : ser.toBinaryRow(rows[start + i]);
                int size = bin.getSizeInBytes();
                BinarySegmentUtils.copyToBytes(bin.getSegments(), bin.getOffset(), arena, used, size);
                gathered[i].pointTo(seg, used, size);
                batch.add(gathered[i]);
                used += size;
            }
            long n0 = cpu();
            RowBlock b = utf16 ? calc.process(batch, w.columns()) : calc.process(batch);
            nativeNanos += cpu() - n0;
            sink += b.data.length;
            batch.clear();
            if (utf16) {
                w.columns().clear();
            }
        }
        long t = cpu() - t0;
        lastNative = (double) nativeNanos / rows.length;
        if (sink == 42) {
            System.out.print("");
        }
        return (double) t / rows.length;
    }
}
