package io.sluice.flink.planner.calc;

import java.util.List;
import java.util.Locale;

import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.NlsString;

import io.sluice.flink.planner.PlanContext;

/**
 * Translates Calcite expressions into the native Calc program's expression text
 * (engine/src/calc/spec.rs): input references as {@code $i}, string and INT literals, and calls of
 * MD5, SHA1, SHA2, SHA224/256/384/512 (as SHA2 with that width), CONCAT (not {@code ||}),
 * CONCAT_WS, POSITION, LOCATE, LIKE [ESCAPE], REPLACE and SPLIT_INDEX whose arguments are native
 * too and of the kinds the program takes (strings as CHAR/VARCHAR, widths and indexes as INT).
 * Anything else comes back as a reason, naming the function or type.
 */
final class NativeExpressions {
    private final PlanContext ctx;

    NativeExpressions(PlanContext ctx) {
        this.ctx = ctx;
    }

    /** A translation: the text, or why there is none. */
    record Result(String text, String reason) {
        static Result ok(String text) {
            return new Result(text, null);
        }

        static Result no(String reason) {
            return new Result(null, reason);
        }

        boolean ok() {
            return text != null;
        }
    }

    /**
     * @param e an expression over the Calc's input
     * @return its native text, or the reason it is not native
     */
    Result translate(RexNode e) {
        if (e instanceof RexInputRef) {
            return Result.ok("$" + ((RexInputRef) e).getIndex());
        }
        if (e instanceof RexLiteral) {
            return literal((RexLiteral) e);
        }
        if (!(e instanceof RexCall)) {
            return Result.no("expression " + e + " (" + e.getKind() + ")");
        }
        RexCall call = (RexCall) e;
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        if (name.equals("||")) {
            // Flink's generated || joins the operands' Java strings when they are String-backed, so an
            // unpaired high surrogate at the end of one and a low one at the start of the next pair
            // up; CONCAT and the native program encode each operand first (each becomes '?').
            return Result.no("function || (differs from CONCAT on unpaired surrogates)");
        }
        String fn = name;
        Signature sig = Signature.of(fn, call.getOperands().size());
        if (sig == null) {
            return Result.no("function " + name);
        }
        if (!ctx.functionEnabled(fn)) {
            return Result.no("function " + fn + " (option sluice.function." + fn + ".enabled=false)");
        }
        List<RexNode> ops = call.getOperands();
        String[] args = new String[ops.size()];
        for (int i = 0; i < ops.size(); i++) {
            RexNode op = ops.get(i);
            boolean intArg = sig.intArg(i);
            if (intArg ? !isInt(op) : !isString(op)) {
                return Result.no("function " + fn + ": argument " + (i + 1) + " of type " + op.getType()
                        + " (native " + fn + " takes " + (intArg ? "INT" : "CHAR/VARCHAR") + " there)");
            }
            Result r = translate(op);
            if (!r.ok()) {
                return r;
            }
            args[i] = r.text;
        }
        return Result.ok(sig.render(args));
    }

    /** Whether {@code e} is a call the native program evaluates (not a bare reference or literal). */
    static boolean isCall(RexNode e) {
        return e instanceof RexCall;
    }

    /** Whether evaluating {@code e} where Flink would not (a CASE branch not taken) could fail the job. */
    static boolean mayFail(RexNode e) {
        if (!(e instanceof RexCall)) {
            return false;
        }
        RexCall call = (RexCall) e;
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        // SHA2 with a column width fails on an unsupported width, as Flink's does
        if (name.equals("SHA2") && call.getOperands().size() == 2 && !(call.getOperands().get(1) instanceof RexLiteral)) {
            return true;
        }
        for (RexNode op : call.getOperands()) {
            if (mayFail(op)) {
                return true;
            }
        }
        return false;
    }

    private static Result literal(RexLiteral lit) {
        if (lit.isNull()) {
            return Result.no("NULL literal");
        }
        SqlTypeName t = lit.getType().getSqlTypeName();
        if (t == SqlTypeName.CHAR || t == SqlTypeName.VARCHAR) {
            NlsString s = lit.getValueAs(NlsString.class);
            return Result.ok("'" + s.getValue().replace("'", "''") + "'");
        }
        if (t == SqlTypeName.INTEGER) {
            return Result.ok(Integer.toString(lit.getValueAs(Integer.class)));
        }
        return Result.no("literal of type " + lit.getType());
    }

    private static boolean isString(RexNode e) {
        return e.getType().getSqlTypeName().getFamily() == SqlTypeFamily.CHARACTER;
    }

    private static boolean isInt(RexNode e) {
        return e.getType().getSqlTypeName() == SqlTypeName.INTEGER;
    }

    /** A native function: its arity and which arguments are INT, and how its text is written. */
    private enum Signature {
        MD5(1, 1, -1), SHA1(1, 1, -1), SHA2(2, 2, 1), SHA224(1, 1, -1), SHA256(1, 1, -1), SHA384(1, 1, -1),
        SHA512(1, 1, -1), CONCAT(1, Integer.MAX_VALUE, -1), CONCAT_WS(2, Integer.MAX_VALUE, -1),
        POSITION(2, 2, -1), LOCATE(2, 3, 2), LIKE(2, 3, -1), REPLACE(3, 3, -1), SPLIT_INDEX(3, 3, 2);

        private final int min;
        private final int max;
        /** Arguments from this position on are INT (-1: none). */
        private final int firstInt;

        Signature(int min, int max, int firstInt) {
            this.min = min;
            this.max = max;
            this.firstInt = firstInt;
        }

        static Signature of(String name, int arity) {
            for (Signature s : values()) {
                if (s.name().equals(name)) {
                    return arity >= s.min && arity <= s.max ? s : null;
                }
            }
            return null;
        }

        boolean intArg(int i) {
            return firstInt >= 0 && i >= firstInt;
        }

        String render(String[] a) {
            switch (this) {
                case SHA224:
                case SHA256:
                case SHA384:
                case SHA512:
                    return "SHA2(" + a[0] + ", " + name().substring(3) + ")";
                case POSITION:
                    return "POSITION(" + a[0] + " IN " + a[1] + ")";
                case LIKE:
                    return a[0] + " LIKE " + a[1] + (a.length > 2 ? " ESCAPE " + a[2] : "");
                default:
                    return name() + "(" + String.join(", ", a) + ")";
            }
        }
    }
}
