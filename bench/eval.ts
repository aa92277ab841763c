/**
 * `celmap eval`'s in-process pipeline (the engine, src/engine: `load` once, then `admit` per
 * resource: request building, namespace fill, defaulting, `evaluate` with reinvocation) on 1,000 varied Pods (bench/gen-eval-inputs.ts):
 *
 * 1. Throughput: 10 MAPs × 1,000 Pods, resource evaluations per second (bar ≥ 5,000/s).
 * 2. Per-request cost against the floor any implementation pays, JSON.parse + JSON.stringify of
 *    the same AdmissionReview-sized request (the Pod inside an admission.k8s.io/v1 AdmissionReview):
 *    with 1 matching MAP ≤ 3×, with 10 matching MAPs ≤ 10×. The three are measured side by side,
 *    interleaved in rotating order within each repetition; medians over repetitions.
 *
 * Usage: `npm run bench:eval` (builds, then `node dist/bench/eval.js`). Environment: REPS (default 9).
 * Prints Markdown for the README. With BENCH_STRICT=1 exits 1 when a bar is missed.
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import type { JsonObject } from "../src/admission/index.js";
import { parseDocuments } from "../src/io/load.js";
import { admit, errorText, load, type PolicySet } from "../src/engine/index.js";
import { toYaml } from "../src/cli/render/serialize.js";
import { generatePods, generatePolicies, podsYaml, policiesYaml } from "./gen-eval-inputs.js";

const REPS = Number(process.env["REPS"] ?? 9);
const STRICT = process.env["BENCH_STRICT"] === "1";

function session(yamlText: string): PolicySet {
  const r = parseDocuments(yamlText, "policies.yaml", { numbers: "cel" });
  if (r.errors.length > 0) throw new Error(r.errors.map((e) => e.message).join("; "));
  const b = load(r.documents, { closedWorld: true });
  if (b.errors.length > 0) throw new Error(b.errors.map(errorText).join("\n"));
  return b.policySet;
}

const pods = (() => {
  const r = parseDocuments(podsYaml(generatePods()), "pods.yaml", { numbers: "cel" });
  return r.documents.map((d) => d.value as JsonObject);
})();
const all = generatePolicies();
const s10 = session(policiesYaml(all));
const s1 = session(policiesYaml(all.slice(0, 1)));

/** AdmissionReview JSON per Pod (what a webhook would receive). */
const reviews = pods.map((pod, i) =>
  JSON.stringify(
    {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
        kind: { group: "", version: "v1", kind: "Pod" },
        resource: { group: "", version: "v1", resource: "pods" },
        requestKind: { group: "", version: "v1", kind: "Pod" },
        requestResource: { group: "", version: "v1", resource: "pods" },
        name: (pod.metadata as JsonObject).name,
        namespace: (pod.metadata as JsonObject).namespace,
        operation: "CREATE",
        userInfo: { username: "system:serviceaccount:kube-system:replicaset-controller", uid: "3c1b5c0e-0000-4000-8000-000000000000", groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"] },
        object: pod,
        oldObject: null,
        dryRun: false,
        options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
      },
    },
    (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v),
  ),
);

// Correctness first: every Pod is admitted, and the ten policies change every Pod.
let mutated = 0;
for (const pod of pods) {
  const e = admit(s10, { operation: "CREATE", object: pod });
  if (!e.ok || !e.result.allowed) throw new Error(`not admitted: ${e.ok ? e.result.status?.message : e.error.message}`);
  if (e.result.patch.length > 0) mutated++;
}
const matching1 = pods.filter((p) => {
  const e = admit(s1, { operation: "CREATE", object: p });
  return e.ok && e.result.trace.passes[0]!.invocations.length === 1;
}).length;

let sink = 0;
type Variant = "json" | "map1" | "map10" | "map10+yaml";
function runVariant(v: Variant): number {
  const t0 = performance.now();
  if (v === "json") {
    for (const text of reviews) sink += JSON.stringify(JSON.parse(text)).length;
  } else {
    const s = v === "map1" ? s1 : s10;
    for (const pod of pods) {
      const e = admit(s, { operation: "CREATE", object: pod });
      if (e.ok) {
        sink += e.result.patch.length;
        if (v === "map10+yaml" && e.result.object !== null) sink += toYaml(e.result.object).length;
      }
    }
  }
  return (performance.now() - t0) / pods.length; // ms per request
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const variants: Variant[] = ["json", "map1", "map10", "map10+yaml"];
for (const v of variants) runVariant(v); // warm-up
for (const v of variants) runVariant(v);
const samples: Record<Variant, number[]> = { json: [], map1: [], map10: [], "map10+yaml": [] };
for (let rep = 0; rep < REPS; rep++) {
  for (let k = 0; k < variants.length; k++) {
    const v = variants[(rep + k) % variants.length]!;
    samples[v].push(runVariant(v));
  }
}
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
const json = median(samples.json);
const m1 = median(samples.map1);
const m10 = median(samples.map10);
const m10y = median(samples["map10+yaml"]);
const throughput = 1000 / m10;
const r1 = m1 / json;
const r10 = m10 / json;
const reviewBytes = Math.round(reviews.reduce((a, t) => a + t.length, 0) / reviews.length);

const ok = (b: boolean) => (b ? "✅" : "❌");
const lines = [
  `Machine: ${cpus()[0]?.model.trim() ?? "?"}, ${cpus().length} cores, Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(" / ")} (1/5/15 min).`,
  `Method: ${pods.length} generated Pods (1–4 containers, average AdmissionReview ${reviewBytes} bytes), ${REPS} repetitions, variants interleaved in rotating order, medians; each sample runs all Pods once.`,
  `Every Pod admitted; ${mutated}/${pods.length} changed by the 10 MAPs; the single MAP matches ${matching1}/${pods.length}.`,
  "",
  "| measurement | per request | vs JSON.parse+stringify | bar |",
  "| --- | ---: | ---: | --- |",
  `| JSON.parse + JSON.stringify of the AdmissionReview | ${us(json)} | 1.0x | |`,
  `| pipeline, 1 matching MAP | ${us(m1)} | ${r1.toFixed(1)}x | ≤ 3x ${ok(r1 <= 3)} |`,
  `| pipeline, 10 MAPs | ${us(m10)} | ${r10.toFixed(1)}x | ≤ 10x ${ok(r10 <= 10)} |`,
  `| pipeline, 10 MAPs + YAML output | ${us(m10y)} | ${(m10y / json).toFixed(1)}x | |`,
  "",
  `Throughput, 10 MAPs × ${pods.length} Pods: **${Math.round(throughput).toLocaleString("en-US")} resource evaluations/s** (bar ≥ 5,000/s ${ok(throughput >= 5000)}).`,
];
process.stdout.write(`${lines.join("\n")}\n`);
if (sink === -1) process.stdout.write("\n");
if (STRICT && !(throughput >= 5000 && r1 <= 3 && r10 <= 10)) process.exitCode = 1;
