package io.sluice.flink.lookup;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

/**
 * The {@code sluice-test-lookup} table (registered in test resources
 * {@code META-INF/services/org.apache.flink.table.factories.Factory}): a dimension table
 * {@code (k STRING, w BIGINT, t STRING)} held in memory by its {@link LookupFunction}, looked up
 * by {@code k} only (no external database). Its rows are a pure function of the options:
 * <ul>
 *   <li>{@code shape = parity}: for {@code kn} in {@code 0 .. keys - 1} the key
 *       {@code PREFIXES[kn % 7] + kn} (the keys of the planner tests' {@code kt}), none for
 *       {@code kn % 5 == 0} (a LEFT join pads), two rows for {@code kn % 7 == 0} (in a fixed
 *       order), {@code w} NULL when {@code kn % 11 == 0}, {@code t} NULL when
 *       {@code kn % 13 == 0}, multi-byte {@code t};</li>
 *   <li>{@code shape = bench}: one row per key {@code key-%05d-ключ} (the bench generators'
 *       keys), {@code w = kn}, {@code t} one of 1,024 strings.</li>
 * </ul>
 * {@code cache = true} wraps the function in Flink's partial lookup cache
 * ({@link PartialCachingLookupProvider} over a {@link DefaultLookupCache}); {@code async = true}
 * offers an {@link AsyncLookupFunction} instead (a lookup sluice leaves to Flink).
 */
public final class TestLookupFactory implements DynamicTableSourceFactory {
    static final String IDENTIFIER = "sluice-test-lookup";
    static final ConfigOption<Integer> KEYS = ConfigOptions.key("keys").intType().defaultValue(150);
    static final ConfigOption<String> SHAPE = ConfigOptions.key("shape").stringType().defaultValue("parity");
    static final ConfigOption<Boolean> CACHE = ConfigOptions.key("cache").booleanType().defaultValue(false);
    static final ConfigOption<Boolean> ASYNC = ConfigOptions.key("async").booleanType().defaultValue(false);

    /** The planner tests' key prefixes (SqlRows.PREFIXES). */
    private static final String[] PREFIXES = {"k", "ключ", "鍵", "😀𝄞", "", "é", "a b"};

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(KEYS, SHAPE, CACHE, ASYNC);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig o = helper.getOptions();
        return new Source(o.get(KEYS), o.get(SHAPE), o.get(CACHE), o.get(ASYNC));
    }

    /** The dimension's rows by key, in their fixed order. */
    static Map<StringData, List<RowData>> rows(int keys, String shape) {
        Map<StringData, List<RowData>> m = new HashMap<>();
        boolean bench = "bench".equals(shape);
        for (int kn = 0; kn < keys; kn++) {
            if (bench) {
                String k = String.format(Locale.ROOT, "key-%05d-ключ", kn);
                m.put(StringData.fromString(k), List.of(GenericRowData.of(StringData.fromString(k), (long) kn,
                        StringData.fromString("dim " + (kn & 1023)))));
                continue;
            }
            if (kn % 5 == 0) {
                continue;
            }
            String k = PREFIXES[kn % PREFIXES.length] + kn;
            List<RowData> rows = new ArrayList<>();
            for (int copy = 0; copy < (kn % 7 == 0 ? 2 : 1); copy++) {
                rows.add(GenericRowData.of(StringData.fromString(k), kn % 11 == 0 ? null : (long) kn * 10 + copy,
                        kn % 13 == 0 ? null : StringData.fromString("t-" + copy + "-ü" + kn)));
            }
            m.put(StringData.fromString(k), List.copyOf(rows));
        }
        return m;
    }

    /** The lookup source: the key must be {@code k} (field 0), alone. */
    private static final class Source implements LookupTableSource {
        private final int keys;
        private final String shape;
        private final boolean cache;
        private final boolean async;

        Source(int keys, String shape, boolean cache, boolean async) {
            this.keys = keys;
            this.shape = shape;
            this.cache = cache;
            this.async = async;
        }

        @Override
        public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
            int[][] k = context.getKeys();
            if (k.length != 1 || k[0].length != 1 || k[0][0] != 0) {
                throw new IllegalArgumentException("sluice-test-lookup is looked up by k alone");
            }
            if (async) {
                return AsyncLookupFunctionProvider.of(new AsyncMapLookup(keys, shape));
            }
            MapLookup fn = new MapLookup(keys, shape);
            return cache ? PartialCachingLookupProvider.of(fn, DefaultLookupCache.newBuilder().maximumSize(64).build())
                    : LookupFunctionProvider.of(fn);
        }

        @Override
        public DynamicTableSource copy() {
            return new Source(keys, shape, cache, async);
        }

        @Override
        public String asSummaryString() {
            return IDENTIFIER;
        }
    }

    /** The dimension's rows, built once per function instance (in {@code open}). */
    static final class Dimension implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        private final int keys;
        private final String shape;
        private transient Map<StringData, List<RowData>> rows;

        Dimension(int keys, String shape) {
            this.keys = keys;
            this.shape = shape;
        }

        void open() {
            rows = rows(keys, shape);
        }

        Collection<RowData> get(RowData keyRow) {
            return rows.getOrDefault(keyRow.getString(0), List.of());
        }
    }

    /** Looks the key up in the in-memory rows. */
    public static final class MapLookup extends LookupFunction {
        private static final long serialVersionUID = 1L;
        private final Dimension dim;

        public MapLookup(int keys, String shape) {
            this.dim = new Dimension(keys, shape);
        }

        @Override
        public void open(FunctionContext context) {
            dim.open();
        }

        @Override
        public Collection<RowData> lookup(RowData keyRow) {
            return dim.get(keyRow);
        }
    }

    /** The same rows, asynchronously (completed at once). */
    public static final class AsyncMapLookup extends AsyncLookupFunction {
        private static final long serialVersionUID = 1L;
        private final Dimension dim;

        public AsyncMapLookup(int keys, String shape) {
            this.dim = new Dimension(keys, shape);
        }

        @Override
        public void open(FunctionContext context) {
            dim.open();
        }

        @Override
        public CompletableFuture<Collection<RowData>> asyncLookup(RowData keyRow) {
            return CompletableFuture.completedFuture(dim.get(keyRow));
        }
    }
}
