package io.sluice.jni;

/** Library identity and the boundary self-test (ffi/src/jni/library.rs). */
public final class SluiceNative {
    private SluiceNative() {}

    /** @return {@code "sluice <version>"} */
    public static String libraryVersion() {
        NativeLibrary.load();
        return version();
    }

    static native String version();

    static native int abiVersion();

    /**
     * The native objects behind {@link NativeHandle}s that are alive in this process: created and
     * not yet freed (by {@link NativeHandle#close()} or its cleaner). Tests use it to prove that a
     * job, a failure or a cancellation releases every handle it created.
     *
     * @return the count of live native handles
     */
    public static long liveHandles() {
        NativeLibrary.load();
        return liveHandles0();
    }

    private static native long liveHandles0();

    /**
     * Exercises the boundary: 0 returns, 1 throws {@link SluiceException}
     * with {@link SluiceException#INVALID_ARGUMENT}, 2 panics natively and
     * throws with {@link SluiceException#PANIC}.
     *
     * @param mode 0, 1 or 2
     */
    public static void selfTest(int mode) {
        NativeLibrary.load();
        selfTest0(mode);
    }

    private static native void selfTest0(int mode);
}
