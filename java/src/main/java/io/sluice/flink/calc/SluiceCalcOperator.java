package io.sluice.flink.calc;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.compat.CalcCompat;
import io.sluice.jni.CalcNative;
import io.sluice.jni.ColumnBatch;
import io.sluice.jni.RowArena;
import io.sluice.jni.RowBatch;
import io.sluice.jni.RowBlock;

/**
 * A Calc (projection) over {@code RowData} evaluated natively by libsluice:
 * MD5, SHA1, SHA2, CONCAT, CONCAT_WS, POSITION, LOCATE, LIKE, REPLACE,
 * SPLIT_INDEX and pass-through columns (grammar: {@link CalcNative}).
 *
 * <p><b>Batching.</b> Rows are buffered up to {@code batchSize}
 * ({@code sluice.batch-size}) and projected in one native call (about 11 us
 * fixed cost per call, so small batches lose to stock Flink). A watermark
 * does not end the batch: it is held back, at its place between the
 * buffered rows, and the batch is flushed when it is full, before each
 * checkpoint barrier ({@link #prepareSnapshotPreBarrier}), on a watermark
 * status change, at end of input, or once {@code maxDelayMillis}
 * ({@code sluice.batch.max-delay}) has passed since the oldest held
 * watermark arrived (a processing-time timer). A flush emits the projected
 * rows with every held watermark at its original place: each watermark
 * follows exactly the rows that preceded it and precedes the rows that
 * followed it (consecutive watermarks with no row between them are
 * coalesced to the last, as Flink's own valves do). With
 * {@code maxDelayMillis = 0} every watermark flushes the batch before it is
 * forwarded. The operator holds no state across checkpoints. Output rows
 * keep their input row's RowKind and timestamp, in input order.
 *
 * <p><b>Copies.</b> Each input row's bytes are gathered into one reusable
 * {@code byte[]} arena per batch (one {@code memcpy} per row, counted in the
 * {@code bytesCopied} metric), and the arena is handed to native code by
 * reference (pinned, read in place; the entry transpose copies each string
 * once more, into Arrow). Gathering is measured, not assumed: handing rows
 * over in their own arrays costs four JNI calls per row (get element,
 * length, pin, unpin), about 400-600 ns per row on the 2-core test machine,
 * against 20-30 ns for the copy (scripts/java-bench.sh micro). The arena
 * also makes Flink object reuse safe (a buffered row never references the
 * upstream's reused object) and serves rows that are not a
 * {@code BinaryRowData} (e.g. {@code GenericRowData} with
 * {@code String}-backed strings) the same way once written as a row.
 *
 * <p><b>Lazy strings.</b> With {@code utf16Strings}
 * ({@code sluice.calc.utf16-strings}), a batch whose first row is not a
 * {@code BinaryRowData} (e.g. a {@code GenericRowData} whose CHAR / VARCHAR
 * fields are lazy {@code BinaryStringData} holding only a
 * {@code java.lang.String}) goes the UTF-16 way ({@link Utf16RowWriter}):
 * each row is written without its string fields, and each string value is
 * copied once, with {@link String#getChars}, into its column's reusable
 * {@code char[]}; native code encodes it once, into Arrow, with the SIMD
 * encoder through the column's repeated-value cache. Off by default: against
 * {@link RowDataSerializer#toBinaryRow} (whose {@code writeString} uses the
 * JDK's {@code getBytes(UTF_8)}) it measured no faster for Latin-1 strings and
 * slower for UTF-16 ones on JDK 17, where {@code getChars} of a UTF-16 string
 * costs more than the native encode saves (java/README.md, "Lazy strings").
 *
 * <p><b>Column handover.</b> When every input field the program reads has a
 * type {@link ColumnBatch} carries (strings, VARBINARY, the fixed-width
 * numeric types, DATE), a {@code BinaryRowData} row is not gathered: its read
 * fields are copied straight into per-column arrays, which native code
 * borrows without copying, so each string is copied once in all (row → column
 * array; {@code bytesCopied} counts those bytes). Other rows take the gather
 * path; the buffered batch is flushed when the path changes, keeping order.
 *
 * <p><b>Metrics</b> (operator metric group): {@code rowsIn}, {@code rowsOut},
 * {@code batches}, {@code nativeTimeNanos}, {@code bytesCopied}.
 */
public class SluiceCalcOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private final RowType inputType;
    private final String[] expressions;
    private final String[] outputTypes;
    private final int batchSize;
    private final int outputArity;
    private final long maxDelayMillis;
    private final boolean utf16Strings;

    private transient CalcNative program;
    private transient RowBatch batch;
    private transient RowDataSerializer serializer;
    private transient RowArena arena;
    /** Null when the input has no CHAR / VARCHAR field. */
    private transient Utf16RowWriter utf16;
    private transient boolean utf16Batch;
    private transient long[] timestamps;
    private transient boolean[] hasTimestamp;
    private transient StreamRecord<RowData> out;
    private transient BinaryRowData outRow;
    private transient Counter rowsIn;
    private transient Counter rowsOut;
    private transient Counter batches;
    private transient Counter nativeTimeNanos;
    private transient Counter bytesCopied;
    /** Held watermarks and, per watermark, the number of buffered rows that preceded it. */
    private transient Watermark[] heldMarks;
    private transient int[] heldAt;
    private transient int numHeld;
    private transient long heldSince;
    private transient boolean timerPending;
    private transient ColumnBatch columns;

    /** Batches projected through the column handover in this JVM (tests check the path taken). */
    static final AtomicLong COLUMN_BATCHES = new AtomicLong();

    /**
     * @param inputType the input rows' type (names and types feed the native program)
     * @param expressions one expression per output column
     * @param outputTypes output types ({@code LogicalType#asSerializableString()}),
     *     or null to use the native inference
     * @param batchSize rows per native call (≥ 1)
     */
    public SluiceCalcOperator(RowType inputType, String[] expressions, String[] outputTypes, int batchSize) {
        this(inputType, expressions, outputTypes, batchSize, SluiceOptions.BATCH_MAX_DELAY.defaultValue().toMillis(),
                false);
    }

    /**
     * @param inputType the input rows' type (names and types feed the native program)
     * @param expressions one expression per output column
     * @param outputTypes output types ({@code LogicalType#asSerializableString()}),
     *     or null to use the native inference
     * @param batchSize rows per native call (≥ 1)
     * @param maxDelayMillis longest time a watermark is held back to fill the batch
     *     (0: flush on every watermark)
     */
    public SluiceCalcOperator(RowType inputType, String[] expressions, String[] outputTypes, int batchSize,
            long maxDelayMillis) {
        this(inputType, expressions, outputTypes, batchSize, maxDelayMillis, false);
    }

    /**
     * @param inputType the input rows' type (names and types feed the native program)
     * @param expressions one expression per output column
     * @param outputTypes output types ({@code LogicalType#asSerializableString()}),
     *     or null to use the native inference
     * @param batchSize rows per native call (≥ 1)
     * @param utf16Strings hand lazy strings over as UTF-16 ({@code sluice.calc.utf16-strings})
     */
    public SluiceCalcOperator(RowType inputType, String[] expressions, String[] outputTypes, int batchSize,
            boolean utf16Strings) {
        this(inputType, expressions, outputTypes, batchSize, SluiceOptions.BATCH_MAX_DELAY.defaultValue().toMillis(),
                utf16Strings);
    }

    /**
     * @param inputType the input rows' type (names and types feed the native program)
     * @param expressions one expression per output column
     * @param outputTypes output types ({@code LogicalType#asSerializableString()}),
     *     or null to use the native inference
     * @param batchSize rows per native call (≥ 1)
     * @param maxDelayMillis longest time a watermark is held back to fill the batch
     *     (0: flush on every watermark)
     * @param utf16Strings hand lazy strings over as UTF-16 ({@code sluice.calc.utf16-strings})
     */
    public SluiceCalcOperator(RowType inputType, String[] expressions, String[] outputTypes, int batchSize,
            long maxDelayMillis, boolean utf16Strings) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
        }
        if (maxDelayMillis < 0) {
            throw new IllegalArgumentException("maxDelayMillis must not be negative, got " + maxDelayMillis);
        }
        this.maxDelayMillis = maxDelayMillis;
        this.inputType = inputType;
        this.expressions = expressions.clone();
        this.outputTypes = outputTypes == null ? null : outputTypes.clone();
        this.outputArity = expressions.length;
        this.batchSize = batchSize;
        this.utf16Strings = utf16Strings;
        CalcCompat.chainAlways(this);
    }

    @Override
    public void open() throws Exception {
        super.open();
        String[] names = inputType.getFieldNames().toArray(new String[0]);
        String[] types = inputType.getChildren().stream().map(t -> t.asSerializableString()).toArray(String[]::new);
        program = new CalcNative(names, types, expressions, outputTypes);
        batch = new RowBatch(batchSize);
        // -Dsluice.calc.column-handover=false forces the gather path (a diagnostic
        // switch for benchmarks that compare the two).
        columns = Boolean.parseBoolean(System.getProperty("sluice.calc.column-handover", "true"))
                ? columnBatch(program.columnKinds(), batchSize)
                : null;
        serializer = new RowDataSerializer(inputType);
        arena = new RowArena(Math.max(1 << 16, batchSize * 64), inputType.getFieldCount());
        utf16 = utf16Strings ? Utf16RowWriter.create(inputType, batchSize) : null;
        timestamps = new long[batchSize];
        hasTimestamp = new boolean[batchSize];
        out = new StreamRecord<>(null);
        outRow = new BinaryRowData(outputArity);
        rowsIn = getMetricGroup().counter("rowsIn");
        rowsOut = getMetricGroup().counter("rowsOut");
        batches = getMetricGroup().counter("batches");
        nativeTimeNanos = getMetricGroup().counter("nativeTimeNanos");
        bytesCopied = getMetricGroup().counter("bytesCopied");
        heldMarks = new Watermark[batchSize + 1];
        heldAt = new int[batchSize + 1];
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData row = element.getValue();
        if (columns != null && row instanceof BinaryRowData) {
            if (batch.numRows() > 0) {
                flush(); // keep input order across the two paths
            }
            bytesCopied.inc(columns.add((BinaryRowData) row));
            buffered(element, columns.numRows() - 1);
            return;
        }
        if (columnRows() > 0) {
            flush();
        }
        if (batch.numRows() == 0) {
            utf16Batch = utf16 != null && !(row instanceof BinaryRowData);
        }
        BinaryRowData bin;
        if (utf16Batch) {
            bin = utf16.write(row);
        } else {
            bin = row instanceof BinaryRowData ? (BinaryRowData) row : serializer.toBinaryRow(row);
        }
        bytesCopied.inc(arena.gather(bin, batch));
        buffered(element, batch.numRows() - 1);
    }

    /** Records row {@code i}'s timestamp; flushes a full batch. */
    private void buffered(StreamRecord<RowData> element, int i) throws Exception {
        timestamps[i] = element.getTimestamp();
        hasTimestamp[i] = element.hasTimestamp();
        rowsIn.inc();
        if (i + 1 >= batchSize) {
            flush();
        }
    }

    /**
     * The column handover's batch, or null when some field the program reads
     * has a type it does not carry.
     */
    private static ColumnBatch columnBatch(int[] kinds, int batchSize) {
        int m = 0;
        for (int k : kinds) {
            if (k == -2) {
                return null;
            }
            m += k >= 0 ? 1 : 0;
        }
        int[] fields = new int[m];
        int[] carried = new int[m];
        for (int f = 0, j = 0; f < kinds.length; f++) {
            if (kinds[f] >= 0) {
                fields[j] = f;
                carried[j++] = kinds[f];
            }
        }
        return new ColumnBatch(fields, carried, batchSize);
    }

    private int columnRows() {
        return columns == null ? 0 : columns.numRows();
    }

    private RowBlock processColumns() {
        RowBlock block = program.processColumns(columns);
        columns.clear();
        COLUMN_BATCHES.incrementAndGet();
        return block;
    }

    /** Projects the buffered rows and emits them, each held watermark at its place. */
    private void flush() throws Exception {
        int n = batch.numRows() + columnRows(); // at most one path holds rows
        if (n == 0) {
            emitHeld(0, n);
            return;
        }
        long t0 = System.nanoTime();
        RowBlock block = columnRows() > 0 ? processColumns()
                : utf16Batch ? program.process(batch, utf16.columns()) : program.process(batch);
        nativeTimeNanos.inc(System.nanoTime() - t0);
        batches.inc();
        batch.clear();
        if (utf16Batch) {
            utf16.columns().clear();
        }
        arena.reset(); // native code is done with the gathered rows
        int h = 0;
        for (int i = 0; i < n; i++) {
            h = emitHeld(h, i);
            block.row(i, outputArity, outRow);
            if (hasTimestamp[i]) {
                out.replace(outRow, timestamps[i]);
            } else {
                out.replace(outRow);
                out.eraseTimestamp();
            }
            output.collect(out);
        }
        rowsOut.inc(n);
        Arrays.fill(hasTimestamp, 0, n, false);
        emitHeld(h, n);
    }

    /**
     * Forwards the held watermarks from index {@code h} that were preceded by at most
     * {@code rows} buffered rows; forgets them all once the last one is out.
     *
     * @return the index of the first watermark not forwarded
     */
    private int emitHeld(int h, int rows) throws Exception {
        while (h < numHeld && heldAt[h] <= rows) {
            Watermark mark = heldMarks[h];
            heldMarks[h++] = null;
            super.processWatermark(mark);
        }
        if (h == numHeld) {
            numHeld = 0;
        }
        return h;
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        int n = batch.numRows() + columnRows(); // rows buffered on either path
        if (maxDelayMillis == 0 || n == 0) {
            flush();
            super.processWatermark(mark);
            return;
        }
        if (numHeld > 0 && heldAt[numHeld - 1] == n) {
            heldMarks[numHeld - 1] = mark; // no row since the previous one: it is superseded
            return;
        }
        heldMarks[numHeld] = mark;
        heldAt[numHeld++] = n;
        if (numHeld == 1) {
            heldSince = getProcessingTimeService().getCurrentProcessingTime();
            if (!timerPending) {
                timerPending = true;
                getProcessingTimeService().registerTimer(heldSince + maxDelayMillis, this::onMaxDelay);
            }
        }
    }

    /** Processing-time timer (task thread): flushes once the oldest held watermark is due. */
    private void onMaxDelay(long time) throws Exception {
        timerPending = false;
        if (numHeld == 0) {
            return;
        }
        if (time >= heldSince + maxDelayMillis) {
            flush();
        } else {
            // fired for an earlier hold: wait for the current one
            timerPending = true;
            getProcessingTimeService().registerTimer(heldSince + maxDelayMillis, this::onMaxDelay);
        }
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        if (numHeld > 0) {
            flush(); // a held watermark must not follow an IDLE status (it would be dropped)
        }
        super.processWatermarkStatus(status);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        flush();
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (program != null) {
                program.close();
            }
        } finally {
            super.close();
        }
    }
}
