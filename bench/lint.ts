/**
 * `celmap lint` on a realistic set: the 10 MAPs of bench/gen-eval-inputs.ts plus 10 more (renamed
 * copies writing their labels and annotations under example.org/), 20 policies, over 10 sample
 * Pods and the objects lint generates itself (default 48 per matched kind), every check on.
 * With 20 policies selecting one Pod, orders are sampled (the default order with every pair swapped, plus 24 random).
 *
 * Usage: `npm run bench:lint` (builds, then `node dist/bench/lint.js`). Environment: REPS
 * (default 3), SAMPLES (default 10). Prints Markdown for the README; the bar is < 30 s per run on
 * 2 cores (wall time; CPU time is printed too, the figure that holds on a shared machine). With BENCH_STRICT=1 exits 1 when a run misses it.
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { lintDocuments } from "../src/cli/commands/lint.js";
import { parseDocuments } from "../src/io/load.js";
import { generatePods, generatePolicies, podsYaml, policiesYaml } from "./gen-eval-inputs.js";

const REPS = Number(process.env["REPS"] ?? 3);
const SAMPLES = Number(process.env["SAMPLES"] ?? 10);
const STRICT = process.env["BENCH_STRICT"] === "1";
const BAR_SECONDS = 30;

const ten = generatePolicies();
const copies = ten.map((p) => {
  const json = JSON.stringify(p).replace(/example\.com\//g, "example.org/");
  const o = JSON.parse(json) as { metadata: { name: string } };
  o.metadata.name = `${o.metadata.name}-org`;
  return o;
});
const policies = parseDocuments(policiesYaml([...ten, ...copies]), "policies.yaml", { numbers: "cel" });
const samples = parseDocuments(podsYaml(generatePods(SAMPLES)), "pods.yaml", { numbers: "cel" });
if (policies.errors.length > 0 || samples.errors.length > 0) throw new Error("bench inputs do not parse");

const times: number[] = [];
const cpuTimes: number[] = [];
let findings = 0;
let generated = 0;
let notes: readonly string[] = [];
for (let i = 0; i < REPS; i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = lintDocuments(policies.documents, samples.documents, { seed: 1 });
  times.push((performance.now() - t0) / 1000);
  const c = process.cpuUsage(c0);
  cpuTimes.push((c.user + c.system) / 1e6);
  if (r.report === undefined) throw new Error(r.errors.join("\n"));
  findings = r.report.findings.length;
  generated = r.report.generated;
  notes = r.report.notes;
}
times.sort((a, b) => a - b);
cpuTimes.sort((a, b) => a - b);
const cpuMedian = cpuTimes[Math.floor(cpuTimes.length / 2)]!;
const median = times[Math.floor(times.length / 2)]!;
const out = [
  `celmap lint: 20 MAPs, ${SAMPLES} sample Pods + ${generated} generated objects, all checks (${REPS} runs, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)})`,
  "",
  "| runs | median s | min s | max s | median CPU s | findings | bar |",
  "|---:|---:|---:|---:|---:|---:|---|",
  `| ${REPS} | ${median.toFixed(2)} | ${times[0]!.toFixed(2)} | ${times[times.length - 1]!.toFixed(2)} | ${cpuMedian.toFixed(2)} | ${findings} | < ${BAR_SECONDS} s ${times[times.length - 1]! < BAR_SECONDS ? "met" : "MISSED"} |`,
  ...notes.map((n) => `\nnote: ${n}`),
];
process.stdout.write(`${out.join("\n")}\n`);
if (STRICT && times[times.length - 1]! >= BAR_SECONDS) process.exit(1);
