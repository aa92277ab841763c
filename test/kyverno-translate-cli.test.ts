/**
 * `celmap translate` on Kyverno MutatingPolicies through the real executable (child processes):
 * the chainsaw class-D expectations of Kyverno v1.19.0 (`generate-mutating-admission-policy-v1/*`:
 * policy (+ exceptions) → the MutatingAdmissionPolicy and binding Kyverno generates, or none) must
 * match what the command emits, under chainsaw's partial assertion (conformance/kyverno/chainsaw.ts);
 * and what does not carry over is said per field.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { assertSubset } from "../conformance/kyverno/chainsaw.js";
import { assertBuilt, runCli } from "./support/cli.js";
import { upstreamPath } from "./support/upstream.js";

const CLASS_D_PATH = upstreamPath("kyverno-tests/test/conformance/chainsaw/generate-mutating-admission-policy-v1", "the chainsaw class D translate tests (one per case directory)");
const CLASS_D = CLASS_D_PATH ?? "";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function docs(file: string): Json[] {
  return existsSync(file) ? parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS() as Json).filter((d) => d != null) : [];
}

function caseDirs(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      if (!statSync(p).isDirectory()) return [];
      return existsSync(join(p, "policy.yaml")) ? [p] : caseDirs(p);
    });
}

beforeAll(() => assertBuilt());

describe.skipIf(CLASS_D_PATH === undefined)("celmap translate: chainsaw class D (v1), Kyverno's MAP generation", () => {
  const dirs = CLASS_D_PATH !== undefined ? caseDirs(CLASS_D) : [];
  it("finds the 7 cases", () => expect(dirs).toHaveLength(7));
  for (const dir of dirs) {
    it(dir.slice(CLASS_D.length + 1), async () => {
      const args = ["translate", "-f", join(dir, "policy.yaml"), ...(existsSync(join(dir, "exception.yaml")) ? ["-f", join(dir, "exception.yaml")] : []), "-o", "json"];
      const r = await runCli(args);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { policies: Json[]; bindings: Json[]; mutatingPolicies: { policy: string; generated: boolean; reason?: string }[] };
      const generated = docs(join(dir, "policy-assert.yaml"))[0]?.status?.generated as boolean;
      expect(out.mutatingPolicies[0]!.generated).toBe(generated);
      const wantMap = docs(join(dir, "mutatingadmissionpolicy.yaml"))[0];
      const wantBinding = docs(join(dir, "mutatingadmissionpolicybinding.yaml"))[0];
      const test = readFileSync(join(dir, "chainsaw-test.yaml"), "utf8");
      if (!generated) {
        // The case's `error` steps: neither object exists.
        expect(test).toMatch(/error:\s*\n\s*file:\s*mutatingadmissionpolicy\.yaml/);
        expect(out.policies).toEqual([]);
        expect(out.bindings).toEqual([]);
        expect(r.stderr).toContain("not generated: skip generating MutatingAdmissionPolicy");
        return;
      }
      expect(out.policies).toHaveLength(1);
      expect(out.bindings).toHaveLength(1);
      expect(assertSubset(wantMap, out.policies[0])).toEqual([]);
      expect(assertSubset(wantBinding, out.bindings[0])).toEqual([]);
      expect(r.stderr).toContain(`generated as ${String(wantMap.metadata.name)}`);
    });
  }
});

describe("celmap translate: what does not carry over from a MutatingPolicy", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "celmap-ktranslate-"));
  });

  it("names each field Kyverno drops silently, and --strict fails on them", async () => {
    const p = join(dir, "mp.yaml");
    writeFileSync(
      p,
      `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata:
  name: scoped
spec:
  autogen:
    podControllers: {controllers: []}
    mutatingAdmissionPolicy: {enabled: true}
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["pods"]
    namespaceSelector: {matchLabels: {env: prod}}
    objectSelector: {matchLabels: {inject: "true"}}
  variables:
    - name: reg
      expression: "image(object.spec.containers[0].image).registry()"
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: "Object{metadata: Object.metadata{labels: {'registry': variables.reg}}}"
---
apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata: {name: some-images, namespace: default}
spec:
  policyRefs: [{name: scoped, kind: MutatingPolicy}]
  images: ["nginx:*"]
`,
    );
    const r = await runCli(["translate", "-f", p]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("name: mpol-scoped");
    expect(r.stderr).toContain("MutatingPolicy/scoped: does not carry over at spec.matchConstraints.namespaceSelector:");
    expect(r.stderr).toContain("MutatingPolicy/scoped: does not carry over at spec.matchConstraints.objectSelector:");
    expect(r.stderr).toContain("does not carry over at PolicyException some-images: spec.images:");
    expect(r.stderr).toContain("does not carry over at spec.variables[0]: uses a Kyverno CEL library");
    const strict = await runCli(["translate", "-f", p, "--strict"]);
    expect(strict.code).toBe(1);
  });

  it("a NamespacedMutatingPolicy is never converted; an invalid policy is bad input (exit 2)", async () => {
    const n = join(dir, "nmp.yaml");
    writeFileSync(
      n,
      `apiVersion: policies.kyverno.io/v1
kind: NamespacedMutatingPolicy
metadata: {name: ns-only, namespace: team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  mutations:
    - patchType: JSONPatch
      jsonPatch: {expression: "[]"}
`,
    );
    const r = await runCli(["translate", "-f", n]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("NamespacedMutatingPolicy/ns-only: not generated: NamespacedMutatingPolicy is never converted");
    const b = join(dir, "bad.yaml");
    writeFileSync(b, "apiVersion: policies.kyverno.io/v1\nkind: MutatingPolicy\nmetadata: {name: bad}\nspec:\n  mutations: []\n");
    const bad = await runCli(["translate", "-f", b]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("spec.matchConstraints.resourceRules: Required value");
  });
});
