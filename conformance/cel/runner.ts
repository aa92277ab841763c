/**
 * Runs the official CEL conformance suite (`@bufbuild/cel-spec`'s
 * `getConformanceSuite()`) and cel-go's parser tests (`getParsingSuite()`)
 * against celmap's CEL engine.
 *
 * Each conformance case: build an Env (container, declared variables and
 * functions, every library we have, the protobuf type provider), parse (without
 * macros when the case says so), check unless `disableCheck`, compare the checked
 * type for `typedResult`, stop for `checkOnly`, plan, evaluate with the bindings,
 * and compare with the expected value (type-exact, see `valuesMatch`) or expect
 * an evaluation error. Anything thrown that is not a CEL error is a failure with
 * its message, never an abort.
 */
import { getConformanceSuite, getParsingSuite, type IncrementalTest, type IncrementalTestSuite } from "@bufbuild/cel-spec/testdata/tests.js";
import { KindAdorner, toDebugString } from "@bufbuild/cel-spec/testdata/to-debug-string.js";
import type { ParsedExpr } from "../../src/cel/ast.js";
import type { CheckedExpr } from "../../src/cel/checked.js";
import type { Library } from "../../src/cel/decls.js";
import { TWO_VAR_COMPREHENSIONS_LIBRARY } from "../../src/cel/ext/comprehensions.js";
import { ENCODERS_LIBRARY } from "../../src/cel/ext/encoders.js";
import { LISTS_LATEST_VERSION, listsLibrary } from "../../src/cel/ext/lists.js";
import { MATH_LATEST_VERSION, mathLibrary } from "../../src/cel/ext/math.js";
import { OPTIONAL_LIBRARY } from "../../src/cel/ext/optionals.js";
import { SETS_LIBRARY } from "../../src/cel/ext/sets.js";
import { STRINGS_LATEST_VERSION, stringsLibrary } from "../../src/cel/ext/strings.js";
import { Env } from "../../src/cel/env.js";
import { CelCompileError, CelEvalError } from "../../src/cel/errors.js";
import { parse } from "../../src/cel/parser.js";
import type { CelValue } from "../../src/cel/values.js";
import { describeError, type Outcome, type Suite, type SuiteCase } from "../suite.js";
import { CEL_KNOWN_FAILURES, CEL_PARSE_KNOWN_FAILURES } from "./known-failures.js";
import { ProtoTypeProvider } from "./proto-types.js";
import { bindingFromProto, declsFromProto, formatValue, typeFromProto, typesMatch, valueFromProto, valuesMatch } from "./values.js";

/** The sections of the conformance suite the bar (97%) applies to. */
export const REQUIRED_SECTIONS: readonly string[] = [
  "basic",
  "comparisons",
  "conversions",
  "dynamic",
  "fields",
  "fp_math",
  "integer_math",
  "lists",
  "logic",
  "macros",
  "macros2",
  "namespace",
  "optionals",
  "parse",
  "plumbing",
  "string",
  "string_ext",
  "timestamps",
  "type_deductions",
];

// ---------------------------------------------------------------- libraries

export interface LoadedLibraries {
  readonly libraries: readonly Library[];
  /** A name for each library wired, for the report. */
  readonly found: readonly string[];
  /** Libraries that could not be built, with the error. */
  readonly problems: readonly string[];
}

/**
 * The extension libraries of cel-go's conformance environment that celmap has,
 * each at its latest version (the standard library is always in an Env):
 * strings, lists, sets, math, encoders, optionals, two-variable comprehensions,
 * and the `cel.bind` macro.
 *
 * TODO(ext): not in src/cel/ext yet, so their sections fail (see known-failures.ts):
 *   - cel.block (cel-go's internal `cel.block([...], expr)` with `@index<N>` variables): block_ext
 *   - proto.hasExt / proto.getExt (cel-go ext.Protos() macros): proto2_ext
 *   - a bindings library of its own: until then BINDINGS_MACRO_LIBRARY below enables the parser's `cel.bind`.
 */
export async function loadExtensionLibraries(): Promise<LoadedLibraries> {
  const libraries: Library[] = [];
  const found: string[] = [];
  const problems: string[] = [];
  const add = (name: string, build: () => Library) => {
    try {
      libraries.push(build());
      found.push(name);
    } catch (e) {
      problems.push(`${name}: ${describeError(e)}`);
    }
  };
  add(`strings v${STRINGS_LATEST_VERSION}`, () => stringsLibrary(STRINGS_LATEST_VERSION));
  add(`lists v${LISTS_LATEST_VERSION}`, () => listsLibrary(LISTS_LATEST_VERSION));
  add("sets", () => SETS_LIBRARY);
  add(`math v${MATH_LATEST_VERSION}`, () => mathLibrary(MATH_LATEST_VERSION));
  add("encoders", () => ENCODERS_LIBRARY);
  add("optionals", () => OPTIONAL_LIBRARY);
  add("two-var comprehensions", () => TWO_VAR_COMPREHENSIONS_LIBRARY);
  // cel-go's ext.Bindings() is only the `cel.bind` macro, which the parser expands.
  if (!libraries.some((l) => l.macros?.includes("bind"))) add("cel.bind macro", () => BINDINGS_MACRO_LIBRARY);
  return { libraries, found, problems };
}

/** `cel.bind(name, init, expr)`, as cel-go's `ext.Bindings()`. */
const BINDINGS_MACRO_LIBRARY: Library = { name: "cel.lib.ext.cel.bindings", macros: ["bind"] };

// ---------------------------------------------------------------- conformance cases

export interface CelRunContext {
  readonly provider: ProtoTypeProvider;
  readonly libraries: readonly Library[];
}

function walk(s: IncrementalTestSuite, prefix: string[], out: { path: string[]; test: IncrementalTest }[]): void {
  for (const t of s.tests) out.push({ path: [...prefix, t.name], test: t });
  for (const sub of s.suites) walk(sub, [...prefix, sub.name], out);
}

/** Runs one conformance case to an outcome. Never throws. */
export function runConformanceCase(t: IncrementalTest, ctx: CelRunContext): Outcome {
  const o = t.original;
  const provider = ctx.provider;
  let stage = "setup";
  try {
    const decls = declsFromProto(o.typeEnv, provider);
    const libraries: Library[] = [...ctx.libraries];
    if (decls.functions.length > 0) libraries.push({ name: "conformance.typeEnv", functions: decls.functions });
    // The suite's quoted_fields cases use cel-go's identifier escapes, which its conformance environment enables.
    const env = new Env({
      container: o.container,
      variables: decls.variables,
      libraries,
      typeProvider: provider,
      enableIdentEscapeSyntax: true,
    });

    stage = "parse";
    const parsed: ParsedExpr = o.disableMacros
      ? parse(o.expr, {
          macros: new Set(),
          enableOptionalSyntax: env.optionalSyntax,
          enableIdentEscapeSyntax: true,
          maxRecursionDepth: env.maxRecursionDepth,
          expressionSizeCodePointLimit: env.expressionSizeCodePointLimit,
        })
      : env.parse(o.expr);

    let checked: CheckedExpr | undefined;
    if (!o.disableCheck) {
      stage = "check";
      checked = env.check(parsed);
      const m = o.resultMatcher;
      if (m.case === "typedResult" && m.value.deducedType !== undefined) {
        const want = typeFromProto(m.value.deducedType, provider);
        if (!typesMatch(checked.type, want)) {
          return { ok: false, message: `checked type: expected ${want.toString()}, got ${checked.type.toString()}` };
        }
      }
    }
    if (o.checkOnly) {
      if (o.disableCheck) return { ok: false, message: "checkOnly with disableCheck: nothing to test" };
      return { ok: true };
    }

    stage = "plan";
    const program = env.program(checked ?? parsed);
    const vars: Record<string, CelValue> = {};
    stage = "bindings";
    for (const [name, v] of Object.entries(o.bindings)) vars[name] = bindingFromProto(v, provider);

    stage = "eval";
    let result: CelValue;
    try {
      result = program.eval(vars);
    } catch (e) {
      if (e instanceof CelEvalError) {
        const m = o.resultMatcher;
        if (m.case === "evalError" || m.case === "anyEvalErrors") {
          return { ok: true, note: `expected ${describeExpected(t, provider)}, got error: ${e.message}` };
        }
        return { ok: false, message: `expected ${describeExpected(t, provider)}, got error: ${e.message}` };
      }
      throw e;
    }
    stage = "compare";
    return compareResult(t, result, provider);
  } catch (e) {
    if (e instanceof CelCompileError) {
      return { ok: false, message: `${stage} error: ${e.message.split("\n")[0]}` };
    }
    if (e instanceof CelEvalError && stage !== "eval") {
      return { ok: false, message: `${stage}: unexpected CEL error: ${e.message}` };
    }
    return { ok: false, message: `${stage} crash: ${describeError(e)}` };
  }
}

function expectedValue(t: IncrementalTest, provider: ProtoTypeProvider): CelValue | undefined {
  const m = t.original.resultMatcher;
  switch (m.case) {
    case "value":
      return valueFromProto(m.value, provider);
    case "typedResult":
      return m.value.result === undefined ? undefined : valueFromProto(m.value.result, provider);
    case undefined:
      return true;
    default:
      return undefined;
  }
}

function describeExpected(t: IncrementalTest, provider: ProtoTypeProvider): string {
  const m = t.original.resultMatcher;
  switch (m.case) {
    case "evalError":
      return `error (${m.value.errors.map((e) => e.message).join("; ")})`;
    case "anyEvalErrors":
      return `error (any of ${m.value.errors.map((s) => s.errors.map((e) => e.message).join("; ")).join(" | ")})`;
    case "unknown":
    case "anyUnknowns":
      return "unknown";
    default: {
      try {
        return formatValue(expectedValue(t, provider));
      } catch (e) {
        return `<unconvertible: ${describeError(e)}>`;
      }
    }
  }
}

function compareResult(t: IncrementalTest, result: CelValue, provider: ProtoTypeProvider): Outcome {
  const m = t.original.resultMatcher;
  if (m.case === "evalError" || m.case === "anyEvalErrors") {
    return { ok: false, message: `expected ${describeExpected(t, provider)}, got ${formatValue(result)}` };
  }
  if (m.case === "unknown" || m.case === "anyUnknowns") {
    return { ok: false, message: `unknown results are not supported (got ${formatValue(result)})` };
  }
  const want = expectedValue(t, provider);
  if (want === undefined) return { ok: true }; // typedResult with only a type, already checked
  if (valuesMatch(result, want)) return { ok: true };
  return { ok: false, message: `expected ${formatValue(want)}, got ${formatValue(result)}` };
}

/** The CEL conformance suite as a {@link Suite}. */
export function celConformanceSuite(ctx: CelRunContext): Suite {
  return {
    name: "cel",
    requiredSections: REQUIRED_SECTIONS,
    requiredPassRate: 0.97,
    ledger: CEL_KNOWN_FAILURES,
    *cases(): Iterable<SuiteCase> {
      const all: { path: string[]; test: IncrementalTest }[] = [];
      for (const section of getConformanceSuite().suites) walk(section, [section.name], all);
      for (const { path, test } of all) {
        yield { path: path.join("/"), section: path[0]!, run: () => runConformanceCase(test, ctx) };
      }
    },
  };
}

// ---------------------------------------------------------------- parser suite

/** Converts our AST to the `cel.expr` protobuf form that `toDebugString` prints. */
export type AstToProto = (parsed: ParsedExpr) => Parameters<typeof toDebugString>[0];

/**
 * Finds the converter in `conformance/cel/ast-proto.ts` (written by the parser
 * work). Returns undefined while that module does not exist.
 */
export async function loadAstToProto(): Promise<{ convert?: AstToProto; problem?: string }> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(new URL("./ast-proto.js", import.meta.url).href)) as Record<string, unknown>;
  } catch (e) {
    return { problem: `conformance/cel/ast-proto.ts not loadable: ${describeError(e)}` };
  }
  const preferred = ["toParsedExprProto", "parsedExprToProto", "astToProto", "toProto", "exprToProto", "toExprProto"];
  for (const n of preferred) if (typeof mod[n] === "function") return { convert: mod[n] as AstToProto };
  const any = Object.entries(mod).find(([n, v]) => typeof v === "function" && /proto/i.test(n));
  if (any !== undefined) return { convert: any[1] as AstToProto };
  return { problem: `conformance/cel/ast-proto.ts exports no converter (exports: ${Object.keys(mod).join(", ")})` };
}

/**
 * Parser options of the exported cel-go parser tests: the standard macros and a
 * recursion limit of 32. Optional syntax is off: the suite's `a.?b`, `[?a]` and
 * `{?k: v}` cases all expect "unsupported syntax" errors.
 */
function parseForParserSuite(expr: string): ParsedExpr {
  return parse(expr, { macros: new Set(["standard"]), enableOptionalSyntax: false, maxRecursionDepth: 32 });
}

export function runParseCase(t: IncrementalTest, convert: AstToProto | undefined, problem: string | undefined): Outcome {
  const expr = t.original.expr;
  let parsed: ParsedExpr;
  try {
    parsed = parseForParserSuite(expr);
  } catch (e) {
    if (t.ast === undefined && e instanceof CelCompileError) return { ok: true };
    if (t.ast === undefined) return { ok: false, message: `expected a parse error, got crash: ${describeError(e)}` };
    const msg = e instanceof CelCompileError ? e.message.split("\n")[0] : `crash: ${describeError(e)}`;
    return { ok: false, message: `expected AST ${oneLine(t.ast)}, got ${msg}` };
  }
  if (t.ast === undefined) return { ok: false, message: `expected a parse error (${(t.error ?? "").split("\n")[0]}), but it parsed` };
  if (convert === undefined) return { ok: false, message: `parsed, but cannot compare the AST: ${problem ?? "no converter"}` };
  let got: string;
  try {
    got = toDebugString(convert(parsed), KindAdorner.singleton);
  } catch (e) {
    return { ok: false, message: `ast-proto/toDebugString crash: ${describeError(e)}` };
  }
  if (got === t.ast) return { ok: true };
  return { ok: false, message: `AST differs: expected ${oneLine(t.ast)}, got ${oneLine(got)}` };
}

/** cel-go's parser tests as a {@link Suite}: every case must pass. */
export function celParseSuite(convert: AstToProto | undefined, problem: string | undefined): Suite {
  return {
    name: "cel-parse",
    requiredPassRate: 1,
    ledger: CEL_PARSE_KNOWN_FAILURES,
    *cases(): Iterable<SuiteCase> {
      const all: { path: string[]; test: IncrementalTest }[] = [];
      walk(getParsingSuite(), [], all);
      const seen = new Map<string, number>();
      for (const { path, test } of all) {
        let p = path.join("/");
        const n = (seen.get(p) ?? 0) + 1;
        seen.set(p, n);
        if (n > 1) p = `${p}#${n}`;
        yield { path: p, section: "parse", run: () => runParseCase(test, convert, problem) };
      }
    },
  };
}

/** A multi-line debug string on one line, for FAIL lines. */
function oneLine(s: string): string {
  return s.replace(/\n\s*\/\/[^\n]*/g, "").replace(/\s*\n\s*/g, " ");
}
