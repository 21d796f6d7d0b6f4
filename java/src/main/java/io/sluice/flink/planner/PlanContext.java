package io.sluice.flink.planner;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.metadata.FlinkRelMetadataQuery;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRel;
import org.apache.flink.table.planner.plan.utils.ChangelogPlanUtils;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.runtime.typeutils.TypeCheckUtils;

import io.sluice.flink.SluiceOptions;

/**
 * What a {@link Substitution.Matcher} may ask about the plan being rewritten: the table
 * configuration in force for this query, the logical types, changelog modes and upsert keys of
 * nodes, and where to leave a reason for a stock node the matcher itself creates (the Flink Calc
 * above a split Calc).
 */
public final class PlanContext {
    private final ReadableConfig config;
    private final Map<RelNode, String> stockReasons = new IdentityHashMap<>();
    private final Map<RelNode, RelNode> originals = new IdentityHashMap<>();

    PlanContext(ReadableConfig config) {
        this.config = config;
    }

    /** @return the query's table configuration (TableConfig over the environment's configuration) */
    public ReadableConfig config() {
        return config;
    }

    /**
     * @param name a function's SQL name, e.g. {@code MD5}
     * @return whether {@code sluice.function.<NAME>.enabled} lets native code evaluate it
     */
    public boolean functionEnabled(String name) {
        return config.get(SluiceOptions.functionEnabled(name));
    }

    /**
     * @param node any node of the plan
     * @return its output row as Flink's logical type (the {@code RowData} layout its operator
     *     produces)
     */
    public static RowType rowType(RelNode node) {
        return FlinkTypeFactory.toLogicalRowType(node.getRowType());
    }

    /**
     * @param node a stream physical node (e.g. a matched node's input)
     * @return the changelog mode it produces, or null if the planner has not inferred one
     */
    public static ChangelogMode changelogMode(RelNode node) {
        if (!(node instanceof StreamPhysicalRel)) {
            return null;
        }
        scala.Option<ChangelogMode> mode = ChangelogPlanUtils.getChangelogMode((StreamPhysicalRel) node);
        return mode.isDefined() ? mode.get() : null;
    }

    /**
     * @param node a stream physical node
     * @return whether it produces inserts only
     */
    public static boolean insertOnly(RelNode node) {
        return node instanceof StreamPhysicalRel && ChangelogPlanUtils.isInsertOnly((StreamPhysicalRel) node);
    }

    /**
     * @param node a stream physical node
     * @return whether it emits UPDATE_BEFORE rows (retract) rather than upserts only
     */
    public static boolean generatesUpdateBefore(RelNode node) {
        return node instanceof StreamPhysicalRel && ChangelogPlanUtils.generateUpdateBefore((StreamPhysicalRel) node);
    }

    /**
     * @param node any node
     * @return its upsert keys as Flink's metadata derives them (column sets), or null if unknown
     */
    public static Set<ImmutableBitSet> upsertKeys(RelNode node) {
        return FlinkRelMetadataQuery.reuseOrCreate(node.getCluster().getMetadataQuery()).getUpsertKeys(node);
    }

    /**
     * Records why a Flink node that a matcher puts into its replacement (e.g. the stock Calc
     * above a split) runs on Flink, for the node reports.
     *
     * @param node the stock node
     * @param reason why it is stock
     */
    public void stockReason(RelNode node, String reason) {
        stockReasons.put(node, reason);
    }

    /**
     * The node of Flink's plan that a rewritten node stands for: Flink's metadata (upsert keys,
     * unique keys) does not know sluice's nodes, so a matcher that needs it for an input asks the
     * original (a {@code StreamPhysicalJoin} picks its state views from its inputs' upsert keys).
     *
     * @param node a node of the plan being rewritten (an input of the matched node)
     * @return the Flink node it replaced or copied, or {@code node} itself
     */
    public RelNode original(RelNode node) {
        RelNode o = originals.get(node);
        return o == null ? node : o;
    }

    /** Records that {@code rewritten} (a copy over new inputs, or a sluice node) stands for {@code original}. */
    void rewritten(RelNode original, RelNode rewritten) {
        if (original != rewritten) {
            originals.put(rewritten, original(original));
        }
    }

    /** @return the reason recorded for {@code node}, or null */
    String recordedReason(RelNode node) {
        return stockReasons.get(node);
    }

    /** Moves the recorded reason of {@code from} to its copy {@code to} (a parent copied over new inputs). */
    void carry(RelNode from, RelNode to) {
        String r = stockReasons.get(from);
        if (r != null) {
            stockReasons.put(to, r);
        }
    }

    /**
     * The input row type as the native operator is told it: a processing-time attribute is
     * declared NOT NULL but its slot holds NULL until a Calc materializes it (the planner's time
     * indicator, {@code PROCTIME_MATERIALIZE}), so it is passed as nullable; the native operator
     * only carries it through.
     *
     * @param in the input row type Flink declares
     * @return the same fields with processing-time attributes nullable
     */
    public static RowType nativeInput(RowType in) {
        LogicalType[] types = new LogicalType[in.getFieldCount()];
        for (int i = 0; i < types.length; i++) {
            LogicalType t = in.getTypeAt(i);
            types[i] = TypeCheckUtils.isProcTime(t) ? t.copy(true) : t;
        }
        return RowType.of(types, in.getFieldNames().toArray(new String[0]));
    }
}
