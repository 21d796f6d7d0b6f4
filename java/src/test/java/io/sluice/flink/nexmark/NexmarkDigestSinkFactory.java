package io.sluice.flink.nexmark;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.compat.CalcCompat;

/**
 * The {@code sluice-nexmark-digest} table sink: Nexmark's blackhole sink that still checks
 * parity. Each subtask folds its rows into a {@link NexmarkDigest} (the text of each field by its
 * logical type, so a stock and an installed plan hash alike) and, when its input ends, adds it to
 * the digest of its run (option {@code run}) in a static registry: the MiniCluster runs in this
 * JVM, so {@link #take(String)} hands the merged digest back after the job. It accepts every
 * change ({@link ChangelogMode#all()}), so updates reach it as -U/+U pairs and the digest is of
 * the materialized result, as with the collected changelog.
 *
 * <p>Built from an operator plus a {@link DiscardingSink}, not a Sink V2 writer, because
 * {@code Sink#createWriter}'s context type differs between Flink 1.20 and 2.x.
 */
public final class NexmarkDigestSinkFactory implements DynamicTableSinkFactory {
    public static final String IDENTIFIER = "sluice-nexmark-digest";
    public static final ConfigOption<String> RUN = ConfigOptions.key("run").stringType().noDefaultValue();

    private static final Map<String, NexmarkDigest> DIGESTS = new ConcurrentHashMap<>();

    /** The merged digest of run {@code run}'s subtasks (removed from the registry), empty if none finished. */
    public static NexmarkRun.Digest take(String run) {
        NexmarkDigest d = DIGESTS.remove(run);
        return d == null ? new NexmarkDigest().digest() : d.digest();
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(RUN);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        return new Sink(helper.getOptions().get(RUN), (RowType) context.getPhysicalRowDataType().getLogicalType());
    }

    private static final class Sink implements DynamicTableSink {
        private final String run;
        private final RowType type;

        Sink(String run, RowType type) {
            this.run = run;
            this.type = type;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return ChangelogMode.all();
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return new DataStreamSinkProvider() {
                @Override
                public DataStreamSink<?> consumeDataStream(ProviderContext ctx, DataStream<RowData> in) {
                    return in.transform("nexmark-digest", Types.VOID, new DigestOperator(run, type))
                            .setParallelism(in.getParallelism()).sinkTo(new DiscardingSink<>())
                            .setParallelism(in.getParallelism()).name("nexmark-digest-end");
                }
            };
        }

        @Override
        public DynamicTableSink copy() {
            return new Sink(run, type);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    /** Folds its input into a digest, emits nothing, and publishes the digest at end of input; chained to its input. */
    private static final class DigestOperator extends AbstractStreamOperator<Void>
            implements OneInputStreamOperator<RowData, Void> {
        private static final long serialVersionUID = 1L;
        private final String run;
        private final RowType type;
        private transient NexmarkDigest.Field[] fields;
        private transient NexmarkDigest digest;

        DigestOperator(String run, RowType type) {
            this.run = run;
            this.type = type;
            CalcCompat.chainAlways(this);
        }

        @Override
        public void open() throws Exception {
            super.open();
            fields = NexmarkDigest.fields(type);
            digest = new NexmarkDigest();
        }

        @Override
        public void processElement(StreamRecord<RowData> element) {
            RowData r = element.getValue();
            digest.add(r.getRowKind(), NexmarkDigest.rowText(r, fields));
        }

        @Override
        public void finish() throws Exception {
            DIGESTS.compute(run, (k, d) -> {
                NexmarkDigest out = d == null ? new NexmarkDigest() : d;
                out.merge(digest);
                return out;
            });
            super.finish();
        }
    }
}
