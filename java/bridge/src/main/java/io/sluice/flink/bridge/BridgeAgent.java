package io.sluice.flink.bridge;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.Arrays;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * The bridge jar as a Java agent ({@code -javaagent:<lib>/flink-sluice-bridge-*.jar}, e.g. in
 * {@code env.java.opts.all} of the Flink configuration file): it makes the bridge's
 * {@code PlannerModule} the one the JVM defines whatever the class path order (java/README.md,
 * "Deploying: lib/ and PyFlink").
 *
 * <p>Without it the bridge relies on coming before Flink's jar that carries the same class on the
 * class path: Flink's bin/ scripts sort {@code lib/} by name, but PyFlink's gateway
 * ({@code pyflink_gateway_server.py}) lists it in directory order. With it, when the system class
 * loader defines {@code org.apache.flink.table.planner.loader.PlannerModule} from any jar, the
 * class bytes are replaced by the bridge's own (read from this agent's jar at start). The bridge's
 * other classes have names Flink's jars do not use, so they load from this jar in any order (the
 * JVM appends an agent's jar to the class path). Nothing else is transformed.
 */
public final class BridgeAgent {
    /** The one class the agent substitutes, in the JVM's internal form. */
    static final String PLANNER_MODULE = "org/apache/flink/table/planner/loader/PlannerModule";

    private BridgeAgent() {}

    /**
     * Called by the JVM before {@code main}: registers the substitution.
     *
     * @param args the agent's options (none are read)
     * @param inst the JVM's instrumentation
     */
    public static void premain(String args, Instrumentation inst) {
        inst.addTransformer(new Substitution(ownClass(PLANNER_MODULE + ".class")));
    }

    /** Reads {@code entry} from this agent's own jar (the class path may hold Flink's first). */
    private static byte[] ownClass(String entry) {
        Path jar;
        try {
            jar = Path.of(BridgeAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            throw new IllegalStateException("sluice bridge agent: cannot locate its own jar", e);
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            ZipEntry e = file.getEntry(entry);
            if (e == null) {
                throw new IllegalStateException("sluice bridge agent: " + jar + " has no " + entry
                        + " (is -javaagent pointing at the flink-sluice-bridge jar?)");
            }
            try (InputStream in = file.getInputStream(e)) {
                return in.readAllBytes();
            }
        } catch (IOException e) {
            throw new IllegalStateException("sluice bridge agent: cannot read " + entry + " from " + jar, e);
        }
    }

    /** Hands the system class loader the bridge's PlannerModule in place of any other. */
    static final class Substitution implements ClassFileTransformer {
        private final byte[] bridge;

        Substitution(byte[] bridge) {
            this.bridge = bridge;
        }

        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                byte[] original) {
            if (!PLANNER_MODULE.equals(className) || redefined != null
                    || loader != ClassLoader.getSystemClassLoader() || Arrays.equals(original, bridge)) {
                return null;
            }
            return bridge.clone();
        }
    }
}
