/**
 * `npm run gen:validation-cases`: runs the generated validation cases (validation-cases.ts) through
 * a fresh real kube-apiserver (celmap-testcluster, e2e/cluster/) and writes them, with its answers,
 * to conformance/cases/map/apiserver-validation.yaml (the `celmap-map` conformance suite replays
 * them without Go). Prints celmap's differences from the answers, as the e2e suite does.
 * Options: --out <file>; --cluster <file> (the JSON line of a running celmap-testcluster, to iterate).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { stringify } from "yaml";
import { Kube } from "./kube.js";
import { buildLauncher, startCluster, type ClusterInfo } from "./launch.js";
import { generateApivalCases, SEED } from "./validation-cases.js";
import { conformanceCase, runApival } from "./validation-run.js";
import { differences, KNOWN_DIFFERENCES, type RecordedCase } from "./validation-compare.js";

const repoRoot = resolve(import.meta.dirname, "../..");

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

export function header(version: string, count: number): string {
  return [
    `# Generated MAP cases whose admitted result kube-apiserver then defaults and validates (issue 17),`,
    `# with the answers of a REAL kube-apiserver ${version} (k8s.io/kubernetes module, run in-process by`,
    `# e2e/cluster's celmap-testcluster with embedded etcd), admission chain "minimal", user admin`,
    `# (system:masters). ${count} cases. Generated ${new Date().toISOString().slice(0, 10)} by \`npm run gen:validation-cases\``,
    `# (cases: e2e/validation-cases.ts, seed ${SEED}; run: e2e/validation-run.ts); do not edit, regenerate.`,
    `# Method: one MutatingAdmissionPolicy per kind holds every case's mutation, each acting only on the`,
    `# object whose label apival-case carries its marker (and removing it, for JSONPatch); here each case`,
    `# keeps only its own mutation. CREATE: the object dry-run created in namespace apival; UPDATE: the`,
    `# old object created for real (no marker, no policy acts), read back (oldObject), then it plus the`,
    `# marker dry-run replaced. expect.object is the returned object minus metadata uid, resourceVersion,`,
    `# creationTimestamp, managedFields, generation, selfLink and what celmap does not model (validation-run.ts`,
    `# normaliseObject: built-in status, Namespace spec.finalizers, DaemonSet template-generation annotation,`,
    `# allocated nodePort, Job generated selector); expect.error the full Status message (a generated name's`,
    `# random suffix: the generateName cause instead);`,
    `# answer: the HTTP code, reason, message and causes (test/e2e/apiserver-validation.test.ts compares`,
    `# all of them exactly, e2e/validation-compare.ts). Expectations are the apiserver's, never celmap's.`,
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const out = resolve(arg("--out") ?? join(repoRoot, "conformance/cases/map/apiserver-validation.yaml"));
  const started = Date.now();
  // --cluster <file>: the JSON line of a running celmap-testcluster (for iterating); else a fresh one.
  const info = arg("--cluster");
  const running = info !== undefined ? { info: JSON.parse(readFileSync(info, "utf8")) as ClusterInfo, stop: async () => {} } : await startCluster(buildLauncher((l) => console.error(l)).binary);
  const k = new Kube(running.info);
  try {
    const version = String((await k.request("GET", "/version")).body.gitVersion);
    const cases = generateApivalCases();
    const results = await runApival(k, cases, (l) => console.error(l));
    const recorded = results.map((r) => ({ ...conformanceCase(r, version), answer: { code: r.answer.code, ...(r.answer.code >= 300 ? { reason: r.answer.reason, message: r.answer.message, causes: r.answer.causes } : {}) } }));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, header(version, recorded.length) + stringify({ cases: recorded }, { lineWidth: 0, aliasDuplicateObjects: false }));
    let differ = 0;
    let known = 0;
    for (const c of recorded) {
      const name = String((c as Record<string, unknown>).name);
      const d = differences(c as unknown as RecordedCase);
      if (d.length > 0 && KNOWN_DIFFERENCES[name] !== undefined) known++;
      else if (d.length > 0 || KNOWN_DIFFERENCES[name] !== undefined) {
        differ++;
        console.error(`DIFF ${name}\n  ${d.length > 0 ? d.join("\n  ") : "listed as a known difference but agrees"}`);
      }
    }
    console.error(`wrote ${recorded.length} cases to ${out} in ${((Date.now() - started) / 1000).toFixed(0)} s; apiserver validation: ${recorded.length} compared, ${differ} differ (${known} known differences)`);
  } finally {
    k.close();
    await running.stop();
  }
}

main().catch((e: unknown) => {
  console.error(`gen-validation-cases: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exitCode = 1;
});
