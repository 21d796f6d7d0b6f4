package io.sluice.flink;

import java.util.Objects;

/**
 * One node of an optimized stream plan as sluice's planner stage left it: native (a sluice
 * operator runs it) or stock (Flink's operator runs it, and why).
 *
 * @param node Flink's node name, e.g. {@code Calc}, {@code GroupAggregate}, {@code TableSourceScan}
 * @param isNative whether a sluice operator runs this node
 * @param reason why Flink's operator runs this node (the function, type, changelog mode or
 *     option); empty when native (whatever was passed)
 * @param description the node as the plan prints it (its digest line)
 */
public record NodeReport(String node, boolean isNative, String reason, String description) {
    /** Checks the fields; a native node's reason is empty. */
    public NodeReport {
        Objects.requireNonNull(node);
        reason = isNative ? "" : Objects.requireNonNull(reason);
        Objects.requireNonNull(description);
    }

    @Override
    public String toString() {
        return node + (isNative ? " [sluice]" : " [stock: " + reason + "]");
    }
}
