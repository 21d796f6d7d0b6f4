package io.sluice.flink.keyed;

import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;

/**
 * Native keyed state as Flink raw keyed state, the layout every native keyed operator
 * ({@link SluiceKeyedOperator}, {@link SluiceJoinOperator}) shares: one entry per key group of the
 * subtask's range, {@code int length, bytes} (length 0: no state). On restore Flink hands each
 * subtask exactly the key-group streams of its (possibly new) range, so a restore at another
 * parallelism moves each key with its key group.
 */
final class RawKeyedState {
    private RawKeyedState() {}

    /**
     * @param info the subtask
     * @return its key-group range ({@code KeyGroupRangeAssignment}, as the keyed state backend computes it)
     */
    static KeyGroupRange range(TaskInfo info) {
        return KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(info.getMaxNumberOfParallelSubtasks(),
                info.getNumberOfParallelSubtasks(), info.getIndexOfThisSubtask());
    }

    /**
     * @param context the restoring operator's context
     * @return every key-group entry Flink hands this subtask (empty entries included)
     * @throws IOException reading the streams
     */
    static byte[][] read(StateInitializationContext context) throws IOException {
        List<byte[]> blobs = new ArrayList<>();
        for (KeyGroupStatePartitionStreamProvider p : context.getRawKeyedStateInputs()) {
            try (DataInputViewStreamWrapper in = new DataInputViewStreamWrapper(p.getStream())) {
                int len;
                try {
                    len = in.readInt();
                } catch (EOFException e) {
                    blobs.add(new byte[0]);
                    continue;
                }
                byte[] b = new byte[len];
                in.readFully(b);
                blobs.add(b);
            }
        }
        return blobs.toArray(new byte[0][]);
    }

    /**
     * @param context the snapshot's context
     * @param firstKeyGroup the key group of {@code blobs[0]}
     * @param blobs one blob per key group of the subtask's range
     * @throws IOException writing the stream
     */
    static void write(StateSnapshotContext context, int firstKeyGroup, byte[][] blobs) throws Exception {
        KeyedStateCheckpointOutputStream out = context.getRawKeyedOperatorStateOutput();
        DataOutputViewStreamWrapper view = new DataOutputViewStreamWrapper(out);
        for (int i = 0; i < blobs.length; i++) {
            out.startNewKeyGroup(firstKeyGroup + i);
            view.writeInt(blobs[i].length);
            view.write(blobs[i]);
        }
        view.flush();
    }
}
