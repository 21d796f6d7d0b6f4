package io.sluice.flink.planner;

import java.util.Set;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.delegation.Planner;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.planner.delegation.DefaultPlannerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's default planner with sluice's stage installed: what the lib/ bridge (the
 * {@code java/bridge} module, a {@code PlannerModule} in place of Flink's) hands to Flink's
 * {@code DelegatePlannerFactory}, so SQL planned in a Flink distribution whose {@code lib/} holds
 * the bridge and this jar runs on sluice with no code change.
 *
 * <p>Deliberately not listed in {@code META-INF/services}: a second factory with the identifier
 * {@value PlannerFactory#DEFAULT_IDENTIFIER} beside Flink's would make Flink's discovery refuse
 * both. Every planner it creates reads {@code sluice.enabled} and the other options per query, so
 * {@code sluice.enabled: false} in the Flink configuration file (or SQL {@code SET}) turns the stage
 * off without removing the jars.
 */
public final class SluicePlannerFactory implements PlannerFactory {
    private static final Logger LOG = LoggerFactory.getLogger(SluicePlannerFactory.class);

    private final PlannerFactory flink = new DefaultPlannerFactory();

    /** Called reflectively by the bridge. */
    public SluicePlannerFactory() {}

    @Override
    public Planner create(Context context) {
        SluiceStage.install(context.getTableConfig());
        LOG.info("sluice: planner stage installed in the table planner (lib/ bridge)");
        return flink.create(context);
    }

    @Override
    public String factoryIdentifier() {
        return flink.factoryIdentifier();
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return flink.requiredOptions();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return flink.optionalOptions();
    }
}
