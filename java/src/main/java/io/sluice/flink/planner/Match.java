package io.sluice.flink.planner;

import java.util.Objects;

import org.apache.calcite.rel.RelNode;

/**
 * A matcher's answer for one node: the subtree that replaces it (with at least one sluice node in
 * it), or the reason it stays on Flink's operator. Reasons are data: {@link io.sluice.flink.NodeReport}
 * carries them to {@code Sluice.explain} and, with {@code sluice.log-fallback-reasons}, to the log.
 */
public final class Match {
    private final RelNode replacement;
    private final String reason;

    private Match(RelNode replacement, String reason) {
        this.replacement = replacement;
        this.reason = reason;
    }

    /**
     * @param replacement the new subtree; its root keeps the replaced node's row type and traits
     * @return a substitution
     */
    public static Match replace(RelNode replacement) {
        return new Match(Objects.requireNonNull(replacement), null);
    }

    /**
     * @param reason why the node stays stock, naming what is missing: the function
     *     ({@code "function UPPER"}), the type, the changelog mode or the option
     * @return a fallback
     */
    public static Match stock(String reason) {
        return new Match(null, Objects.requireNonNull(reason));
    }

    /** @return whether the node is replaced */
    public boolean replaced() {
        return replacement != null;
    }

    /** @return the replacement, or null for a fallback */
    public RelNode replacement() {
        return replacement;
    }

    /** @return the fallback reason, or null for a replacement */
    public String reason() {
        return reason;
    }
}
