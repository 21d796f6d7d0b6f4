package io.sluice.jni;

/**
 * An error reported by libsluice: the native message plus the status code of
 * the C ABI ({@code enum sluice_status} in {@code ffi/include/sluice.h}).
 *
 * <p>Every native method throws this instead of returning an error; a Rust
 * panic inside the library is caught at the boundary and thrown as this with
 * {@link #PANIC}.
 */
public class SluiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@code SLUICE_ERR_INVALID_ARGUMENT}. */
    public static final int INVALID_ARGUMENT = 2;
    /** {@code SLUICE_ERR_PANIC}: a bug inside sluice, caught at the boundary. */
    public static final int PANIC = 9;

    private final int status;

    /**
     * Called from native code.
     *
     * @param status the C ABI status code
     * @param message the native message
     */
    public SluiceException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** @return the C ABI status code of this error */
    public int status() {
        return status;
    }
}
