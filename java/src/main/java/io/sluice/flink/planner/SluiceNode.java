package io.sluice.flink.planner;

import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRel;

/**
 * A sluice node in the physical plan, whatever its arity ({@link SluicePhysicalRel} for one input,
 * {@code StreamPhysicalSluiceJoin} for two): the node reports list it as native under the name of
 * the Flink node it stands for.
 */
public interface SluiceNode extends StreamPhysicalRel {
    /** @return the Flink node this one replaces, as the node reports name it, e.g. {@code Calc} */
    String flinkNode();

    /** @return false: a sluice operator needs no watermarks (it forwards them, or fires on them itself) */
    @Override
    default boolean requireWatermark() {
        return false;
    }
}
