package io.sluice.flink.planner.keyed;

import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.keyed.SluiceKeyedOperator;
import io.sluice.flink.keyed.StateBudget;
import io.sluice.jni.SluiceException;

/**
 * The keyed operator a planned sluice node runs: {@link SluiceKeyedOperator} whose native state
 * budget is {@code sluice.state.budget-bytes} (retained native state bytes per operator subtask;
 * 0: no limit), and whose failure on an insert over that budget names the setting, so the failed
 * job says what to change.
 */
public final class BudgetedKeyedOperator extends SluiceKeyedOperator {
    private static final long serialVersionUID = 1L;

    private final long budget;

    /**
     * @param spec the native spec without job-derived options
     * @param inputType input row type (as the native operator is told it)
     * @param outputArity fields per output row
     * @param batchSize rows per native call
     * @param budget {@code sluice.state.budget-bytes}
     */
    public BudgetedKeyedOperator(String spec, RowType inputType, int outputArity, int batchSize, long budget) {
        super(spec, inputType, outputArity, batchSize, budget);
        this.budget = budget;
    }

    /** @return {@code e}, naming {@code sluice.state.budget-bytes} when it is a budget failure */
    @Override
    protected SluiceException failure(SluiceException e) {
        return StateBudget.named(e, budget, spec());
    }
}
