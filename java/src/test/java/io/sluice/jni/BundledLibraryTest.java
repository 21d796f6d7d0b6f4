package io.sluice.jni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library the jar bundles, as binutils sees it: it loads on glibc 2.17 (CentOS 7, Amazon Linux 2)
 * and carries no debug info. scripts/java.sh checks the same before staging; this keeps a jar built
 * another way (a host {@code cargo build} copied in) from passing its tests.
 */
class BundledLibraryTest {
    private static final String MAX_GLIBC = "2.17";

    @Test
    void needsNoGlibcNewerThan217(@TempDir Path dir) throws Exception {
        String symbols = objdump(staged(dir), "-T");
        Matcher m = Pattern.compile("\\(GLIBC_([0-9.]+)\\)\\s+(\\S+)").matcher(symbols);
        TreeSet<String> versions = new TreeSet<>(BundledLibraryTest::compareVersions);
        List<String> tooNew = new ArrayList<>();
        while (m.find()) {
            versions.add(m.group(1));
            if (compareVersions(m.group(1), MAX_GLIBC) > 0) {
                tooNew.add(m.group(2) + "@GLIBC_" + m.group(1));
            }
        }
        assertFalse(versions.isEmpty(), "no GLIBC symbol versions in objdump -T output:\n" + symbols);
        assertEquals(List.of(), tooNew, "symbols newer than GLIBC_" + MAX_GLIBC);
        assertEquals(MAX_GLIBC, readGlibcProperty(), "libsluice.properties names the glibc the loader reports");
    }

    @Test
    void isStrippedOfDebugInfo(@TempDir Path dir) throws Exception {
        String sections = objdump(staged(dir), "-h");
        assertTrue(sections.contains(".text"), sections);
        assertFalse(sections.contains(".debug_info"), "the bundled library carries DWARF:\n" + sections);
        assertTrue(sections.contains(".gnu_debuglink"), "no link to the separate debug symbols:\n" + sections);
    }

    private static Path staged(Path dir) throws Exception {
        Path lib = dir.resolve("libsluice.so");
        try (InputStream in = NativeLibrary.class.getClassLoader().getResourceAsStream(NativeLibrary.resourcePath())) {
            assertNotNull(in, "the library is not staged (scripts/java.sh)");
            Files.copy(in, lib);
        }
        return lib;
    }

    private static String readGlibcProperty() throws Exception {
        try (InputStream in = NativeLibrary.class.getClassLoader().getResourceAsStream(NativeLibrary.resourceInfoPath())) {
            assertNotNull(in, NativeLibrary.resourceInfoPath() + " is not staged (scripts/java.sh)");
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("glibc");
        }
    }

    /** Runs objdump (binutils; the build needs it too) and returns its output. */
    private static String objdump(Path lib, String flag) throws Exception {
        Process p = new ProcessBuilder("objdump", flag, lib.toString()).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "objdump did not exit");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = Integer.compare(i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }
}
