package io.sluice.flink.planner;

import java.util.function.BiConsumer;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.sluice.flink.planner.ParityHarness.Query;

/**
 * A planner parity test: every query of the subclass's static {@code queries()} runs stock and
 * with sluice installed over the subclass's {@link #tables()}, and {@link ParityHarness#check}
 * compares them (and the native nodes, and a stock node's reason).
 */
abstract class ParityTest {
    /** @return registers the tables the queries read in a fresh environment */
    abstract BiConsumer<StreamExecutionEnvironment, StreamTableEnvironment> tables();

    @ParameterizedTest(name = "{0}")
    @MethodSource("queries")
    void stockAndInstalledAgree(Query q) throws Exception {
        ParityHarness.check(q, tables());
    }
}
