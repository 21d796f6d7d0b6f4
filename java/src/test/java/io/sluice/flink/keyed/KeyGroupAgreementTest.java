package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.jni.KeyedNative;
import io.sluice.jni.RowBatch;

/**
 * The native operator files each key under the key group Flink's keyBy on
 * {@link KeyProjection} routes it to ({@code KeyGroupRangeAssignment} over
 * the key's {@code BinaryRowData.hashCode()}).
 */
class KeyGroupAgreementTest {
    static final RowType TYPE = RowType.of(
            new LogicalType[] {
                new VarCharType(VarCharType.MAX_LENGTH), new IntType(), new BigIntType(), new DoubleType(),
                new DecimalType(10, 2), new DecimalType(20, 3), new TimestampType(3), new TimestampType(6)},
            new String[] {"s", "i", "l", "d", "dec", "bigdec", "ts3", "ts6"});

    static GenericRowData randomRow(Random r, int i) {
        String[] prefixes = {"k", "ключ", "鍵", "\uD83D\uDE00", "", "a\u00e9"};
        GenericRowData row = new GenericRowData(8);
        row.setField(0, r.nextInt(10) == 0 ? null : StringData.fromString(prefixes[r.nextInt(prefixes.length)] + r.nextInt(1000)));
        row.setField(1, r.nextInt(10) == 0 ? null : r.nextInt());
        row.setField(2, r.nextInt(10) == 0 ? null : r.nextLong());
        row.setField(3, r.nextInt(10) == 0 ? null : r.nextDouble() * 1e6);
        row.setField(4, r.nextInt(10) == 0 ? null : DecimalData.fromBigDecimal(BigDecimal.valueOf(r.nextInt(), 2), 10, 2));
        row.setField(5, r.nextInt(10) == 0 ? null : DecimalData.fromBigDecimal(BigDecimal.valueOf(r.nextLong(), 3), 20, 3));
        row.setField(6, r.nextInt(10) == 0 ? null : TimestampData.fromEpochMillis(r.nextInt()));
        row.setField(7, r.nextInt(10) == 0 ? null
                : TimestampData.fromLocalDateTime(LocalDateTime.of(2020, 1, 1, 0, 0).plusNanos(r.nextInt() * 1000L)));
        return row;
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "1", "2", "3", "4", "5", "6", "7", "0,1", "0,2,3", "5,7", "4,6,0"})
    void nativeKeyGroupsAreFlinks(String keyList) {
        String[] parts = keyList.split(",");
        int[] keys = new int[parts.length];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = Integer.parseInt(parts[i]);
        }
        for (int maxParallelism : new int[] {128, 1000, 32768}) {
            KeyProjection projection = new KeyProjection(TYPE, keys);
            RowDataSerializer ser = new RowDataSerializer(TYPE);
            Random r = new Random(42 + maxParallelism);
            int n = 3000;
            RowBatch batch = new RowBatch(n);
            int[] expected = new int[n];
            for (int i = 0; i < n; i++) {
                GenericRowData g = randomRow(r, i);
                BinaryRowData row = ser.toBinaryRow(g).copy();
                assertTrue(batch.add(row));
                expected[i] = KeyGroupRangeAssignment.assignToKeyGroup(projection.getKey(row), maxParallelism);
            }
            String spec = KeyedSpecs.dedup(keys, false) + " max_parallelism=" + maxParallelism;
            try (KeyedNative op = KeyedNative.create(spec, TYPE)) {
                assertArrayEquals(expected, op.keyGroups(batch), "keys " + keyList + ", max parallelism " + maxParallelism);
                // and the state really lands there: a snapshot of all key groups has a blob exactly where keys are
                op.process(batch);
                byte[][] blobs = op.snapshotKeyGroups(0, maxParallelism - 1);
                Set<Integer> withState = new HashSet<>();
                for (int kg = 0; kg < blobs.length; kg++) {
                    if (blobs[kg].length > 0) {
                        withState.add(kg);
                    }
                }
                Set<Integer> want = new HashSet<>();
                for (int e : expected) {
                    want.add(e);
                }
                assertTrue(want.equals(withState), "key groups with state differ from Flink's");
            }
        }
    }

    @org.junit.jupiter.api.Test
    void restoreTakesOnlyItsRange() {
        int[] keys = {0};
        RowDataSerializer ser = new RowDataSerializer(TYPE);
        Random r = new Random(7);
        RowBatch batch = new RowBatch(2000);
        for (int i = 0; i < 2000; i++) {
            assertTrue(batch.add(ser.toBinaryRow(randomRow(r, i)).copy()));
        }
        String spec = KeyedSpecs.groupAgg(TYPE, keys, List.of("COUNT(*)")) + " max_parallelism=128";
        try (KeyedNative a = KeyedNative.create(spec, TYPE); KeyedNative b = KeyedNative.create(spec, TYPE)) {
            a.process(batch);
            byte[][] all = a.snapshotKeyGroups(0, 127);
            b.restore(0, 42, all);
            byte[][] back = b.snapshotKeyGroups(0, 127);
            for (int kg = 0; kg < 128; kg++) {
                if (kg <= 42) {
                    assertArrayEquals(all[kg], back[kg], "key group " + kg);
                } else {
                    assertArrayEquals(new byte[0], back[kg], "key group " + kg + " lies outside the restored range");
                }
            }
        }
    }
}
