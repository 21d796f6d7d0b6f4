package io.sluice.flink;

import java.util.List;

import org.apache.flink.table.api.TableEnvironment;

import io.sluice.flink.planner.SluiceStage;

/**
 * Unchanged Flink SQL on sluice: {@link #install} appends sluice's planner stage to a table
 * environment's stream optimization, so every query planned there afterwards runs its supported
 * nodes (Calc; the keyed nodes as their substitutions land) on sluice's native operators, and the
 * rest on Flink's. Options ({@link SluiceOptions}) are read per query.
 *
 * <pre>{@code
 * TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
 * Sluice.install(tEnv);
 * tEnv.executeSql("SELECT id, MD5(name) FROM users").print();
 * System.out.println(Sluice.explain(tEnv, "SELECT id, MD5(name) FROM users").text());
 * }</pre>
 */
public final class Sluice {
    private Sluice() {}

    /**
     * Appends sluice's stage to {@code tEnv}'s stream program (idempotent). Call it before the
     * queries that should use it are planned.
     *
     * @param tEnv a streaming table environment
     */
    public static void install(TableEnvironment tEnv) {
        SluiceStage.install(tEnv.getConfig());
    }

    /**
     * Installs the stage (if needed) and explains {@code sql}.
     *
     * @param tEnv a streaming table environment
     * @param sql a query or statement {@code explainSql} accepts
     * @return Flink's explain text with a {@code == Sluice ==} section, and a report per node
     */
    public static SluiceExplain explain(TableEnvironment tEnv, String sql) {
        SluiceStage stage = SluiceStage.install(tEnv.getConfig());
        stage.beginCapture();
        String plan;
        List<NodeReport> nodes;
        try {
            plan = tEnv.explainSql(sql);
        } finally {
            nodes = stage.endCapture();
        }
        StringBuilder text = new StringBuilder(plan);
        if (!plan.endsWith("\n")) {
            text.append('\n');
        }
        text.append("\n== Sluice ==\n");
        for (NodeReport n : nodes) {
            text.append(n.isNative() ? "native " : "stock  ").append(n.node());
            if (!n.isNative()) {
                text.append(": ").append(n.reason());
            }
            text.append("\n    ").append(n.description()).append('\n');
        }
        return new SluiceExplain(text.toString(), nodes);
    }
}
