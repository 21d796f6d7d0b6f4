package io.sluice.flink.planner.keyed;

import java.util.List;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.BiRel;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import io.sluice.flink.planner.PlanContext;
import io.sluice.flink.planner.SluiceNode;

/**
 * The native updating join in the physical plan, in place of a Flink {@code StreamPhysicalJoin}:
 * the same two inputs (Flink's hash exchanges on the join keys), row type and changelog traits,
 * plus the native join spec (engine/src/keyed/join.rs). Plan text names it
 * {@code SluiceJoin} with the spec as its {@code native} term.
 */
public final class StreamPhysicalSluiceJoin extends BiRel implements SluiceNode {
    private final RelDataType outputRowType;
    private final int[] leftKeys;
    private final int[] rightKeys;
    private final String spec;

    /**
     * @param cluster the replaced node's cluster
     * @param traitSet the replaced node's traits
     * @param left the replaced node's left input
     * @param right its right input
     * @param rowType its row type
     * @param leftKeys the left join key columns (the state key)
     * @param rightKeys the right join key columns
     * @param spec the native spec without job-derived options
     */
    public StreamPhysicalSluiceJoin(RelOptCluster cluster, RelTraitSet traitSet, RelNode left, RelNode right,
            RelDataType rowType, int[] leftKeys, int[] rightKeys, String spec) {
        super(cluster, traitSet, left, right);
        this.outputRowType = rowType;
        this.leftKeys = leftKeys.clone();
        this.rightKeys = rightKeys.clone();
        this.spec = spec;
    }

    /** @return the native spec */
    public String spec() {
        return spec;
    }

    @Override
    protected RelDataType deriveRowType() {
        return outputRowType;
    }

    @Override
    public String flinkNode() {
        return "Join";
    }

    @Override
    public String getRelTypeName() {
        return "StreamPhysicalSluiceJoin";
    }

    @Override
    public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
        return new StreamPhysicalSluiceJoin(getCluster(), traitSet, inputs.get(0), inputs.get(1), outputRowType,
                leftKeys, rightKeys, spec);
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        return super.explainTerms(pw).item("native", spec);
    }

    @Override
    public ExecNode<?> translateToExecNode() {
        return new SluiceJoinExecNode(ShortcutUtils.unwrapTableConfig(this), PlanContext.rowType(this),
                getRelDetailedDescription(), leftKeys.clone(), rightKeys.clone(), spec);
    }
}
