package io.sluice.flink;

import java.time.Duration;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Flink configuration of the sluice operators and the planner stage: set in the job's
 * Configuration, the Flink configuration file, a {@code TableConfig} or with SQL {@code SET}.
 */
public final class SluiceOptions {
    private SluiceOptions() {}

    /**
     * Master switch: when false every operator runs Flink's own implementation (the planner stage
     * substitutes nothing; settable per query with SQL {@code SET 'sluice.enabled' = 'false'}).
     */
    public static final ConfigOption<Boolean> ENABLED = ConfigOptions.key("sluice.enabled")
            .booleanType().defaultValue(true)
            .withDescription("Run the native sluice operators where they apply.");

    /** Per operator switch of the planner stage: Calc (projection and filter). */
    public static final ConfigOption<Boolean> OPERATOR_CALC_ENABLED = operatorEnabled("calc");

    /** Per operator switch of the planner stage: GROUP BY aggregate. */
    public static final ConfigOption<Boolean> OPERATOR_GROUP_AGGREGATE_ENABLED = operatorEnabled("group-aggregate");

    /** Per operator switch of the planner stage: ROW_NUMBER() = 1 deduplicate (keep first / keep last). */
    public static final ConfigOption<Boolean> OPERATOR_DEDUPLICATE_ENABLED = operatorEnabled("deduplicate");

    /** Per operator switch of the planner stage: changelog normalize. */
    public static final ConfigOption<Boolean> OPERATOR_CHANGELOG_NORMALIZE_ENABLED = operatorEnabled("changelog-normalize");

    /**
     * Per operator switch of the planner stage: OVER aggregation ordered by a time attribute
     * ({@code agg(x) OVER (PARTITION BY … ORDER BY time ROWS|RANGE … PRECEDING)}).
     */
    public static final ConfigOption<Boolean> OPERATOR_OVER_AGGREGATE_ENABLED = operatorEnabled("over-aggregate");

    /**
     * Per operator switch of the planner stage: the updating (regular) join. On by default since the
     * end-to-end join bench beat stock on both lines in every pair, including the few-keys and
     * fan-out shapes (benches/RESULTS.md, "Java: updating join").
     */
    public static final ConfigOption<Boolean> OPERATOR_JOIN_ENABLED = operatorEnabled("join");

    /**
     * Per operator switch of the planner stage: the synchronous lookup join (INNER / LEFT; Flink's
     * own runner, fetcher and lookup cache run unchanged, the joined rows are collected into
     * native columns and built natively). On by default since the end-to-end bench
     * (benches/RESULTS.md, "Java: lookup join") beat stock in every pair on both lines on a quiet
     * machine.
     */
    public static final ConfigOption<Boolean> OPERATOR_LOOKUP_JOIN_ENABLED = operatorEnabled("lookup-join");

    /**
     * Per operator switch of the planner stage: the window TVF aggregate (TUMBLE, HOP, CUMULATE
     * over rowtime; one phase or the local/global pair).
     */
    public static final ConfigOption<Boolean> OPERATOR_WINDOW_AGGREGATE_ENABLED = operatorEnabled("window-aggregate");

    /** The Calc switch under its older key ({@code sluice.calc.enabled} still reads as a deprecated key). */
    public static final ConfigOption<Boolean> CALC_ENABLED = OPERATOR_CALC_ENABLED;

    /** The GROUP BY switch under its older name ({@code sluice.group-agg.enabled} still reads). */
    public static final ConfigOption<Boolean> GROUP_AGG_ENABLED = OPERATOR_GROUP_AGGREGATE_ENABLED;

    /** The changelog normalize switch under its older name ({@code sluice.normalize.enabled} still reads). */
    public static final ConfigOption<Boolean> NORMALIZE_ENABLED = OPERATOR_CHANGELOG_NORMALIZE_ENABLED;

    /** The deduplicate switch under its older name ({@code sluice.dedup.enabled} still reads). */
    public static final ConfigOption<Boolean> DEDUP_ENABLED = OPERATOR_DEDUPLICATE_ENABLED;

    /**
     * Planner stage: log each fallback (a plan node left to Flink, with its reason) once per node
     * digest and JVM, at INFO.
     */
    public static final ConfigOption<Boolean> LOG_FALLBACK_REASONS = ConfigOptions.key("sluice.log-fallback-reasons")
            .booleanType().defaultValue(false)
            .withDescription("Log why each plan node that sluice could replace stays on Flink's operator (once per node).");

    /**
     * Planner stage: the cost rule ({@code io.sluice.flink.planner.CostRule}) keeps a node on Flink
     * when the string columns it would carry through its transposes without computing on them
     * exceed what its native work pays for. False substitutes every node the matchers accept
     * (parity tests of the native operators, measurements).
     */
    public static final ConfigOption<Boolean> COST_ENABLED = ConfigOptions.key("sluice.cost.enabled")
            .booleanType().defaultValue(true)
            .withDescription("Planner stage: keep a node on Flink when its native cost exceeds stock's (the cost rule: "
                    + "string payload columns vs native work, sluice.cost.payload-per-work). False: substitute anyway.");

    /**
     * The cost rule's threshold: payload string columns a node may carry per unit of its native
     * work (a native call of a Calc; 1 for a deduplication or normalization, 3 for a join or a
     * Top-N). Higher substitutes wider rows.
     */
    public static final ConfigOption<Double> COST_PAYLOAD_PER_WORK = ConfigOptions.key("sluice.cost.payload-per-work")
            .doubleType().defaultValue(1.0)
            .withDescription("Planner stage cost rule: string columns a native node may carry through its transposes "
                    + "unused, per unit of native work (Calc: per native call; Deduplicate and ChangelogNormalize: 1 "
                    + "unit; Join and Rank: 3).");

    /**
     * The switch of one planner substitution, {@code sluice.operator.<name>.enabled} (default true).
     * The four built-in ones are the constants above; an older key, where there was one, is read as
     * a deprecated key.
     *
     * @param name the substitution's name, e.g. {@code calc}, {@code group-aggregate}
     * @return the option
     */
    public static ConfigOption<Boolean> operatorEnabled(String name) {
        ConfigOptions.TypedConfigOptionBuilder<Boolean> b = ConfigOptions.key("sluice.operator." + name + ".enabled")
                .booleanType();
        String old = switch (name) {
            case "calc" -> "sluice.calc.enabled";
            case "group-aggregate" -> "sluice.group-agg.enabled";
            case "deduplicate" -> "sluice.dedup.enabled";
            case "changelog-normalize" -> "sluice.normalize.enabled";
            default -> null;
        };
        ConfigOption<Boolean> option = b.defaultValue(true)
                .withDescription("Let the planner stage replace Flink's " + name + " node with sluice's.");
        return old == null ? option : option.withDeprecatedKeys(old);
    }

    /**
     * The switch of one native function, {@code sluice.function.<NAME>.enabled} (default true; NAME
     * upper case, e.g. {@code MD5}, {@code CONCAT_WS}). Off: the planner treats the function as not
     * native, so a Calc computes it on Flink (split around it if other parts stay native).
     *
     * @param name the function's SQL name
     * @return the option
     */
    public static ConfigOption<Boolean> functionEnabled(String name) {
        return ConfigOptions.key("sluice.function." + name.toUpperCase(java.util.Locale.ROOT) + ".enabled")
                .booleanType().defaultValue(true)
                .withDescription("Let the native Calc evaluate " + name + ".");
    }

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
     * Calc: rows hand the fields the program reads to native code as column arrays (one copy per
     * string) when every read field's type allows it (rows that are not {@code BinaryRowData}
     * take the UTF-16 way instead while {@link #CALC_UTF16_STRINGS} is on); false gathers every
     * row whole. Both give the same results; the switch exists to compare the two paths
     * (benches/RESULTS.md, "Java handover").
     */
    public static final ConfigOption<Boolean> CALC_COLUMN_HANDOVER = ConfigOptions.key("sluice.calc.column-handover")
            .booleanType().defaultValue(true)
            .withDescription("Native Calc: copy the read fields of each row into column arrays that native code "
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
