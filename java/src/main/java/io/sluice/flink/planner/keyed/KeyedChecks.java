package io.sluice.flink.planner.keyed;

import java.time.Duration;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import io.sluice.flink.planner.PlanContext;
import io.sluice.jni.KeyedNative;
import io.sluice.jni.SluiceException;

/** The checks the three keyed substitutions share: options the native operators do not honour, and the native probe. */
final class KeyedChecks {
    private KeyedChecks() {}

    /**
     * Mini-batch and state TTL change what Flink's keyed functions emit and keep
     * ({@code MiniBatchGroupAggFunction} and the mini-batch dedup functions fold a bundle into one
     * change per key; with a retention time {@code GroupAggFunction} emits an update even when the
     * value is unchanged, and state expires); the native operators do neither.
     *
     * @param config the query's configuration
     * @param ttlHint the node's STATE_TTL hint in ms, or null
     * @return the reason the node stays stock, or null
     */
    static String options(ReadableConfig config, Long ttlHint) {
        if (config.get(ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ENABLED)) {
            return "mini-batch (" + ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_ENABLED.key()
                    + "=true): Flink folds each bundle into one change per key; the native operator emits the "
                    + "per-row changelog";
        }
        return ttl(config, ttlHint);
    }

    /**
     * @param config the query's configuration
     * @param ttlHint the node's STATE_TTL hint in ms, or null
     * @return the reason a state TTL keeps the node stock, or null
     */
    static String ttl(ReadableConfig config, Long ttlHint) {
        Duration ttl = config.get(ExecutionConfigOptions.IDLE_STATE_RETENTION);
        if (ttlHint != null && ttlHint > 0) {
            return "state TTL (STATE_TTL hint " + ttlHint + " ms): native keyed state does not expire";
        }
        if (ttlHint == null && ttl != null && !ttl.isZero() && !ttl.isNegative()) {
            return "state TTL (" + ExecutionConfigOptions.IDLE_STATE_RETENTION.key() + "=" + ttl
                    + "): native keyed state does not expire";
        }
        return null;
    }

    /**
     * Creates the native operator once, as the job will, and compares the rows it emits with the
     * row type Flink's node declares.
     *
     * @param spec the spec
     * @param in the input row type
     * @param out Flink's output row type
     * @return the reason the node stays stock (an input type the native operator does not carry,
     *     a result whose layout differs), or null
     */
    static String probe(String spec, RowType in, RowType out) {
        RowType nat;
        try (KeyedNative probe = KeyedNative.create(spec, PlanContext.nativeInput(in))) {
            nat = probe.outputType(out.getFieldNames());
        } catch (SluiceException | IllegalArgumentException e) {
            return "native operator refuses `" + spec + "` over " + in.asSummaryString() + ": " + e.getMessage();
        }
        return layoutMismatch(out, nat);
    }

    /**
     * @param out Flink's output row type
     * @param nat the native operator's
     * @return the first column whose {@code BinaryRowData} layout differs, as a reason, or null
     */
    static String layoutMismatch(RowType out, RowType nat) {
        for (int i = 0; i < out.getFieldCount(); i++) {
            LogicalType want = out.getTypeAt(i);
            LogicalType got = nat.getTypeAt(i);
            if (!sameLayout(want, got)) {
                return "result column " + out.getFieldNames().get(i) + ": Flink's type is " + want.asSummaryString()
                        + ", the native operator's " + got.asSummaryString();
            }
        }
        return null;
    }

    /** Whether values of the two types are written alike in a {@code BinaryRowData}. */
    static boolean sameLayout(LogicalType a, LogicalType b) {
        if (a.is(LogicalTypeFamily.CHARACTER_STRING) && b.is(LogicalTypeFamily.CHARACTER_STRING)) {
            return true;
        }
        if (a.is(LogicalTypeFamily.BINARY_STRING) && b.is(LogicalTypeFamily.BINARY_STRING)) {
            return true;
        }
        if (a.getTypeRoot() != b.getTypeRoot()) {
            return false;
        }
        switch (a.getTypeRoot()) {
            case DECIMAL:
                return LogicalTypeChecks.getPrecision(a) == LogicalTypeChecks.getPrecision(b)
                        && LogicalTypeChecks.getScale(a) == LogicalTypeChecks.getScale(b);
            case TIME_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return LogicalTypeChecks.getPrecision(a) == LogicalTypeChecks.getPrecision(b);
            default:
                return true;
        }
    }
}
