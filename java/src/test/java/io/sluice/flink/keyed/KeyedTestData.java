package io.sluice.flink.keyed;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/** Generated input (k STRING, v BIGINT, s STRING) and changelog helpers for the keyed tests. */
final class KeyedTestData {
    private KeyedTestData() {}

    static final DataType TYPE = DataTypes.ROW(
            DataTypes.FIELD("k", DataTypes.STRING()),
            DataTypes.FIELD("v", DataTypes.BIGINT()),
            DataTypes.FIELD("s", DataTypes.STRING()));

    /** @return {@link #TYPE}'s (k, v, s) plus an event time {@code ts} of type {@code ts} */
    static DataType withTime(DataType ts) {
        return DataTypes.ROW(
                DataTypes.FIELD("k", DataTypes.STRING()),
                DataTypes.FIELD("v", DataTypes.BIGINT()),
                DataTypes.FIELD("s", DataTypes.STRING()),
                DataTypes.FIELD("ts", ts));
    }

    @SuppressWarnings("unchecked")
    static TypeInformation<Row> typeInfo() {
        return (TypeInformation<Row>) (TypeInformation<?>) ExternalTypeInfo.of(TYPE);
    }

    private static final String[] PREFIXES = {
        "k", "ключ", "鍵", "\uD83D\uDE00\uD834\uDD1E", "", "é", "\u0000x", "a b", "\uD800lone"};

    /** Row {@code i} of a deterministic sequence over {@code keys} distinct keys (plus NULL). */
    static Row row(long i, int keys) {
        Random r = new Random(i * 0x9E3779B97F4A7C15L + 12345);
        int kn = r.nextInt(keys + 1);
        String k = kn == keys ? null : PREFIXES[kn % PREFIXES.length] + kn;
        Long v = r.nextInt(8) == 0 ? null : (long) (r.nextInt(2_000_001) - 1_000_000);
        String s = r.nextInt(8) == 0 ? null : PREFIXES[r.nextInt(PREFIXES.length)] + r.nextInt(100_000);
        return Row.of(k, v, s);
    }

    /** {@code rows} rows of {@link #row} over {@code keys} keys at {@code perSecond}, from one source subtask (uid gen). */
    static DataStream<Row> source(StreamExecutionEnvironment env, int keys, long rows, double perSecond) {
        DataGeneratorSource<Row> source = new DataGeneratorSource<>(i -> row(i, keys), rows,
                RateLimiterStrategy.perSecond(perSecond), typeInfo());
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "gen").setParallelism(1).uid("gen");
    }

    static List<Row> rows(int n, int keys) {
        List<Row> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(row(i, keys));
        }
        return out;
    }

    /** Changelog rows as text, grouped by the first field (in arrival order per key). */
    static Map<String, List<String>> byKey(CloseableIterator<Row> it) throws Exception {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (CloseableIterator<Row> rows = it) {
            while (rows.hasNext()) {
                Row r = rows.next();
                out.computeIfAbsent(String.valueOf(r.getField(0)), x -> new ArrayList<>()).add(r.toString());
            }
        }
        return out;
    }

    static int count(Map<String, List<String>> m) {
        return m.values().stream().mapToInt(List::size).sum();
    }

    /** What {@link #runUntilSavepoint} returns: the rows collected before the stop, by key, and the savepoint. */
    record Stopped(Map<String, List<String>> rowsByKey, String savepoint) {}

    /**
     * Runs {@code env}'s job (named {@code name}, its collect sink read through {@code it}) until at least
     * {@code atLeast} rows have arrived, then stops it with a canonical savepoint in {@code dir}.
     */
    static Stopped runUntilSavepoint(StreamExecutionEnvironment env, CloseableIterator<Row> it, String name,
            int atLeast, Path dir) throws Exception {
        JobClient job = env.executeAsync(name);
        List<Row> before = new ArrayList<>();
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            while (it.hasNext()) {
                synchronized (before) {
                    before.add(it.next());
                }
            }
        });
        while (true) {
            synchronized (before) {
                if (before.size() >= atLeast) {
                    break;
                }
            }
            Thread.sleep(20);
        }
        String savepoint = job.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL).get();
        reader.get();
        it.close();
        Map<String, List<String>> got = new LinkedHashMap<>();
        for (Row r : before) {
            got.computeIfAbsent(String.valueOf(r.getField(0)), x -> new ArrayList<>()).add(r.toString());
        }
        return new Stopped(got, savepoint);
    }
}
