/**
 * Errors of the CEL engine.
 *
 * - {@link CelEvalError}: an evaluation error. It is CEL's error value: the
 *   evaluator throws it and catches it where CEL absorbs errors. Messages follow
 *   cel-go's wording ("no such key: x", "division by zero", "no such overload").
 * - {@link CelCompileError}: parse or check failed. It carries every issue with its
 *   position and renders like cel-go: `ERROR: <input>:1:5: message` followed by the
 *   source line and a caret.
 */
import type { SourceInfo } from "./ast.js";

export class CelEvalError extends Error {
  override readonly name = "CelEvalError";
  constructor(
    message: string,
    /** Id of the expression node that failed, when known. */
    readonly exprId?: number,
  ) {
    super(message);
  }
}

export interface CelIssue {
  readonly message: string;
  /** Code-point offset in the source, or -1 when unknown. */
  readonly offset: number;
  /** 1-based line and column (column counted in code points), 0 when unknown. */
  readonly line: number;
  readonly column: number;
}

export class CelCompileError extends Error {
  override readonly name = "CelCompileError";
  constructor(
    readonly issues: readonly CelIssue[],
    readonly source: string,
    readonly description = "<input>",
  ) {
    super(formatIssues(issues, source, description));
  }
}

/** 1-based line and column of a code-point offset. */
export function locate(info: Pick<SourceInfo, "lineOffsets">, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (const lo of info.lineOffsets) {
    if (lo > offset) break;
    line++;
    start = lo;
  }
  return { line, column: offset - start + 1 };
}

/**
 * cel-go's rendering of issues:
 *
 *     ERROR: <input>:1:3: undeclared reference to 'b' (in container '')
 *      | a.b
 *      | ..^
 */
export function formatIssues(issues: readonly CelIssue[], source: string, description = "<input>"): string {
  const lines = source.split("\n");
  return issues
    .map((issue) => {
      if (issue.line <= 0) return `ERROR: ${description}:-1:0: ${issue.message}`;
      const text = lines[issue.line - 1] ?? "";
      // cel-go pads with '.' for each code point before the column, with wide chars as '.' too.
      const caret = ".".repeat(Math.max(0, issue.column - 1)) + "^";
      return `ERROR: ${description}:${issue.line}:${issue.column}: ${issue.message}\n | ${text}\n | ${caret}`;
    })
    .join("\n");
}
