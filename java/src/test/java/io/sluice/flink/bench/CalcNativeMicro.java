package io.sluice.flink.bench;

import java.util.Locale;
import java.util.function.IntFunction;

import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;

import io.sluice.jni.CalcNative;
import io.sluice.jni.ColumnBatch;
import io.sluice.jni.RowBatch;
import io.sluice.jni.RowBlock;

/**
 * {@code CalcNative.process} alone, outside Flink: ns per row for one batch
 * of rows each in its own {@code byte[]} (as Flink hands them over) and for
 * the same rows packed into one {@code byte[]}, per expression and batch
 * size, and (the operator's two paths, Java-side copy included) for rows
 * gathered into one reusable arena per batch and for the column handover
 * ({@link ColumnBatch}: read fields copied into per-column arrays, borrowed
 * natively). Splits the sluice path's cost into JNI + transposes + kernel.
 * Run by scripts/java-bench.sh with {@code micro} as the first argument.
 */
public final class CalcNativeMicro {
    private CalcNativeMicro() {}

    /** @param args unused */
    public static void main(String[] args) {
        BinaryRowData[] rows = CalcBenchmark.materialise(65_536);
        String[] names = CalcBenchmark.TYPE.getFieldNames().toArray(new String[0]);
        String[] types = CalcBenchmark.TYPE.getChildren().stream().map(t -> t.asSerializableString()).toArray(String[]::new);
        System.out.println("| expression | batch | rows in own byte[] ns/row | rows packed in one byte[] ns/row"
                + " | gathered into arena (copy incl.) ns/row | column handover (copy incl.) ns/row |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        for (String e : new String[] {"id", "MD5(a)", "SHA2(a, w)", "CONCAT(a, b, c)", "CONCAT_WS('|', a, b, c)"}) {
            for (int bs : new int[] {32, 512, 8192}) {
                try (CalcNative calc = new CalcNative(names, types, new String[] {e}, null)) {
                    double own = perRow(calc, rows, bs, false);
                    double packed = perRow(calc, rows, bs, true);
                    double gathered = gathered(calc, rows, bs);
                    double columns = columns(calc, rows, bs);
                    System.out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.0f | %.0f |%n", e, bs, own, packed,
                            gathered, columns);
                }
            }
        }
    }

    /**
     * The best of six rounds over every whole batch of {@code bs} of {@code n} rows, in ns per row;
     * {@code batch.apply(start)} fills and processes the batch of rows {@code start..start + bs}.
     */
    private static double bestPerRow(int n, int bs, IntFunction<RowBlock> batch) {
        long total = 0;
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 6; round++) {
            long t0 = System.nanoTime();
            for (int start = 0; start + bs <= n; start += bs) {
                total += batch.apply(start).data.length;
            }
            best = Math.min(best, System.nanoTime() - t0);
        }
        if (total == 42) {
            System.out.print("");
        }
        return (double) best / (n / bs * bs);
    }

    private static double perRow(CalcNative calc, BinaryRowData[] rows, int bs, boolean packed) {
        RowBatch batch = new RowBatch(bs);
        BinaryRowData[] input = packed ? pack(rows) : rows;
        return bestPerRow(input.length, bs, start -> {
            for (int i = start; i < start + bs; i++) {
                batch.add(input[i]);
            }
            RowBlock b = calc.process(batch);
            batch.clear();
            return b;
        });
    }

    /** As SluiceCalcOperator's gather path: each row copied into a reused arena, then by reference. */
    private static double gathered(CalcNative calc, BinaryRowData[] rows, int bs) {
        RowBatch batch = new RowBatch(bs);
        BinaryRowData[] views = new BinaryRowData[bs];
        for (int i = 0; i < bs; i++) {
            views[i] = new BinaryRowData(rows[0].getArity());
        }
        var arena = new Object() {
            byte[] bytes = new byte[1 << 20];
            org.apache.flink.core.memory.MemorySegment seg = MemorySegmentFactory.wrap(bytes);
        };
        return bestPerRow(rows.length, bs, start -> {
            int used = 0;
            for (int i = start; i < start + bs; i++) {
                BinaryRowData r = rows[i];
                int size = r.getSizeInBytes();
                if (used + size > arena.bytes.length) {
                    arena.bytes = new byte[arena.bytes.length * 2];
                    arena.seg = MemorySegmentFactory.wrap(arena.bytes);
                    used = 0;
                }
                r.getSegments()[0].get(r.getOffset(), arena.bytes, used, size);
                BinaryRowData v = views[i - start];
                v.pointTo(arena.seg, used, size);
                batch.add(v);
                used += size;
            }
            RowBlock b = calc.process(batch);
            batch.clear();
            return b;
        });
    }

    /** As SluiceCalcOperator's column path: read fields copied into a ColumnBatch, borrowed natively. */
    private static double columns(CalcNative calc, BinaryRowData[] rows, int bs) {
        ColumnBatch cols = ColumnBatch.forColumnKinds(calc.columnKinds(), bs);
        if (cols == null) {
            return Double.NaN; // a field the expression reads must go by rows: no column handover
        }
        return bestPerRow(rows.length, bs, start -> {
            for (int i = start; i < start + bs; i++) {
                cols.add(rows[i]);
            }
            RowBlock b = calc.processColumns(cols);
            cols.clear();
            return b;
        });
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
