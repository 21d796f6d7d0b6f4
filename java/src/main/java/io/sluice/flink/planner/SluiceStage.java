package io.sluice.flink.planner;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.calcite.rel.RelNode;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.PlannerConfig;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.calcite.CalciteConfig$;
import org.apache.flink.table.planner.plan.nodes.FlinkRelNode;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.planner.utils.ShortcutUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.flink.NodeReport;
import io.sluice.flink.SluiceOptions;
import io.sluice.flink.compat.PlannerCompat;
import io.sluice.jni.NativeLibrary;

/**
 * The planner stage: a program appended to Flink's stream optimization (after
 * {@code physical_rewrite}, when the physical plan is final and every node carries its changelog
 * traits), which offers each physical node, inputs first, to the {@link Substitutions#ALL} entry
 * that owns its class, replaces it where the entry's matcher builds a sluice node, and records a
 * {@link NodeReport} for every node of the result.
 *
 * <p>Installed by {@link #install(TableConfig)}: Flink offers no append-only hook, so the stage
 * takes the stream program in force (the configured one, or {@link FlinkStreamProgram#buildProgram}
 * for this configuration), appends itself under the name {@value #NAME} and sets it back through
 * {@code CalciteConfig.replaceStreamProgram}. The configuration is read per query (SQL
 * {@code SET} works), from the plan's own TableConfig.
 */
public final class SluiceStage implements FlinkOptimizeProgram<StreamOptimizeContext> {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceStage.class);
    /** The stage's name in Flink's chained stream program. */
    public static final String NAME = "sluice";
    /** Fallbacks already logged (node name + description), so each is logged once per JVM. */
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private final ThreadLocal<List<NodeReport>> capture = new ThreadLocal<>();

    private SluiceStage() {}

    /**
     * Appends the stage to {@code config}'s stream program, once.
     *
     * @param config a table configuration (before its first query is planned)
     * @return the installed stage
     */
    public static SluiceStage install(TableConfig config) {
        PlannerConfig planner = config.getPlannerConfig();
        CalciteConfig calcite = planner instanceof CalciteConfig ? (CalciteConfig) planner
                : CalciteConfig$.MODULE$.DEFAULT();
        FlinkChainedProgram<StreamOptimizeContext> program = calcite.getStreamProgram().isDefined()
                ? calcite.getStreamProgram().get()
                : FlinkStreamProgram.buildProgram(config);
        if (program.get(NAME).isDefined()) {
            FlinkOptimizeProgram<StreamOptimizeContext> present = program.get(NAME).get();
            if (present instanceof SluiceStage) {
                return (SluiceStage) present;
            }
            throw new IllegalStateException("the stream program stage '" + NAME + "' is taken by " + present.getClass());
        }
        SluiceStage stage = new SluiceStage();
        program.addLast(NAME, stage);
        config.setPlannerConfig(CalciteConfig$.MODULE$.createBuilder(calcite).replaceStreamProgram(program).build());
        return stage;
    }

    /**
     * Collects the node reports of every plan optimized on this thread until {@link #endCapture()}.
     */
    public void beginCapture() {
        capture.set(new ArrayList<>());
    }

    /** @return the reports collected since {@link #beginCapture()} (sources first, per optimized block) */
    public List<NodeReport> endCapture() {
        List<NodeReport> r = capture.get();
        capture.remove();
        return r == null ? List.of() : r;
    }

    @Override
    public RelNode optimize(RelNode root, StreamOptimizeContext context) {
        ReadableConfig config = ShortcutUtils.unwrapTableConfig(root);
        PlanContext ctx = new PlanContext(config);
        String off = disabledReason(config);
        RelNode out = off == null ? rewrite(root, ctx, new IdentityHashMap<>()) : root;
        List<NodeReport> reports = new ArrayList<>();
        report(out, ctx, off, reports, new IdentityHashMap<>());
        List<NodeReport> c = capture.get();
        if (c != null) {
            c.addAll(reports);
        }
        if (config.get(SluiceOptions.LOG_FALLBACK_REASONS)) {
            for (NodeReport r : reports) {
                if (!r.isNative() && LOGGED.add(r.node() + "|" + r.description())) {
                    LOG.info("sluice: {} stays on Flink: {} ({})", r.node(), r.reason(), r.description());
                }
            }
        }
        return out;
    }

    /** Null when the stage may substitute, else why nothing is. */
    private static String disabledReason(ReadableConfig config) {
        if (!config.get(SluiceOptions.ENABLED)) {
            return "option " + SluiceOptions.ENABLED.key() + "=false";
        }
        if (!NativeLibrary.isAvailable()) {
            if (config.get(SluiceOptions.FALLBACK)) {
                return "libsluice unavailable (" + SluiceOptions.FALLBACK.key() + "=true): "
                        + NativeLibrary.unavailableReason();
            }
            NativeLibrary.load(); // throws SluiceLoadException naming the platform and the path tried
        }
        return null;
    }

    /** Rewrites inputs first, then offers the node to its entry. Shared subtrees stay shared. */
    private static RelNode rewrite(RelNode node, PlanContext ctx, Map<RelNode, RelNode> done) {
        RelNode seen = done.get(node);
        if (seen != null) {
            return seen;
        }
        List<RelNode> inputs = node.getInputs();
        List<RelNode> rewritten = new ArrayList<>(inputs.size());
        boolean changed = false;
        for (RelNode in : inputs) {
            RelNode r = rewrite(in, ctx, done);
            changed |= r != in;
            rewritten.add(r);
        }
        RelNode current = changed ? node.copy(node.getTraitSet(), rewritten) : node;
        if (current != node) {
            ctx.carry(node, current);
        }
        RelNode result = current;
        Substitution<?> entry = Substitutions.owner(current);
        if (entry != null) {
            String reason = precondition(entry, current, ctx);
            if (reason == null) {
                Match m = entry.apply(current, ctx);
                if (m.replaced()) {
                    result = m.replacement();
                } else {
                    reason = m.reason();
                }
            }
            if (reason != null) {
                ctx.stockReason(current, reason);
            }
        }
        ctx.rewritten(node, result);
        done.put(node, result);
        return result;
    }

    /** The checks every entry shares: its switch, its inputs' changelog, line-specific traits. */
    private static String precondition(Substitution<?> entry, RelNode node, PlanContext ctx) {
        if (!ctx.config().get(entry.option())) {
            return "option " + entry.option().key() + "=false";
        }
        if (!entry.acceptsChangelog()) {
            for (RelNode in : node.getInputs()) {
                if (!PlanContext.insertOnly(in)) {
                    return "updating input (changelog mode " + PlanContext.changelogMode(in) + ")";
                }
            }
        }
        return PlannerCompat.unsupportedTraits(node);
    }

    private static void report(RelNode node, PlanContext ctx, String off, List<NodeReport> out,
            Map<RelNode, Boolean> seen) {
        if (seen.put(node, Boolean.TRUE) != null) {
            return;
        }
        for (RelNode in : node.getInputs()) {
            report(in, ctx, off, out, seen);
        }
        String description = node instanceof FlinkRelNode ? ((FlinkRelNode) node).getRelDetailedDescription()
                : node.toString();
        if (node instanceof SluiceNode) {
            out.add(new NodeReport(((SluiceNode) node).flinkNode(), true, "", description));
            return;
        }
        String reason = off != null ? off : ctx.recordedReason(node);
        if (reason == null) {
            reason = Substitutions.owner(node) == null ? "sluice has no operator for this node" : "not substituted";
        }
        out.add(new NodeReport(nodeName(node), false, reason, description));
    }

    /** Flink's name of a node: its class name without the {@code StreamPhysical} prefix. */
    static String nodeName(RelNode node) {
        String n = node.getClass().getSimpleName();
        return n.startsWith("StreamPhysical") ? n.substring("StreamPhysical".length()) : n;
    }
}
