/**
 * `npm run bench:reference`: celmap against the reference implementation, cel-go as kube-apiserver
 * 1.36 runs it (reference/cmd/celbench, built from the published modules), on the same machine in
 * one run: the six expressions of `npm run bench` (bench/cel-workload.ts).
 *
 * Columns, each the median of REPS samples of CPU time per operation (user + system of the whole
 * process, garbage collection included, so background load on other cores counts little):
 * - compile: the per-policy work. cel-go: the admission plugin's `CompileCELExpression` in the
 *   Kubernetes environment (parse, check, program). celmap: `compileExpression` in its Kubernetes
 *   environment (the same declarations: object, oldObject, params, request, namespaceObject,
 *   authorizer, variables).
 * - eval: one evaluation without cost tracking, per request. cel-go: a plain `cel.NewEnv` with the
 *   one variable (the Kubernetes environment always tracks cost). celmap: `program.eval`.
 * - eval+cost: as the apiserver evaluates (cost tracked, per-call limit 1,000,000).
 * The input conversion each engine needs per request is inside the timed loop: cel-go binds the
 * decoded object in a fresh activation (its values wrap Go maps lazily); celmap wraps the parsed
 * JSON with `fromJsonLazy`. Decoding the request body is the same work in both and not counted.
 *
 * Environment: REPS (default 9), EVAL_MS (150), COMPILE_N (300). Without Go >= 1.25 it prints one
 * line and exits 0. Prints Markdown for docs/benchmarks.md; exits 1 if an engine's value differs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileExpression, kubernetesEnv } from "../src/admission/environment.js";
import { PER_CALL_LIMIT, fromJsonLazy, type CelValue } from "../src/cel/index.js";
import { benchObject, EXPRESSIONS } from "./cel-workload.js";
import { envInt, geomean, machine, median } from "./stats.js";

const REPS = envInt("REPS", 9);
const EVAL_MS = envInt("EVAL_MS", 150);
const COMPILE_N = envInt("COMPILE_N", 300);
const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

interface GoResult {
  readonly id: string;
  readonly compileUs: number;
  readonly evalUs: number;
  readonly evalCostUs: number;
  readonly value: unknown;
  readonly cost: number;
}

interface Figures {
  readonly compileUs: number;
  readonly evalUs: number;
  readonly evalCostUs: number;
}

let sink: unknown;


function goVersion(): string | undefined {
  try {
    const out = execFileSync("go", ["env", "GOVERSION"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const m = /^go(\d+)\.(\d+)/.exec(out);
    return m !== null && (Number(m[1]) > 1 || Number(m[2]) >= 25) ? out : undefined;
  } catch {
    return undefined;
  }
}

/** CPU microseconds of this process so far (all threads). */
function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Runs f in growing batches for about `ms` of wall time; CPU µs per call. */
function perOp(ms: number, f: () => void): number {
  let n = 0;
  let batch = 1;
  const start = performance.now();
  const cpu0 = cpuUs();
  while (performance.now() - start < ms) {
    for (let i = 0; i < batch; i++) f();
    n += batch;
    if (batch < 1024 && performance.now() - start < ms / 50) batch *= 2;
  }
  return (cpuUs() - cpu0) / n;
}



/** celjson's tagged form (reference/internal/celjson) → plain JSON with sorted keys. */
function untag(v: unknown): unknown {
  const t = v as Record<string, unknown>;
  if ("bool" in t) return t.bool;
  if ("int" in t || "uint" in t) return Number(t.int ?? t.uint);
  if ("double" in t) return Number(t.double);
  if ("string" in t) return t.string;
  if ("null" in t) return null;
  if ("list" in t) return (t.list as unknown[]).map(untag);
  if ("map" in t) return Object.fromEntries((t.map as [unknown, unknown][]).map(([k, x]): [string, unknown] => [String(untag(k)), untag(x)]).sort(([a], [b]) => (a < b ? -1 : 1)));
  throw new Error(`unexpected tagged value ${JSON.stringify(v)}`);
}

function canonical(v: unknown): string {
  const walk = (x: unknown): unknown =>
    Array.isArray(x) ? x.map(walk) : x !== null && typeof x === "object" ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, y]) => [k, walk(y)])) : x;
  return JSON.stringify(walk(v));
}

function celmapPlain(v: CelValue): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(celmapPlain);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), celmapPlain(x as CelValue)]));
  return v;
}

function celmapFigures(): { figures: Map<string, Figures>; values: Map<string, string> } {
  const env = kubernetesEnv({ kind: "variables", hasParams: true });
  const object = JSON.parse(JSON.stringify(benchObject())) as Record<string, unknown>;
  const samples = new Map<string, number[][]>(EXPRESSIONS.map((e) => [e.id, [[], [], []]]));
  const values = new Map<string, string>();
  const costOpts = { costLimit: PER_CALL_LIMIT };
  for (let rep = 0; rep < REPS; rep++) {
    for (const e of EXPRESSIONS) {
      const s = samples.get(e.id)!;
      let compiled = compileExpression(env, e.source);
      const cpu0 = cpuUs();
      for (let i = 0; i < COMPILE_N; i++) compiled = compileExpression(env, e.source);
      s[0]!.push((cpuUs() - cpu0) / COMPILE_N);
      if (!compiled.ok) throw new Error(`celmap: ${e.id}: ${compiled.detail}`);
      const program = compiled.program;
      s[1]!.push(perOp(EVAL_MS, () => (sink = program.eval({ object: fromJsonLazy(object as never) }))));
      s[2]!.push(perOp(EVAL_MS, () => (sink = program.eval({ object: fromJsonLazy(object as never) }, costOpts))));
      if (rep === 0) values.set(e.id, canonical(celmapPlain(program.eval({ object: fromJsonLazy(object as never) }))));
    }
  }
  const figures = new Map<string, Figures>();
  for (const [id, [c, e, ec]] of samples) figures.set(id, { compileUs: median(c!), evalUs: median(e!), evalCostUs: median(ec!) });
  return { figures, values };
}

function goFigures(): { go: string; results: GoResult[] } {
  const build = spawnSync("nice", ["-n", "10", "go", "build", "-o", "bin/celbench", "./cmd/celbench"], { cwd: join(root, "reference"), stdio: "inherit" });
  if (build.status !== 0) throw new Error("go build ./cmd/celbench failed");
  const input = JSON.stringify({ object: benchObject(), expressions: EXPRESSIONS.map((e) => ({ id: e.id, source: e.source })), evalMs: EVAL_MS, compileN: COMPILE_N, reps: REPS });
  const out = execFileSync(join(root, "reference/bin/celbench"), { input, encoding: "utf8", maxBuffer: 16 << 20 });
  return JSON.parse(out) as { go: string; results: GoResult[] };
}


const fmt = (us: number): string => (us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2));
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;

function main(): number {
  const go = goVersion();
  if (go === undefined) {
    console.log("bench:reference: skipped (needs Go >= 1.25 on PATH to build reference/cmd/celbench)");
    return 0;
  }
  const loadBefore = loadavg();
  const ref = goFigures();
  const mine = celmapFigures();
  const loadAfter = loadavg();
  let wrong = 0;
  const rows: string[] = [];
  const ratios: { compile: number[]; eval: number[]; cost: number[] } = { compile: [], eval: [], cost: [] };
  for (const e of EXPRESSIONS) {
    const g = ref.results.find((r) => r.id === e.id)!;
    const c = mine.figures.get(e.id)!;
    const goValue = canonical(untag(g.value));
    const expected = canonical(JSON.parse(e.expected));
    const celmapValue = mine.values.get(e.id)!;
    if (goValue !== expected || celmapValue !== expected) {
      wrong++;
      console.error(`bench:reference: ${e.id}: values differ: cel-go ${goValue}, celmap ${celmapValue}, expected ${expected}`);
    }
    ratios.compile.push(c.compileUs / g.compileUs);
    ratios.eval.push(c.evalUs / g.evalUs);
    ratios.cost.push(c.evalCostUs / g.evalCostUs);
    rows.push(
      `| ${e.id} ${e.label} | ${fmt(g.compileUs)} | ${fmt(c.compileUs)} | ${ratio(c.compileUs, g.compileUs)} | ${fmt(g.evalUs)} | ${fmt(c.evalUs)} | ${ratio(c.evalUs, g.evalUs)} | ${fmt(g.evalCostUs)} | ${fmt(c.evalCostUs)} | ${ratio(c.evalCostUs, g.evalCostUs)} |`,
    );
  }
  const gm = (xs: number[]): string => `${geomean(xs).toFixed(2)}x`;
  console.log(`### celmap vs cel-go (kube-apiserver 1.36's CEL), CPU µs per operation\n`);
  console.log(`${machine()}; ${ref.go} (GOMAXPROCS default); load average ${loadBefore.map((l) => l.toFixed(2)).join(" / ")} before, ${loadAfter.map((l) => l.toFixed(2)).join(" / ")} after; REPS=${REPS} EVAL_MS=${EVAL_MS} COMPILE_N=${COMPILE_N}\n`);
  console.log("| expression | compile cel-go | compile celmap | ratio | eval cel-go | eval celmap | ratio | eval+cost cel-go | eval+cost celmap | ratio |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) console.log(r);
  console.log(`| geometric mean (celmap / cel-go) | | | ${gm(ratios.compile)} | | | ${gm(ratios.eval)} | | | ${gm(ratios.cost)} |`);
  console.log("\nA ratio below 1 means celmap takes less CPU time than cel-go for the same work.");
  return wrong > 0 ? 1 : 0;
}

process.exitCode = main();
