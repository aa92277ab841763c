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
import {
  getComprehensionSuite,
  getConformanceSuite,
  getParsingSuite,
  type IncrementalTest,
  type IncrementalTestSuite,
} from "@bufbuild/cel-spec/testdata/tests.js";
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

describe("conformance suite ASTs (same parser options)", () => {
  it("parses every conformance expression that has an AST to exactly that AST", () => {
    const tests = flatten(getConformanceSuite());
    let n = 0;
    const failures: string[] = [];
    for (const t of tests) {
      if (t.ast === undefined) continue;
      n++;
      try {
        const got = toDebugString(toProtoExpr(parse(t.original.expr, SUITE_OPTIONS).expr), KindAdorner.singleton);
        if (got !== t.ast) failures.push(t.original.expr);
      } catch (e) {
        failures.push(`${t.original.expr}: ${String(e)}`);
      }
    }
    console.log(`conformance suite: ${n - failures.length}/${n} ASTs`);
    expect(n).toBeGreaterThan(2000);
    expect(failures).toEqual([]);
  });
});

// ---------------------------------------------------------------------------
// Helpers for our own tables

/** cel-go's debug format without adornments. */
function debug(e: Expr): string {
  return toDebugString(toProtoExpr(e));
}

function parseAll(src: string, extra: ParseOptions = {}): ParsedExpr {
  return parse(src, { ...ALL, ...extra });
}

/** The error text of a failed parse (fails the test if it parsed). */
function errorOf(src: string, options: ParseOptions = {}): string {
  try {
    parse(src, options);
  } catch (e) {
    expect(e).toBeInstanceOf(CelCompileError);
    return (e as CelCompileError).message;
  }
  throw new Error(`expected ${JSON.stringify(src)} not to parse`);
}

function constOf(src: string): unknown {
  const e = parse(src).expr;
  if (e.kind !== "const") throw new Error(`not a constant: ${debug(e)}`);
  return e.value.kind === "null" ? null : e.value.value;
}

function walk(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  switch (e.kind) {
    case "select":
      walk(e.operand, visit);
      break;
    case "call":
      if (e.target) walk(e.target, visit);
      for (const a of e.args) walk(a, visit);
      break;
    case "list":
      for (const x of e.elements) walk(x, visit);
      break;
    case "map":
      for (const en of e.entries) {
        walk(en.key, visit);
        walk(en.value, visit);
      }
      break;
    case "struct":
      for (const f of e.fields) walk(f.value, visit);
      break;
    case "comprehension":
      for (const x of [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result]) walk(x, visit);
      break;
    default:
  }
}

// ---------------------------------------------------------------------------

describe("literals", () => {
  it.each([
    ["0", 0n],
    ["42", 42n],
    ["007", 7n],
    ["0x1F", 31n],
    ["-0x8000000000000000", -(1n << 63n)],
    ["9223372036854775807", (1n << 63n) - 1n],
    ["-9223372036854775808", -(1n << 63n)],
    ["18446744073709551615u", (1n << 64n) - 1n],
    ["0xFFFFFFFFFFFFFFFFu", (1n << 64n) - 1n],
    ["1U", 1n],
    ["1.5", 1.5],
    [".5", 0.5],
    ["1e3", 1000],
    ["1E-3", 0.001],
    ["2.5e+2", 250],
    ["-4.1", -4.1],
    ["1e-400", 0],
    ["true", true],
    ["false", false],
    ["null", null],
  ] as const)("%s", (src, value) => {
    expect(constOf(src)).toBe(value);
  });

  it("keeps uint distinct from int", () => {
    const e = parse("1u").expr;
    expect(e.kind === "const" && e.value.kind).toBe("uint");
  });

  it.each([
    ["9223372036854775808", "invalid int literal"],
    ["-9223372036854775809", "invalid int literal"],
    ["0x8000000000000000", "invalid int literal"],
    ["18446744073709551616u", "invalid uint literal"],
    ["1e309", "invalid double literal"],
    ["-1e309", "invalid double literal"],
  ])("rejects %s", (src, message) => {
    expect(errorOf(src)).toContain(`ERROR: <input>:1:1: ${message}`);
  });

  it("folds the sign into numeric literals like cel-go", () => {
    expect(debug(parse("-1").expr)).toBe("-1");
    expect(debug(parse("- 1").expr)).toBe("-1");
    expect(debug(parse("--1").expr)).toBe("1");
    expect(debug(parse("---1").expr)).toBe("-_(\n  1\n)");
    expect(debug(parse("-(1)").expr)).toBe("-_(\n  1\n)");
    expect(debug(parse("-1u").expr)).toBe("-_(\n  1u\n)");
    expect(debug(parse("4--4").expr)).toBe("_-_(\n  4,\n  -4\n)");
    expect(debug(parse("-1.abs()").expr)).toBe("-1.abs()");
    expect(debug(parse("!!true").expr)).toBe("true");
    expect(debug(parse("!!!a").expr)).toBe("!_(\n  a\n)");
    expect(debug(parse("!-1").expr)).toBe("!_(\n  -1\n)");
    expect(debug(parse("--------------------------------19").expr)).toBe("19");
    expect(errorOf("!-a")).toContain("no viable alternative at input '-a'");
  });

  it("rejects 1. and number-letter runs", () => {
    expect(errorOf("1.")).toContain("Syntax error");
    expect(errorOf("1e")).toContain("Syntax error");
    expect(errorOf("0x")).toContain("Syntax error");
    expect(errorOf("1.5u")).toContain("Syntax error");
  });
});

describe("string and bytes escapes", () => {
  it.each([
    [`"abc"`, "abc"],
    [`'abc'`, "abc"],
    [String.raw`"\101\x41\X41\u0041\U00000041"`, "AAAAA"],
    [String.raw`"\U0001F600"`, "\u{1F600}"],
    [String.raw`"\xff"`, "\u00ff"],
    [String.raw`"\377"`, "\u00ff"],
    [String.raw`"\a\b\f\n\r\t\v\\\'\"\?\`"`, "\x07\b\f\n\r\t\v\\'\"?`"],
    [String.raw`r"\n"`, "\\n"],
    [String.raw`R'\d+'`, "\\d+"],
    [`"""a\nb"""`, "a\nb"],
    [`'''a"b'c'''`, `a"b'c`],
    [`"""a\r\nb\rc"""`, "a\nb\nc"],
    [String.raw`"""a\rb"""`, "a\rb"],
    [String.raw`r"""\x"""`, "\\x"],
    [`"😁"`, "😁"],
    [`""`, ""],
  ])("%s", (src, value) => {
    expect(constOf(src)).toBe(value);
  });

  it.each([
    [`b"abc"`, [97, 98, 99]],
    [String.raw`B'\xff\377\000'`, [255, 255, 0]],
    [`b"ÿ"`, [0xc3, 0xbf]],
    [`b"😁"`, [0xf0, 0x9f, 0x98, 0x81]],
    [String.raw`br"\x"`, [92, 120]],
    [String.raw`b"\n\t"`, [10, 9]],
  ])("%s", (src, bytes) => {
    expect([...(constOf(src) as Uint8Array)]).toEqual(bytes);
  });

  it.each([
    [String.raw`"\q"`, "token recognition error at: '\"\\q'"],
    [String.raw`"\x4"`, "token recognition error"],
    [String.raw`"\400"`, "token recognition error"],
    [`"abc`, "token recognition error"],
    [`"a\nb"`, "token recognition error"],
    [String.raw`"\ud800"`, "invalid unicode code point"],
    [String.raw`"\U00110000"`, "invalid unicode code point"],
    [String.raw`b"\u0041"`, "unable to unescape string"],
  ])("rejects %s", (src, message) => {
    expect(errorOf(src)).toContain(message);
  });
});

describe("reserved words", () => {
  const reserved = "as break const continue else for function if import let loop package namespace return var void while".split(" ");
  it.each(reserved)("%s is not an identifier", (w) => {
    expect(errorOf(w)).toContain(`reserved identifier: ${w}`);
    expect(errorOf(`${w}(1)`)).toContain(`reserved identifier: ${w}`);
  });
  it("allows reserved words as field and function names on a receiver", () => {
    expect(debug(parse("a.var").expr)).toBe("a.var");
    expect(debug(parse("a.as()").expr)).toBe("a.as()");
    expect(debug(parse("T{if: 1}").expr)).toBe("T{\n  if:1\n}");
  });
  it("rejects in, true, false, null as names", () => {
    expect(errorOf("in")).toContain("mismatched input 'in'");
    expect(errorOf("a.in")).toContain("Syntax error");
    expect(errorOf("self.true == 1")).toContain(
      "ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER",
    );
  });
});

describe("grammar", () => {
  it("builds balanced trees for chains of one logical operator", () => {
    expect(debug(parse("a || b || c || d").expr)).toBe("_||_(\n  _||_(\n    a,\n    b\n  ),\n  _||_(\n    c,\n    d\n  )\n)");
  });
  it("parses precedence and associativity", () => {
    expect(debug(parse("a - b - c").expr)).toBe("_-_(\n  _-_(\n    a,\n    b\n  ),\n  c\n)");
    expect(debug(parse("a < b == c").expr)).toBe("_==_(\n  _<_(\n    a,\n    b\n  ),\n  c\n)");
    expect(debug(parse("a in b && c").expr)).toBe("_&&_(\n  @in(\n    a,\n    b\n  ),\n  c\n)");
    expect(debug(parse("a ? b : c ? d : e").expr)).toBe("_?_:_(\n  a,\n  b,\n  _?_:_(\n    c,\n    d,\n    e\n  )\n)");
    expect(errorOf("a ? b ? c : d : e")).toContain("Syntax error");
  });
  it("parses message construction with qualified and root-scoped names", () => {
    const m = parse('Object.spec.containers{name: "x", image: "y",}').expr;
    expect(m.kind === "struct" && m.typeName).toBe("Object.spec.containers");
    const w = parse(".google.protobuf.Int64Value{value: 1}").expr;
    expect(w.kind === "struct" && w.typeName).toBe(".google.protobuf.Int64Value");
    expect(debug(parse(".a.b").expr)).toBe(".a.b");
    expect(debug(parse(".f(1)").expr)).toBe(".f(\n  1\n)");
  });
  it("accepts trailing commas and empty aggregates", () => {
    expect(debug(parse("[1, 2,]").expr)).toBe("[\n  1,\n  2\n]");
    expect(debug(parse("{1: 2,}").expr)).toBe("{\n  1:2\n}");
    expect(debug(parse("[]").expr)).toBe("[]");
    expect(debug(parse("{}").expr)).toBe("{}");
    expect(errorOf("f(1,)")).toContain("Syntax error");
  });
  it("skips comments and whitespace", () => {
    expect(debug(parse("a // comment\n + b").expr)).toBe("_+_(\n  a,\n  b\n)");
    expect(debug(parse("\t\r\n\fa").expr)).toBe("a");
  });
  it("rejects garbage with cel-go's messages", () => {
    expect(errorOf("1 + $", { description: "" })).toBe(
      "ERROR: :1:5: Syntax error: token recognition error at: '$'\n | 1 + $\n | ....^\n" +
        "ERROR: :1:6: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 + $\n | .....^",
    );
    expect(errorOf("a b")).toContain("ERROR: <input>:1:3: Syntax error: extraneous input 'b' expecting <EOF>");
    expect(errorOf("(a")).toContain("ERROR: <input>:1:3: Syntax error: missing ')' at '<EOF>'");
    expect(errorOf("f(a, b")).toContain("missing ')' at '<EOF>'");
    expect(errorOf("a[0")).toContain("missing ']' at '<EOF>'");
    expect(errorOf("[(a")).toContain("mismatched input '<EOF>' expecting ')'");
    expect(errorOf("[1, 2")).toContain("mismatched input '<EOF>' expecting {']', ','}");
    expect(errorOf("a ? b")).toContain("mismatched input '<EOF>' expecting ':'");
    expect(errorOf("")).toContain("mismatched input '<EOF>'");
  });
});

describe("positions", () => {
  it("records a position for every node, with unique positive ids", () => {
    const p = parse("a.b(c) + [1, {2: x}][0].f", { macros: new Set(["standard"]) });
    const ids = new Set<number>();
    walk(p.expr, (e) => {
      expect(e.id).toBeGreaterThan(0);
      expect(ids.has(e.id)).toBe(false);
      ids.add(e.id);
      expect(p.sourceInfo.positions.has(e.id)).toBe(true);
    });
  });
  it("places nodes where cel-go places them", () => {
    const p = parse("a.b(c)");
    const e = p.expr;
    if (e.kind !== "call" || e.target === undefined) throw new Error("not a member call");
    expect(p.sourceInfo.positions.get(e.target.id)).toBe(0); // a
    expect(p.sourceInfo.positions.get(e.id)).toBe(3); // the '(' of the call
    expect(p.sourceInfo.positions.get((e.args[0] as Expr).id)).toBe(4); // c
    const h = parse("has(m.f)", { macros: new Set(["standard"]) });
    expect(h.sourceInfo.positions.get(h.expr.id)).toBe(3); // the expansion sits at the macro call
  });
  it("numbers nodes in cel-go's order", () => {
    // Expected strings from cel-go's parser_test.go (ids and kinds), whitespace-insensitive.
    const idAdorner = {
      GetMetadata: (m: Parameters<typeof KindAdorner.singleton.GetMetadata>[0]) =>
        `^#${String((m as unknown as { id: bigint }).id)}:${KindAdorner.singleton.GetMetadata(m).slice(2)}`,
    };
    const show = (src: string, o: ParseOptions = ALL) =>
      toDebugString(toProtoExpr(parse(src, o).expr), idAdorner).replace(/\s+/g, "");
    const cases: [string, string][] = [
      ["a?b:c", "_?_:_(a^#1:*expr.Expr_IdentExpr#,b^#3:*expr.Expr_IdentExpr#,c^#4:*expr.Expr_IdentExpr#)^#2:*expr.Expr_CallExpr#"],
      [
        "a && b && c && d || e && f && g && h",
        "_||_(_&&_(_&&_(a^#1:*expr.Expr_IdentExpr#,b^#2:*expr.Expr_IdentExpr#)^#3:*expr.Expr_CallExpr#," +
          "_&&_(c^#4:*expr.Expr_IdentExpr#,d^#6:*expr.Expr_IdentExpr#)^#7:*expr.Expr_CallExpr#)^#5:*expr.Expr_CallExpr#," +
          "_&&_(_&&_(e^#8:*expr.Expr_IdentExpr#,f^#9:*expr.Expr_IdentExpr#)^#10:*expr.Expr_CallExpr#," +
          "_&&_(g^#11:*expr.Expr_IdentExpr#,h^#13:*expr.Expr_IdentExpr#)^#14:*expr.Expr_CallExpr#)^#12:*expr.Expr_CallExpr#)^#15:*expr.Expr_CallExpr#",
      ],
      [
        "{a:b, c:d}",
        "{a^#3:*expr.Expr_IdentExpr#:b^#4:*expr.Expr_IdentExpr#^#2:*expr.Expr_CreateStruct_Entry#," +
          "c^#6:*expr.Expr_IdentExpr#:d^#7:*expr.Expr_IdentExpr#^#5:*expr.Expr_CreateStruct_Entry#}^#1:*expr.Expr_StructExpr#",
      ],
      [
        'SomeMessage{foo: 5, bar: "xyz"}',
        "SomeMessage{foo:5^#3:*expr.Constant_Int64Value#^#2:*expr.Expr_CreateStruct_Entry#," +
          'bar:"xyz"^#5:*expr.Constant_StringValue#^#4:*expr.Expr_CreateStruct_Entry#}^#1:*expr.Expr_StructExpr#',
      ],
      ["has(m.f)", "m^#2:*expr.Expr_IdentExpr#.f~test-only~^#4:*expr.Expr_SelectExpr#"],
      [
        "m.map(v, p, f)",
        "__comprehension__(//Variablev,//Targetm^#1:*expr.Expr_IdentExpr#,//Accumulator@result,//Init[]^#6:*expr.Expr_ListExpr#," +
          "//LoopConditiontrue^#7:*expr.Constant_BoolValue#,//LoopStep_?_:_(p^#4:*expr.Expr_IdentExpr#," +
          "_+_(@result^#8:*expr.Expr_IdentExpr#,[f^#5:*expr.Expr_IdentExpr#]^#9:*expr.Expr_ListExpr#)^#10:*expr.Expr_CallExpr#," +
          "@result^#11:*expr.Expr_IdentExpr#)^#12:*expr.Expr_CallExpr#,//Result@result^#13:*expr.Expr_IdentExpr#)^#14:*expr.Expr_ComprehensionExpr#",
      ],
      [
        "x.filter(y, y.filter(z, z > 0))",
        "__comprehension__(//Variabley,//Targetx^#1:*expr.Expr_IdentExpr#,//Accumulator@result,//Init[]^#19:*expr.Expr_ListExpr#," +
          "//LoopConditiontrue^#20:*expr.Constant_BoolValue#,//LoopStep_?_:_(__comprehension__(//Variablez,//Targety^#4:*expr.Expr_IdentExpr#," +
          "//Accumulator@result,//Init[]^#10:*expr.Expr_ListExpr#,//LoopConditiontrue^#11:*expr.Constant_BoolValue#,//LoopStep" +
          "_?_:_(_>_(z^#7:*expr.Expr_IdentExpr#,0^#9:*expr.Constant_Int64Value#)^#8:*expr.Expr_CallExpr#," +
          "_+_(@result^#12:*expr.Expr_IdentExpr#,[z^#6:*expr.Expr_IdentExpr#]^#13:*expr.Expr_ListExpr#)^#14:*expr.Expr_CallExpr#," +
          "@result^#15:*expr.Expr_IdentExpr#)^#16:*expr.Expr_CallExpr#,//Result@result^#17:*expr.Expr_IdentExpr#)^#18:*expr.Expr_ComprehensionExpr#," +
          "_+_(@result^#21:*expr.Expr_IdentExpr#,[y^#3:*expr.Expr_IdentExpr#]^#22:*expr.Expr_ListExpr#)^#23:*expr.Expr_CallExpr#," +
          "@result^#24:*expr.Expr_IdentExpr#)^#25:*expr.Expr_CallExpr#,//Result@result^#26:*expr.Expr_IdentExpr#)^#27:*expr.Expr_ComprehensionExpr#",
      ],
      [
        "a.?b[?0] && a[?c]",
        '_&&_(_[?_](_?._(a^#1:*expr.Expr_IdentExpr#,"b"^#2:*expr.Constant_StringValue#)^#3:*expr.Expr_CallExpr#,' +
          "0^#5:*expr.Constant_Int64Value#)^#4:*expr.Expr_CallExpr#,_[?_](a^#6:*expr.Expr_IdentExpr#,c^#8:*expr.Expr_IdentExpr#)^#7:*expr.Expr_CallExpr#)^#9:*expr.Expr_CallExpr#",
      ],
      [
        "{?'key': value}",
        '{?"key"^#3:*expr.Constant_StringValue#:value^#4:*expr.Expr_IdentExpr#^#2:*expr.Expr_CreateStruct_Entry#}^#1:*expr.Expr_StructExpr#',
      ],
    ];
    for (const [src, want] of cases) expect(show(src), src).toBe(want);
  });

  it("counts code points, not UTF-16 units", () => {
    const p = parse("'😁😁' + x");
    const e = p.expr;
    if (e.kind !== "call") throw new Error("not a call");
    expect(p.sourceInfo.positions.get((e.args[1] as Expr).id)).toBe(7);
    expect(p.sourceInfo.positions.get(e.id)).toBe(5);
    expect(errorOf("'😁' + $")).toContain("ERROR: <input>:1:7: Syntax error: token recognition error at: '$'");
  });
  it("computes line offsets and 1-based line:column in errors", () => {
    const p = parse("a\n&& b\n&& c");
    expect(p.sourceInfo.lineOffsets).toEqual([2, 7]);
    expect(p.sourceInfo.text).toBe("a\n&& b\n&& c");
    expect(p.sourceInfo.description).toBe("<input>");
    let err: CelCompileError | undefined;
    try {
      parse("a &&\n  b +\n    $", { description: "expr.cel" });
    } catch (e) {
      err = e as CelCompileError;
    }
    expect(err?.issues[0]).toMatchObject({ line: 3, column: 5, offset: 15 });
    expect(err?.message.startsWith("ERROR: expr.cel:3:5: Syntax error: token recognition error at: '$'")).toBe(true);
  });
});

describe("limits", () => {
  it("enforces the expression size limit in code points", () => {
    expect(errorOf("foo", { expressionSizeCodePointLimit: 2 })).toBe(
      "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 3, limit 2",
    );
    expect(() => parse("'😁😁'", { expressionSizeCodePointLimit: 4 })).not.toThrow();
    expect(errorOf("'😁😁😁'", { expressionSizeCodePointLimit: 4 })).toContain("size: 5, limit 4");
    expect(() => parse("x".repeat(100_000))).not.toThrow();
    expect(errorOf("x".repeat(100_001))).toContain("size: 100001, limit 100000");
  });
  it("enforces the nesting limit (default 250)", () => {
    const nested = (n: number) => `${"[".repeat(n)}1${"]".repeat(n)}`;
    expect(() => parse(nested(249))).not.toThrow();
    expect(errorOf(nested(250))).toBe("ERROR: <input>:-1:0: expression recursion limit exceeded: 250");
    expect(errorOf(nested(32), { maxRecursionDepth: 32 })).toContain("expression recursion limit exceeded: 32");
    expect(() => parse(nested(600), { maxRecursionDepth: -1 })).not.toThrow();
  });
  it("enforces the operator depth limit", () => {
    const chain = (n: number) => Array.from({ length: n + 1 }, (_, i) => String(i)).join(" + ");
    expect(() => parse(chain(250))).not.toThrow();
    expect(errorOf(chain(251))).toBe("ERROR: <input>:-1:0: max recursion depth exceeded");
    expect(errorOf(`a${".b".repeat(33)}`, { maxRecursionDepth: 32 })).toContain("max recursion depth exceeded");
  });
  it("never overflows the stack, even without limits", () => {
    const deep = `${"(".repeat(200_000)}1${")".repeat(200_000)}`;
    expect(errorOf(deep, { maxRecursionDepth: -1, expressionSizeCodePointLimit: -1 })).toContain("recursion");
  });
});

describe("optional syntax", () => {
  it.each([
    ["a.?b", "ERROR: <input>:1:2: unsupported syntax '.?'"],
    ["a[?b]", "ERROR: <input>:1:2: unsupported syntax '[?'"],
    ["[?a]", "ERROR: <input>:1:2: unsupported syntax '?'"],
    ["{?'k': v}", "ERROR: <input>:1:2: unsupported syntax '?'"],
    ["T{?f: v}", "ERROR: <input>:1:3: unsupported syntax '?'"],
  ])("%s is an error without the option", (src, message) => {
    expect(errorOf(src, { macros: new Set(["standard"]) })).toContain(message);
  });

  it("parses the optional forms with the option", () => {
    expect(debug(parseAll("a.?b").expr)).toBe('_?._(\n  a,\n  "b"\n)');
    expect(debug(parseAll("a[?b]").expr)).toBe("_[?_](\n  a,\n  b\n)");
    const list = parseAll("[a, ?b, ?c]").expr;
    expect(list.kind === "list" && list.optionalIndices).toEqual([1, 2]);
    const map = parseAll("{'k': v, ?'o': w}").expr;
    expect(map.kind === "map" && map.entries.map((e) => e.optional)).toEqual([false, true]);
    const msg = parseAll("T{f: v, ?g: w}").expr;
    expect(msg.kind === "struct" && msg.fields.map((f) => [f.field, f.optional])).toEqual([
      ["f", false],
      ["g", true],
    ]);
    expect(debug(parseAll("a.?b.c[?0]").expr)).toBe('_[?_](\n  _?._(\n    a,\n    "b"\n  ).c,\n  0\n)');
  });
});

describe("escaped identifiers", () => {
  it("are rejected by default", () => {
    expect(errorOf("a.`b-c`")).toContain("ERROR: <input>:1:3: unsupported syntax: '`'");
    expect(errorOf("Message{`in`: true}")).toContain("ERROR: <input>:1:9: unsupported syntax: '`'");
  });
  it("name fields when enabled", () => {
    const opts = { enableIdentEscapeSyntax: true };
    const s = parse("a.`b-c`", opts).expr;
    expect(s.kind === "select" && s.field).toBe("b-c");
    expect(debug(parse("a.`b.c`.`in`", opts).expr)).toBe("a.b.c.in");
    const m = parse("Message{`in`: true, `/x y`: 1}", opts).expr;
    expect(m.kind === "struct" && m.fields.map((f) => f.field)).toEqual(["in", "/x y"]);
    expect(errorOf("`b-c`", opts)).toContain("Syntax error");
    expect(errorOf("a.`b`()", opts)).toContain("Syntax error");
  });
});

describe("macros", () => {
  const STD = { macros: new Set(["standard"] as const) } satisfies ParseOptions;

  it("are plain calls when not enabled", () => {
    expect(debug(parse("has(a.b)").expr)).toBe("has(\n  a.b\n)");
    expect(debug(parse("[1].all(x, x > 0)").expr)).toContain(".all(");
    expect(debug(parse("[1].all(i, v, v > 0)", STD).expr)).toContain(".all(");
    expect(debug(parse("cel.bind(x, 1, x)", STD).expr)).toBe("cel.bind(\n  x,\n  1,\n  x\n)");
  });

  it("expands has() to a presence test", () => {
    const e = parse("has(a.b.c)", STD).expr;
    expect(e.kind === "select" && e.testOnly && e.field).toBe("c");
    expect(errorOf("has(a)", STD)).toContain("ERROR: <input>:1:5: invalid argument to has() macro");
    expect(errorOf("has(a[0])", STD)).toContain("invalid argument to has() macro");
  });

  it.each([
    ["1.all(2, 3)", "ERROR: <input>:1:7: argument must be a simple name"],
    ["[].exists(a.b, true)", "argument must be a simple name"],
    ["m.map(a.b, 1)", "argument is not an identifier"],
    ["m.filter(1, true)", "argument is not an identifier"],
    ["m.all(@result, true)", "Syntax error"],
    ["m.all(__result__, true)", "iteration variable overwrites accumulator variable"],
    ["m.map(__result__, 1)", "iteration variable overwrites accumulator variable"],
  ])("reports %s", (src, message) => {
    expect(errorOf(src, STD)).toContain(message);
  });

  it("expands the standard macros with @result and @not_strictly_false", () => {
    const e = parse("[1, 2].exists_one(x, x > 1)", STD).expr;
    if (e.kind !== "comprehension") throw new Error("not expanded");
    expect(e.iterVar).toBe("x");
    expect(e.iterVar2).toBeUndefined();
    expect(e.accuVar).toBe("@result");
    expect(debug(e.result)).toBe("_==_(\n  @result,\n  1\n)");
    const all = parse("l.all(x, x)", STD).expr;
    expect(all.kind === "comprehension" && debug(all.loopCondition)).toBe("@not_strictly_false(\n  @result\n)");
  });

  it("records each expansion's macro call, nested ones by reference", () => {
    const p = parse("[[1]].all(x, x.exists(y, y > 0))", STD);
    const outer = p.expr;
    if (outer.kind !== "comprehension") throw new Error("not expanded");
    const call = p.sourceInfo.macroCalls.get(outer.id);
    expect(call?.kind === "call" && call.fn).toBe("all");
    expect(call?.kind === "call" && call.target?.kind).toBe("list");
    expect(p.sourceInfo.macroCalls.size).toBe(2);
    const proto = toProtoParsedExpr(p);
    const outerCall = proto.sourceInfo?.macroCalls[String(outer.id)];
    const arg = outerCall?.exprKind.case === "callExpr" ? outerCall.exprKind.value.args[1] : undefined;
    expect(arg?.exprKind.case).toBeUndefined(); // a bare reference to the inner expansion
    expect(arg !== undefined && p.sourceInfo.macroCalls.has(Number(arg.id))).toBe(true);
  });

  it("expands two-variable comprehensions", () => {
    const e = parseAll("m.all(k, v, v > 0)").expr;
    if (e.kind !== "comprehension") throw new Error("not expanded");
    expect([e.iterVar, e.iterVar2, e.accuVar]).toEqual(["k", "v", "@result"]);
    expect(debug(e)).toBe(
      "__comprehension__(\n  // Variable\n  k,\n  // Target\n  m,\n  // Accumulator\n  @result,\n  // Init\n  true,\n" +
        "  // LoopCondition\n  @not_strictly_false(\n    @result\n  ),\n  // LoopStep\n  _&&_(\n    @result,\n    _>_(\n      v,\n      0\n    )\n  ),\n" +
        "  // Result\n  @result)",
    );
    for (const m of ["exists", "existsOne", "exists_one"]) {
      const x = parseAll(`m.${m}(k, v, v > 0)`).expr;
      expect(x.kind === "comprehension" && x.iterVar2).toBe("v");
    }
  });

  it("expands transformList, transformMap and transformMapEntry", () => {
    const tl = parseAll("l.transformList(i, v, v * 2)").expr;
    expect(tl.kind === "comprehension" && debug(tl.loopStep)).toBe(
      "_+_(\n  @result,\n  [\n    _*_(\n      v,\n      2\n    )\n  ]\n)",
    );
    const tlf = parseAll("l.transformList(i, v, i > 0, v)").expr;
    expect(tlf.kind === "comprehension" && debug(tlf.loopStep)).toBe(
      "_?_:_(\n  _>_(\n    i,\n    0\n  ),\n  _+_(\n    @result,\n    [\n      v\n    ]\n  ),\n  @result\n)",
    );
    const tm = parseAll("m.transformMap(k, v, v + 1)").expr;
    expect(tm.kind === "comprehension" && debug(tm.accuInit)).toBe("{}");
    expect(tm.kind === "comprehension" && debug(tm.loopStep)).toBe(
      "cel.@mapInsert(\n  @result,\n  k,\n  _+_(\n    v,\n    1\n  )\n)",
    );
    const te = parseAll("m.transformMapEntry(k, v, {v: k})").expr;
    expect(te.kind === "comprehension" && debug(te.loopStep)).toBe("cel.@mapInsert(\n  @result,\n  {\n    v:k\n  }\n)");
    const tef = parseAll("m.transformMapEntry(k, v, k != '', {v: k})").expr;
    expect(tef.kind === "comprehension" && debug(tef.loopStep).startsWith("_?_:_(")).toBe(true);
  });

  it.each([
    ["m.all(k, k, true)", "ERROR: <input>:1:10: duplicate variable name: k"],
    ["m.transformList(a.b, v, v)", "argument must be a simple name"],
    ["m.transformMap(k, 1, v)", "argument must be a simple name"],
    ["m.exists(__result__, v, true)", "iteration variable overwrites accumulator variable"],
    ["cel.bind(a.b, 1, 2)", "cel.bind() variable names must be simple identifiers"],
    ["x.optMap(y.z, y.z + 1)", "optMap() variable name must be a simple identifier"],
    ["x.optFlatMap(1, 2)", "optFlatMap() variable name must be a simple identifier"],
  ])("reports %s", (src, message) => {
    expect(errorOf(src, ALL)).toContain(message);
  });

  it("expands cel.bind as cel-go does", () => {
    expect(debug(parseAll("cel.bind(t, true, t)").expr)).toBe(
      "__comprehension__(\n  // Variable\n  #unused,\n  // Target\n  [],\n  // Accumulator\n  t,\n  // Init\n  true,\n" +
        "  // LoopCondition\n  false,\n  // LoopStep\n  t,\n  // Result\n  t)",
    );
    expect(debug(parseAll("x.bind(t, true, t)").expr)).toBe("x.bind(\n  t,\n  true,\n  t\n)");
  });

  it("expands optMap and optFlatMap as cel-go does", () => {
    expect(debug(parseAll("x.optMap(y, y + 1)").expr)).toBe(
      "_?_:_(\n  x.hasValue(),\n  optional.of(\n    __comprehension__(\n      // Variable\n      #unused,\n      // Target\n      [],\n" +
        "      // Accumulator\n      y,\n      // Init\n      x.value(),\n      // LoopCondition\n      false,\n      // LoopStep\n      y,\n" +
        "      // Result\n      _+_(\n        y,\n        1\n      ))\n  ),\n  optional.none()\n)",
    );
    const flat = parseAll("x.optFlatMap(y, f(y))").expr;
    expect(flat.kind === "call" && flat.args[1]?.kind).toBe("comprehension");
    // The target is copied with fresh ids for value().
    const p = parseAll("a.b.optMap(y, y)");
    const ids = new Set<number>();
    walk(p.expr, (e) => {
      expect(ids.has(e.id)).toBe(false);
      ids.add(e.id);
    });
  });
});

describe("robustness", () => {
  const onlyCompileErrors = (src: string, options: ParseOptions) => {
    try {
      parse(src, options);
    } catch (e) {
      if (!(e instanceof CelCompileError)) throw e;
      expect(e.issues.length).toBeGreaterThan(0);
    }
  };
  const fragments = [
    "a", "b1", "_x", "1", "0x1F", "2u", "1.5", ".5", "1e3", "'s'", '"s"', "'''t'''", 'r"r"', 'b"b"', "true", "null",
    "in", "var", "has", "all", "map", "cel", "bind", "optMap", "exists", "transformMap",
    "(", ")", "[", "]", "{", "}", ".", ",", ":", "?", "!", "-", "+", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=",
    "&&", "||", "`a-b`", "\\", "'", '"', "$", "@", "#", "😁", "\n", " ", "// c\n", "\u0000", "\ud800",
  ];
  const soup = fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((a) => a.join(""));
  const options = fc.record({
    macros: fc.constantFrom(undefined, new Set(["standard"] as const), ALL.macros),
    enableOptionalSyntax: fc.boolean(),
    enableIdentEscapeSyntax: fc.boolean(),
    maxRecursionDepth: fc.constantFrom(undefined, 3, 32, -1),
  });

  it("never throws anything but CelCompileError on random strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), options, (s, o) => onlyCompileErrors(s, o)),
      { numRuns: 3000 },
    );
  });
  it("never throws anything but CelCompileError on token soup", () => {
    fc.assert(fc.property(soup, options, (s, o) => onlyCompileErrors(s, o)), { numRuns: 5000 });
  });
  it("assigns unique ids with positions to every parsed tree", () => {
    fc.assert(
      fc.property(soup, (s) => {
        let p: ParsedExpr;
        try {
          p = parse(s, ALL);
        } catch {
          return;
        }
        const ids = new Set<number>();
        walk(p.expr, (e) => {
          expect(ids.has(e.id)).toBe(false);
          ids.add(e.id);
          expect(p.sourceInfo.positions.get(e.id)).toBeGreaterThanOrEqual(0);
        });
      }),
      { numRuns: 3000 },
    );
  });
});

describe("accuRefs (accumulator references a macro expansion made itself)", () => {
  const opts: ParseOptions = { macros: new Set(["standard", "twoVar", "bind"]) };
  const comprehensions = (e: Expr, out: Expr[] = []): Expr[] => {
    if (e.kind === "comprehension") {
      out.push(e);
      for (const x of [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result]) comprehensions(x, out);
    } else if (e.kind === "call") {
      if (e.target !== undefined) comprehensions(e.target, out);
      for (const a of e.args) comprehensions(a, out);
    } else if (e.kind === "select") comprehensions(e.operand, out);
    else if (e.kind === "list") for (const x of e.elements) comprehensions(x, out);
    return out;
  };
  const refs = (src: string): (number | undefined)[] =>
    comprehensions(parse(src, opts).expr).map((c) => (c.kind === "comprehension" ? c.accuRefs : undefined));

  it("counts the expander's own references", () => {
    expect(refs("[1].map(x, x + 1)")).toEqual([2]);
    expect(refs("[1].map(x, x > 0, x)")).toEqual([3]);
    expect(refs("[1].filter(x, x > 0)")).toEqual([3]);
    expect(refs("[1].exists(x, x > 0)")).toEqual([3]);
    expect(refs("[1].all(x, x > 0)")).toEqual([3]);
    expect(refs("{1: 2}.transformList(k, v, v)")).toEqual([2]);
  });

  it("is unknown when an argument holds another expansion over the accumulator", () => {
    expect(refs("[[1]].map(x, x.map(y, y))")).toEqual([-1, 2]);
    expect(refs("[1].exists(x, [x].all(y, y > 0))")).toEqual([-1, 3]);
    // The target is the range: an expansion there does not count.
    expect(refs("[1].map(x, x).exists(y, y > 0)")).toEqual([3, 2]);
    // cel.bind's accumulator is the bound name.
    expect(refs("cel.bind(a, 1, [a].map(x, x))")).toEqual([-1, 2]);
  });
});
