package io.sluice.flink.planner;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.type.RelDataType;

/**
 * Base of sluice's single-input stream physical nodes. The row type is the one fixed at
 * substitution (never re-derived), the traits (changelog mode, distribution) are the replaced
 * node's, and {@link #flinkNode()} names the Flink node it stands for in the node reports. Plan
 * text prints the class name without {@code StreamPhysical}, e.g. {@code SluiceCalc(...)}.
 * A subclass implements {@link #copy(RelTraitSet, java.util.List)}, {@link #translateToExecNode()}
 * (returning a {@link SluiceExecNode}) and, for its digest, {@code explainTerms} (calling super).
 */
public abstract class SluicePhysicalRel extends SingleRel implements SluiceNode {
    private final RelDataType outputRowType;

    /**
     * @param cluster the replaced node's cluster
     * @param traitSet the replaced node's traits (or the traits the rewritten subtree needs)
     * @param input the input
     * @param outputRowType the output row type
     */
    protected SluicePhysicalRel(RelOptCluster cluster, RelTraitSet traitSet, RelNode input,
            RelDataType outputRowType) {
        super(cluster, traitSet, input);
        this.outputRowType = outputRowType;
    }

    @Override
    protected RelDataType deriveRowType() {
        return outputRowType;
    }

    @Override
    public abstract String flinkNode();
}
