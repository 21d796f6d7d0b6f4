package io.sluice.jni;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * {@link RowArena} against the rows it was given: what a {@link RowBatch}
 * records after gathering (segment, offset, size) reads back each source
 * row's exact bytes, across the arena growing mid-batch, for rows split over
 * two segments, and after a reset.
 */
class RowArenaTest {
    private static final RowDataSerializer SER =
            new RowDataSerializer(new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE});

    private static BinaryRowData row(long i) {
        String s = "value-" + i + "-".repeat((int) (i % 23)) + "ключ";
        return SER.toBinaryRow(GenericRowData.of(i, StringData.fromString(s))).copy();
    }

    private static byte[] bytes(BinaryRowData r) {
        byte[] b = new byte[r.getSizeInBytes()];
        r.getSegments()[0].get(r.getOffset(), b, 0, b.length);
        return b;
    }

    /** Row {@code i} of the batch, read back from the array the batch recorded. */
    private static byte[] recorded(RowBatch batch, int i) {
        byte[] seg = (byte[]) batch.segments()[batch.rowSegment()[i]];
        int off = batch.rowOffset()[i];
        return Arrays.copyOfRange(seg, off, off + batch.rowSize()[i]);
    }

    @Test
    void gatheredRowsReadBackExactlyAcrossGrowthAndReset() {
        RowArena arena = new RowArena(64, 2); // smaller than one batch: grows mid-batch
        RowBatch batch = new RowBatch(4);
        byte[][] want = new byte[50][];
        long copied = 0;
        for (int i = 0; i < want.length; i++) {
            BinaryRowData r = row(i);
            want[i] = bytes(r);
            copied += arena.gather(r, batch);
        }
        assertEquals(want.length, batch.numRows());
        assertEquals(Arrays.stream(want).mapToLong(b -> b.length).sum(), copied);
        assertTrue(batch.numSegments() > 1, "the arena grew during the batch");
        for (int i = 0; i < want.length; i++) {
            assertArrayEquals(want[i], recorded(batch, i), "row " + i);
        }

        batch.clear();
        arena.reset();
        BinaryRowData again = row(7);
        arena.gather(again, batch);
        assertEquals(1, batch.numSegments());
        assertEquals(0, batch.rowOffset()[0], "reset starts over at the array's front");
        assertArrayEquals(bytes(again), recorded(batch, 0));
    }

    @Test
    void aRowSpanningTwoSegmentsIsGatheredWhole() {
        BinaryRowData r = row(11);
        byte[] whole = bytes(r);
        int cut = whole.length / 2;
        MemorySegment a = MemorySegmentFactory.wrap(Arrays.copyOfRange(whole, 0, cut));
        MemorySegment b = MemorySegmentFactory.wrap(Arrays.copyOfRange(whole, cut, whole.length));
        BinaryRowData split = new BinaryRowData(2);
        split.pointTo(new MemorySegment[] {a, b}, 0, whole.length);

        RowArena arena = new RowArena(1024, 2);
        RowBatch batch = new RowBatch(1);
        assertEquals(whole.length, arena.gather(split, batch));
        assertArrayEquals(whole, recorded(batch, 0));
    }
}
