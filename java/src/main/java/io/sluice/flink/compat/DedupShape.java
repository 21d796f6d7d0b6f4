package io.sluice.flink.compat;

/**
 * A deduplication as the planner of either Flink line describes it:
 * {@code ROW_NUMBER() OVER (PARTITION BY keys ORDER BY time ASC|DESC) = 1}.
 *
 * @param keys the PARTITION BY columns
 * @param rowtime ordered by an event-time attribute (else processing time)
 * @param keepLast keeps the last row per key (ORDER BY … DESC)
 * @param unsupported why this line's operator for it has no native form, or null
 */
public record DedupShape(int[] keys, boolean rowtime, boolean keepLast, String unsupported) {
    /** Keeps its own copy of {@code keys}. */
    public DedupShape {
        keys = keys.clone();
    }

    /** @return the PARTITION BY columns (a copy) */
    @Override
    public int[] keys() {
        return keys.clone();
    }
}
