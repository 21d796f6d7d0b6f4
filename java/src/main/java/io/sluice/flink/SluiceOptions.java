package io.sluice.flink;

import java.time.Duration;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Flink configuration of the sluice operators (set in the job's Configuration / flink-conf). */
public final class SluiceOptions {
    private SluiceOptions() {}

    /** Master switch: when false every operator runs Flink's own implementation. */
    public static final ConfigOption<Boolean> ENABLED = ConfigOptions.key("sluice.enabled")
            .booleanType().defaultValue(true)
            .withDescription("Run the native sluice operators where they apply.");

    /** Per operator switch: Calc (MD5/SHA1/SHA2/CONCAT/CONCAT_WS/search). */
    public static final ConfigOption<Boolean> CALC_ENABLED = ConfigOptions.key("sluice.calc.enabled")
            .booleanType().defaultValue(true)
            .withDescription("Native Calc (string functions).");

    /** Per operator switch: GROUP BY aggregate. */
    public static final ConfigOption<Boolean> GROUP_AGG_ENABLED = ConfigOptions.key("sluice.group-agg.enabled")
            .booleanType().defaultValue(true)
            .withDescription("Native GROUP BY changelog aggregate.");

    /** Per operator switch: changelog normalize. */
    public static final ConfigOption<Boolean> NORMALIZE_ENABLED = ConfigOptions.key("sluice.normalize.enabled")
            .booleanType().defaultValue(true)
            .withDescription("Native changelog normalize.");

    /** Per operator switch: keep-first / keep-last dedup. */
    public static final ConfigOption<Boolean> DEDUP_ENABLED = ConfigOptions.key("sluice.dedup.enabled")
            .booleanType().defaultValue(true)
            .withDescription("Native deduplicate (keep first / keep last).");

    /**
     * Rows per native call; flushed earlier before a checkpoint barrier, at end of input and on
     * watermarks (the Calc: as {@link #BATCH_MAX_DELAY} says; the keyed operators: on each).
     */
    public static final ConfigOption<Integer> BATCH_SIZE = ConfigOptions.key("sluice.batch-size")
            .intType().defaultValue(8192)
            .withDescription("Rows buffered per native call (flushed early before a checkpoint barrier, at end of input, "
                    + "and on watermarks: the Calc as sluice.batch.max-delay says, keyed operators on each).");

    /**
     * How long the Calc operator may hold a watermark back to keep filling its batch (0: flush
     * the batch on every watermark). Rows and watermarks keep their order: on a full batch, a
     * checkpoint barrier, a watermark status change, end of input or when this delay has passed
     * since the oldest held watermark arrived, the buffered rows are projected and emitted with
     * each held watermark at its original place between them.
     */
    public static final ConfigOption<Duration> BATCH_MAX_DELAY = ConfigOptions.key("sluice.batch.max-delay")
            .durationType().defaultValue(Duration.ofMillis(100))
            .withDescription("Longest time the native Calc holds a watermark back to fill its batch "
                    + "(0: flush on every watermark). Order of rows and watermarks is kept.");

    /**
     * Calc: rows whose strings are lazy (String-backed) hand their CHAR / VARCHAR values to native
     * code as UTF-16 ({@code String.getChars} into a {@code char[]}, encoded natively through a
     * repeated-value cache) instead of being written as rows by Flink (JDK {@code getBytes(UTF_8)}).
     * Off by default: measured no faster on JDK 17 (java/README.md, "Lazy strings").
     */
    public static final ConfigOption<Boolean> CALC_UTF16_STRINGS = ConfigOptions.key("sluice.calc.utf16-strings")
            .booleanType().defaultValue(false)
            .withDescription("Native Calc: encode lazy (String-backed) CHAR/VARCHAR values natively from UTF-16 "
                    + "instead of through Flink's row writer (JDK getBytes). Off: measured no faster on JDK 17.");

    /**
     * Calc: rows that are {@code BinaryRowData} hand the fields the program reads to native code
     * as column arrays (one copy per string) when every read field's type allows it; false
     * gathers every row whole, as rows of other types always are. Both give the same results;
     * the switch exists to compare the two paths (benches/RESULTS.md, "Java handover").
     */
    public static final ConfigOption<Boolean> CALC_COLUMN_HANDOVER = ConfigOptions.key("sluice.calc.column-handover")
            .booleanType().defaultValue(true)
            .withDescription("Native Calc: copy the read fields of binary rows into column arrays that native code "
                    + "borrows (one copy per string); false gathers whole rows. Same results either way.");

    /**
     * Which state backend's behaviour keep-last dedup reproduces for a row equal to the kept one.
     * Flink's keep-last dedup compares RowKinds too, and the heap backend keeps the very row
     * object that Flink re-marks {@code +U} when it emits it, while a serialising backend keeps
     * a {@code +I} copy; so stock results differ by backend (java/README.md, "Keyed operators").
     */
    public enum DedupStateBackend {
        /** Detected from the operator's keyed state backend (default). */
        AUTO,
        /** Reproduce the heap backend ({@code hashmap}): the stored row is re-marked {@code +U}. */
        HASHMAP,
        /** Reproduce a serialising backend (RocksDB, ForSt): the stored row stays {@code +I}. */
        ROCKSDB
    }

    /**
     * Keep-last dedup: which state backend's equal-row behaviour to reproduce. {@code AUTO} asks
     * the keyed state backend whether it serialises values
     * ({@code KeyedStateBackend#isSafeToReuseKVState}, true for RocksDB and ForSt, false for the
     * heap; the changelog backend answers for the backend it wraps).
     */
    public static final ConfigOption<DedupStateBackend> DEDUP_STATE_BACKEND = ConfigOptions
            .key("sluice.dedup.state-backend")
            .enumType(DedupStateBackend.class).defaultValue(DedupStateBackend.AUTO)
            .withDescription("Native keep-last dedup: reproduce stock Flink's equal-row behaviour of this state "
                    + "backend: AUTO (detect from the job's keyed state backend), HASHMAP or ROCKSDB (any serialising "
                    + "backend).");

    /** When the native library cannot be loaded: fall back to Flink's operators (logged once) instead of failing. */
    public static final ConfigOption<Boolean> FALLBACK = ConfigOptions.key("sluice.fallback")
            .booleanType().defaultValue(false)
            .withDescription("If libsluice cannot be loaded, run Flink's own operators and log why once, instead of failing the job.");

    /** Retained native state bytes per keyed operator instance before an insert fails (0: unlimited). */
    public static final ConfigOption<Long> STATE_BUDGET = ConfigOptions.key("sluice.state.budget-bytes")
            .longType().defaultValue(0L)
            .withDescription("Native state budget per keyed operator subtask in bytes; 0 means unlimited.");

    /** A libsluice file to load instead of the one bundled in the jar. */
    public static final ConfigOption<String> LIBRARY_PATH = ConfigOptions.key("sluice.library.path")
            .stringType().noDefaultValue()
            .withDescription("Path of a libsluice to load instead of the bundled one.");
}
