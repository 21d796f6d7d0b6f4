package io.sluice.flink.keyed;

import java.util.List;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.SluiceOptions;
import io.sluice.jni.KeyedNative;

/** The DataStream entry: keyBy + a native keyed operator over {@code RowData}. */
public final class KeyedStreams {
    private KeyedStreams() {}

    /**
     * The output type of {@code spec} over {@code inputType}, with the given names.
     *
     * @param spec spec without max_parallelism
     * @param inputType input type
     * @param names output names
     * @return the output row type
     */
    public static RowType outputType(String spec, RowType inputType, List<String> names) {
        try (KeyedNative probe = KeyedNative.create(spec, inputType)) {
            return probe.outputType(names);
        }
    }

    /**
     * {@code input.keyBy(key projection).transform(native operator)}.
     *
     * @param input rows of {@code inputType}
     * @param inputType their type
     * @param keys key columns
     * @param spec spec (keys must equal {@code keys})
     * @param outputType output type
     * @param config sluice options (batch size, state budget, dedup state backend)
     * @param name operator name
     * @return the changelog
     */
    public static SingleOutputStreamOperator<RowData> apply(DataStream<RowData> input, RowType inputType, int[] keys,
            String spec, RowType outputType, ReadableConfig config, String name) {
        KeyProjection selector = new KeyProjection(inputType, keys);
        SluiceKeyedOperator op = new SluiceKeyedOperator(spec, inputType, outputType.getFieldCount(),
                config.get(SluiceOptions.BATCH_SIZE), config.get(SluiceOptions.STATE_BUDGET),
                config.get(SluiceOptions.DEDUP_STATE_BACKEND));
        return input.keyBy(selector).transform(name, InternalTypeInfo.of(outputType), op);
    }
}
