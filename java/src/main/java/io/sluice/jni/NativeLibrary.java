package io.sluice.jni;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Properties;

/**
 * Loads libsluice once per JVM.
 *
 * <p>Where the library comes from, first match wins:
 * <ol>
 *   <li>the system property {@value #PATH_PROPERTY} (or the environment variable {@value #PATH_ENV}):
 *       that file, as it is;
 *   <li>a {@code libsluice.so} in a directory of {@code java.library.path} (a system-wide install);
 *   <li>the library bundled in this jar under {@code io/sluice/native/<os>-<arch>/}, extracted once per
 *       library build and user into the cache directory (see {@link #cacheDirectory()}) and reused by every
 *       later JVM of that user. Extraction holds a file lock, so JVMs starting together extract it once
 *       and none of them loads a half-written file; nothing is written to the temporary directory.
 * </ol>
 *
 * <p>After loading, the library's JNI contract version must equal {@link #ABI_VERSION} and its version
 * string must be {@code "sluice <jar version>"}: a stale library left on a library path is refused, naming
 * both versions, rather than bound to Java classes of another release.
 *
 * <p>Failures throw {@link SluiceLoadException} naming the platform, the path tried and the original
 * error (for the bundled library also the glibc it needs); the failure is remembered, so
 * {@link #isAvailable()} lets an operator fall back to Flink's own implementation instead.
 */
public final class NativeLibrary {
    /** System property naming a libsluice file to load instead of the bundled one. */
    public static final String PATH_PROPERTY = "sluice.library.path";
    /** Environment variable read when {@value #PATH_PROPERTY} is unset. */
    public static final String PATH_ENV = "SLUICE_LIBRARY_PATH";
    /** System property naming the directory the bundled library is extracted to. */
    public static final String CACHE_PROPERTY = "sluice.cache.dir";
    /** The JNI contract version this jar was built against ({@code JNI_ABI_VERSION} in ffi/src/jni/library.rs). */
    public static final int ABI_VERSION = 1;

    private static final Object LOCK = new Object();
    private static volatile boolean loaded;
    private static volatile SluiceLoadException failure;
    private static volatile String loadedFrom;

    private NativeLibrary() {}

    /**
     * Loads the library if this JVM has not yet.
     *
     * @throws SluiceLoadException when it cannot be loaded (now or on an earlier attempt)
     */
    public static void load() {
        if (loaded) {
            return;
        }
        synchronized (LOCK) {
            if (loaded) {
                return;
            }
            if (failure != null) {
                throw failure;
            }
            try {
                loadedFrom = doLoad();
                loaded = true;
            } catch (SluiceLoadException e) {
                failure = e;
                throw e;
            }
        }
    }

    /** @return whether the library is (or can now be) loaded; never throws */
    public static boolean isAvailable() {
        try {
            load();
            return true;
        } catch (SluiceLoadException e) {
            return false;
        }
    }

    /** @return why the library is unavailable, or null if it is loaded */
    public static String unavailableReason() {
        return isAvailable() ? null : failure.getMessage();
    }

    /** @return the file the library was loaded from, or null */
    public static String loadedFrom() {
        return loadedFrom;
    }

    /** @return {@code <os>-<arch>}, e.g. {@code linux-x86_64}: the bundled resource folder */
    public static String platform() {
        String os = System.getProperty("os.name", "unknown").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "unknown").toLowerCase(Locale.ROOT);
        String o = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "macos" : os.startsWith("windows") ? "windows" : os.replace(' ', '_');
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : arch;
        return o + "-" + a;
    }

    /** @return the file name of the library on this platform */
    static String libraryFileName() {
        String p = platform();
        return p.startsWith("windows") ? "sluice.dll" : p.startsWith("macos") ? "libsluice.dylib" : "libsluice.so";
    }

    /** @return the resource path of the bundled library on this platform */
    public static String resourcePath() {
        return "io/sluice/native/" + platform() + "/" + libraryFileName();
    }

    /**
     * The resource next to the bundled library that describes it ({@code glibc=2.17}: the oldest glibc
     * it loads on), written by scripts/java.sh from {@code objdump -T}.
     *
     * @return its resource path
     */
    static String resourceInfoPath() {
        return "io/sluice/native/" + platform() + "/libsluice.properties";
    }

    /** @return the version of this jar (the Maven project version), e.g. {@code 0.1.0} */
    public static String jarVersion() {
        return JarInfo.VERSION;
    }

    /** @return the version string a matching library reports, {@code "sluice <jar version>"} */
    public static String expectedLibraryVersion() {
        return "sluice " + jarVersion();
    }

    /**
     * Where the bundled library is extracted: {@value #CACHE_PROPERTY} if set, else
     * {@code $XDG_CACHE_HOME/sluice}, else {@code ~/.cache/sluice}; when none of these can be created
     * (a home-less service account), {@code <java.io.tmpdir>/sluice-<user>}, made private to the user.
     *
     * @return the cache directory (not created)
     */
    public static Path cacheDirectory() {
        String configured = System.getProperty(CACHE_PROPERTY);
        if (configured != null && !configured.isEmpty()) {
            return Paths.get(configured).toAbsolutePath();
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isEmpty() && Paths.get(xdg).isAbsolute()) {
            return Paths.get(xdg, "sluice");
        }
        return Paths.get(System.getProperty("user.home", ""), ".cache", "sluice").toAbsolutePath();
    }

    private static String doLoad() {
        String configured = System.getProperty(PATH_PROPERTY);
        if (configured == null || configured.isEmpty()) {
            configured = System.getenv(PATH_ENV);
        }
        if (configured != null && !configured.isEmpty()) {
            Path file = Paths.get(configured).toAbsolutePath();
            if (!Files.isRegularFile(file)) {
                throw new SluiceLoadException(
                        "libsluice not found at " + file + " (from " + PATH_PROPERTY + "/" + PATH_ENV
                                + ") on platform " + platform(), null);
            }
            return loadAndCheck(file, "from " + PATH_PROPERTY, "");
        }
        Path onLibraryPath = findOnLibraryPath();
        if (onLibraryPath != null) {
            return loadAndCheck(onLibraryPath, "found on java.library.path", "");
        }
        Bundled bundled = Bundled.read();
        Path file = extract(bundled);
        String needs = bundled.glibc == null ? "" : "; the bundled library needs glibc " + bundled.glibc + " or newer";
        return loadAndCheck(file, "extracted from the jar's " + resourcePath(), needs);
    }

    /** @return the first {@code libsluice.so} in a directory of {@code java.library.path}, or null */
    private static Path findOnLibraryPath() {
        String path = System.getProperty("java.library.path", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Paths.get(dir, libraryFileName()).toAbsolutePath();
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** Loads {@code file} and refuses it unless its contract and version are this jar's. */
    private static String loadAndCheck(Path file, String origin, String loadHint) {
        try {
            System.load(file.toString());
        } catch (UnsatisfiedLinkError e) {
            throw new SluiceLoadException("cannot load libsluice from " + file + " (" + origin + ") on platform "
                    + platform() + ": " + e.getMessage() + loadHint, e);
        }
        int abi;
        String version;
        try {
            abi = SluiceNative.abiVersion();
            version = SluiceNative.version();
        } catch (UnsatisfiedLinkError e) {
            throw new SluiceLoadException(
                    "the library at " + file + " (platform " + platform()
                            + ") has no sluice JNI entry points: it was built without the `jni` feature or is not libsluice", e);
        }
        if (abi != ABI_VERSION) {
            throw new SluiceLoadException(
                    "incompatible libsluice at " + file + " (platform " + platform() + "): JNI contract version "
                            + abi + ", this jar needs " + ABI_VERSION, null);
        }
        if (!expectedLibraryVersion().equals(version)) {
            throw new SluiceLoadException("refusing libsluice at " + file + " (" + origin + ", platform " + platform()
                    + "): it reports " + version + ", this jar is " + expectedLibraryVersion()
                    + "; remove the stale library or point -D" + PATH_PROPERTY + " at a matching one", null);
        }
        return file.toString();
    }

    /**
     * Extracts the bundled library into {@code <cache>/<version>-<sha256 prefix>/} unless an earlier JVM
     * did. The file is written under an exclusive lock on a lock file beside it, to a temporary name in
     * the same directory, and renamed into place, so a reader sees either no file or the whole file.
     */
    private static Path extract(Bundled bundled) {
        Path dir = cacheDirectory().resolve(jarVersion() + "-" + bundled.sha256.substring(0, 16));
        Path file = dir.resolve(libraryFileName());
        try {
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                dir = privateTempDirectory().resolve(dir.getFileName());
                file = dir.resolve(libraryFileName());
                Files.createDirectories(dir);
            }
            if (isComplete(file, bundled)) {
                return file;
            }
            try (FileChannel lockChannel = FileChannel.open(dir.resolve(libraryFileName() + ".lock"),
                            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = lockAcrossLoaders(lockChannel)) {
                if (!isComplete(file, bundled)) {
                    Path part = Files.createTempFile(dir, libraryFileName() + ".", ".part");
                    try {
                        Files.write(part, bundled.bytes);
                        moveIntoPlace(part, file);
                    } finally {
                        Files.deleteIfExists(part);
                    }
                }
            }
            return file;
        } catch (IOException | UncheckedIOException e) {
            throw new SluiceLoadException("cannot extract libsluice (" + resourcePath() + ") to " + file
                    + " for platform " + platform() + ": " + e + "; set -D" + CACHE_PROPERTY
                    + " to a writable directory", e);
        }
    }

    /**
     * Takes the file lock. Another class loader of this JVM (a Flink job's user-code loader) may hold it:
     * the JVM then throws {@link OverlappingFileLockException} instead of waiting, so wait here.
     */
    private static FileLock lockAcrossLoaders(FileChannel channel) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return channel.lock();
            } catch (OverlappingFileLockException e) {
                if (attempt >= 6000) {
                    throw new IOException("the extraction lock stayed held by this JVM for 60 s", e);
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for the extraction lock", ie);
                }
            }
        }
    }

    private static boolean isComplete(Path file, Bundled bundled) throws IOException {
        return Files.isRegularFile(file) && Files.size(file) == bundled.bytes.length;
    }

    private static void moveIntoPlace(Path part, Path file) throws IOException {
        try {
            Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(part, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** {@code <java.io.tmpdir>/sluice-<user>}, created readable and writable by the user alone. */
    private static Path privateTempDirectory() throws IOException {
        String user = System.getProperty("user.name", "unknown").replaceAll("[^A-Za-z0-9._-]", "_");
        Path dir = Paths.get(System.getProperty("java.io.tmpdir"), "sluice-" + user);
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            // another JVM of this user made it; refuse one someone else owns (it could hold a swapped library)
            if (!Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
                throw new IOException(dir + " belongs to " + Files.getOwner(dir).getName(), e);
            }
        } catch (UnsupportedOperationException e) {
            Files.createDirectories(dir);
        }
        return dir;
    }

    /** The bundled library's bytes, their SHA-256 and its recorded glibc requirement. */
    private static final class Bundled {
        final byte[] bytes;
        final String sha256;
        final String glibc;

        private Bundled(byte[] bytes, String sha256, String glibc) {
            this.bytes = bytes;
            this.sha256 = sha256;
            this.glibc = glibc;
        }

        static Bundled read() {
            String resource = resourcePath();
            ClassLoader cl = NativeLibrary.class.getClassLoader();
            byte[] bytes;
            try (InputStream in = cl.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new SluiceLoadException(
                            "no libsluice bundled for platform " + platform() + " (resource " + resource
                                    + " is not in the jar); set -D" + PATH_PROPERTY + "=/path/to/" + libraryFileName(), null);
                }
                bytes = in.readAllBytes();
            } catch (IOException e) {
                throw new SluiceLoadException(
                        "cannot read libsluice (" + resource + ") for platform " + platform() + ": " + e, e);
            }
            String glibc = null;
            try (InputStream in = cl.getResourceAsStream(resourceInfoPath())) {
                if (in != null) {
                    Properties p = new Properties();
                    p.load(in);
                    glibc = p.getProperty("glibc");
                }
            } catch (IOException e) {
                // the description only improves an error message
            }
            return new Bundled(bytes, sha256(bytes), glibc);
        }

        private static String sha256(byte[] bytes) {
            try {
                return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JVM has SHA-256", e);
            }
        }
    }

    /** This jar's own version, from the Maven-filtered {@code io/sluice/jni/sluice-jar.properties}. */
    private static final class JarInfo {
        static final String VERSION = read();

        private static String read() {
            try (InputStream in = NativeLibrary.class.getResourceAsStream("sluice-jar.properties")) {
                if (in == null) {
                    return "unknown";
                }
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "unknown");
            } catch (IOException e) {
                return "unknown";
            }
        }
    }
}
