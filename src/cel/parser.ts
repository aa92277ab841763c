/**
 * CEL source → {@link ParsedExpr}. (Owned by the parser work; this file is a placeholder signature.)
 */
import type { ParsedExpr } from "./ast.js";
import type { MacroSet } from "./decls.js";

export interface ParseOptions {
  /** Macro families to expand; none when absent. */
  readonly macros?: ReadonlySet<MacroSet>;
  /** Accept `a.?b`, `a[?b]`, `[?x]`, `{?k: v}`. */
  readonly enableOptionalSyntax?: boolean;
  readonly maxRecursionDepth?: number;
  readonly expressionSizeCodePointLimit?: number;
  /** Name used in error messages, `<input>` by default. */
  readonly description?: string;
}

/** Throws {@link CelCompileError} with every syntax error found. */
export function parse(source: string, options: ParseOptions = {}): ParsedExpr {
  throw new Error(`parser not implemented: ${source} ${JSON.stringify(options)}`);
}
