package io.sluice.flink.planner.keyed;

/** The Flink nodes the native keyed operators stand in for. */
public enum KeyedKind {
    /** {@code StreamPhysicalGroupAggregate} → {@code group_agg}. */
    GROUP_AGGREGATE("GroupAggregate", "sluice-group-aggregate"),
    /** ROW_NUMBER() = 1 ({@code StreamPhysicalDeduplicate} / a dedup {@code StreamPhysicalRank}) → {@code dedup}. */
    DEDUPLICATE("Deduplicate", "sluice-deduplicate"),
    /** {@code StreamPhysicalChangelogNormalize} → {@code normalize}. */
    CHANGELOG_NORMALIZE("ChangelogNormalize", "sluice-changelog-normalize"),
    /** A ROW_NUMBER Top-N {@code StreamPhysicalRank} → {@code topn}. */
    RANK("Rank", "sluice-rank"),
    /** A time-ordered {@code StreamPhysicalOverAggregate} → {@code over}. */
    OVER_AGGREGATE("OverAggregate", "sluice-over-aggregate"),
    /** A window TVF aggregate ({@code StreamPhysicalWindowAggregate}, or the local/global pair) → {@code window}. */
    WINDOW_AGGREGATE("WindowAggregate", "sluice-window-aggregate");

    private final String flinkNode;
    private final String transformation;

    KeyedKind(String flinkNode, String transformation) {
        this.flinkNode = flinkNode;
        this.transformation = transformation;
    }

    /** @return Flink's name of the node, as the node reports give it */
    public String flinkNode() {
        return flinkNode;
    }

    /** @return the transformation's short name (uid part, job graph name), e.g. {@code sluice-group-aggregate} */
    public String transformation() {
        return transformation;
    }

    /** @return the ExecNode type and version, e.g. {@code sluice-group-aggregate_1} */
    public String execNodeType() {
        return transformation + "_1";
    }
}
