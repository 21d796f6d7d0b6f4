package io.sluice.flink.planner;

/**
 * A sluice node in the physical plan, whatever its arity ({@link SluicePhysicalRel} for one input,
 * {@code StreamPhysicalSluiceJoin} for two): the node reports list it as native under the name of
 * the Flink node it stands for.
 */
public interface SluiceNode {
    /** @return the Flink node this one replaces, as the node reports name it, e.g. {@code Calc} */
    String flinkNode();
}
