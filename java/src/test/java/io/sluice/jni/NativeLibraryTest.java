package io.sluice.jni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
    void missingBundledLibraryNamesTheResource(@TempDir Path classes) throws Exception {
        // A class path without the staged library: only the compiled classes.
        String out = probeWithClassPath(classPathWithNative(classes, null));
        assertTrue(out.startsWith("SluiceLoadException: no libsluice bundled for platform " + NativeLibrary.platform()), out);
        assertTrue(out.contains(NativeLibrary.resourcePath()), out);
    }

    @Test
    void aBundledLibraryThatFailsToLoadNamesTheGlibcItNeeds(@TempDir Path classes, @TempDir Path home) throws Exception {
        byte[] notElf = "not an ELF file".getBytes(StandardCharsets.UTF_8);
        String out = probeWithClassPath(classPathWithNative(classes, notElf),
                "-Duser.home=" + home);
        assertTrue(out.startsWith("SluiceLoadException: cannot load libsluice from " + home), out);
        assertTrue(out.contains("on platform " + NativeLibrary.platform()), out);
        assertTrue(out.contains("extracted from the jar's " + NativeLibrary.resourcePath()), out);
        assertTrue(out.contains("the bundled library needs glibc 2.17 or newer"), out);
    }

    @Test
    void extractsOncePerUserAndLeavesNothingInTmp(@TempDir Path tmp, @TempDir Path home) throws Exception {
        String[] args = {"-Djava.io.tmpdir=" + tmp, "-Duser.home=" + home};
        Path dir = expectedExtractDir(home);
        Path lib = dir.resolve("libsluice.so");
        assertEquals("loaded " + lib, probe(args));
        Object inode = Files.readAttributes(lib, BasicFileAttributes.class).fileKey();
        FileTime written = Files.getLastModifiedTime(lib);
        assertEquals(List.of(), List.of(tmp.toFile().list()), "the JVM left files in java.io.tmpdir");
        // a second JVM of the same user loads the same file without writing it again
        assertEquals("loaded " + lib, probe(args));
        assertEquals(inode, Files.readAttributes(lib, BasicFileAttributes.class).fileKey());
        assertEquals(written, Files.getLastModifiedTime(lib));
        assertEquals(List.of("libsluice.so", "libsluice.so.lock"), sortedNames(dir));
        assertEquals(0, tmp.toFile().list().length, "the JVM left files in java.io.tmpdir");
    }

    @Test
    void jvmsStartingTogetherWaitForOneExtraction(@TempDir Path home) throws Exception {
        Path dir = expectedExtractDir(home);
        Files.createDirectories(dir);
        List<Process> children = new ArrayList<>();
        // Hold the extraction lock from this JVM: the children must wait for it, not load a partial file.
        try (FileChannel ch = FileChannel.open(dir.resolve("libsluice.so.lock"), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                FileLock held = ch.lock()) {
            for (int i = 0; i < 3; i++) {
                children.add(start(System.getProperty("java.class.path"), "-Duser.home=" + home));
            }
            Thread.sleep(1500);
            for (Process p : children) {
                assertTrue(p.isAlive(), "a child finished while the extraction lock was held");
            }
            assertFalse(Files.exists(dir.resolve("libsluice.so")), "extracted while the lock was held");
        }
        for (Process p : children) {
            assertEquals("loaded " + dir.resolve("libsluice.so"), outcome(p));
        }
        assertEquals(List.of("libsluice.so", "libsluice.so.lock"), sortedNames(dir));
    }

    @Test
    void aStaleLibraryOnTheLibraryPathIsRefusedNamingBothVersions(@TempDir Path dir) throws Exception {
        Path stale = dir.resolve("libsluice.so");
        String other = otherVersion(NativeLibrary.jarVersion());
        Files.write(stale, withVersion(bundledBytes(), "sluice " + NativeLibrary.jarVersion(), "sluice " + other));
        String out = probe("-Djava.library.path=" + dir);
        assertTrue(out.startsWith("SluiceLoadException: refusing libsluice at " + stale + " (found on java.library.path"), out);
        assertTrue(out.contains("it reports sluice " + other + ", this jar is sluice " + NativeLibrary.jarVersion()), out);
        assertTrue(out.contains("platform " + NativeLibrary.platform()), out);
        out = probe("-D" + NativeLibrary.PATH_PROPERTY + "=" + stale);
        assertTrue(out.startsWith("SluiceLoadException: refusing libsluice at " + stale + " (from " + NativeLibrary.PATH_PROPERTY), out);
        assertTrue(out.contains("it reports sluice " + other + ", this jar is sluice " + NativeLibrary.jarVersion()), out);
    }

    @Test
    void aMatchingLibraryOnTheLibraryPathIsUsed(@TempDir Path dir) throws Exception {
        Path lib = dir.resolve("libsluice.so");
        Files.write(lib, bundledBytes());
        assertEquals("loaded " + lib, probe("-Djava.library.path=" + dir));
    }

    /** Where the loader extracts this build's bundled library for a user whose home is {@code home}. */
    private static Path expectedExtractDir(Path home) throws Exception {
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bundledBytes()));
        return home.resolve(".cache/sluice").resolve(NativeLibrary.jarVersion() + "-" + sha.substring(0, 16));
    }

    private static byte[] bundledBytes() throws Exception {
        try (InputStream in = NativeLibrary.class.getClassLoader().getResourceAsStream(NativeLibrary.resourcePath())) {
            assertNotNull(in, "the library is not staged (scripts/java.sh)");
            return in.readAllBytes();
        }
    }

    /** {@code version} with each digit moved on by one: the same length, another version. */
    private static String otherVersion(String version) {
        StringBuilder b = new StringBuilder();
        for (char c : version.toCharArray()) {
            b.append(Character.isDigit(c) ? (char) ('0' + (c - '0' + 1) % 10) : c);
        }
        return b.toString();
    }

    /** A real libsluice whose version string reads {@code to}: every occurrence of {@code from} replaced. */
    private static byte[] withVersion(byte[] lib, String from, String to) {
        byte[] f = from.getBytes(StandardCharsets.US_ASCII);
        byte[] t = to.getBytes(StandardCharsets.US_ASCII);
        byte[] out = lib.clone();
        int replaced = 0;
        for (int i = 0; i + f.length <= out.length; i++) {
            if (Arrays.equals(out, i, i + f.length, f, 0, f.length)) {
                System.arraycopy(t, 0, out, i, t.length);
                replaced++;
            }
        }
        assertTrue(replaced > 0, "no \"" + from + "\" in the library");
        return out;
    }

    private static List<String> sortedNames(Path dir) {
        String[] names = dir.toFile().list();
        Arrays.sort(names);
        return List.of(names);
    }

    /** Runs {@link LoaderProbe} in a fresh JVM (the loader caches per JVM). */
    private static String probe(String... jvmArgs) throws Exception {
        return outcome(start(System.getProperty("java.class.path"), jvmArgs));
    }

    private static String probeWithClassPath(String cp, String... jvmArgs) throws Exception {
        return outcome(start(cp, jvmArgs));
    }

    private static Process start(String cp, String... jvmArgs) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(LoaderProbe.class.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove(NativeLibrary.PATH_ENV);
        pb.environment().remove("XDG_CACHE_HOME");
        return pb.start();
    }

    /** The probe's outcome: its last line of output. */
    private static String outcome(Process p) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(buf);
        }
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the probe JVM did not exit");
        // The JVM may print its own warnings first (e.g. about stack guards
        // when dlopen fails); the probe's outcome is its last line.
        String[] lines = buf.toString(StandardCharsets.UTF_8).trim().split("\n");
        return lines[lines.length - 1];
    }

    /**
     * The class path with the directory holding the staged library replaced by a copy in {@code copy} whose
     * library file is {@code library} (and its libsluice.properties kept), or which has no native
     * folder at all when {@code library} is null.
     */
    private static String classPathWithNative(Path copy, byte[] library) throws Exception {
        String resource = NativeLibrary.resourcePath();
        List<String> keep = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            File f = new File(entry);
            if (f.isDirectory() && new File(f, resource).exists()) {
                try (var walk = Files.walk(f.toPath())) {
                    for (Path src : (Iterable<Path>) walk::iterator) {
                        Path rel = f.toPath().relativize(src);
                        if (rel.toString().startsWith("io/sluice/native") && (library == null || !Files.isDirectory(src))) {
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
                if (library != null) {
                    Files.write(copy.resolve(resource), library);
                    Files.copy(f.toPath().resolve(NativeLibrary.resourceInfoPath()), copy.resolve(NativeLibrary.resourceInfoPath()));
                }
                keep.add(copy.toString());
            } else {
                keep.add(entry);
            }
        }
        return String.join(File.pathSeparator, keep);
    }
}
