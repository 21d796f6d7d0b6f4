package io.sluice.flink.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.jni.NativeLibrary;

/** SluiceCalc without a loadable libsluice: stock SQL with fallback, a clear error without. */
class SluiceCalcFallbackTest {
    static final String MD5_ABC = "900150983cd24fb0d6963f7d28e17f72";

    @Test
    void fallbackRunsStockFlinkSql() throws Exception {
        assertEquals("stock " + MD5_ABC, probe("true", "/nonexistent/libsluice.so"));
    }

    @Test
    void withoutFallbackTheLoadErrorSurfaces() throws Exception {
        String out = probe("false", "/nonexistent/libsluice.so");
        assertTrue(out.startsWith("SluiceLoadException: libsluice not found at /nonexistent/libsluice.so"), out);
        assertTrue(out.contains(NativeLibrary.platform()), out);
    }

    private static String probe(String fallback, String libraryPath) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-")).toList());
        if (libraryPath != null) {
            cmd.add("-D" + NativeLibrary.PATH_PROPERTY + "=" + libraryPath);
        }
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(FallbackProbe.class.getName());
        cmd.add(fallback);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove(NativeLibrary.PATH_ENV);
        Process p = pb.start();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(buf);
        }
        p.waitFor();
        String[] lines = buf.toString(StandardCharsets.UTF_8).trim().split("\n");
        return lines[lines.length - 1];
    }
}
