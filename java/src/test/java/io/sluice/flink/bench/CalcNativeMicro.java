package io.sluice.flink.bench;

import java.util.Locale;

import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;

import io.sluice.jni.CalcNative;
import io.sluice.jni.RowBatch;
import io.sluice.jni.RowBlock;

/**
 * {@code CalcNative.process} alone, outside Flink: ns per row for one batch
 * of rows each in its own {@code byte[]} (as Flink hands them over) and for
 * the same rows packed into one {@code byte[]}, per expression and batch
 * size. Splits the sluice path's cost into JNI + transposes + kernel.
 * Run by scripts/java-bench.sh with {@code micro} as the first argument.
 */
public final class CalcNativeMicro {
    private CalcNativeMicro() {}

    /** @param args unused */
    public static void main(String[] args) {
        BinaryRowData[] rows = CalcBenchmark.materialise(65_536);
        String[] names = CalcBenchmark.TYPE.getFieldNames().toArray(new String[0]);
        String[] types = CalcBenchmark.TYPE.getChildren().stream().map(t -> t.asSerializableString()).toArray(String[]::new);
        System.out.println("| expression | batch | rows in own byte[] ns/row | rows packed in one byte[] ns/row |");
        System.out.println("| --- | --- | --- | --- |");
        for (String e : new String[] {"id", "MD5(a)", "SHA2(a, w)", "CONCAT(a, b, c)", "CONCAT_WS('|', a, b, c)"}) {
            for (int bs : new int[] {32, 512, 8192}) {
                try (CalcNative calc = new CalcNative(names, types, new String[] {e}, null)) {
                    double own = perRow(calc, rows, bs, false);
                    double packed = perRow(calc, rows, bs, true);
                    System.out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f |%n", e, bs, own, packed);
                }
            }
        }
    }

    private static double perRow(CalcNative calc, BinaryRowData[] rows, int bs, boolean packed) {
        RowBatch batch = new RowBatch(bs);
        BinaryRowData[] input = packed ? pack(rows) : rows;
        long total = 0;
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 6; round++) {
            long t0 = System.nanoTime();
            for (int start = 0; start + bs <= input.length; start += bs) {
                for (int i = start; i < start + bs; i++) {
                    batch.add(input[i]);
                }
                RowBlock b = calc.process(batch);
                total += b.data.length;
                batch.clear();
            }
            best = Math.min(best, System.nanoTime() - t0);
        }
        if (total == 42) {
            System.out.print("");
        }
        return (double) best / (input.length / bs * bs);
    }

    private static BinaryRowData[] pack(BinaryRowData[] rows) {
        int size = 0;
        for (BinaryRowData r : rows) {
            size += r.getSizeInBytes();
        }
        byte[] all = new byte[size];
        BinaryRowData[] out = new BinaryRowData[rows.length];
        int off = 0;
        for (int i = 0; i < rows.length; i++) {
            BinaryRowData r = rows[i];
            r.getSegments()[0].get(r.getOffset(), all, off, r.getSizeInBytes());
            out[i] = new BinaryRowData(r.getArity());
            out[i].pointTo(MemorySegmentFactory.wrap(all), off, r.getSizeInBytes());
            off += r.getSizeInBytes();
        }
        return out;
    }
}
