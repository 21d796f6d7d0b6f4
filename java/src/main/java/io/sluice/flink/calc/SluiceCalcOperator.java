package io.sluice.flink.calc;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.flink.compat.CalcCompat;
import io.sluice.flink.runtime.HeldWatermarks;
import io.sluice.flink.runtime.NativeBatchOperator;
import io.sluice.jni.CalcNative;
import io.sluice.jni.ColumnBatch;
import io.sluice.jni.NativeHandle;
import io.sluice.jni.RowBlock;

/**
 * A Calc (projection) over {@code RowData} evaluated natively by libsluice:
 * MD5, SHA1, SHA2, CONCAT, CONCAT_WS, POSITION, LOCATE, LIKE, REPLACE,
 * SPLIT_INDEX and pass-through columns (grammar: {@link CalcNative}).
 * Batching, flushing before a checkpoint barrier and at end of input, the
 * metrics and the close order are {@link NativeBatchOperator}'s.
 *
 * <p><b>Batching.</b> Rows are buffered up to {@code batchSize}
 * ({@code sluice.batch-size}) and projected in one native call (a native call
 * has a fixed cost of some microseconds, so small batches lose to stock
 * Flink: benches/RESULTS.md, "Batch size"). A watermark does not end the
 * batch: it is held back at its place between the buffered rows
 * ({@link HeldWatermarks}), and the batch is flushed when it is full, before
 * each checkpoint barrier, on a watermark status change, at end of input, or
 * once {@code maxDelayMillis} ({@code sluice.batch.max-delay}) has passed
 * since the oldest held watermark arrived (a processing-time timer). A flush
 * emits the projected rows with every held watermark at its original place.
 * With {@code maxDelayMillis = 0} every watermark flushes the batch before it
 * is forwarded. The operator holds no state across checkpoints. Output rows
 * keep their input row's RowKind and timestamp, in input order.
 *
 * <p><b>Copies.</b> Each input row's bytes are gathered into one reusable
 * {@code byte[]} arena per batch (one {@code memcpy} per row, counted in the
 * {@code bytesCopied} metric), and the arena is handed to native code by
 * reference (pinned, read in place; the entry transpose copies each string
 * once more, into Arrow). Handing rows over in their own arrays would cost
 * four JNI calls per row (get element, length, pin, unpin), which measured
 * an order of magnitude slower than the copy (benches/RESULTS.md, "Java
 * handover"). The arena also makes Flink object reuse safe and serves rows
 * that are not a {@code BinaryRowData} (e.g. {@code GenericRowData} with
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
 * slower for UTF-16 ones on JDK 17 (benches/RESULTS.md, "Lazy strings").
 *
 * <p><b>Column handover</b> ({@code columnHandover},
 * {@code sluice.calc.column-handover}, on by default). When every input field
 * the program reads has a type {@link ColumnBatch} carries (strings,
 * VARBINARY, the fixed-width numeric types, DATE), a row is not gathered:
 * its read fields are copied straight into per-column arrays, which native
 * code borrows without copying, so each string is copied once in all (row →
 * column array; {@code bytesCopied} counts those bytes). That holds for a
 * {@code BinaryRowData} and for any other row (e.g. a {@code GenericRowData}
 * with String-backed strings, whose fields the gather path would first write
 * as a whole binary row), except that with {@code utf16Strings} on a row
 * that is not binary takes the UTF-16 way. The buffered batch is flushed
 * when the path changes, keeping order.
 *
 * <p><b>Native WHERE</b> ({@code filters}, the planner's split of a Calc
 * whose WHERE has native conjuncts): those BOOLEAN output columns filter in
 * the native program, which computes the other columns only for the rows
 * where all are TRUE and returns an empty row for each dropped one
 * ({@link CalcNative#filter}); dropped rows are not emitted, so nothing
 * downstream (the Flink Calc above, its chained copy) sees them.
 *
 * <p><b>Metrics</b> (operator metric group): {@code rowsIn}, {@code rowsOut},
 * {@code batches}, {@code nativeTimeNanos}, {@code bytesCopied}.
 */
public class SluiceCalcOperator extends NativeBatchOperator {
    private static final long serialVersionUID = 1L;

    private final String[] expressions;
    private final String[] outputTypes;
    private final int outputArity;
    private final long maxDelayMillis;
    private final boolean utf16Strings;
    private final boolean columnHandover;
    private final int[] filters;

    private transient CalcNative program;
    /** Null when the input has no CHAR / VARCHAR field or the UTF-16 way is off. */
    private transient Utf16RowWriter utf16;
    private transient boolean utf16Batch;
    private transient long[] timestamps;
    private transient boolean[] hasTimestamp;
    private transient StreamRecord<RowData> out;
    private transient BinaryRowData outRow;
    private transient HeldWatermarks held;
    /** Null when the column handover is off or does not carry every field the program reads. */
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
        this(inputType, expressions, outputTypes, batchSize, maxDelayMillis, utf16Strings,
                SluiceOptions.CALC_COLUMN_HANDOVER.defaultValue());
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
     * @param columnHandover copy the read fields of binary rows into column arrays where every
     *     read field's type allows it ({@code sluice.calc.column-handover}); false: always gather rows
     */
    public SluiceCalcOperator(RowType inputType, String[] expressions, String[] outputTypes, int batchSize,
            long maxDelayMillis, boolean utf16Strings, boolean columnHandover) {
        this(inputType, expressions, outputTypes, batchSize, maxDelayMillis, utf16Strings, columnHandover,
                new int[0]);
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
     * @param columnHandover copy the read fields of binary rows into column arrays where every
     *     read field's type allows it ({@code sluice.calc.column-handover}); false: always gather rows
     * @param filters BOOLEAN output columns that filter natively, before the other columns are
     *     computed (a native WHERE); empty: every row is emitted
     */
    public SluiceCalcOperator(RowType inputType, String[] expressions, String[] outputTypes, int batchSize,
            long maxDelayMillis, boolean utf16Strings, boolean columnHandover, int[] filters) {
        super(inputType, checkedBatchSize(batchSize));
        this.filters = filters.clone();
        if (maxDelayMillis < 0) {
            throw new IllegalArgumentException("maxDelayMillis must not be negative, got " + maxDelayMillis);
        }
        this.maxDelayMillis = maxDelayMillis;
        this.expressions = expressions.clone();
        this.outputTypes = outputTypes == null ? null : outputTypes.clone();
        this.outputArity = expressions.length;
        this.utf16Strings = utf16Strings;
        this.columnHandover = columnHandover;
        CalcCompat.chainAlways(this);
    }

    private static int checkedBatchSize(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
        }
        return batchSize;
    }

    @Override
    public void open() throws Exception {
        super.open();
        String[] names = inputType.getFieldNames().toArray(new String[0]);
        String[] types = inputType.getChildren().stream().map(t -> t.asSerializableString()).toArray(String[]::new);
        program = new CalcNative(names, types, expressions, outputTypes);
        if (filters.length > 0) {
            program.filter(filters);
        }
        columns = columnHandover ? ColumnBatch.forColumnKinds(program.columnKinds(), batchSize) : null;
        utf16 = utf16Strings ? Utf16RowWriter.create(inputType, batchSize) : null;
        timestamps = new long[batchSize];
        hasTimestamp = new boolean[batchSize];
        out = new StreamRecord<>(null);
        outRow = new BinaryRowData(outputArity);
        held = new HeldWatermarks(batchSize, maxDelayMillis, new HeldWatermarks.Host() {
            @Override
            public long currentProcessingTime() {
                return getProcessingTimeService().getCurrentProcessingTime();
            }

            @Override
            public void registerTimer(long time, HeldWatermarks.Timer onTime) {
                getProcessingTimeService().registerTimer(time, onTime::onTime);
            }

            @Override
            public void flush() throws Exception {
                SluiceCalcOperator.this.flush();
            }

            @Override
            public void forward(Watermark mark) throws Exception {
                forwardWatermark(mark);
            }
        });
    }

    @Override
    protected NativeHandle nativeHandle() {
        return program;
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData row = element.getValue();
        // Rows that are not binary take the UTF-16 way when it is on (a batch whose first row is
        // such a row), else the column handover too.
        if (columns != null && (utf16 == null || row instanceof BinaryRowData)) {
            if (batch().numRows() > 0) {
                flush(); // keep input order across the two paths
            }
            countCopied(columns.add(row));
            buffered(element, columns.numRows() - 1);
            return;
        }
        if (columnRows() > 0) {
            flush();
        }
        if (batch().numRows() == 0) {
            utf16Batch = utf16 != null && !(row instanceof BinaryRowData);
        }
        if (utf16Batch) {
            gather(utf16.write(row));
        } else {
            gather(row);
        }
        buffered(element, batch().numRows() - 1);
    }

    /** Records row {@code i}'s timestamp; flushes a full batch. */
    private void buffered(StreamRecord<RowData> element, int i) throws Exception {
        timestamps[i] = element.getTimestamp();
        hasTimestamp[i] = element.hasTimestamp();
        countRowIn();
        if (i + 1 >= batchSize) {
            flush();
        }
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
    @Override
    protected void flush() throws Exception {
        int n = batch().numRows() + columnRows(); // at most one path holds rows
        if (n == 0) {
            held.release(0, n);
            return;
        }
        long t0 = System.nanoTime();
        RowBlock block = columnRows() > 0 ? processColumns()
                : utf16Batch ? program.process(batch(), utf16.columns()) : program.process(batch());
        countNativeCall(t0);
        if (utf16Batch) {
            utf16.columns().clear();
        }
        batchConsumed(); // native code is done with the gathered rows
        int h = 0;
        int emitted = 0;
        int[] offsets = block.offsets;
        for (int i = 0; i < n; i++) {
            h = held.release(h, i);
            if (offsets[i + 1] == offsets[i]) {
                continue; // dropped by the native WHERE
            }
            emitted++;
            block.row(i, outputArity, outRow);
            if (hasTimestamp[i]) {
                out.replace(outRow, timestamps[i]);
            } else {
                out.replace(outRow);
                out.eraseTimestamp();
            }
            output.collect(out);
        }
        countRowsOut(emitted);
        Arrays.fill(hasTimestamp, 0, n, false);
        held.release(h, n);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        // rows buffered on either path
        if (!held.hold(mark, batch().numRows() + columnRows())) {
            flush();
            forwardWatermark(mark);
        }
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        if (!held.isEmpty()) {
            flush(); // a held watermark must not follow an IDLE status (it would be dropped)
        }
        super.processWatermarkStatus(status);
    }
}
