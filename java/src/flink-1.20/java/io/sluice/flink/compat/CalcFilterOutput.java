package io.sluice.flink.compat;

import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;

import io.sluice.flink.planner.calc.FilteringOutput;

/** The native WHERE's output (flink-1.20: the Output interface has nothing more to forward). */
public final class CalcFilterOutput extends FilteringOutput {
    /**
     * @param out the operator's output
     * @param filters the BOOLEAN filter columns
     */
    public CalcFilterOutput(Output<StreamRecord<RowData>> out, int[] filters) {
        super(out, filters);
    }
}
