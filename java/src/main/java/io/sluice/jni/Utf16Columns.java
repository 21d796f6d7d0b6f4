package io.sluice.jni;

import java.util.Arrays;

/**
 * CHAR / VARCHAR columns of a batch handed to native code as UTF-16, for rows
 * whose strings are still {@code java.lang.String}s (a lazy
 * {@code BinaryStringData}): per column one reusable {@code char[]} of all
 * values' code units back to back (each value copied once, with
 * {@link String#getChars}), {@code numRows + 1} offsets and NULL flags. Native
 * code pins the {@code char[]}s and encodes each value once, into the Arrow
 * values buffer, through the column's repeated-value cache
 * (ffi/src/jni/calc_lazy.rs). Values are appended row by row: call
 * {@link #add} or {@link #addNull} once per column, then {@link #endRow()}.
 */
public final class Utf16Columns {
    private final int[] fields;
    private final Object[] units;
    private final Object[] offsets;
    private final Object[] nulls;
    private final int[] used;
    private int numRows;

    /**
     * @param fields the input field index of each column
     * @param capacity expected rows per batch
     */
    public Utf16Columns(int[] fields, int capacity) {
        int c = Math.max(1, capacity);
        this.fields = fields.clone();
        int k = fields.length;
        units = new Object[k];
        offsets = new Object[k];
        nulls = new Object[k];
        used = new int[k];
        for (int i = 0; i < k; i++) {
            units[i] = new char[c * 16];
            offsets[i] = new int[c + 1];
            nulls[i] = new boolean[c];
        }
    }

    /**
     * Appends {@code s} to column {@code col} of the current row.
     *
     * @param col column (index into the constructor's {@code fields})
     * @param s the value
     */
    public void add(int col, String s) {
        char[] u = (char[]) units[col];
        int len = s.length();
        int at = used[col];
        if (at + len > u.length) {
            u = Arrays.copyOf(u, Math.max(u.length * 2, at + len));
            units[col] = u;
        }
        s.getChars(0, len, u, at);
        used[col] = at + len;
    }

    /**
     * Marks column {@code col} of the current row NULL.
     *
     * @param col column
     */
    public void addNull(int col) {
        ((boolean[]) nulls[col])[numRows] = true;
    }

    /** Ends the current row (every column's value was added). */
    public void endRow() {
        int r = numRows + 1;
        if (fields.length > 0 && r + 2 > ((int[]) offsets[0]).length) {
            // room for the next row's offset and NULL flag
            for (int i = 0; i < fields.length; i++) {
                offsets[i] = Arrays.copyOf((int[]) offsets[i], r * 2 + 2);
                nulls[i] = Arrays.copyOf((boolean[]) nulls[i], r * 2 + 1);
            }
        }
        for (int i = 0; i < fields.length; i++) {
            ((int[]) offsets[i])[r] = used[i];
        }
        numRows = r;
    }

    /** Forgets every row (keeps the arrays). */
    public void clear() {
        for (int i = 0; i < fields.length; i++) {
            Arrays.fill((boolean[]) nulls[i], 0, numRows, false);
            used[i] = 0;
        }
        numRows = 0;
    }

    /** @return rows ended so far */
    public int numRows() {
        return numRows;
    }

    /** @return the number of columns */
    public int numColumns() {
        return fields.length;
    }

    /** @return the input field index of each column */
    public int[] fields() {
        return fields;
    }

    /** @return per column its {@code char[]} of code units */
    public Object[] units() {
        return units;
    }

    /** @return per column its {@code int[]} offsets ({@code numRows + 1} used) */
    public Object[] offsets() {
        return offsets;
    }

    /** @return per column its {@code boolean[]} NULL flags ({@code true} = NULL) */
    public Object[] nulls() {
        return nulls;
    }
}
