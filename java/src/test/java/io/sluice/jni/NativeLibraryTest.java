package io.sluice.jni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loader and the native error boundary, as a Java caller sees them. */
class NativeLibraryTest {

    @Test
    void loadsTheBundledLibrary() {
        assertTrue(NativeLibrary.isAvailable(), () -> String.valueOf(NativeLibrary.unavailableReason()));
        assertTrue(SluiceNative.libraryVersion().startsWith("sluice "), SluiceNative.libraryVersion());
        assertTrue(NativeLibrary.loadedFrom().endsWith("libsluice.so"), NativeLibrary.loadedFrom());
    }

    @Test
    void nativeErrorBecomesSluiceException() {
        SluiceNative.selfTest(0);
        SluiceException e = assertThrows(SluiceException.class, () -> SluiceNative.selfTest(1));
        assertEquals(SluiceException.INVALID_ARGUMENT, e.status());
        assertEquals("selfTest: self-test error (mode 1)", e.getMessage());
    }

    @Test
    void nativePanicBecomesSluiceExceptionAndTheJvmLives() {
        SluiceException e = assertThrows(SluiceException.class, () -> SluiceNative.selfTest(2));
        assertEquals(SluiceException.PANIC, e.status());
        assertTrue(e.getMessage().contains("self-test panic (mode 2)"), e.getMessage());
        SluiceNative.selfTest(0); // the library still works
    }

    @Test
    void wrongPathNamesThePathAndThePlatform(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope/libsluice.so");
        String out = probe("-D" + NativeLibrary.PATH_PROPERTY + "=" + missing);
        assertTrue(out.startsWith("SluiceLoadException: libsluice not found at " + missing), out);
        assertTrue(out.contains("on platform " + NativeLibrary.platform()), out);
    }

    @Test
    void aFileThatIsNotALibraryIsRefusedClearly(@TempDir Path dir) throws Exception {
        Path bogus = dir.resolve("libsluice.so");
        Files.writeString(bogus, "not an ELF file");
        String out = probe("-D" + NativeLibrary.PATH_PROPERTY + "=" + bogus);
        assertTrue(out.startsWith("SluiceLoadException: cannot load libsluice from " + bogus), out);
        assertTrue(out.contains(NativeLibrary.platform()), out);
    }

    @Test
    void missingBundledLibraryNamesTheResource() throws Exception {
        // A class path without the staged library: only the compiled classes.
        String out = probeWithClassPath(classPathWithoutNative());
        assertTrue(out.startsWith("SluiceLoadException: no libsluice bundled for platform " + NativeLibrary.platform()), out);
        assertTrue(out.contains(NativeLibrary.resourcePath()), out);
    }

    /** Runs {@link LoaderProbe} in a fresh JVM (the loader caches per JVM). */
    private static String probe(String... jvmArgs) throws Exception {
        return run(System.getProperty("java.class.path"), jvmArgs);
    }

    private static String probeWithClassPath(String cp) throws Exception {
        return run(cp);
    }

    private static String run(String cp, String... jvmArgs) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(LoaderProbe.class.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove(NativeLibrary.PATH_ENV);
        Process p = pb.start();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(buf);
        }
        p.waitFor();
        // The JVM may print its own warnings first (e.g. about stack guards
        // when dlopen fails); the probe's outcome is its last line.
        String[] lines = buf.toString(StandardCharsets.UTF_8).trim().split("\n");
        return lines[lines.length - 1];
    }

    /** The class path entries minus the one holding the staged native library. */
    private static String classPathWithoutNative() throws Exception {
        String resource = NativeLibrary.resourcePath();
        List<String> keep = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            File f = new File(entry);
            if (f.isDirectory() && new File(f, resource).exists()) {
                // copy the classes without the native folder
                Path copy = Files.createTempDirectory("sluice-cp-");
                try (var walk = Files.walk(f.toPath())) {
                    for (Path src : (Iterable<Path>) walk::iterator) {
                        Path rel = f.toPath().relativize(src);
                        if (rel.toString().startsWith("io/sluice/native")) {
                            continue;
                        }
                        Path dst = copy.resolve(rel.toString());
                        if (Files.isDirectory(src)) {
                            Files.createDirectories(dst);
                        } else {
                            Files.copy(src, dst);
                        }
                    }
                }
                keep.add(copy.toString());
            } else {
                keep.add(entry);
            }
        }
        return String.join(File.pathSeparator, keep);
    }
}
