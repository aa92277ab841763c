/**
 * Round trips over the official parsing and conformance suites: parse → unparse
 * → parse gives the same debug AST, and macros are printed as written.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { getConformanceSuite, getParsingSuite, type IncrementalTest, type IncrementalTestSuite } from "@bufbuild/cel-spec/testdata/tests.js";
import { toDebugString } from "@bufbuild/cel-spec/testdata/to-debug-string.js";
import { toProtoExpr } from "../../conformance/cel/ast-proto.js";
import { parse, type ParseOptions } from "./parser.js";
import { unparse } from "./unparse.js";

const OPTS: ParseOptions = {
  macros: new Set(["standard", "twoVar", "optional", "bind"]),
  enableOptionalSyntax: true,
  enableIdentEscapeSyntax: true,
};

function flatten(s: IncrementalTestSuite): IncrementalTest[] {
  return [...s.tests, ...s.suites.flatMap(flatten)];
}

function roundTrip(tests: readonly IncrementalTest[]): { n: number; failures: string[] } {
  let n = 0;
  const failures: string[] = [];
  for (const t of tests) {
    let p;
    try {
      p = parse(t.original.expr, OPTS);
    } catch {
      continue; // error cases: nothing to print
    }
    n++;
    let printed = "";
    try {
      printed = unparse(p.expr, p.sourceInfo);
      const q = parse(printed, OPTS);
      if (toDebugString(toProtoExpr(q.expr)) !== toDebugString(toProtoExpr(p.expr))) failures.push(`${t.original.expr}  =>  ${printed}`);
    } catch (e) {
      failures.push(`${t.original.expr}  =>  ${printed}: ${String(e)}`);
    }
  }
  return { n, failures };
}

describe("unparse", () => {
  it("round-trips the parsing suite", () => {
    const r = roundTrip(flatten(getParsingSuite()));
    console.log(`parsing suite: ${r.n - r.failures.length}/${r.n} round trips`);
    expect(r.n).toBeGreaterThan(100);
    expect(r.failures).toEqual([]);
  });

  it("round-trips the conformance suite", () => {
    const r = roundTrip(flatten(getConformanceSuite()));
    console.log(`conformance suite: ${r.n - r.failures.length}/${r.n} round trips`);
    expect(r.n).toBeGreaterThan(2000);
    expect(r.failures).toEqual([]);
  });

  it("prints macros as written and keeps the grammar's precedence", () => {
    const cases: [string, string][] = [
      ["object.spec.containers.map(c, Object.spec.containers{name: c.name})", "object.spec.containers.map(c, Object.spec.containers{name: c.name})"],
      ["has(a.b) && (x || y) && z", "(has(a.b) && (x || y)) && z"],
      ["a - (b - c)", "a - (b - c)"],
      ["(a ? b : c) ? d : e", "(a ? b : c) ? d : e"],
      ["!!a", "a"],
      ["!(!a)", "!(!a)"],
      ["-(1)", "-(1)"],
      ["(-1).foo()", "(-1).foo()"],
      ["-((1.5)[a])", "-(1.5[a])"],
      ["-((1.5).map(x, x))", "-(1.5.map(x, x))"],
      ["a.?b[?0]", "a.?b[?0]"],
      ["m.all(k, v, v > 0)", "m.all(k, v, v > 0)"],
      ['"a\\n\\"b"', '"a\\n\\"b"'],
      ["b'\\x00\\xff'", 'b"\\x00\\xff"'],
      ["1.0 + 2e3", "1.0 + 2000.0"],
      ["a.`b-c`", "a.`b-c`"],
    ];
    for (const [src, want] of cases) {
      const p = parse(src, OPTS);
      expect(unparse(p.expr, p.sourceInfo)).toBe(want);
    }
  });
});

describe("unparse property (fast-check)", () => {
  const { expr } = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom("a", "b.c", "1", "-1", "2u", "1.5", "-0.5", "'s'", "b'x'", "true", "null", "[]", "{}", "x.y.z"),
      fc.tuple(tie("expr"), fc.constantFrom("+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in"), tie("expr")).map(([l, o, r]) => `${l} ${o} ${r}`),
      fc.tuple(tie("expr"), fc.constantFrom("+", "-", "*", "&&", "||", "=="), tie("expr")).map(([l, o, r]) => `(${l}) ${o} (${r})`),
      fc.tuple(fc.constantFrom("!", "-", "!!", "--", "-!"), tie("expr")).map(([o, e]) => `${o}(${e})`),
      fc.tuple(tie("expr"), tie("expr"), tie("expr")).map(([c, t, f]) => `(${c}) ? (${t}) : ${f}`),
      fc.tuple(tie("expr"), fc.constantFrom("f", "size", "startsWith")).map(([e, f]) => `(${e}).${f}()`),
      fc.tuple(tie("expr"), tie("expr")).map(([e, i]) => `(${e})[${i}]`),
      fc.tuple(tie("expr"), tie("expr")).map(([l, v]) => `(${l}).map(x, ${v})`),
      fc.tuple(tie("expr"), tie("expr")).map(([l, v]) => `(${l}).all(k, v, ${v})`),
      tie("expr").map((e) => `has((${e}).f)`),
      fc.tuple(tie("expr"), tie("expr")).map(([k, v]) => `{${k}: ${v}}`),
      fc.tuple(tie("expr"), tie("expr")).map(([a, b]) => `[${a}, ?${b}]`),
      tie("expr").map((e) => `Object.spec{f: ${e}, ?g: ${e}}`),
      tie("expr").map((e) => `(${e}).?f[?0]`),
      tie("expr").map((e) => `cel.bind(v, ${e}, v)`),
    ),
  }));
  it("parse → unparse → parse is the identity on debug ASTs", () => {
    let checked = 0;
    fc.assert(
      fc.property(expr, (src) => {
        let p;
        try {
          p = parse(src, OPTS);
        } catch {
          return; // generated text that is not valid CEL (e.g. has() of a non-select)
        }
        checked++;
        const printed = unparse(p.expr, p.sourceInfo);
        expect(toDebugString(toProtoExpr(parse(printed, OPTS).expr)), printed).toBe(toDebugString(toProtoExpr(p.expr)));
      }),
      { numRuns: 4000, seed: 7 },
    );
    expect(checked).toBeGreaterThan(2000);
  });
});
