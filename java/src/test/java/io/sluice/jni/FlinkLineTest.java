package io.sluice.jni;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.flink.compat.FlinkLine;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.junit.jupiter.api.Test;

/** The profile compiled the adapter of the Flink line it runs against. */
class FlinkLineTest {
    @Test
    void adapterMatchesTheFlinkOnTheClassPath() {
        String version = EnvironmentInformation.getVersion();
        assertEquals(version.startsWith("1.") ? "flink-1.20" : "flink-2", FlinkLine.name(), version);
        assertEquals(System.getProperty("sluice.test.flink.line"), FlinkLine.name());
    }
}
