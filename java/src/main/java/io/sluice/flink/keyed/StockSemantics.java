package io.sluice.flink.keyed;

import java.lang.reflect.Method;

import org.apache.flink.runtime.state.KeyedStateBackend;

import io.sluice.flink.SluiceOptions.DedupStateBackend;

/**
 * Where stock Flink's keyed operators answer differently by Flink line or by
 * state backend, which answer the native operator gives: the spec options
 * {@code equal_update_after=} (changelog normalize) and {@code backend=}
 * (keep-last dedup) of keyed/src/normalize.rs and keyed/src/dedup.rs.
 */
final class StockSemantics {
    private StockSemantics() {}

    /**
     * Whether the stock ChangelogNormalize on the classpath drops a {@code +U}
     * whose fields equal the stored row: Flink 2.x compares it as a {@code +I}
     * ({@code DeduplicateFunctionHelper.areRowsWithSameContent}); Flink 1.20's
     * equaliser compares RowKinds, so there it answers with
     * {@code -U prev, +U cur}. Read from the runtime classes the job runs
     * with, so the native normalize matches whichever Flink is present.
     */
    static final boolean STOCK_DROPS_EQUAL_UPDATE_AFTER = hasMethod(
            "areRowsWithSameContent",
            "org.apache.flink.table.runtime.operators.deduplicate.utils.DeduplicateFunctionHelper",
            "org.apache.flink.table.runtime.operators.deduplicate.DeduplicateFunctionHelper");

    /** @return the normalize spec option for the Flink on the classpath */
    static String normalizeOption() {
        return " equal_update_after=" + (STOCK_DROPS_EQUAL_UPDATE_AFTER ? "drop" : "emit");
    }

    /**
     * The dedup spec option: which state backend's equal-row behaviour the
     * native keep-last dedup reproduces. {@code hashmap} when the keyed state
     * lives on the heap (the stored row is the object Flink re-marks
     * {@code +U} after emitting it, so an equal row after an update is not
     * dropped), {@code rocksdb} for any serialising backend (RocksDB, ForSt).
     * {@link DedupStateBackend#AUTO} asks the backend:
     * {@code KeyedStateBackend#isSafeToReuseKVState} is true exactly when it
     * hands out copies (RocksDB and ForSt override it to true, the heap
     * backend keeps the interface's false, and the changelog backend answers
     * for the backend it wraps). See {@code StateBackendKind} in
     * keyed/src/dedup.rs.
     *
     * @param configured the {@code sluice.dedup.state-backend} option
     * @param backend the operator's keyed state backend (read only for {@code AUTO})
     * @return the spec option, with its leading space
     */
    static String dedupOption(DedupStateBackend configured, KeyedStateBackend<?> backend) {
        boolean serialising;
        switch (configured) {
            case HASHMAP:
                serialising = false;
                break;
            case ROCKSDB:
                serialising = true;
                break;
            default:
                serialising = backend.isSafeToReuseKVState();
        }
        return " backend=" + (serialising ? "rocksdb" : "hashmap");
    }

    private static boolean hasMethod(String method, String... classes) {
        for (String c : classes) {
            try {
                for (Method m : Class.forName(c, false, StockSemantics.class.getClassLoader()).getDeclaredMethods()) {
                    if (m.getName().equals(method)) {
                        return true;
                    }
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // not this line's class
            }
        }
        return false;
    }
}
