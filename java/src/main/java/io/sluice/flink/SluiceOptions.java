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
