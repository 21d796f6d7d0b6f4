package io.sluice.flink.compat;

/**
 * A deduplication as the planner of either Flink line describes it:
 * {@code ROW_NUMBER() OVER (PARTITION BY keys ORDER BY time ASC|DESC) = 1}.
 */
public final class DedupShape {
    private final int[] keys;
    private final boolean rowtime;
    private final boolean keepLast;
    private final String unsupported;

    /**
     * @param keys the PARTITION BY columns
     * @param rowtime ordered by an event-time attribute (else processing time)
     * @param keepLast keeps the last row per key (ORDER BY … DESC)
     * @param unsupported why this line's operator for it has no native form, or null
     */
    public DedupShape(int[] keys, boolean rowtime, boolean keepLast, String unsupported) {
        this.keys = keys.clone();
        this.rowtime = rowtime;
        this.keepLast = keepLast;
        this.unsupported = unsupported;
    }

    /** @return the PARTITION BY columns */
    public int[] keys() {
        return keys.clone();
    }

    /** @return whether the order is an event-time attribute */
    public boolean rowtime() {
        return rowtime;
    }

    /** @return whether the last row per key is kept */
    public boolean keepLast() {
        return keepLast;
    }

    /** @return why this line's operator has no native form, or null */
    public String unsupported() {
        return unsupported;
    }
}
