package io.sluice.flink.keyed;

import io.sluice.flink.SluiceOptions;
import io.sluice.jni.SluiceException;

/** A native operator's failure on an insert over its state budget, with the setting that sets the budget named. */
public final class StateBudget {
    private StateBudget() {}

    /**
     * @param e a native failure
     * @param budget {@code sluice.state.budget-bytes} in force
     * @param spec the operator's spec
     * @return {@code e} when it is not a budget failure, else a copy whose message says what to change
     */
    public static SluiceException named(SluiceException e, long budget, String spec) {
        if (e.getMessage() == null || !e.getMessage().contains("state budget exceeded")) {
            return e;
        }
        return new SluiceException(e.status(), e.getMessage() + " (" + SluiceOptions.STATE_BUDGET.key() + "=" + budget
                + " bytes per subtask of " + spec + "; raise it, or 0 for no limit)");
    }
}
