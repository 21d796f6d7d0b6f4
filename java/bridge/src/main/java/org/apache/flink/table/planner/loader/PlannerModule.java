package org.apache.flink.table.planner.loader;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ConfigurationUtils;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.classloading.ComponentClassLoader;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.delegation.ExecutorFactory;
import org.apache.flink.table.delegation.PlannerFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * sluice's stand-in for Flink's planner loader entry, the one Flink class of the bridge jar
 * (java/README.md, "Deploying: lib/ and PyFlink"). It sits in {@code lib/} ahead of Flink's class
 * of the same name (name order, as Flink's scripts build the class path; in any order with the jar
 * as a Java agent, {@code io.sluice.flink.bridge.BridgeAgent}) and keeps its contract: Flink's
 * {@code DelegatePlannerFactory} and {@code DelegateExecutorFactory} (still Flink's own, in
 * {@code flink-table-planner-loader}) call {@link #getInstance()}, {@link #loadPlannerFactory()},
 * {@link #loadExecutorFactory()} and {@link #addUrlToClassLoader}.
 *
 * <p>Like Flink's, it extracts the planner jar that {@code flink-table-planner-loader} carries as the
 * resource {@value #PLANNER_JAR} and loads it in a {@link ComponentClassLoader} (Flink's classes
 * from the planner first, logging from {@code lib/}). Unlike Flink's, that class loader also holds
 * sluice-flink's jar from {@code lib/} with {@code io.sluice.flink} component-first, so sluice's
 * planner stage links against the planner it extends; and the planner factory it returns is
 * {@code io.sluice.flink.planner.SluicePlannerFactory}, Flink's default planner with the stage
 * installed. {@code io.sluice.jni} stays owner-first: the JNI classes, and so libsluice, are loaded
 * once per JVM by {@code lib/}'s class loader, which is also the one the task's operators use.
 *
 * <p>The class it replaces is internal to Flink, so it runs only on the one Flink version it was
 * built and tested against ({@code sluice-bridge.properties}) and refuses every other with a
 * {@link TableException} naming both.
 */
public class PlannerModule {
    /** The planner jar inside {@code flink-table-planner-loader}, as Flink's loader names it. */
    static final String PLANNER_JAR = "flink-table-planner.jar";
    private static final String SLUICE_FACTORY = "io.sluice.flink.planner.SluicePlannerFactory";
    private static final String BRIDGE_PROPERTIES = "sluice-bridge.properties";

    /**
     * Marks this class as the bridge's: {@code io.sluice.flink.bridge.BridgeCheck} looks for this field
     * to tell whether the JVM defined it or Flink's class of the same name.
     */
    static final boolean SLUICE_BRIDGE = true;

    /** Loaded from lib/ (the owner) first: logging, and what flink-table-runtime ships. */
    private static final String[] OWNER_FIRST = Stream.concat(Arrays.stream(CoreOptions.PARENT_FIRST_LOGGING_PATTERNS),
            Stream.of("org.codehaus.janino", "org.codehaus.commons", "org.apache.commons.lang3", "io.sluice.jni"))
            .toArray(String[]::new);

    /** Loaded from the planner and sluice's jar first. */
    private static final String[] COMPONENT_FIRST = {"org.apache.flink", "io.sluice.flink"};

    /** Packages that Flink's loader names the owning jar of in its class loading errors. */
    private static final Map<String, String> MODULES = Map.of(
            "org.apache.flink.table.runtime", "flink-table-runtime",
            "org.apache.flink.formats.raw", "flink-table-runtime",
            "org.codehaus.janino", "flink-table-runtime",
            "org.codehaus.commons", "flink-table-runtime",
            "org.apache.flink.table.shaded.com.jayway", "flink-table-runtime");

    private final Loader loader;

    private PlannerModule() {
        ClassLoader lib = PlannerModule.class.getClassLoader();
        requireBuiltVersion(lib);
        URL sluiceJar = sluiceJar(lib);
        try {
            Path tmp = Paths.get(ConfigurationUtils.parseTempDirectories(new Configuration())[0]);
            Files.createDirectories(tmp);
            Path planner = tmp.resolve("flink-table-planner_" + UUID.randomUUID() + ".jar");
            try (InputStream in = lib.getResourceAsStream(PLANNER_JAR)) {
                if (in == null) {
                    throw new TableException("sluice bridge: the Flink table planner (" + PLANNER_JAR
                            + " inside lib/flink-table-planner-loader-*.jar) is not on the class path");
                }
                Files.copy(in, planner, StandardCopyOption.REPLACE_EXISTING);
            }
            planner.toFile().deleteOnExit();
            loader = new Loader(new URL[] {planner.toUri().toURL(), sluiceJar}, lib);
        } catch (IOException e) {
            throw new TableException("sluice bridge: could not set up the table planner's class loader", e);
        }
    }

    private static final class Holder {
        private static final PlannerModule INSTANCE = new PlannerModule();
    }

    /** @return the one instance (created on first use: the planner is extracted then) */
    public static PlannerModule getInstance() {
        return Holder.INSTANCE;
    }

    /** @return the planner's class loader */
    public URLClassLoader getSubmoduleClassLoader() {
        return loader;
    }

    /**
     * Adds a jar to the planner's class loader (Flink's {@code DelegatePlannerFactory} adds a SQL
     * dialect's jar this way).
     *
     * @param url the jar
     */
    public void addUrlToClassLoader(URL url) {
        loader.addURL(url);
    }

    /** @return Flink's executor factory, from the planner */
    public ExecutorFactory loadExecutorFactory() {
        return FactoryUtil.discoverFactory(loader, ExecutorFactory.class, ExecutorFactory.DEFAULT_IDENTIFIER);
    }

    /** @return Flink's default planner factory wrapped by sluice's, which installs the planner stage */
    public PlannerFactory loadPlannerFactory() {
        try {
            Class<?> c = Class.forName(SLUICE_FACTORY, true, loader);
            return (PlannerFactory) c.getConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            throw new TableException("sluice bridge: could not create " + SLUICE_FACTORY
                    + " from sluice-flink's jar (is it the jar built for this Flink line?)", e);
        }
    }

    private static void requireBuiltVersion(ClassLoader lib) {
        Properties p = new Properties();
        try (InputStream in = lib.getResourceAsStream(BRIDGE_PROPERTIES)) {
            if (in == null) {
                throw new TableException("sluice bridge: " + BRIDGE_PROPERTIES + " is missing from the bridge jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new TableException("sluice bridge: cannot read " + BRIDGE_PROPERTIES, e);
        }
        String built = p.getProperty("flink.version");
        String running = EnvironmentInformation.getVersion();
        if (!running.equals(built)) {
            throw new TableException("sluice bridge: this jar was built and tested for Flink " + built
                    + " only, and this is Flink " + running + ": it replaces a Flink-internal class, so it refuses "
                    + "any other version. Put the flink-sluice-bridge jar built for Flink " + running
                    + " in lib/, or remove it from lib/ to run Flink's own planner loader.");
        }
    }

    /** The jar in lib/ that holds sluice's planner factory. */
    private static URL sluiceJar(ClassLoader lib) {
        String resource = SLUICE_FACTORY.replace('.', '/') + ".class";
        URL url = lib.getResource(resource);
        if (url == null) {
            throw new TableException("sluice bridge: sluice-flink's jar is not in lib/ (no " + resource
                    + "); add sluice-flink-<version>-<flink line>.jar beside the bridge, or remove the bridge");
        }
        try {
            if (url.openConnection() instanceof JarURLConnection jar) {
                return jar.getJarFileURL();
            }
        } catch (IOException e) {
            throw new TableException("sluice bridge: cannot open " + url, e);
        }
        throw new TableException("sluice bridge: " + resource + " is not inside a jar (" + url + ")");
    }

    /** The planner's class loader; {@code addURL} public for {@link #addUrlToClassLoader}. */
    private static final class Loader extends ComponentClassLoader {
        Loader(URL[] urls, ClassLoader owner) {
            super(urls, owner, OWNER_FIRST, COMPONENT_FIRST, MODULES);
        }

        @Override
        public void addURL(URL url) {
            super.addURL(url);
        }
    }
}
