package io.sluice.flink.planner.calc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalc;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import io.sluice.flink.planner.CostRule;
import io.sluice.flink.planner.Match;
import io.sluice.flink.planner.PlanContext;
import io.sluice.jni.CalcNative;
import io.sluice.jni.SluiceException;

/**
 * The Calc entry of the planner stage. A Calc all of whose projections are native calls or input
 * references (and which has no condition) becomes one {@link StreamPhysicalSluiceCalc}. Otherwise
 * it is split: the largest native subexpressions (calls whose every argument is native) of the
 * projections and the condition run in a {@link StreamPhysicalSluiceCalc} that outputs the input
 * columns the rest reads followed by their results (each distinct subexpression once; columns
 * nothing reads are not carried), and a Flink Calc above computes the rest (UPPER, CAST,
 * arithmetic, CASE, the rest of the filter) over those columns. Each conjunct of the WHERE that
 * is a native call (e.g. {@code a LIKE 'x%'}) filters in the native operator, which evaluates it
 * first and computes its projections only for the rows that pass (as Flink's generated Calc does),
 * so neither it nor the Flink Calc above spends anything on a dropped row. A Calc with no native call stays stock ("no
 * native work": a pass-through or reordering would only add a hop), and so does one whose native part
 * would carry more string columns unchanged than its native calls pay for ({@link CostRule}).
 *
 * <p>A native subexpression that could fail on rows Flink would not evaluate it for (SHA2 with a
 * column width) is not taken out of a CASE, COALESCE, AND or OR, nor into the projections under a
 * WHERE part that stays on Flink.
 */
public final class CalcSubstitution {
    private CalcSubstitution() {}

    /**
     * @param calc Flink's Calc, its input already rewritten
     * @param ctx the plan context
     * @return the replacement, or why the Calc stays stock
     */
    public static Match match(StreamPhysicalCalc calc, PlanContext ctx) {
        RexProgram program = calc.getProgram();
        List<RexNode> projects = new ArrayList<>();
        for (var ref : program.getProjectList()) {
            projects.add(program.expandLocalRef(ref));
        }
        RexNode condition = program.getCondition() == null ? null : program.expandLocalRef(program.getCondition());
        NativeExpressions translator = new NativeExpressions(ctx);
        Collector c = new Collector(translator);
        // WHERE: each conjunct that is a native call filters in the native operator, before it
        // computes any projection (as Flink's Calc, which projects only the rows that pass)
        List<RexNode> nativeWhere = new ArrayList<>();
        List<RexNode> stockWhere = new ArrayList<>();
        if (condition != null) {
            List<RexNode> conjuncts = RelOptUtil.conjunctions(condition);
            for (RexNode conjunct : conjuncts) {
                c.collect(conjunct, conjuncts.size() > 1); // Flink's AND short-circuits
                (c.natives.containsKey(key(conjunct)) ? nativeWhere : stockWhere).add(conjunct);
            }
        }
        // Under a WHERE part that stays on Flink, the native projections run on rows Flink's Calc
        // would drop first, so one that could fail there (SHA2 with a column width) stays stock.
        for (RexNode p : projects) {
            c.collect(p, !stockWhere.isEmpty());
        }
        if (c.natives.isEmpty()) {
            return Match.stock(c.stockReasons.isEmpty() ? "no native work (the Calc only passes columns through)"
                    : "no native expression: " + String.join("; ", c.stockReasons));
        }
        RowType inType = PlanContext.rowType(calc.getInput());
        boolean whole = condition == null && projects.stream()
                .allMatch(p -> p instanceof RexInputRef || c.natives.containsKey(key(p)));
        if (whole) {
            return wholeCalc(calc, projects, c, inType, ctx);
        }
        RexNode rest = stockWhere.isEmpty() ? null
                : RexUtil.composeConjunction(calc.getCluster().getRexBuilder(), stockWhere);
        return split(calc, projects, nativeWhere, rest, c, inType, ctx);
    }

    /** Every projection native: one sluice node with the Calc's own row type. */
    private static Match wholeCalc(StreamPhysicalCalc calc, List<RexNode> projects, Collector c, RowType inType,
            PlanContext ctx) {
        Set<Integer> passed = new java.util.TreeSet<>();
        projects.stream().filter(p -> p instanceof RexInputRef).forEach(p -> passed.add(((RexInputRef) p).getIndex()));
        String costly = cost(ctx, inType, passed, c, null);
        if (costly != null) {
            return Match.stock(costly);
        }
        String[] exprs = new String[projects.size()];
        String[] types = new String[projects.size()];
        for (int i = 0; i < exprs.length; i++) {
            RexNode p = projects.get(i);
            exprs[i] = p instanceof RexInputRef ? "$" + ((RexInputRef) p).getIndex() : c.natives.get(key(p));
            types[i] = typeOf(p);
        }
        String bad = probe(inType, exprs, types);
        if (bad != null) {
            return Match.stock(bad);
        }
        return Match.replace(new StreamPhysicalSluiceCalc(calc.getCluster(), calc.getTraitSet(), calc.getInput(),
                calc.getRowType(), exprs, types, new int[0]));
    }

    /** Native subexpressions below, Flink's Calc for the rest above. */
    private static Match split(StreamPhysicalCalc calc, List<RexNode> projects, List<RexNode> nativeWhere,
            RexNode condition, Collector c, RowType inType, PlanContext ctx) {
        // What the Flink Calc above reads: input columns outside the native subexpressions.
        Set<Integer> carried = new java.util.TreeSet<>();
        RexShuttle refs = new RexShuttle() {
            @Override
            public RexNode visitCall(RexCall call) {
                return c.natives.containsKey(key(call)) ? call : super.visitCall(call);
            }

            @Override
            public RexNode visitInputRef(RexInputRef ref) {
                carried.add(ref.getIndex());
                return ref;
            }
        };
        projects.forEach(p -> p.accept(refs));
        if (condition != null) {
            condition.accept(refs);
        }
        List<RexNode> where = new ArrayList<>(nativeWhere);
        if (condition != null) {
            where.addAll(RelOptUtil.conjunctions(condition));
        }
        String costly = cost(ctx, inType, carried, c, condition == null ? null : where);
        if (costly != null) {
            return Match.stock(costly);
        }
        RelDataTypeFactory tf = calc.getCluster().getTypeFactory();
        RelDataTypeFactory.Builder row = tf.builder();
        List<String> exprs = new ArrayList<>();
        List<String> types = new ArrayList<>();
        Map<Integer, Integer> inputAt = new TreeMap<>();
        RelDataType inRow = calc.getInput().getRowType();
        for (int i : carried) {
            inputAt.put(i, exprs.size());
            exprs.add("$" + i);
            types.add(inType.getTypeAt(i).asSerializableString());
            row.add(inRow.getFieldList().get(i).getName(), inRow.getFieldList().get(i).getType());
        }
        Map<String, Integer> nativeAt = new LinkedHashMap<>();
        int n = 0;
        for (Map.Entry<String, String> e : c.natives.entrySet()) {
            RexNode node = c.nodes.get(e.getKey());
            nativeAt.put(e.getKey(), exprs.size());
            exprs.add(e.getValue());
            types.add(typeOf(node));
            row.add("$sluice" + n++, node.getType());
        }
        String[] ex = exprs.toArray(new String[0]);
        String[] ty = types.toArray(new String[0]);
        String bad = probe(inType, ex, ty);
        if (bad != null) {
            return Match.stock(bad);
        }
        int[] filters = nativeWhere.stream().mapToInt(w -> nativeAt.get(key(w))).toArray();
        StreamPhysicalSluiceCalc nat = new StreamPhysicalSluiceCalc(calc.getCluster(), calc.getTraitSet(),
                calc.getInput(), row.build(), ex, ty, filters);
        RexBuilder rb = calc.getCluster().getRexBuilder();
        RexShuttle over = new RexShuttle() {
            @Override
            public RexNode visitCall(RexCall call) {
                Integer at = nativeAt.get(key(call));
                return at != null ? rb.makeInputRef(call.getType(), at) : super.visitCall(call);
            }

            @Override
            public RexNode visitInputRef(RexInputRef ref) {
                return rb.makeInputRef(ref.getType(), inputAt.get(ref.getIndex()));
            }
        };
        List<RexNode> rest = new ArrayList<>();
        projects.forEach(p -> rest.add(p.accept(over)));
        RexNode cond = condition == null ? null : condition.accept(over);
        RexProgram above = RexProgram.create(nat.getRowType(), rest, cond, calc.getRowType(), rb);
        var top = calc.copy(calc.getTraitSet(), nat, above);
        ctx.stockReason(top, "rest of a split Calc: " + (c.stockReasons.isEmpty() ? "filter and projection"
                : String.join("; ", c.stockReasons)));
        return Match.replace(top);
    }

    /**
     * The cost rule ({@link CostRule}) for the native part: its payload is the string input columns
     * it outputs unchanged, its work the native calls every row needs: all of them, or, when part
     * of the WHERE stays on Flink ({@code where} not null), those the WHERE reads (Flink's Calc
     * computes the projections only for the rows that pass; the native part computes them for every
     * row).
     */
    private static String cost(PlanContext ctx, RowType in, Set<Integer> passed, Collector c, List<RexNode> where) {
        List<String> payload = new ArrayList<>();
        for (int i : passed) {
            if (CostRule.isString(in.getTypeAt(i))) {
                payload.add(in.getFieldNames().get(i));
            }
        }
        Map<String, RexNode> working = new LinkedHashMap<>();
        if (where == null) {
            working.putAll(c.nodes);
        } else {
            where.forEach(w -> nativesIn(w, c, working));
        }
        int units = working.values().stream().mapToInt(CalcSubstitution::calls).sum();
        List<String> names = new ArrayList<>();
        working.values().forEach(e -> names.add(((RexCall) e).getOperator().getName()));
        String work = units + " (native calls" + (where == null ? "" : " the WHERE reads; the rest of the WHERE stays "
                + "on Flink, whose Calc computes the projections only for the rows that pass") + ": "
                + (names.isEmpty() ? "none" : String.join(", ", names)) + ")";
        return CostRule.decline(ctx, payload, units, work);
    }

    /** Collects the largest native subexpressions of {@code e}. */
    private static void nativesIn(RexNode e, Collector c, Map<String, RexNode> out) {
        if (!(e instanceof RexCall)) {
            return;
        }
        if (c.natives.containsKey(key(e))) {
            out.putIfAbsent(key(e), e);
            return;
        }
        ((RexCall) e).getOperands().forEach(op -> nativesIn(op, c, out));
    }

    /** @return the calls in {@code e}, nested ones included */
    private static int calls(RexNode e) {
        if (!(e instanceof RexCall)) {
            return 0;
        }
        return 1 + ((RexCall) e).getOperands().stream().mapToInt(CalcSubstitution::calls).sum();
    }

    /** Compiles the program once, so a mismatch falls back at planning time with the native message. */
    private static String probe(RowType in, String[] exprs, String[] types) {
        String[] names = new String[in.getFieldCount()];
        String[] inTypes = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            names[i] = "f" + i;
            inTypes[i] = in.getTypeAt(i).asSerializableString();
        }
        try (CalcNative p = new CalcNative(names, inTypes, exprs, types)) {
            return null;
        } catch (SluiceException e) {
            return "native Calc refused: " + e.getMessage();
        }
    }

    private static String typeOf(RexNode e) {
        LogicalType t = FlinkTypeFactory.toLogicalType(e.getType());
        return t.asSerializableString();
    }

    /** Identity of a subexpression: its digest and type. */
    static String key(RexNode e) {
        return e + " : " + e.getType().getFullTypeString();
    }

    /** Walks expressions and keeps the largest native calls, in first-seen order. */
    private static final class Collector {
        private final NativeExpressions translator;
        final Map<String, String> natives = new LinkedHashMap<>();
        final Map<String, RexNode> nodes = new LinkedHashMap<>();
        final Set<String> stockReasons = new LinkedHashSet<>();

        Collector(NativeExpressions translator) {
            this.translator = translator;
        }

        void collect(RexNode e, boolean lazy) {
            if (!(e instanceof RexCall)) {
                return;
            }
            RexCall call = (RexCall) e;
            NativeExpressions.Result r = translator.translate(e);
            if (r.ok() && !(lazy && NativeExpressions.mayFail(e))) {
                natives.putIfAbsent(key(e), r.text());
                nodes.putIfAbsent(key(e), e);
                return;
            }
            if (r.ok()) {
                stockReasons.add(call.getOperator().getName() + " with a column argument could fail on a row Flink "
                        + "does not evaluate it for (a CASE branch or a row the WHERE drops)");
            }
            if (!r.ok() && r.reason().startsWith("function " + call.getOperator().getName().toUpperCase(Locale.ROOT))) {
                stockReasons.add(r.reason()); // this call's own reason (an argument's comes from its own visit)
            }
            boolean conditional = lazy || call.getKind() == SqlKind.CASE || call.getKind() == SqlKind.COALESCE
                    || call.getKind() == SqlKind.AND || call.getKind() == SqlKind.OR;
            for (RexNode op : call.getOperands()) {
                collect(op, conditional);
            }
        }
    }
}
