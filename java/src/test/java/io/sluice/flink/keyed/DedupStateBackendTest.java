package io.sluice.flink.keyed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.sluice.flink.SluiceOptions.DedupStateBackend;

/**
 * {@code sluice.dedup.state-backend}: which stock keep-last dedup the native
 * one reproduces for a row equal to the kept one, forced or detected from the
 * operator's keyed state backend.
 */
class DedupStateBackendTest {
    static final RowType TYPE = RowType.of(new LogicalType[] {new BigIntType(), VarCharType.STRING_TYPE},
            new String[] {"k", "v"});
    static final int[] KEY = {0};

    /** A keyed state backend that answers only {@code isSafeToReuseKVState}. */
    static KeyedStateBackend<?> backend(boolean serialising) {
        return (KeyedStateBackend<?>) Proxy.newProxyInstance(KeyedStateBackend.class.getClassLoader(),
                new Class<?>[] {KeyedStateBackend.class}, (proxy, method, args) -> {
                    if (method.getName().equals("isSafeToReuseKVState")) {
                        return serialising;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void detectionAsksWhetherTheBackendSerialises() {
        assertEquals(" backend=rocksdb", StockSemantics.dedupOption(DedupStateBackend.AUTO, backend(true)));
        assertEquals(" backend=hashmap", StockSemantics.dedupOption(DedupStateBackend.AUTO, backend(false)));
    }

    @Test
    void aForcedBackendIgnoresTheJobs() {
        assertEquals(" backend=hashmap", StockSemantics.dedupOption(DedupStateBackend.HASHMAP, backend(true)));
        assertEquals(" backend=rocksdb", StockSemantics.dedupOption(DedupStateBackend.ROCKSDB, backend(false)));
    }

    @Test
    void theHarnessHeapBackendIsDetectedAsHashmap() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h = harness(DedupStateBackend.AUTO)) {
            KeyedStateBackend<?> heap = h.getOperator().getKeyedStateBackend();
            assertEquals(" backend=hashmap", StockSemantics.dedupOption(DedupStateBackend.AUTO, heap));
        }
    }

    /**
     * Keep-last dedup of {@code a, b, b} on one key. Stock Flink on the heap
     * backend re-marks the stored {@code b} as {@code +U} when it emits it, so
     * the second {@code b} (an {@code +I}) is not equal to it and is emitted
     * again; a serialising backend stores {@code b} as {@code +I} and drops
     * the second one (java/README.md, "Keyed operators").
     */
    @ParameterizedTest
    @EnumSource(value = DedupStateBackend.class, names = {"HASHMAP", "ROCKSDB"})
    void theOptionSelectsTheStockBehaviour(DedupStateBackend backend) throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h = harness(backend)) {
            h.processElement(new StreamRecord<>(row(RowKind.INSERT, "a")));
            h.processElement(new StreamRecord<>(row(RowKind.INSERT, "b")));
            h.processElement(new StreamRecord<>(row(RowKind.INSERT, "b")));
            h.endInput();
            List<String> out = new ArrayList<>();
            for (Object o : h.getOutput()) {
                if (o instanceof StreamRecord) {
                    RowData r = (RowData) ((StreamRecord<?>) o).getValue();
                    out.add(r.getRowKind().shortString() + r.getString(1));
                }
            }
            List<String> expected = new ArrayList<>(List.of("+Ia", "-Ua", "+Ub"));
            if (backend == DedupStateBackend.HASHMAP) {
                expected.addAll(List.of("-Ub", "+Ub"));
            }
            assertEquals(expected, out);
        }
    }

    static GenericRowData row(RowKind kind, String v) {
        GenericRowData r = GenericRowData.of(1L, StringData.fromString(v));
        r.setRowKind(kind);
        return r;
    }

    static KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> harness(DedupStateBackend backend)
            throws Exception {
        KeyProjection key = new KeyProjection(TYPE, KEY);
        SluiceKeyedOperator op = new SluiceKeyedOperator(KeyedSpecs.dedup(KEY, true), TYPE, TYPE.getFieldCount(),
                16, 0, backend);
        KeyedOneInputStreamOperatorTestHarness<RowData, RowData, RowData> h =
                new KeyedOneInputStreamOperatorTestHarness<>(op, key, key.getProducedType());
        h.open();
        return h;
    }
}
