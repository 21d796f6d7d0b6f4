package io.sluice.jni;

/** Loads the library in a fresh JVM and prints the outcome (NativeLibraryTest). */
public final class LoaderProbe {
    private LoaderProbe() {}

    /** @param args unused */
    public static void main(String[] args) {
        try {
            NativeLibrary.load();
            System.out.println("loaded " + NativeLibrary.loadedFrom());
        } catch (SluiceLoadException e) {
            System.out.println("SluiceLoadException: " + e.getMessage());
        }
    }
}
