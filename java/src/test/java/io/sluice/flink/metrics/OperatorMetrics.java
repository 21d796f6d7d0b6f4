package io.sluice.flink.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;

/**
 * Reads operator metrics of finished MiniCluster jobs through Flink's own
 * {@link InMemoryReporter} (flink-runtime test-jar; it keeps the metrics of
 * finished jobs when created with retained metrics).
 */
public final class OperatorMetrics {
    private OperatorMetrics() {}

    /** A job's collected output and the counters of its operators. */
    public static final class Run<T> {
        /** Every output record, in arrival order. */
        public final List<T> output;
        /** The job. */
        public final JobID jobId;

        Run(List<T> output, JobID jobId) {
            this.output = output;
            this.jobId = jobId;
        }
    }

    /**
     * @param reporter the reporter
     * @return a one-TaskManager, 4-slot MiniCluster reporting to {@code reporter}
     */
    public static MiniClusterExtension cluster(InMemoryReporter reporter) {
        Configuration conf = reporter.addToConfiguration(new Configuration());
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setConfiguration(conf).setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());
    }

    /**
     * Runs the job that ends in {@code out} to completion, collecting {@code out}.
     *
     * @param env the environment
     * @param out the stream to collect
     * @return output and job id
     */
    public static <T> Run<T> run(StreamExecutionEnvironment env, DataStream<T> out) throws Exception {
        CloseableIterator<T> it = out.collectAsync();
        JobClient client = env.executeAsync();
        List<T> rows = new ArrayList<>();
        try (CloseableIterator<T> i = it) {
            i.forEachRemaining(rows::add);
        }
        client.getJobExecutionResult().get();
        return new Run<>(rows, client.getJobID());
    }

    /**
     * @param reporter the reporter
     * @param jobId the finished job
     * @param operatorName the operator's name (one subtask)
     * @return its counters by name
     */
    public static Map<String, Long> counters(InMemoryReporter reporter, JobID jobId, String operatorName) {
        List<OperatorMetricGroup> groups = reporter.findOperatorMetricGroups(jobId, operatorName);
        assertEquals(1, groups.size(), "operator metric groups named " + operatorName + ": " + groups);
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, Metric> e : reporter.getMetricsByGroup(groups.get(0)).entrySet()) {
            if (e.getValue() instanceof Counter) {
                out.put(e.getKey(), ((Counter) e.getValue()).getCount());
            }
        }
        return out;
    }
}
