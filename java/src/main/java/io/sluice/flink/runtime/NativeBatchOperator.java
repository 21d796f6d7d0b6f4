package io.sluice.flink.runtime;

import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.jni.RowArena;
import io.sluice.jni.RowBatch;

/**
 * A one-input sluice operator over {@code RowData}: rows are buffered and
 * handed to native code a batch at a time, so the fixed cost of a native
 * call is paid once per batch instead of once per row. Flushing, the
 * metrics and the close order are {@link NativeOperator}'s; this class also
 * flushes at end of input ({@link #endInput}).
 *
 * <p><b>Batching.</b> {@link #gather(RowData)} copies a row into one
 * reusable {@link RowArena} and adds it to the {@link #batch()}; the arena
 * goes to native code by reference (one pin per batch, not one per row). A
 * row that is not a {@code BinaryRowData} is written as one first, by Flink's
 * {@link RowDataSerializer#toBinaryRow}. Object reuse upstream is safe: a
 * buffered row never references the upstream's object. After the native call
 * the subclass calls {@link #batchConsumed()} and the arena is reused. The
 * gathered bytes count in {@code bytesCopied}, as do the subclass's own
 * copies ({@link #countCopied}).
 */
public abstract class NativeBatchOperator extends NativeOperator
        implements OneInputStreamOperator<RowData, RowData>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    /** The input rows' type. */
    protected final RowType inputType;
    /** Rows per native call (at least 1). */
    protected final int batchSize;

    private transient RowBatch batch;
    private transient RowArena arena;
    private transient RowDataSerializer serializer;

    /**
     * @param inputType the input rows' type
     * @param batchSize rows per native call (the subclass validates it)
     */
    protected NativeBatchOperator(RowType inputType, int batchSize) {
        this.inputType = inputType;
        this.batchSize = batchSize;
    }

    @Override
    public void open() throws Exception {
        super.open();
        batch = new RowBatch(batchSize);
        serializer = new RowDataSerializer(inputType);
        arena = new RowArena(Math.max(1 << 16, batchSize * 64), inputType.getFieldCount());
    }

    /** @return the batch {@link #gather} fills */
    protected final RowBatch batch() {
        return batch;
    }

    /** @return the input type's serializer (writes a non-binary row as a {@code BinaryRowData}) */
    protected final RowDataSerializer serializer() {
        return serializer;
    }

    /**
     * Copies {@code row} into the arena and adds it to {@link #batch()}; counts its bytes.
     *
     * @param row the input row, binary or not
     */
    protected final void gather(RowData row) {
        gather(row instanceof BinaryRowData ? (BinaryRowData) row : serializer.toBinaryRow(row));
    }

    /**
     * Copies {@code row} into the arena and adds it to {@link #batch()}; counts its bytes.
     *
     * @param row the row's binary form
     */
    protected final void gather(BinaryRowData row) {
        countCopied(arena.gather(row, batch));
    }

    /** Native code is done with the gathered rows: clears the batch and reuses the arena. */
    protected final void batchConsumed() {
        batch.clear();
        arena.reset();
    }

    @Override
    public void endInput() throws Exception {
        flush();
    }
}
