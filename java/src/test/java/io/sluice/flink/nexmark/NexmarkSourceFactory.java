package io.sluice.flink.nexmark;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

/**
 * The {@code sluice-nexmark} table source (registered in test resources
 * {@code META-INF/services/org.apache.flink.table.factories.Factory}): a bounded run of
 * {@link NexmarkGenerator} emitting {@link RowData} directly ({@link GenericRowData} of
 * {@link StringData}, {@code Long} and {@link TimestampData}), as Nexmark's own table source does,
 * so no external-{@code Row} conversion or computed-column Calc sits between the source and the
 * query. The DDL ({@link NexmarkTables}) declares the columns in the generator's field order; epoch
 * milliseconds become {@code TIMESTAMP(3)} by {@link TimestampData#fromEpochMillis(long)} (the
 * UTC wall clock, as {@code CAST(TO_TIMESTAMP_LTZ(ts, 3) AS TIMESTAMP(3))} in a UTC session).
 *
 * <p>Options: {@code kind} ({@code person}, {@code auction}, {@code bid}: the events of that kind
 * among event numbers {@code 0 .. events - 1}; {@code side_input}: q13's 10,000 rows
 * {@code (k, "k")}), {@code events}, {@code seed}, {@code rate} (event-time events/s) and
 * {@code run}, a run id under which the first generated row's {@link System#nanoTime()} is kept
 * ({@link #firstEventNanos}) for the benchmark's timing. The source runs at parallelism 1 over
 * the event numbers in order, so event time only grows. The generator still hands its values over
 * as a {@code Row} (its tests read them so); they are moved into the {@code GenericRowData} as
 * they are, strings wrapped and epoch milliseconds made {@code TimestampData}, with no
 * {@code DataStructureConverter}.
 */
public final class NexmarkSourceFactory implements DynamicTableSourceFactory {
    static final String IDENTIFIER = "sluice-nexmark";
    static final ConfigOption<String> KIND = ConfigOptions.key("kind").stringType().noDefaultValue();
    static final ConfigOption<Long> EVENTS = ConfigOptions.key("events").longType().defaultValue(0L);
    static final ConfigOption<Long> SEED = ConfigOptions.key("seed").longType().defaultValue(42L);
    static final ConfigOption<Long> RATE = ConfigOptions.key("rate").longType().defaultValue(10_000_000L);
    static final ConfigOption<String> RUN = ConfigOptions.key("run").stringType().defaultValue("");

    /** Run id to the {@link System#nanoTime()} of the first row any of its sources generated. */
    private static final Map<String, Long> FIRST_EVENT = new ConcurrentHashMap<>();

    /** When run {@code run}'s first row was generated, or 0 if none was (removes the entry). */
    static long firstEventNanos(String run) {
        Long t = FIRST_EVENT.remove(run);
        return t == null ? 0 : t;
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(KIND);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(EVENTS, SEED, RATE, RUN);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig o = helper.getOptions();
        int kind = switch (o.get(KIND)) {
            case "person" -> 0;
            case "auction" -> 1;
            case "bid" -> 2;
            case "side_input" -> 3;
            default -> throw new IllegalArgumentException("sluice-nexmark: unknown kind '" + o.get(KIND)
                    + "' (person, auction, bid, side_input)");
        };
        RowType type = (RowType) context.getPhysicalRowDataType().getLogicalType();
        return new Source(new Spec(kind, o.get(EVENTS), o.get(SEED), o.get(RATE), o.get(RUN)), type);
    }

    /** What one source generates. */
    record Spec(int kind, long events, long seed, long rate, String run) implements java.io.Serializable {}

    private static final class Source implements ScanTableSource {
        private final Spec spec;
        private final RowType type;

        Source(Spec spec, RowType type) {
            this.spec = spec;
            this.type = type;
        }

        @Override
        public ChangelogMode getChangelogMode() {
            return ChangelogMode.insertOnly();
        }

        @Override
        public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
            return new DataStreamScanProvider() {
                @Override
                public DataStream<RowData> produceDataStream(ProviderContext ctx, StreamExecutionEnvironment env) {
                    long last = spec.kind() == 3 ? 9_999 : spec.events() - 1;
                    String[] names = {"person", "auction", "bid", "side_input"};
                    return env.fromSequence(0, last).setParallelism(1).name("nexmark-" + names[spec.kind()] + "-seq")
                            .flatMap(new Events(spec, type)).returns(InternalTypeInfo.of(type)).setParallelism(1)
                            .name("nexmark-" + names[spec.kind()]);
                }

                @Override
                public boolean isBounded() {
                    return true;
                }
            };
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(spec, type);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    /** Keeps the event numbers of one kind and generates their rows as {@link GenericRowData}. */
    private static final class Events implements FlatMapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final Spec spec;
        private final LogicalTypeRoot[] roots;
        private final NexmarkGenerator gen;
        private transient boolean started;

        Events(Spec spec, RowType type) {
            this.spec = spec;
            this.roots = type.getChildren().stream().map(t -> t.getTypeRoot()).toArray(LogicalTypeRoot[]::new);
            this.gen = new NexmarkGenerator(spec.seed(), spec.rate());
        }

        @Override
        public void flatMap(Long boxed, Collector<RowData> out) {
            long n = boxed;
            int kind = spec.kind();
            if (kind != 3 && NexmarkGenerator.kind(n) != kind) {
                return;
            }
            if (!started) {
                started = true;
                FIRST_EVENT.merge(spec.run(), System.nanoTime(), Math::min);
            }
            Row r = kind == 0 ? gen.person(n) : kind == 1 ? gen.auction(n) : kind == 2 ? gen.bid(n)
                    : Row.of(n, Long.toString(n));
            if (r.getArity() != roots.length) {
                throw new IllegalStateException("sluice-nexmark: the table declares " + roots.length
                        + " columns, the generator makes " + r.getArity());
            }
            GenericRowData row = new GenericRowData(roots.length);
            for (int i = 0; i < roots.length; i++) {
                Object v = r.getField(i);
                row.setField(i, switch (roots[i]) {
                    case VARCHAR, CHAR -> StringData.fromString((String) v);
                    case TIMESTAMP_WITHOUT_TIME_ZONE -> TimestampData.fromEpochMillis((Long) v);
                    default -> v;
                });
            }
            out.collect(row);
        }
    }
}
