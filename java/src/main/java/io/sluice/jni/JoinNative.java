package io.sluice.jni;

import java.util.List;

import org.apache.flink.table.types.logical.RowType;

/**
 * One native updating (regular) join (ffi/src/jni/join_native.rs over
 * engine/src/keyed/join.rs): rows of either input in, changelog rows out,
 * both inputs' state snapshotted and restored per Flink key group.
 *
 * <p>The spec grammar is documented in engine/src/keyed/join.rs, e.g.
 * {@code join type=left left_keys=1 right_keys=0 right_unique=0}. Key groups
 * are Flink's for the {@code BinaryRowData} projection of each input's join
 * key columns (see {@link io.sluice.flink.keyed.KeyProjection}).
 *
 * <p>Not thread-safe: one instance per operator subtask.
 */
public final class JoinNative extends KeyedStateHandle {
    private static final StateCalls STATE =
            new StateCalls(JoinNative::snapshotKeyGroups, JoinNative::restore, JoinNative::retainedBytes);

    private JoinNative(long address) {
        super(address, JoinNative::free, STATE);
    }

    /**
     * @param spec the join spec
     * @param leftType the left input rows' type
     * @param rightType the right input rows' type
     * @return the join
     * @throws SluiceException for a bad spec or an unsupported type
     */
    public static JoinNative create(String spec, RowType leftType, RowType rightType) {
        NativeLibrary.load();
        return new JoinNative(create(spec, RowTypes.names(leftType), RowTypes.types(leftType),
                RowTypes.names(rightType), RowTypes.types(rightType)));
    }

    /**
     * @param names the output field names (one per output field)
     * @return the type of the emitted rows (left fields then right fields)
     */
    public RowType outputType(List<String> names) {
        return RowTypes.parse(outputTypes(address()), names);
    }

    /**
     * Pushes a batch of one input (RowKinds from the row headers).
     *
     * @param left whether the rows are the left input's ({@code processElement1})
     * @param batch the rows
     * @return the emitted changelog rows
     */
    public RowBlock process(boolean left, RowBatch batch) {
        return process(address(), left, batch.segments(), batch.numSegments(), batch.rowSegment(),
                batch.rowOffset(), batch.rowSize(), batch.numRows());
    }

    /**
     * @param left whether the rows are the left input's
     * @param batch rows
     * @return the native key group of each row's join key (state unchanged)
     */
    public int[] keyGroups(boolean left, RowBatch batch) {
        return keyGroups(address(), left, batch.segments(), batch.numSegments(), batch.rowSegment(),
                batch.rowOffset(), batch.rowSize(), batch.numRows());
    }

    private static native long create(String spec, String[] leftNames, String[] leftTypes, String[] rightNames,
            String[] rightTypes);

    private static native String[] outputTypes(long handle);

    private static native RowBlock process(long handle, boolean left, Object[] segments, int numSegments,
            int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows);

    private static native int[] keyGroups(long handle, boolean left, Object[] segments, int numSegments,
            int[] rowSegment, int[] rowOffset, int[] rowSize, int numRows);

    private static native byte[][] snapshotKeyGroups(long handle, int first, int last);

    private static native void restore(long handle, int first, int last, byte[][] blobs);

    private static native long retainedBytes(long handle);

    private static native void free(long handle);
}
