/**
 * The Gatekeeper translator's costs (issue 5 bars):
 *
 * 1. Translating 500 varied valid mutators (Assign, AssignMetadata, ModifySet, AssignImage with
 *    varied locations, pathTests and match criteria; `generateMutators`) takes under 2 s.
 * 2. Evaluating a translated set (20 mutators through celmap's MAP admission pipeline,
 *    `runTranslated`) costs at most 2x the reference semantics (Gatekeeper's System, `mutate`) on
 *    the same 1,000 Pods. Interleaved, in alternating order, per repetition, with three more for
 *    context (the translation without bundling/merging, the one without the groups' fast path,
 *    and the pipeline's floor); medians.
 *
 * Usage: `npm run bench:translate`. Environment: REPS (default 7), BENCH_STRICT=1 exits 1 on a
 * missed bar. Prints Markdown for the README.
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { compileMutator, System } from "../src/gatekeeper/index.js";
import { runTranslated, translate } from "../src/translate/gatekeeper/index.js";
import { generateMutators, generatePods } from "./translate-gen.js";

const REPS = Number(process.env["REPS"] ?? 7);
const STRICT = process.env["BENCH_STRICT"] === "1";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function namespaceObject(name: string): Record<string, unknown> {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { "kubernetes.io/metadata.name": name } } };
}

// ---- 1. Translation of 500 mutators (and smaller sets, for the growth), each in a worker with a
// deadline: a translation is synchronous and cannot be interrupted otherwise.
const DEADLINE_MS = Number(process.env["DEADLINE_MS"] ?? 60_000);
if (!isMainThread) {
  const docs = generateMutators(workerData as number);
  const t0 = performance.now();
  const t = translate(docs);
  const ms = performance.now() - t0;
  const counts = { exact: 0, difference: 0, refused: 0 };
  for (const v of t.verdicts) counts[v.verdict]++;
  parentPort!.postMessage({ ms, counts, policies: t.policies.length, chars: Math.max(0, ...t.policies.map((p) => JSON.stringify(p).length)), issues: t.issues.length });
  process.exit(0);
}
for (const d of generateMutators(500)) {
  const c = compileMutator(d);
  if (!c.ok) throw new Error(`generator produced an invalid mutator ${JSON.stringify(d)}: ${c.issues.map((x) => `${x.path.toString()}: ${x.message}`).join("; ")}`);
}
interface Timed { ms: number; counts: { exact: number; difference: number; refused: number }; policies: number; chars: number; issues: number }
function timeTranslate(n: number): Promise<Timed | undefined> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: n });
    const timer = setTimeout(() => void w.terminate().then(() => resolve(undefined)), DEADLINE_MS);
    w.once("message", (m: Timed) => {
      clearTimeout(timer);
      resolve(m);
    });
    w.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
const sizes = [25, 50, 100, 200, 500];
const translated = new Map<number, Timed | undefined>();
for (const n of sizes) {
  const r = await timeTranslate(n);
  translated.set(n, r);
  if (r === undefined) break;
}
const t500 = translated.get(500);
const tMedian = t500?.ms ?? Number.POSITIVE_INFINITY;

// ---- 2. Evaluation: translated (MAP pipeline) vs reference semantics, 20 mutators × 1,000 Pods.
// Both sides produce the final admitted object: `runTranslated` builds the admission request and
// runs the whole pipeline (both passes of the apiserver, strict decoding), `System.mutate` runs
// Gatekeeper's convergence loop to its fixpoint (its pass that changes nothing included).
// Also timed, interleaved: the translation without bundling and merging (one policy per
// group, one mutation per mutator and pass), the one without the groups' fast path (every group
// mutator by mutator and pass, as before `fast.ts`), and the pipeline's floor — the default
// translation's policies with every mutation replaced by a no-op (`[]`), i.e. the cost of
// matching, request building and the per-mutation patch path alone.
const docs20 = generateMutators(20);
const t20 = translate(docs20);
const t20plain = translate(docs20, { bundle: false, merge: false });
const t20slow = translate(docs20, { fastPath: false });
for (const t of [t20, t20plain, t20slow]) if (t.issues.length > 0) throw new Error(`translation self-check failed: ${t.issues[0]}`);
const NOOP = `object.kind == "" ? [JSONPatch{op: "test", path: "/kind", value: ""}] : []`;
const t20floor = {
  ...t20,
  policies: t20.policies.map((p) => {
    const spec = p.spec as { mutations: unknown[] };
    return { ...p, spec: { ...spec, mutations: spec.mutations.map(() => ({ patchType: "JSONPatch", jsonPatch: { expression: NOOP } })) } };
  }),
};
const system = new System();
for (const d of docs20) {
  const c = compileMutator(d);
  if (c.ok) system.upsert(c.mutator);
}
const pods = generatePods(1000);
const nsObjects = pods.map((p) => namespaceObject((p.metadata as { namespace: string }).namespace));
// Warm-up, and a check that both give the same objects (the bench measures equal work).
let agree = 0;
let agreePlain = 0;
let agreeSlow = 0;
const iterations: Record<number, number> = {};
for (let i = 0; i < pods.length; i++) {
  const a = runTranslated(t20, pods[i], { namespace: nsObjects[i] });
  const a2 = runTranslated(t20plain, pods[i], { namespace: nsObjects[i] });
  const a3 = runTranslated(t20slow, pods[i], { namespace: nsObjects[i] });
  runTranslated(t20floor, pods[i], { namespace: nsObjects[i] });
  const b = system.mutate(pods[i], { namespace: nsObjects[i], uuid: () => "x" });
  iterations[b.iterations] = (iterations[b.iterations] ?? 0) + 1;
  if (a.allowed && b.error === undefined && JSON.stringify(a.object) === JSON.stringify(b.object)) agree++;
  if (a2.allowed && b.error === undefined && JSON.stringify(a2.object) === JSON.stringify(b.object)) agreePlain++;
  if (a3.allowed && b.error === undefined && JSON.stringify(a3.object) === JSON.stringify(b.object)) agreeSlow++;
}
const laBefore = loadavg().map((x) => x.toFixed(2)).join(" / ");
const runs: Record<string, () => void> = {
  map: () => {
    for (let i = 0; i < pods.length; i++) runTranslated(t20, pods[i], { namespace: nsObjects[i] });
  },
  gk: () => {
    for (let i = 0; i < pods.length; i++) system.mutate(pods[i], { namespace: nsObjects[i], uuid: () => "x" });
  },
  plain: () => {
    for (let i = 0; i < pods.length; i++) runTranslated(t20plain, pods[i], { namespace: nsObjects[i] });
  },
  slow: () => {
    for (let i = 0; i < pods.length; i++) runTranslated(t20slow, pods[i], { namespace: nsObjects[i] });
  },
  floor: () => {
    for (let i = 0; i < pods.length; i++) runTranslated(t20floor, pods[i], { namespace: nsObjects[i] });
  },
};
const times: Record<string, number[]> = { map: [], gk: [], plain: [], slow: [], floor: [] };
const order = Object.keys(runs);
for (let r = 0; r < REPS; r++) {
  for (const k of r % 2 === 0 ? order : [...order].reverse()) {
    const t0 = performance.now();
    runs[k]!();
    times[k]!.push(performance.now() - t0);
  }
}
const mapMedian = median(times.map!);
const gkMedian = median(times.gk!);
const plainMedian = median(times.plain!);
const slowMedian = median(times.slow!);
const floorMedian = median(times.floor!);
const ratio = mapMedian / gkMedian;

const cpu = cpus();
const la = loadavg().map((x) => x.toFixed(2)).join(" / ");
const ok1 = tMedian < 2000;
const ok2 = ratio <= 2;
const mutationsOf = (t: { policies: Record<string, unknown>[] }) => t.policies.reduce((n, p) => n + (p.spec as { mutations: unknown[] }).mutations.length, 0);
const perPod = (ms: number) => `${ms.toFixed(0)} ms (${((ms * 1000) / pods.length).toFixed(0)} µs/Pod)`;
console.log(`Machine: ${cpu[0]?.model ?? "?"}, ${cpu.length} cores, Node ${process.version}, load average ${laBefore} before the evaluation runs, ${la} after (1/5/15 min). ${REPS} repetitions, interleaved, medians.`);
console.log("");
console.log("| measure | result | bar | |");
console.log("|---|---|---|---|");
for (const n of sizes) {
  if (!translated.has(n)) continue;
  const r = translated.get(n);
  console.log(
    r === undefined
      ? `| translate ${n} mutators | > ${DEADLINE_MS / 1000} s (stopped) | ${n === 500 ? "< 2000 ms | MISSED" : "| "} |`
      : `| translate ${n} mutators (${r.counts.exact} exact, ${r.counts.difference} difference, ${r.counts.refused} refused → ${r.policies} policies, largest ${(r.chars / 1e6).toFixed(1)} M chars) | ${r.ms.toFixed(0)} ms | ${n === 500 ? `< 2000 ms | ${ok1 ? "met" : "MISSED"}` : "| "} |`,
  );
}
const its = Object.entries(iterations).map(([k, v]) => `${v} × ${k}`).join(", ");
console.log(`| reference semantics (Gatekeeper System, to its fixpoint: ${its} iterations), 20 mutators × 1,000 Pods | ${perPod(gkMedian)} | | |`);
console.log(`| translated (${t20.policies.length} MAPs, ${mutationsOf(t20)} mutations, through the admission pipeline), same Pods | ${perPod(mapMedian)} | | |`);
console.log(`| translated / reference | ${ratio.toFixed(2)}x | ≤ 2x | ${ok2 ? "met" : "MISSED"} |`);
console.log(`| for comparison: without bundling and merging (${t20plain.policies.length} MAPs, ${mutationsOf(t20plain)} mutations) | ${perPod(plainMedian)} (${(plainMedian / gkMedian).toFixed(2)}x) | | |`);
console.log(`| for comparison: without the groups' fast path (${t20slow.policies.length} MAPs, ${mutationsOf(t20slow)} mutations) | ${perPod(slowMedian)} (${(slowMedian / gkMedian).toFixed(2)}x) | | |`);
console.log(`| pipeline floor: the same ${t20.policies.length} MAPs with all ${mutationsOf(t20)} mutations no-ops | ${perPod(floorMedian)} (${(floorMedian / gkMedian).toFixed(2)}x) | | |`);
console.log("");
console.log(`Same admitted object from both on ${agree}/${pods.length} Pods (${agreePlain}/${pods.length} without bundling and merging, ${agreeSlow}/${pods.length} without the fast path).`);
if (STRICT && !(ok1 && ok2)) process.exit(1);
