package io.sluice.flink.planner.calc;

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
 * A Calc (or the native part of a split one) run by {@code SluiceCalcOperator}: one native
 * expression per output column over the input ({@code $i} references, engine/src/calc/spec.rs), each
 * typed as Flink types it, and the BOOLEAN output columns that must all be TRUE for a row to
 * pass (a native WHERE; they stay in the row). Plan text:
 * {@code SluiceCalc(select=[...], where=[...])}.
 */
public final class StreamPhysicalSluiceCalc extends SluicePhysicalRel {
    private final String[] expressions;
    private final String[] outputTypes;
    private final int[] filters;

    StreamPhysicalSluiceCalc(RelOptCluster cluster, RelTraitSet traits, RelNode input, RelDataType rowType,
            String[] expressions, String[] outputTypes, int[] filters) {
        super(cluster, traits, input, rowType);
        this.expressions = expressions.clone();
        this.outputTypes = outputTypes.clone();
        this.filters = filters.clone();
    }

    @Override
    public String flinkNode() {
        return "Calc";
    }

    @Override
    public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
        return new StreamPhysicalSluiceCalc(getCluster(), traitSet, sole(inputs), getRowType(), expressions,
                outputTypes, filters);
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        List<String> names = getRowType().getFieldNames();
        StringBuilder select = new StringBuilder();
        for (int i = 0; i < expressions.length; i++) {
            select.append(i == 0 ? "" : ", ").append(expressions[i]).append(" AS ").append(names.get(i));
        }
        StringBuilder where = new StringBuilder();
        for (int f : filters) {
            where.append(where.length() == 0 ? "" : " AND ").append(names.get(f));
        }
        return super.explainTerms(pw).item("select", select.toString())
                .itemIf("where", where.toString(), filters.length > 0);
    }

    @Override
    public ExecNode<?> translateToExecNode() {
        return new SluiceCalcExecNode(ShortcutUtils.unwrapTableConfig(this), InputProperty.DEFAULT,
                PlanContext.rowType(this), getRelDetailedDescription(), expressions, outputTypes, filters);
    }

    /** @return the native expressions, one per output column */
    public List<String> expressions() {
        return Arrays.asList(expressions.clone());
    }
}
