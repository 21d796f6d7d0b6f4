package io.sluice.flink.runtime;

import org.apache.flink.streaming.api.watermark.Watermark;

/**
 * Watermarks held back at their place between buffered rows, so that a
 * watermark need not end a native batch.
 *
 * <p>{@link #hold} records a watermark with the number of buffered rows that
 * preceded it. When the operator flushes, it interleaves its output with
 * {@link #release}: each watermark follows exactly the rows that preceded it
 * and precedes the rows that followed it. Consecutive watermarks with no row
 * between them are coalesced to the last, as Flink's own valves do.
 *
 * <p>A watermark is not held longer than {@code maxDelayMillis} of processing
 * time: holding the first one registers a timer at its arrival plus the
 * delay, and when it fires the operator is flushed (a timer left over from an
 * earlier hold that was released in between re-registers for the current
 * one). With {@code maxDelayMillis = 0}, or no row buffered, nothing is held:
 * the caller flushes and forwards the watermark at once.
 *
 * <p>Used on the task thread only (the timer fires there too).
 */
public final class HeldWatermarks {
    /** The operator's side: its clock, its timers, its flush and its output. */
    public interface Host {
        /** @return the current processing time (ms) */
        long currentProcessingTime();

        /**
         * Registers a processing-time timer that calls {@code onTime} on the task thread.
         *
         * @param time when (ms)
         * @param onTime what to call
         */
        void registerTimer(long time, Timer onTime);

        /**
         * Flushes the operator's buffered rows (which releases the held watermarks).
         *
         * @throws Exception from the output
         */
        void flush() throws Exception;

        /**
         * Forwards a released watermark downstream.
         *
         * @param mark the watermark
         * @throws Exception from the output
         */
        void forward(Watermark mark) throws Exception;
    }

    /** A processing-time callback (adapts to the Flink line's {@code ProcessingTimeCallback}). */
    @FunctionalInterface
    public interface Timer {
        /**
         * @param time the timer's time (ms)
         * @throws Exception from the flush
         */
        void onTime(long time) throws Exception;
    }

    private final long maxDelayMillis;
    private final Host host;
    private final Watermark[] marks;
    /** Per held watermark, the number of buffered rows that preceded it. */
    private final int[] at;
    private int count;
    private long heldSince;
    private boolean timerPending;

    /**
     * @param maxBufferedRows most rows the operator buffers (at most one more watermark is held)
     * @param maxDelayMillis longest time a watermark is held (0: never held)
     * @param host the operator's clock, timers, flush and output
     */
    public HeldWatermarks(int maxBufferedRows, long maxDelayMillis, Host host) {
        this.maxDelayMillis = maxDelayMillis;
        this.host = host;
        this.marks = new Watermark[maxBufferedRows + 1];
        this.at = new int[maxBufferedRows + 1];
    }

    /** @return whether no watermark is held */
    public boolean isEmpty() {
        return count == 0;
    }

    /**
     * Holds {@code mark} after the {@code bufferedRows} rows buffered so far.
     *
     * @param mark the watermark
     * @param bufferedRows rows buffered before it
     * @return false when it was not held (no delay allowed, or no row buffered):
     *     the caller flushes and forwards it now
     */
    public boolean hold(Watermark mark, int bufferedRows) {
        if (maxDelayMillis == 0 || bufferedRows == 0) {
            return false;
        }
        if (count > 0 && at[count - 1] == bufferedRows) {
            marks[count - 1] = mark; // no row since the previous one: it is superseded
            return true;
        }
        marks[count] = mark;
        at[count++] = bufferedRows;
        if (count == 1) {
            heldSince = host.currentProcessingTime();
            if (!timerPending) {
                timerPending = true;
                host.registerTimer(heldSince + maxDelayMillis, this::onMaxDelay);
            }
        }
        return true;
    }

    /**
     * Forwards the held watermarks from index {@code from} that were preceded
     * by at most {@code rows} buffered rows; forgets them all once the last
     * one is out.
     *
     * @param from index of the first watermark not yet forwarded in this flush (0 at its start)
     * @param rows rows emitted so far in this flush
     * @return the index of the first watermark not forwarded
     * @throws Exception from the output
     */
    public int release(int from, int rows) throws Exception {
        int h = from;
        while (h < count && at[h] <= rows) {
            Watermark mark = marks[h];
            marks[h++] = null;
            host.forward(mark);
        }
        if (h == count) {
            count = 0;
        }
        return h;
    }

    /** Processing-time timer (task thread): flushes once the oldest held watermark is due. */
    private void onMaxDelay(long time) throws Exception {
        timerPending = false;
        if (count == 0) {
            return;
        }
        if (time >= heldSince + maxDelayMillis) {
            host.flush();
        } else {
            // fired for an earlier hold: wait for the current one
            timerPending = true;
            host.registerTimer(heldSince + maxDelayMillis, this::onMaxDelay);
        }
    }
}
