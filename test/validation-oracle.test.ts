/**
 * celmap's stored-object validation against kube-apiserver's own code: the generated cases of
 * test/validation/cases.ts through the Go oracle (e2e/validation-oracle: the apiserver's decode,
 * defaulting and registry strategies of k8s.io/kubernetes v1.36.3) and, when
 * CELMAP_VALIDATION_KUBECONFIG names a cluster (the e2e fixture), through a real apiserver.
 * Skips with one line when neither is available (build the oracle with
 * `cd e2e/validation-oracle && go build`).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/cli.js";
import { generateAllCases } from "./validation/cases.js";
import { apiserverOutcomes, differences, oracleOutcomes, type Difference } from "./validation/compare.js";

const ORACLE = join(REPO_ROOT, "e2e/validation-oracle/validation-oracle");
const KUBECONFIG = process.env.CELMAP_VALIDATION_KUBECONFIG;

/**
 * Known differences, each with its reason. The test fails when one disappears too (update the list).
 */
const KNOWN_DIFFERENCES: Readonly<Record<string, string>> = {
  "Pod/update/port-changed":
    "the apiserver appends a go-cmp diff of the internal PodSpec (Go field names, line-oriented) to the Forbidden message; celmap prints the sentence only",
};

function report(d: readonly Difference[]): string {
  return d
    .map((x) => `${x.id}\n  celmap:    ${x.celmap.allowed ? "allowed" : x.celmap.message?.slice(0, 600)}\n  reference: ${x.reference.allowed ? "allowed" : `${x.reference.code} ${x.reference.message?.slice(0, 600)}`}`)
    .join("\n");
}

describe("stored-object validation vs kube-apiserver", () => {
  const cases = generateAllCases();

  it("generates at least 300 cases, most of them invalid", () => {
    expect(cases.length).toBeGreaterThanOrEqual(300);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
  });

  it.skipIf(!existsSync(ORACLE))("matches the Go oracle (the apiserver's registry strategies) on every case", () => {
    const ref = oracleOutcomes(cases, ORACLE);
    const rejected = ref.filter((r) => !r.allowed).length;
    console.log(`validation-oracle: ${cases.length} cases (${cases.filter((c) => c.crd !== undefined).length} custom resources), ${rejected} rejected by the oracle`);
    expect(rejected).toBeGreaterThanOrEqual(300);
    const d = differences(cases, ref);
    const unexpected = d.filter((x) => KNOWN_DIFFERENCES[x.id] === undefined);
    if (unexpected.length > 0) console.log(report(unexpected));
    expect(unexpected.map((x) => x.id)).toEqual([]);
    expect(d.map((x) => x.id).sort()).toEqual(Object.keys(KNOWN_DIFFERENCES).sort());
  }, 120_000);

  it.skipIf(KUBECONFIG === undefined)("matches a real apiserver (CELMAP_VALIDATION_KUBECONFIG) on every case", () => {
    const ref = apiserverOutcomes(cases, KUBECONFIG!);
    const d = differences(cases, ref).filter((x) => KNOWN_DIFFERENCES[x.id] === undefined);
    if (d.length > 0) console.log(report(d));
    expect(d.map((x) => x.id)).toEqual([]);
  }, 1_800_000);
});

if (!existsSync(ORACLE) && KUBECONFIG === undefined) console.log("validation-oracle: skipped (no e2e/validation-oracle/validation-oracle binary and no CELMAP_VALIDATION_KUBECONFIG)");
