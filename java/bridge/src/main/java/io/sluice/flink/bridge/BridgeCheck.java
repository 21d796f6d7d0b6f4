package io.sluice.flink.bridge;

import java.security.CodeSource;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.factories.Factory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in the log when the bridge is in {@code lib/} but the JVM defined Flink's own
 * {@code PlannerModule}, so that SQL silently planned by Flink alone has a stated reason.
 *
 * <p>It is listed in this jar's {@code META-INF/services/org.apache.flink.table.factories.Factory}
 * only so that it runs: Flink instantiates every listed factory whenever it discovers one (e.g. the
 * planner's, when a table environment is created), in any class path order. Its identifier
 * matches no factory type Flink looks up, so it is never selected. It checks once per JVM which
 * {@code PlannerModule} the class path resolves, and if it is not the bridge's (Flink's jar came
 * first on the class path and no {@link BridgeAgent} substituted the class) it logs a warning
 * naming both jars and the fix.
 */
public final class BridgeCheck implements Factory {
    private static final Logger LOG = LoggerFactory.getLogger(BridgeCheck.class);
    private static final String PLANNER_MODULE = BridgeAgent.PLANNER_MODULE.replace('/', '.');
    /** A field only the bridge's PlannerModule declares. */
    static final String MARKER = "SLUICE_BRIDGE";
    private static final AtomicBoolean CHECKED = new AtomicBoolean();

    /** Called by Flink's factory discovery; checks the class path once per JVM. */
    public BridgeCheck() {
        if (CHECKED.compareAndSet(false, true)) {
            check(BridgeCheck.class.getClassLoader());
        }
    }

    private static void check(ClassLoader lib) {
        Class<?> module;
        try {
            module = Class.forName(PLANNER_MODULE, false, lib);
        } catch (ClassNotFoundException | LinkageError e) {
            LOG.warn("sluice bridge: no {} on the class path ({}); the bridge has nothing to replace", PLANNER_MODULE,
                    e.toString());
            return;
        }
        if (isBridge(module)) {
            return;
        }
        String bridgeJar = location(BridgeCheck.class);
        LOG.warn("sluice bridge: Flink's own {} (from {}) was loaded instead of the bridge's (from {}): this launcher "
                + "put lib/ on the class path with Flink's jar first (PyFlink's gateway lists lib/ in directory order, "
                + "Flink's bin/ scripts in name order). SQL is planned by Flink alone and no sluice node runs. "
                + "Add -javaagent:{} to env.java.opts.all in the Flink configuration file to make the bridge's "
                + "class the one loaded in any order.", PLANNER_MODULE, location(module), bridgeJar, bridgeJar);
    }

    private static boolean isBridge(Class<?> module) {
        try {
            module.getDeclaredField(MARKER);
            return true;
        } catch (NoSuchFieldException e) {
            return false;
        }
    }

    private static String location(Class<?> c) {
        CodeSource source = c.getProtectionDomain().getCodeSource();
        return source == null ? "an unknown location" : source.getLocation().getPath();
    }

    @Override
    public String factoryIdentifier() {
        return "sluice-bridge-check";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Collections.emptySet();
    }
}
