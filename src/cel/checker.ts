/**
 * Type checking. (Placeholder signature; owned by the checker work.)
 */
import type { ParsedExpr } from "./ast.js";
import type { CheckedExpr } from "./checked.js";
import type { Env } from "./env.js";

/** Throws {@link CelCompileError} listing every type error with its position. */
export function check(parsed: ParsedExpr, env: Env): CheckedExpr {
  throw new Error(`checker not implemented ${parsed.sourceInfo.text} ${env.container}`);
}
