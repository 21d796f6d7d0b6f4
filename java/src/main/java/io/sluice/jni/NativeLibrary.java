package io.sluice.jni;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads libsluice once per JVM.
 *
 * <p>Order: the system property {@value #PATH_PROPERTY} (or the environment
 * variable {@value #PATH_ENV}) names a library file to load as it is;
 * otherwise the library bundled in this jar under
 * {@code io/sluice/native/<os>-<arch>/} is extracted to a temporary file
 * once and loaded from there. After loading, the library's JNI contract
 * version must equal {@link #ABI_VERSION}.
 *
 * <p>Failures throw {@link SluiceLoadException} naming the platform and the
 * path tried; the failure is remembered, so {@link #isAvailable()} lets an
 * operator fall back to Flink's own implementation instead.
 */
public final class NativeLibrary {
    /** System property naming a libsluice file to load instead of the bundled one. */
    public static final String PATH_PROPERTY = "sluice.library.path";
    /** Environment variable read when {@value #PATH_PROPERTY} is unset. */
    public static final String PATH_ENV = "SLUICE_LIBRARY_PATH";
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

    private static String doLoad() {
        String configured = System.getProperty(PATH_PROPERTY);
        if (configured == null || configured.isEmpty()) {
            configured = System.getenv(PATH_ENV);
        }
        Path file;
        if (configured != null && !configured.isEmpty()) {
            file = Paths.get(configured).toAbsolutePath();
            if (!Files.isRegularFile(file)) {
                throw new SluiceLoadException(
                        "libsluice not found at " + file + " (from " + PATH_PROPERTY + "/" + PATH_ENV
                                + ") on platform " + platform(), null);
            }
        } else {
            file = extractBundled();
        }
        try {
            System.load(file.toString());
        } catch (UnsatisfiedLinkError e) {
            throw new SluiceLoadException(
                    "cannot load libsluice from " + file + " on platform " + platform() + ": " + e.getMessage(), e);
        }
        int abi;
        try {
            abi = SluiceNative.abiVersion();
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
        return file.toString();
    }

    private static Path extractBundled() {
        String resource = resourcePath();
        try (InputStream in = NativeLibrary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new SluiceLoadException(
                        "no libsluice bundled for platform " + platform() + " (resource " + resource
                                + " is not in the jar); set -D" + PATH_PROPERTY + "=/path/to/" + libraryFileName(), null);
            }
            Path dir = Files.createTempDirectory("sluice-native-");
            Path file = dir.resolve(libraryFileName());
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            file.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new SluiceLoadException(
                    "cannot extract libsluice (" + resource + ") for platform " + platform() + ": " + e, e);
        }
    }
}
