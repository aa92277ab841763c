/**
 * What cel-go does to a program when it is instantiated (`env.Program`) in an environment with
 * `OptOptimize` (constant folding, as Kubernetes sets it) and `cel.OptimizeRegex`, where it can
 * fail: a type conversion of a constant is evaluated then, so `uint(-1)` or `int("x")` fails
 * the program before it runs, even in a branch never taken (interpreter/decorators.go
 * `maybeOptimizeConstUnary`: `return nil, val.(*types.Err)`); a constant regular expression of
 * `find`/`findAll` is compiled then (k8s.io/apiserver pkg/cel/library/regex.go
 * `FindRegexOptimization`). The apiserver reports either as
 * `program instantiation failed: <reason>` (admission/plugin/cel/compile.go).
 */
import type { CallExpr, Expr } from "./ast.js";
import type { ConstantArgumentCheck, Library } from "./decls.js";
import { CelCompileError, CelEvalError } from "./errors.js";
import type { CelValue } from "./values.js";

/**
 * A program cel-go would refuse to instantiate; `reason` is cel-go's error text. A kind of
 * {@link CelCompileError} (one issue without a position), so callers that report compile
 * errors report it too; `message` is the apiserver's `program instantiation failed: <reason>`.
 */
export class CelInstantiationError extends CelCompileError {
  constructor(readonly reason: string) {
    super([{ message: `program instantiation failed: ${reason}`, offset: -1, line: 0, column: 0 }], "");
    this.message = `program instantiation failed: ${reason}`;
  }
}

/** cel-go's type conversion functions (`overloads.IsTypeConversionFunction`). */
const CONVERSIONS: ReadonlySet<string> = new Set(["bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint"]);

const CHECKS = new WeakMap<readonly Library[], ReadonlyMap<string, readonly ConstantArgumentCheck[]>>();

function checksOf(libraries: readonly Library[]): ReadonlyMap<string, readonly ConstantArgumentCheck[]> {
  let m = CHECKS.get(libraries);
  if (m === undefined) {
    const out = new Map<string, ConstantArgumentCheck[]>();
    for (const lib of libraries) for (const c of lib.constantArgumentChecks ?? []) out.set(c.function, [...(out.get(c.function) ?? []), c]);
    CHECKS.set(libraries, (m = out));
  }
  return m;
}

/**
 * Throws {@link CelInstantiationError} where cel-go's instantiation fails. `evalConst` evaluates
 * a constant subexpression (no variables). Children are checked before their parent, as cel-go
 * decorates bottom-up, so the innermost failure is the one reported.
 */
export function checkInstantiation(root: Expr, libraries: readonly Library[], evalConst: (e: Expr) => CelValue): void {
  const checks = checksOf(libraries);
  const isConst = (e: Expr): boolean => {
    switch (e.kind) {
      case "const":
        return true;
      case "list":
        return e.optionalIndices.length === 0 && e.elements.every(isConst);
      case "map":
        return e.entries.every((x) => !x.optional && isConst(x.key) && isConst(x.value));
      case "call":
        return isConversion(e) && isConst(e.args[0]!);
      default:
        return false;
    }
  };
  const visit = (e: Expr): void => {
    switch (e.kind) {
      case "call": {
        if (e.target !== undefined) visit(e.target);
        for (const a of e.args) visit(a);
        if (isConversion(e) && isConst(e.args[0]!)) {
          try {
            evalConst(e);
          } catch (err) {
            if (err instanceof CelEvalError) throw new CelInstantiationError(err.message);
            throw err;
          }
        }
        const cs = e.target === undefined ? undefined : checks.get(e.fn);
        if (cs !== undefined) {
          for (const c of cs) {
            const arg = e.args[c.argIndex];
            if (arg === undefined || !isConst(arg)) continue;
            try {
              c.check(evalConst(arg));
            } catch (err) {
              if (err instanceof Error) throw new CelInstantiationError(err.message);
              throw err;
            }
          }
        }
        return;
      }
      case "select":
        visit(e.operand);
        return;
      case "list":
        e.elements.forEach(visit);
        return;
      case "map":
        for (const x of e.entries) {
          visit(x.key);
          visit(x.value);
        }
        return;
      case "struct":
        for (const x of e.fields) visit(x.value);
        return;
      case "comprehension":
        visit(e.iterRange);
        visit(e.accuInit);
        visit(e.loopCondition);
        visit(e.loopStep);
        visit(e.result);
        return;
      default:
        return;
    }
  };
  visit(root);
}

function isConversion(e: CallExpr): boolean {
  return e.target === undefined && e.args.length === 1 && CONVERSIONS.has(e.fn);
}
