package io.sluice.flink.planner;

import java.util.Objects;

import org.apache.calcite.rel.RelNode;
import org.apache.flink.configuration.ConfigOption;

import io.sluice.flink.SluiceOptions;

/**
 * One kind of Flink physical node the planner stage can replace with a sluice node: its name
 * (which is its switch, {@code sluice.operator.<name>.enabled}), the node class it owns, its
 * matcher, and whether it accepts an updating (changelog) input. Entries are listed in
 * {@link Substitutions#ALL}.
 *
 * @param <T> the Flink node class this entry owns
 */
public final class Substitution<T extends RelNode> {

    /** Builds the sluice replacement of one node, or says why it cannot. */
    @FunctionalInterface
    public interface Matcher<T> {
        /**
         * @param node the Flink node, its inputs already rewritten
         * @param ctx the plan's configuration, types, changelog modes and keys
         * @return {@link Match#replace} with the new subtree, or {@link Match#stock} with the reason
         */
        Match match(T node, PlanContext ctx);
    }

    private final String name;
    private final Class<T> shape;
    private final Matcher<T> matcher;
    private final ConfigOption<Boolean> option;
    private boolean acceptsChangelog;
    private java.util.function.Predicate<T> when = n -> true;

    private Substitution(String name, Class<T> shape, Matcher<T> matcher) {
        this.name = Objects.requireNonNull(name);
        this.shape = Objects.requireNonNull(shape);
        this.matcher = Objects.requireNonNull(matcher);
        this.option = SluiceOptions.operatorEnabled(name);
    }

    /**
     * @param name the switch name ({@code sluice.operator.<name>.enabled})
     * @param shape the Flink node class owned, e.g. {@code StreamPhysicalCalc.class}
     * @param matcher builds the replacement or gives the reason
     * @param <T> the node class
     * @return an entry that accepts insert-only inputs only (see {@link #acceptingChangelog()})
     */
    public static <T extends RelNode> Substitution<T> of(String name, Class<T> shape, Matcher<T> matcher) {
        return new Substitution<>(name, shape, matcher);
    }

    /**
     * Offers this entry nodes whose input is an updating changelog too (a Calc, which passes every
     * RowKind through; a GROUP BY, which consumes retractions). Without it the stage keeps such a
     * node on Flink with the input's changelog mode as the reason.
     *
     * @return this
     */
    public Substitution<T> acceptingChangelog() {
        this.acceptsChangelog = true;
        return this;
    }

    /**
     * Owns only the nodes of its class that {@code when} accepts (a class two entries share, such as
     * Flink 2.x's {@code StreamPhysicalRank}, which is a deduplication or a Top-N); the others go on
     * to the next entry.
     *
     * @param when which nodes of the class this entry owns
     * @return this
     */
    public Substitution<T> ownsWhen(java.util.function.Predicate<T> when) {
        this.when = Objects.requireNonNull(when);
        return this;
    }

    /** @return the name, which is also the switch's middle part */
    public String name() {
        return name;
    }

    /** @return {@code sluice.operator.<name>.enabled} */
    public ConfigOption<Boolean> option() {
        return option;
    }

    /** @return whether nodes with an updating input are offered to the matcher */
    public boolean acceptsChangelog() {
        return acceptsChangelog;
    }

    /** @return whether this entry owns {@code node} */
    boolean owns(RelNode node) {
        return shape.isInstance(node) && when.test(shape.cast(node));
    }

    /** Runs the matcher on a node this entry owns. */
    Match apply(RelNode node, PlanContext ctx) {
        return matcher.match(shape.cast(node), ctx);
    }
}
