/**
 * Where celmap's compile time goes: lexing, parsing (with and without macro
 * expansion), checking (validators included, and the validators alone),
 * planning, for the bench's E1–E6 (in `cliEnv`, as `bench/cel.ts` compiles
 * them) and for every expression of the official conformance suite that parses
 * and checks in its own environment. marc's `parse()` + `check()` is timed on
 * E1–E6 alongside, in the same process.
 *
 * Usage: `npm run build && node dist/bench/compile-profile.js` (ROUNDS, default 15;
 * ONLY=E1..E6|corpus to restrict). Add `--cpu-prof` to node for a profile.
 */
import { Environment } from "@marcbachmann/cel-js";
import { getConformanceSuite, type IncrementalTest, type IncrementalTestSuite } from "@bufbuild/cel-spec/testdata/tests.js";
import { cliEnv } from "../src/cli/environment.js";
import { Env } from "../src/cel/env.js";
import { lex } from "../src/cel/lexer.js";
import { parse } from "../src/cel/parser.js";
import { validate } from "../src/cel/check-validators.js";
import type { ParsedExpr } from "../src/cel/ast.js";
import type { CheckedExpr } from "../src/cel/checked.js";
import type { Library } from "../src/cel/decls.js";
import { ProtoTypeProvider } from "../conformance/cel/proto-types.js";
import { declsFromProto } from "../conformance/cel/values.js";
import { loadExtensionLibraries } from "../conformance/cel/runner.js";

const ROUNDS = Number(process.env["ROUNDS"] ?? 15);
const ONLY = process.env["ONLY"];

const EXPRESSIONS: readonly [string, string][] = [
  ["E1", "object.metadata.labels['app'] == 'x'"],
  ["E2", "object.spec.containers.map(c, c.image).exists(i, i.startsWith('nginx'))"],
  [
    "E3",
    "object.spec.replicas > 2 ? {'tier': 'large', 'replicas': string(object.spec.replicas)} : {'tier': 'small', 'replicas': string(object.spec.replicas)}",
  ],
  ["E4", "object.spec.containers.map(c, c.name + ':' + c.image + '@' + object.metadata.labels['env'])"],
  ["E5", "size(object.items.filter(x, x % 3 == 0))"],
  ["E6", "has(object.spec.template) && has(object.spec.template.metadata) && has(object.spec.template.metadata.labels)"],
];

let sink: unknown;

/** This process's CPU time in ms (less disturbed than wall time by other load on the machine). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * CPU µs per call of `fn`: the fastest of ROUNDS samples of about `ms`
 * milliseconds each (the minimum is the figure least disturbed by other load).
 */
function time(fn: () => unknown, ms = 30): number {
  let n = 1;
  // Calibrate.
  for (;;) {
    const t0 = cpuMs();
    for (let i = 0; i < n; i++) sink = fn();
    const dt = cpuMs() - t0;
    if (dt > ms / 4) {
      n = Math.max(1, Math.round((n * ms) / dt));
      break;
    }
    n *= 2;
  }
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = cpuMs();
    for (let i = 0; i < n; i++) sink = fn();
    samples.push(((cpuMs() - t0) * 1000) / n);
  }
  return Math.min(...samples);
}

const f = (us: number): string => us.toFixed(2).padStart(8);

function parseOpts(env: Env, macros: boolean) {
  return {
    macros: macros ? env.macros : new Set<never>(),
    enableOptionalSyntax: env.optionalSyntax,
    maxRecursionDepth: env.maxRecursionDepth,
    expressionSizeCodePointLimit: env.expressionSizeCodePointLimit,
  };
}

function benchExpressions(): void {
  const env = cliEnv(["object"]);
  const marcEnv = new Environment({ homogeneousAggregateLiterals: true }).registerVariable("object", "dyn");
  const noMacros = parseOpts(env, false);
  console.log("expr      lex  parse-nm    parse     check  validate     plan   compile     marc  ratio");
  const ratios: number[] = [];
  for (const [id, src] of EXPRESSIONS) {
    if (ONLY !== undefined && ONLY !== id) continue;
    const parsed = env.parse(src);
    const checked = env.check(parsed);
    const tLex = time(() => lex(src));
    const tParseNm = time(() => parse(src, noMacros));
    const tParse = time(() => env.parse(src));
    const tCheck = time(() => env.check(parsed));
    const tVal = time(() => validate(checked, env));
    const tPlan = time(() => env.program(checked));
    const tAll = time(() => env.program(env.compile(src)));
    const tMarc = time(() => {
      const p = marcEnv.parse(src);
      const c = p.check();
      if (!c.valid) throw new Error("marc");
      return p;
    });
    ratios.push(tAll / tMarc);
    console.log(
      `${id.padEnd(4)}${f(tLex)}${f(tParseNm)}  ${f(tParse)}  ${f(tCheck)}  ${f(tVal)} ${f(tPlan)}  ${f(tAll)} ${f(tMarc)}  ${(tAll / tMarc).toFixed(2)}x`,
    );
  }
  if (ratios.length > 1) {
    console.log(`geomean ratio ${Math.exp(ratios.reduce((a, r) => a + Math.log(r), 0) / ratios.length).toFixed(2)}x`);
  }
}

function walk(s: IncrementalTestSuite, out: IncrementalTest[]): void {
  for (const t of s.tests) out.push(t);
  for (const sub of s.suites) walk(sub, out);
}

interface Case {
  readonly src: string;
  readonly env: Env;
  readonly macros: boolean;
  readonly parsed: ParsedExpr;
  readonly checked: CheckedExpr | undefined;
}

async function corpus(): Promise<void> {
  const provider = new ProtoTypeProvider();
  const { libraries } = await loadExtensionLibraries();
  const all: IncrementalTest[] = [];
  for (const s of getConformanceSuite().suites) walk(s, all);
  const cases: Case[] = [];
  for (const t of all) {
    const o = t.original;
    try {
      const decls = declsFromProto(o.typeEnv, provider);
      const libs: Library[] = [...libraries];
      if (decls.functions.length > 0) libs.push({ name: "conformance.typeEnv", functions: decls.functions });
      const env = new Env({ container: o.container, variables: decls.variables, libraries: libs, typeProvider: provider });
      const macros = !o.disableMacros;
      const parsed = parse(o.expr, parseOpts(env, macros));
      let checked: CheckedExpr | undefined;
      if (!o.disableCheck) {
        try {
          checked = env.check(parsed);
        } catch {
          checked = undefined;
        }
      }
      cases.push({ src: o.expr, env, macros, parsed, checked });
    } catch {
      // does not parse: skip
    }
  }
  const checkedCases = cases.filter((c) => c.checked !== undefined);
  const n = cases.length;
  const nc = checkedCases.length;
  const opts = cases.map((c) => parseOpts(c.env, c.macros));
  const optsNm = cases.map((c) => parseOpts(c.env, false));
  const tLex = time(() => {
    for (const c of cases) lex(c.src);
  }, 200);
  const tParseNm = time(() => {
    for (let i = 0; i < n; i++) parse(cases[i]!.src, optsNm[i]);
  }, 200);
  const tParse = time(() => {
    for (let i = 0; i < n; i++) parse(cases[i]!.src, opts[i]);
  }, 200);
  const tCheck = time(() => {
    for (const c of checkedCases) c.env.check(c.parsed);
  }, 200);
  const tVal = time(() => {
    for (const c of checkedCases) validate(c.checked!, c.env);
  }, 200);
  const tPlan = time(() => {
    for (const c of checkedCases) {
      try {
        c.env.program(c.checked!);
      } catch {
        // some plans fail by design
      }
    }
  }, 200);
  console.log(`conformance corpus: ${n} parsed, ${nc} checked (µs per expression, averaged)`);
  console.log(
    `lex ${f(tLex / n)}  parse-nm ${f(tParseNm / n)}  parse ${f(tParse / n)}  check ${f(tCheck / nc)}  validate ${f(tVal / nc)}  plan ${f(tPlan / nc)}`,
  );
}

if (ONLY !== "corpus") benchExpressions();
if (ONLY === undefined || ONLY === "corpus") await corpus();
void sink;
