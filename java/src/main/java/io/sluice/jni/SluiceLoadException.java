package io.sluice.jni;

/**
 * libsluice could not be loaded: missing for this platform, not found at the
 * configured path, or incompatible with this jar. The message names the
 * platform and every path tried.
 */
public final class SluiceLoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SluiceLoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
