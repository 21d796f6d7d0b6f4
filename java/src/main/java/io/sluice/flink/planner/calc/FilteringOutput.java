package io.sluice.flink.planner.calc;

import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.OutputTag;

/**
 * The output of a native Calc with a WHERE: forwards a row only if every filter column (a BOOLEAN
 * the native program computed) is TRUE, as Flink's Calc keeps a row only when its condition is
 * TRUE (NULL and FALSE drop it); everything else passes through. The filter columns stay in the
 * row (the Flink Calc above does not read them). The 2.x tree's subclass also forwards 2.x's
 * generalized watermarks ({@code io.sluice.flink.compat.CalcFilterOutput}).
 */
public abstract class FilteringOutput implements Output<StreamRecord<RowData>> {
    /** Where rows go. */
    protected final Output<StreamRecord<RowData>> out;
    private final int[] filters;

    /**
     * @param out the operator's own output
     * @param filters the filter columns of the output row
     */
    protected FilteringOutput(Output<StreamRecord<RowData>> out, int[] filters) {
        this.out = out;
        this.filters = filters.clone();
    }

    @Override
    public void collect(StreamRecord<RowData> record) {
        RowData row = record.getValue();
        for (int f : filters) {
            if (row.isNullAt(f) || !row.getBoolean(f)) {
                return;
            }
        }
        out.collect(record);
    }

    @Override
    public void close() {
        out.close();
    }

    @Override
    public void emitWatermark(Watermark mark) {
        out.emitWatermark(mark);
    }

    @Override
    public void emitWatermarkStatus(WatermarkStatus status) {
        out.emitWatermarkStatus(status);
    }

    @Override
    public <X> void collect(OutputTag<X> tag, StreamRecord<X> record) {
        out.collect(tag, record);
    }

    @Override
    public void emitLatencyMarker(LatencyMarker marker) {
        out.emitLatencyMarker(marker);
    }

    @Override
    public void emitRecordAttributes(RecordAttributes attributes) {
        out.emitRecordAttributes(attributes);
    }
}
