package io.sluice.flink.planner.keyed;

import java.util.Arrays;
import java.util.List;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import io.sluice.flink.planner.PlanContext;
import io.sluice.flink.planner.SluicePhysicalRel;

/**
 * A native keyed operator in the physical plan, in place of a Flink GroupAggregate, Deduplicate,
 * ChangelogNormalize, Rank, OverAggregate or WindowAggregate ({@link KeyedKind}): the same input
 * (Flink's hash exchange on the key, or the singleton exchange of a global aggregate / an OVER
 * without PARTITION BY; for a local/global window pair, a new exchange over the local half's
 * input), row type and changelog traits, plus the native operator spec
 * (engine/src/keyed/spec/mod.rs) it runs. Plan text names it {@code SluiceGroupAggregate},
 * {@code SluiceOverAggregate} etc. with the spec as its term.
 */
public final class StreamPhysicalSluiceKeyed extends SluicePhysicalRel {
    private final KeyedKind kind;
    private final int[] keys;
    private final String spec;

    /**
     * @param cluster the replaced node's cluster
     * @param traitSet the replaced node's traits
     * @param input the replaced node's input
     * @param rowType the replaced node's row type
     * @param kind which Flink node this stands for
     * @param keys the key columns of the input (empty: a global aggregate)
     * @param spec the native spec without job-derived options
     */
    public StreamPhysicalSluiceKeyed(RelOptCluster cluster, RelTraitSet traitSet, RelNode input, RelDataType rowType,
            KeyedKind kind, int[] keys, String spec) {
        super(cluster, traitSet, input, rowType);
        this.kind = kind;
        this.keys = keys.clone();
        this.spec = spec;
    }

    /** @return the native spec */
    public String spec() {
        return spec;
    }

    @Override
    public String flinkNode() {
        return kind.flinkNode();
    }

    @Override
    public String getRelTypeName() {
        return "StreamPhysicalSluice" + kind.flinkNode();
    }

    @Override
    public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
        return new StreamPhysicalSluiceKeyed(getCluster(), traitSet, inputs.get(0), getRowType(), kind, keys, spec);
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        return super.explainTerms(pw).item("native", spec);
    }

    @Override
    public ExecNode<?> translateToExecNode() {
        InputProperty input = InputProperty.builder()
                .requiredDistribution(keys.length == 0 ? InputProperty.SINGLETON_DISTRIBUTION
                        : InputProperty.hashDistribution(keys))
                .build();
        return new SluiceKeyedExecNode(ShortcutUtils.unwrapTableConfig(this), kind, input, PlanContext.rowType(this),
                getRelDetailedDescription(), Arrays.copyOf(keys, keys.length), spec);
    }
}
