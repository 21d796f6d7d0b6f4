package io.sluice.flink;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** Fixtures the Flink tests and benches of every package share. */
public final class TestSupport {
    private TestSupport() {}

    /** @return a MiniCluster of one TaskManager with four slots (jobs up to parallelism 4), to register */
    public static MiniClusterExtension fourSlotCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(4).build());
    }

    /** @return the context environment at parallelism 1, with object reuse on when {@code objectReuse} */
    public static StreamExecutionEnvironment singleEnv(boolean objectReuse) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        if (objectReuse) {
            env.getConfig().enableObjectReuse();
        }
        return env;
    }

    /**
     * @param options configuration pairs (key, value, ...) an installed run sets before the install
     * @return a table environment on {@code env}, with {@code Sluice.install} when {@code installed}
     */
    public static StreamTableEnvironment tableEnv(StreamExecutionEnvironment env, boolean installed, String... options) {
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (installed) {
            for (int i = 0; i < options.length; i += 2) {
                tEnv.getConfig().getConfiguration().setString(options[i], options[i + 1]);
            }
            Sluice.install(tEnv);
        }
        return tEnv;
    }
}
