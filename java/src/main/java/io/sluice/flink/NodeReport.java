package io.sluice.flink;

import java.util.Objects;

/**
 * One node of an optimized stream plan as sluice's planner stage left it: native (a sluice
 * operator runs it) or stock (Flink's operator runs it, and why).
 */
public final class NodeReport {
    private final String node;
    private final boolean isNative;
    private final String reason;
    private final String description;

    /**
     * @param node Flink's node name, e.g. {@code Calc}, {@code GroupAggregate}
     * @param isNative whether a sluice operator runs it
     * @param reason why it stays on Flink's operator; empty when native
     * @param description the node as the plan prints it (its digest line)
     */
    public NodeReport(String node, boolean isNative, String reason, String description) {
        this.node = Objects.requireNonNull(node);
        this.isNative = isNative;
        this.reason = isNative ? "" : Objects.requireNonNull(reason);
        this.description = Objects.requireNonNull(description);
    }

    /** @return Flink's node name, e.g. {@code Calc}, {@code GroupAggregate}, {@code TableSourceScan} */
    public String node() {
        return node;
    }

    /** @return whether a sluice operator runs this node */
    public boolean isNative() {
        return isNative;
    }

    /** @return why Flink's operator runs this node (the function, type, changelog mode or option); empty when native */
    public String reason() {
        return reason;
    }

    /** @return the node as the plan prints it */
    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return node + (isNative ? " [sluice]" : " [stock: " + reason + "]");
    }
}
