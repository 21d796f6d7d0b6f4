package io.sluice.flink.calc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.junit.jupiter.api.Test;

import io.sluice.flink.table.SluiceCalc;

/**
 * The Calc's stream edges skip Flink's defensive per-hop copy
 * ({@link HandOffRowTypeInfo}), and a NOT NULL input field no longer puts a
 * ConstraintEnforcer in front of the Calc. Correctness with and without
 * object reuse is {@link SluiceCalcParityTest}'s; this pins the plan shape.
 */
class HandOffTest {
    @Test
    void theSerializerHandsRowsOverButSerializesLikeRowDataSerializer() throws Exception {
        HandOffRowTypeInfo info = new HandOffRowTypeInfo(CalcData.TYPE);
        TypeSerializer<RowData> ser = info.createSerializer(new SerializerConfigImpl());
        BinaryRowData row = new RowDataSerializer(CalcData.TYPE).toBinaryRow(CalcData.row(42));
        assertSame(row, ser.copy(row), "a chained hop hands the row over");
        assertSame(row, ser.copy(row, null));
        assertInstanceOf(RowDataSerializer.class, ser);
        assertInstanceOf(HandOffRowTypeInfo.HandOffSerializer.class, ser.duplicate());
        assertEquals(info.getDataType(), org.apache.flink.table.runtime.typeutils.InternalTypeInfo.of(CalcData.TYPE)
                .getDataType(), "the planner reads the same row type as from InternalTypeInfo");

        // A network edge: the same bytes as Flink's own serializer, and back.
        DataOutputSerializer ours = new DataOutputSerializer(256);
        DataOutputSerializer flinks = new DataOutputSerializer(256);
        ser.serialize(row, ours);
        new RowDataSerializer(CalcData.TYPE).serialize(row, flinks);
        assertArrayEquals(flinks.getCopyOfBuffer(), ours.getCopyOfBuffer());
        RowData back = ser.deserialize(new DataInputDeserializer(ours.getCopyOfBuffer()));
        assertEquals(row, back);
    }

    @Test
    void theCalcsEdgesAreHandOffAndNoConstraintEnforcerPrecedesIt() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        Table input = tEnv.fromDataStream(CalcData.source(env, 10)); // id is BIGINT NOT NULL
        Table out = SluiceCalc.select(tEnv, input, "id", "MD5(a)");
        Transformation<?> sink = tEnv.toDataStream(out).sinkTo(new DiscardingSink<>()).getTransformation();

        Transformation<?> calc = find(sink, "SluiceCalc");
        assertNotNull(calc, "a SluiceCalc transformation");
        assertInstanceOf(HandOffRowTypeInfo.class, calc.getOutputType(), "the edge out of the Calc");
        assertEquals(1, calc.getInputs().size());
        assertInstanceOf(HandOffRowTypeInfo.class, calc.getInputs().get(0).getOutputType(), "the edge into the Calc");
        // Upstream of the Calc: no enforcer (the output's NOT NULL id still gets
        // one after it, from the final toDataStream, as stock Flink's plan has).
        Deque<Transformation<?>> todo = new ArrayDeque<>(calc.getInputs());
        int upstream = 0;
        while (!todo.isEmpty()) {
            Transformation<?> t = todo.pop();
            upstream++;
            assertFalse(t.getName().contains("ConstraintEnforcer"), "upstream of the Calc: " + t.getName());
            t.getInputs().forEach(todo::push);
        }
        assertTrue(upstream >= 2, "walked the Calc's upstream");
        assertNotNull(find(sink, "ConstraintEnforcer"), "the check itself would see an enforcer");
    }

    private static Transformation<?> find(Transformation<?> from, String namePrefix) {
        Deque<Transformation<?>> todo = new ArrayDeque<>();
        todo.push(from);
        while (!todo.isEmpty()) {
            Transformation<?> t = todo.pop();
            if (t.getName().startsWith(namePrefix)) {
                return t;
            }
            t.getInputs().forEach(todo::push);
        }
        return null;
    }
}
