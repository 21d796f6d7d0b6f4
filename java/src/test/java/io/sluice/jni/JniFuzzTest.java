package io.sluice.jni;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;

/**
 * A coverage-guided fuzzer (Jazzer) at the JNI edge: arbitrary row bytes, column arrays, UTF-16
 * columns, Calc expression strings, keyed operator specs and snapshot blobs go through the native
 * methods of {@link CalcNative} and {@link KeyedNative} — the same calls the public wrappers make,
 * but with every argument the fuzzer can think of, including array lengths, offsets and counts the
 * wrappers would never pass. The contract: every call either returns or throws
 * {@link SluiceException} / {@link IllegalArgumentException}; anything else escapes and is a finding,
 * and a native crash kills the JVM, which Jazzer reports with the input.
 *
 * <p>In {@code mvn verify} the fuzz tests run as regression tests over their seeds
 * ({@code src/test/resources/io/sluice/jni/JniFuzzTestInputs/}); with {@code JAZZER_FUZZ=1} the one
 * selected fuzzes: {@code jniEdge} for a minute (a step of {@code scripts/java.sh}), {@code jniEdgeLong}
 * for 30 minutes (java/README.md, "Fuzzing the JNI edge").
 */
class JniFuzzTest {
    private static final String[] NAMES = {"s", "w", "b", "x"};
    private static final String[] TYPES = {"STRING", "INT", "BIGINT", "BYTES"};
    private static final String[] PROGRAMS = {
        "md5(s)", "sha2(s, 256)", "sha2(s, w)", "CONCAT(s, '-', s) AS d", "CONCAT_WS('|', s, s)",
        "POSITION('a' IN s)", "LOCATE('b', s, w)", "s LIKE 'a%c' ESCAPE '!'", "REPLACE(s, 'a', 'bb')",
        "SPLIT_INDEX(s, ',', w)", "w", "$2", "x",
    };
    private static final String[] SPECS = {
        "group_agg keys=0 aggs=count(*),sum(1),max(2),min(0),avg(2),first_value(0),last_value(3)",
        "group_agg keys= aggs=count(1) retractable=false",
        "dedup keys=0 keep=last order=rowtime(2)",
        "dedup keys=0,1 keep=first",
        "normalize keys=s equal_update_after=emit max_parallelism=16",
    };
    private static final String[] TYPE_WORDS = {
        "STRING", "INT", "BIGINT", "BYTES", "VARCHAR(3)", "CHAR(2) NOT NULL", "BOOLEAN", "DOUBLE", "FLOAT",
        "TINYINT", "SMALLINT", "DATE", "TIMESTAMP(3)", "DECIMAL(10, 2)", "ARRAY<INT>", "ROW<a INT>", "",
    };

    private static final MethodHandle CALC_CREATE;
    private static final MethodHandle CALC_PROCESS;
    private static final MethodHandle CALC_PROCESS_UTF16;
    private static final MethodHandle CALC_PROCESS_COLUMNS;
    private static final MethodHandle KEYED_CREATE;
    private static final MethodHandle KEYED_PROCESS;
    private static final MethodHandle KEYED_KEY_GROUPS;
    private static final MethodHandle KEYED_SNAPSHOT;
    private static final MethodHandle KEYED_RESTORE;
    private static final MethodHandle KEYED_FREE;
    private static final MethodHandle CALC_FREE;

    static {
        NativeLibrary.load();
        try {
            MethodHandles.Lookup calc = MethodHandles.privateLookupIn(CalcNative.class, MethodHandles.lookup());
            MethodHandles.Lookup keyed = MethodHandles.privateLookupIn(KeyedNative.class, MethodHandles.lookup());
            Class<?> s = String[].class;
            Class<?> o = Object[].class;
            Class<?> ia = int[].class;
            Class<?> i = int.class;
            Class<?> l = long.class;
            MethodType rows = MethodType.methodType(RowBlock.class, l, o, i, ia, ia, ia, i);
            CALC_CREATE = calc.findStatic(CalcNative.class, "create", MethodType.methodType(l, s, s, s, s));
            CALC_PROCESS = calc.findStatic(CalcNative.class, "process", rows);
            CALC_PROCESS_UTF16 = calc.findStatic(CalcNative.class, "processUtf16",
                    MethodType.methodType(RowBlock.class, l, o, i, ia, ia, ia, i, ia, o, o, o, i));
            CALC_PROCESS_COLUMNS = calc.findStatic(CalcNative.class, "processColumns",
                    MethodType.methodType(RowBlock.class, l, ia, o, o, o, byte[].class, i));
            KEYED_CREATE = keyed.findStatic(KeyedNative.class, "create", MethodType.methodType(l, String.class, s, s));
            KEYED_PROCESS = keyed.findStatic(KeyedNative.class, "process", rows);
            KEYED_KEY_GROUPS = keyed.findStatic(KeyedNative.class, "keyGroups",
                    MethodType.methodType(int[].class, l, o, i, ia, ia, ia, i));
            KEYED_SNAPSHOT = keyed.findStatic(KeyedNative.class, "snapshotKeyGroups",
                    MethodType.methodType(byte[][].class, l, i, i));
            KEYED_RESTORE = keyed.findStatic(KeyedNative.class, "restore",
                    MethodType.methodType(void.class, l, i, i, byte[][].class));
            KEYED_FREE = keyed.findStatic(KeyedNative.class, "free", MethodType.methodType(void.class, l));
            CALC_FREE = calc.findStatic(CalcNative.class, "free", MethodType.methodType(void.class, l));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The fuzz runs' dictionary (Jazzer reads it through this meta-annotation): expression and spec tokens. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @DictionaryEntries({"md5(", "sha2(", "CONCAT(", "CONCAT_WS(", "POSITION(", " IN ", "LOCATE(", " LIKE ",
        " ESCAPE ", "REPLACE(", "SPLIT_INDEX(", " AS ", "$0", "'", ",", ")", "keys=", "aggs=", "count(*)",
        "sum(", "keep=last", "order=rowtime(", "max_parallelism=", "budget=", "group_agg ", "dedup ", "normalize "})
    @interface SpecTokens {}

    /** The CI-sized run: a minute when fuzzing, the seeds otherwise. */
    @FuzzTest(maxDuration = "60s")
    @SpecTokens
    void jniEdge(FuzzedDataProvider data) throws Throwable {
        oneCall(data);
    }

    /** The long run (30 minutes); see java/README.md. */
    @FuzzTest(maxDuration = "30m")
    @SpecTokens
    void jniEdgeLong(FuzzedDataProvider data) throws Throwable {
        oneCall(data);
    }

    /**
     * The two findings fixed by ffi/src/jni/arrays.rs, as plain tests: an {@code Object[]} shorter
     * than the columns it should hold, and elements of the wrong class (not an array, or an array
     * of another type) where the native side reads an array, on the column, UTF-16 and row paths.
     */
    @Test
    void shortOrMistypedArgumentArraysAreSluiceExceptions() throws Throwable {
        Object[] wrong = {"not an array", new long[4], new Object[4], new short[4], new byte[4]};
        try (CalcNative calc = new CalcNative(NAMES, TYPES, new String[] {"md5(s)"}, null)) {
            long h = calc.address();
            int[] fields = {0};
            assertTrue(calc.columnKinds()[0] >= 0, "field s is read as a column");
            expectSluice("short values", () -> (RowBlock) CALC_PROCESS_COLUMNS.invokeExact(h, fields, new Object[0],
                    new Object[] {new int[2]}, new Object[] {new byte[1]}, new byte[1], 1));
            expectSluice("short nulls", () -> (RowBlock) CALC_PROCESS_COLUMNS.invokeExact(h, fields,
                    new Object[] {new byte[1]}, new Object[] {new int[2]}, new Object[0], new byte[1], 1));
            Object[] segments = {new byte[64]};
            int[] one = {0};
            int[] ends = {1, 1};
            for (Object w : wrong) {
                String what = w.getClass().getSimpleName();
                if (!(w instanceof byte[])) {
                    expectSluice("column values " + what, () -> (RowBlock) CALC_PROCESS_COLUMNS.invokeExact(h, fields,
                         new Object[] {w}, new Object[] {new int[2]}, new Object[] {new byte[1]}, new byte[1], 1));
                }
                expectSluice("units " + what, () -> (RowBlock) CALC_PROCESS_UTF16.invokeExact(h, segments, 1, one,
                        new int[] {0}, new int[] {16}, 1, fields, new Object[] {w}, new Object[] {ends},
                        new Object[] {null}, 1));
                expectSluice("offsets " + what, () -> (RowBlock) CALC_PROCESS_UTF16.invokeExact(h, segments, 1, one,
                        new int[] {0}, new int[] {16}, 1, fields, new Object[] {new char[1]}, new Object[] {w},
                        new Object[] {null}, 1));
                if (!(w instanceof byte[])) {
                    expectSluice("row segment " + what, () -> (RowBlock) CALC_PROCESS.invokeExact(h, new Object[] {w}, 1,
                            one, new int[] {0}, new int[] {0}, 1));
                }
            }
            expectSluice("nulls as byte[]", () -> (RowBlock) CALC_PROCESS_UTF16.invokeExact(h, segments, 1, one,
                    new int[] {0}, new int[] {16}, 1, fields, new Object[] {new char[1]}, new Object[] {ends},
                    new Object[] {new byte[1]}, 1));
            expectSluice("short units", () -> (RowBlock) CALC_PROCESS_UTF16.invokeExact(h, segments, 1, one, new int[] {0},
                    new int[] {16}, 1, fields, new Object[0], new Object[] {ends}, new Object[] {null}, 1));
        }
    }

    private interface NativeCall {
        RowBlock call() throws Throwable;
    }

    private static void expectSluice(String what, NativeCall call) {
        SluiceException e = assertThrows(SluiceException.class, call::call, what);
        assertTrue(e.getMessage() != null && !e.getMessage().isEmpty(), what + ": a message");
    }

    private static void oneCall(FuzzedDataProvider data) throws Throwable {
        try {
            switch (data.consumeInt(0, 5)) {
                case 0 -> calcCreate(data);
                case 1 -> calcRows(data);
                case 2 -> calcColumns(data);
                case 3 -> calcUtf16(data);
                case 4 -> keyedCreate(data);
                default -> keyedRowsAndSnapshots(data);
            }
        } catch (SluiceException | IllegalArgumentException expected) {
            // the contract: a malformed input is a Java exception with a message
        }
    }

    /**
     * Up to 4 fuzzed input fields: per field a name (a known one, or up to {@code maxName} fuzzed
     * chars) and a type (a known word, or up to 16 fuzzed chars).
     *
     * @return {names, types}
     */
    private static String[][] fields(FuzzedDataProvider d, int maxName) {
        int n = d.consumeInt(0, 4);
        String[] names = new String[n];
        String[] types = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = d.consumeBoolean() ? NAMES[i % NAMES.length] : d.consumeString(maxName);
            types[i] = d.consumeBoolean() ? d.pickValue(TYPE_WORDS) : d.consumeString(16);
        }
        return new String[][] {names, types};
    }

    private static void calcCreate(FuzzedDataProvider d) throws Throwable {
        String[][] fields = fields(d, 8);
        String[] names = fields[0];
        String[] types = fields[1];
        String[] exprs = new String[d.consumeInt(0, 3)];
        for (int i = 0; i < exprs.length; i++) {
            exprs[i] = d.consumeString(48);
        }
        String[] out = d.consumeBoolean() ? null : strings(d, exprs.length, 16);
        String[] maybeNames = d.consumeBoolean() ? names : null;
        long h = (long) CALC_CREATE.invokeExact(maybeNames, types, exprs, out);
        freeCalc(h);
    }

    /** A valid Calc program over (s STRING, w INT, b BIGINT, x BYTES), or a random one. */
    private static CalcNative program(FuzzedDataProvider d) {
        String[] exprs = new String[d.consumeInt(1, 3)];
        for (int i = 0; i < exprs.length; i++) {
            exprs[i] = d.consumeBoolean() ? d.pickValue(PROGRAMS) : d.consumeString(32);
        }
        return new CalcNative(NAMES, TYPES, exprs, null);
    }

    private static void calcRows(FuzzedDataProvider d) throws Throwable {
        try (CalcNative calc = program(d)) {
            Rows r = rows(d);
            RowBlock out = (RowBlock) CALC_PROCESS.invokeExact(calc.address(), r.segments, r.numSegments, r.segment,
                    r.offset, r.size, r.numRows);
            touch(out);
        }
    }

    private static void calcColumns(FuzzedDataProvider d) throws Throwable {
        try (CalcNative calc = program(d)) {
            int m = d.consumeInt(0, 5);
            int[] fields = d.consumeBoolean() ? calc.columnKinds() : ints(d, m, -3, 6);
            int k = d.consumeBoolean() ? fields.length : d.consumeInt(0, 5);
            Object[] values = new Object[k];
            Object[] offsets = new Object[k];
            Object[] nulls = new Object[k];
            for (int j = 0; j < k; j++) {
                values[j] = anyArray(d);
                offsets[j] = d.consumeBoolean() ? ints(d, d.consumeInt(0, 9), -4, 64) : anyArray(d);
                nulls[j] = d.consumeBoolean() ? d.consumeBytes(8) : anyArray(d);
            }
            byte[] kinds = d.consumeBoolean() ? null : d.consumeBytes(8);
            int[] maybeFields = d.consumeBoolean() ? fields : null;
            RowBlock out = (RowBlock) CALC_PROCESS_COLUMNS.invokeExact(calc.address(), maybeFields, values, offsets,
                    nulls, kinds, d.consumeInt(-2, 9));
            touch(out);
        }
    }

    private static void calcUtf16(FuzzedDataProvider d) throws Throwable {
        try (CalcNative calc = program(d)) {
            Rows r = rows(d);
            int k = d.consumeInt(0, 3);
            int[] fields = ints(d, k, -1, 4);
            Object[] units = new Object[k];
            Object[] offsets = new Object[k];
            Object[] nulls = new Object[k];
            for (int j = 0; j < k; j++) {
                units[j] = d.consumeBoolean() ? d.consumeString(16).toCharArray() : anyArray(d);
                offsets[j] = d.consumeBoolean() ? ints(d, d.consumeInt(0, 9), -4, 32) : anyArray(d);
                nulls[j] = d.consumeBoolean() ? d.consumeBytes(8) : anyArray(d);
            }
            RowBlock out = (RowBlock) CALC_PROCESS_UTF16.invokeExact(calc.address(), r.segments, r.numSegments,
                    r.segment, r.offset, r.size, r.numRows, fields, units, offsets, nulls, d.consumeInt(-1, 4));
            touch(out);
        }
    }

    private static void keyedCreate(FuzzedDataProvider d) throws Throwable {
        String spec = d.consumeBoolean() ? d.pickValue(SPECS) + " " + d.consumeString(24) : d.consumeString(64);
        String[][] fields = fields(d, 6);
        String[] names = fields[0];
        String[] types = fields[1];
        long h = (long) KEYED_CREATE.invokeExact(spec, names, types);
        freeKeyed(h);
    }

    private static void keyedRowsAndSnapshots(FuzzedDataProvider d) throws Throwable {
        String[] types = {"STRING", "INT", "BIGINT", "BIGINT"};
        String spec = d.pickValue(SPECS);
        long h = (long) KEYED_CREATE.invokeExact(spec, NAMES, types);
        try {
            List<byte[]> blobs = new ArrayList<>();
            for (int step = d.consumeInt(1, 4); step > 0; step--) {
                Rows r = rows(d);
                switch (d.consumeInt(0, 3)) {
                    case 0 -> touch((RowBlock) KEYED_PROCESS.invokeExact(h, r.segments, r.numSegments, r.segment,
                            r.offset, r.size, r.numRows));
                    case 1 -> {
                        int[] kg = (int[]) KEYED_KEY_GROUPS.invokeExact(h, r.segments, r.numSegments, r.segment,
                                r.offset, r.size, r.numRows);
                        if (kg == null) {
                            throw new IllegalStateException("keyGroups returned null without an exception");
                        }
                    }
                    case 2 -> {
                        byte[][] snap = (byte[][]) KEYED_SNAPSHOT.invokeExact(h, d.consumeInt(-2, 130), d.consumeInt(-2, 130));
                        for (byte[] b : snap) {
                            blobs.add(b);
                        }
                    }
                    default -> {
                        byte[][] in = new byte[d.consumeInt(0, 3)][];
                        for (int i = 0; i < in.length; i++) {
                            in[i] = !blobs.isEmpty() && d.consumeBoolean() ? mutate(d, blobs.get(i % blobs.size()))
                                    : d.consumeBoolean() ? null : d.consumeBytes(64);
                        }
                        KEYED_RESTORE.invokeExact(h, d.consumeInt(-2, 130), d.consumeInt(-2, 130), in);
                    }
                }
            }
        } finally {
            freeKeyed(h);
        }
    }

    /** Row references: heap segments, and per row its segment, offset and size. */
    private record Rows(Object[] segments, int numSegments, int[] segment, int[] offset, int[] size, int numRows) {}

    private static Rows rows(FuzzedDataProvider d) {
        int ns = d.consumeInt(0, 3);
        Object[] segments = new Object[ns];
        for (int i = 0; i < ns; i++) {
            segments[i] = d.consumeInt(0, 9) == 0 ? anyArray(d) : d.consumeBytes(d.consumeInt(0, 200));
        }
        int n = d.consumeInt(0, 6);
        int[] segment = new int[n];
        int[] offset = new int[n];
        int[] size = new int[n];
        for (int i = 0; i < n; i++) {
            segment[i] = d.consumeInt(-1, ns);
            offset[i] = d.consumeBoolean() ? 8 * d.consumeInt(0, 8) : d.consumeInt();
            size[i] = d.consumeBoolean() ? 8 * d.consumeInt(0, 16) : d.consumeInt();
        }
        int numSegments = d.consumeBoolean() ? ns : d.consumeInt(-1, ns + 2);
        int numRows = d.consumeBoolean() ? n : d.consumeInt(-1, n + 2);
        return new Rows(d.consumeInt(0, 19) == 0 ? null : segments, numSegments, segment, offset, size, numRows);
    }

    /** Any array (or null, or not an array) where the native side expects an array of one type. */
    private static Object anyArray(FuzzedDataProvider d) {
        int len = d.consumeInt(0, 16);
        return switch (d.consumeInt(0, 9)) {
            case 0 -> null;
            case 1 -> d.consumeBytes(len);
            case 2 -> new short[len];
            case 3 -> ints(d, len, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case 4 -> d.consumeLongs(len);
            case 5 -> new float[len];
            case 6 -> new double[len];
            case 7 -> d.consumeString(len).toCharArray();
            case 8 -> "not an array";
            default -> new Object[len];
        };
    }

    private static int[] ints(FuzzedDataProvider d, int n, int min, int max) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = d.consumeInt(min, max);
        }
        return a;
    }

    private static String[] strings(FuzzedDataProvider d, int n, int maxLength) {
        String[] a = new String[n];
        for (int i = 0; i < n; i++) {
            a[i] = d.consumeBoolean() ? d.pickValue(TYPE_WORDS) : d.consumeString(maxLength);
        }
        return a;
    }

    /** A copy of a real snapshot, cut short or with one byte changed. */
    private static byte[] mutate(FuzzedDataProvider d, byte[] blob) {
        byte[] b = blob.clone();
        if (b.length == 0) {
            return b;
        }
        if (d.consumeBoolean()) {
            return java.util.Arrays.copyOf(b, d.consumeInt(0, b.length - 1));
        }
        b[d.consumeInt(0, b.length - 1)] ^= (byte) d.consumeInt(1, 255);
        return b;
    }

    /** Reads a returned block, so a malformed one (offsets past the data) surfaces here. */
    private static void touch(RowBlock out) {
        if (out == null) {
            throw new IllegalStateException("a native call returned null without an exception");
        }
        int n = out.numRows();
        for (int i = 0; i < n; i++) {
            int start = out.offsets[i];
            int end = out.offsets[i + 1];
            if (start < 0 || end < start || end > out.data.length) {
                throw new IllegalStateException("row " + i + " spans " + start + ".." + end + " of " + out.data.length);
            }
        }
    }

    private static void freeCalc(long h) throws Throwable {
        if (h != 0) {
            CALC_FREE.invokeExact(h);
        }
    }

    private static void freeKeyed(long h) throws Throwable {
        if (h != 0) {
            KEYED_FREE.invokeExact(h);
        }
    }
}
