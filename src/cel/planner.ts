/**
 * AST → evaluable {@link Program}. (Placeholder signature; owned by the evaluator work.)
 */
import type { ParsedExpr } from "./ast.js";
import type { CheckedExpr } from "./checked.js";
import type { Env } from "./env.js";
import type { CelValue } from "./values.js";

/** Variable bindings; `resolve` may compute lazily. Returns undefined for an unbound name. */
export interface Activation {
  resolve(name: string): CelValue | undefined;
}

export interface Program {
  /** Evaluates; throws {@link CelEvalError} for a CEL error. */
  eval(vars?: Activation | Readonly<Record<string, CelValue>>): CelValue;
}

export function plan(ast: ParsedExpr | CheckedExpr, env: Env): Program {
  throw new Error(`planner not implemented ${ast.sourceInfo.text} ${env.container}`);
}
