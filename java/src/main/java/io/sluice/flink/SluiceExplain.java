package io.sluice.flink;

import java.util.List;

/** What {@link Sluice#explain} returns: Flink's plan text with sluice's verdict per node. */
public final class SluiceExplain {
    private final String text;
    private final List<NodeReport> nodes;

    SluiceExplain(String text, List<NodeReport> nodes) {
        this.text = text;
        this.nodes = List.copyOf(nodes);
    }

    /**
     * @return Flink's {@code explainSql} output (whose optimized plan names the sluice nodes) and a
     *     section {@code == Sluice ==} listing every physical node as native or stock, with the
     *     reason for each stock one
     */
    public String text() {
        return text;
    }

    /** @return every node of the optimized physical plan, sources first */
    public List<NodeReport> nodes() {
        return nodes;
    }

    @Override
    public String toString() {
        return text;
    }
}
