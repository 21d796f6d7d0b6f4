package io.sluice.flink.calc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayDeque;
import java.util.Deque;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
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
 * {@link HandOffRowTypeInfo} hands rows over on a chained hop yet serializes as Flink does; and
 * the planner stage puts the native Calc in place of Flink's, so the plan has no extra hop (the
 * Table / DataStream round trip is gone). Correctness with and without object reuse is
 * {@link SluiceCalcParityTest}'s; this pins the plan shape.
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
    void thePlannerPutsTheOperatorInPlaceOfFlinksCalcWithNoExtraHop() {
        int[] sizes = new int[2];
        for (int installed = 0; installed < 2; installed++) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
            Table input = tEnv.fromDataStream(CalcData.source(env, 10));
            Table out = installed == 1 ? SluiceCalc.select(tEnv, input, "id", "MD5(a)")
                    : tEnv.sqlQuery("SELECT id, MD5(a) FROM " + input);
            Transformation<?> sink = tEnv.toDataStream(out).sinkTo(new DiscardingSink<>()).getTransformation();
            Deque<Transformation<?>> todo = new ArrayDeque<>();
            todo.push(sink);
            boolean sluice = false;
            while (!todo.isEmpty()) {
                Transformation<?> t = todo.pop();
                sizes[installed]++;
                sluice |= t instanceof OneInputTransformation
                        && ((OneInputTransformation<?, ?>) t).getOperatorFactory() instanceof SimpleOperatorFactory
                        && ((SimpleOperatorFactory<?>) ((OneInputTransformation<?, ?>) t).getOperatorFactory())
                                .getOperator() instanceof SluiceCalcOperator;
                t.getInputs().forEach(todo::push);
            }
            assertEquals(installed == 1, sluice, "a SluiceCalcOperator in the job graph");
        }
        assertEquals(sizes[0], sizes[1], "as many transformations as stock Flink's plan");
    }
}
