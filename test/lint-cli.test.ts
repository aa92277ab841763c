/**
 * `celmap lint` through the real executable: the done-when examples (no -r samples), the example
 * and Gatekeeper-docs sets clean, output formats (text, json, SARIF), --disable, --seed, exit
 * codes (0 clean, 1 findings, 2 bad input) and bad input reported without a stack trace.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseExactJson } from "../src/cli/exact-json.js";
import { REPO_ROOT, assertBuilt, runCli } from "./support/cli.js";

beforeAll(() => assertBuilt());

interface JsonFinding {
  check: string;
  message: string;
  policies: { name: string; kind: string; source?: string }[];
  path?: string;
  witness?: { origin: string; object: { metadata: { namespace?: string }; spec?: { containers: { image: string }[] } } };
  results?: { label: string; object: { spec: { containers: { image: string }[] } } }[];
}

async function lintJson(args: readonly string[]): Promise<{ code: number; findings: JsonFinding[]; stderr: string }> {
  const r = await runCli(["lint", "-o", "json", ...args], { timeoutMs: 60_000 });
  const out = r.stdout === "" ? { findings: [] } : (parseExactJson(r.stdout) as unknown as { findings: JsonFinding[] });
  return { code: r.code, findings: out.findings, stderr: r.stderr };
}

describe("celmap lint (CLI)", () => {
  it.each(["examples/lint/image-prefix-maps.yaml", "examples/lint/image-prefix-kyverno.yaml"])("%s: not idempotent, the doubled image shown, without -r", async (file) => {
    const r = await runCli(["lint", "-f", file], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/error \[idempotence\] not idempotent: admitting the admitted object again as an UPDATE .* changes spec\.containers\[0\]\.image \(the field grows on every admission\)/);
    expect(r.stdout).toMatch(/witness \(generated, shrunk\):\n(.*\n)*\s+namespace: billing\n/);
    // The doubled image in the diff of the second admission.
    expect(r.stdout).toMatch(/\+\s+- image: (gcr\.io\/billing\.company\.com\/gcr\.io\/billing\.company\.com\/|billing\.company\.com\/gcr\.io\/billing\.company\.com\/gcr\.io\/)nginx:1\.25/);
    expect(r.stdout).toMatch(/policy: (MutatingAdmissionPolicy|MutatingPolicy) gcr-prefix \(examples\/lint\/image-prefix-(maps|kyverno)\.yaml#0\)/);
  });

  it("two MAPs writing the same label differently: order-dependent, both results as a diff", async () => {
    const r = await runCli(["lint", "-f", "examples/lint/label-conflict.yaml"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("error [order] order-dependent: tier-frontend and tier-web give different results depending on which runs first (metadata.labels.tier)");
    expect(r.stdout).toMatch(/--- tier-frontend first\n\s+\+\+\+ tier-web first\n/);
    expect(r.stdout).toMatch(/-\s+tier: web\n\s+\+\s+tier: frontend/);
  });

  it("JSONPatch add at /spec/containers/0 beside an ApplyConfiguration adding a container: reported only when the order changes the result", async () => {
    const dep = await lintJson(["-f", "examples/lint/container-order.yaml"]);
    expect(dep.code).toBe(1);
    expect(dep.findings.map((f) => [f.check, f.path])).toEqual([["order", "spec.containers"]]);
    const indep = await runCli(["lint", "-f", "examples/lint/container-order-independent.yaml"]);
    expect(indep.code).toBe(0);
    expect(indep.stdout).toMatch(/^clean: order-independent, idempotent and convergent on 0 samples and \d+ generated objects; no static finding\n$/);
  });

  it.each([["examples/policies/"], ["examples/gatekeeper/"], ["test/fixtures/lint/gatekeeper-docs.yaml", "examples/gatekeeper/"], ["examples/lint/team-mirror-ifneeded.yaml"]])("%s lints clean", async (...paths) => {
    const r = await runCli(["lint", ...paths.flatMap((p) => ["-f", p]), "-r", "examples/resources/"], { timeoutMs: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^clean: .* on 3 samples and \d+ generated objects/);
  });

  it("Gatekeeper mutators run in the set: a MAP and Gatekeeper's AssignImage fight over the registry", async () => {
    const r = await lintJson(["-f", "test/fixtures/lint/mixed-gatekeeper.yaml"]);
    expect(r.code).toBe(1);
    const f = r.findings.find((x) => x.check === "idempotence")!;
    expect(f.policies.map((p) => `${p.kind}/${p.name}`).sort()).toEqual(["AssignImage/assign-container-image", "MutatingAdmissionPolicy/gcr-prefix"]);
    expect(f.results![1]!.object.spec.containers[0]!.image).toBe("my.registry.io/my.registry.io/nginx:1.25");
    expect(r.findings.some((x) => x.check === "convergence")).toBe(true);
  });

  it("-o sarif: one rule per check, results located at the policy files", async () => {
    const r = await runCli(["lint", "-f", "test/fixtures/lint/static-bad.yaml", "-o", "sarif", "--generate", "0"]);
    expect(r.code).toBe(1);
    const sarif = JSON.parse(r.stdout) as {
      version: string;
      runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; level: string; locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[] }[] }[];
    };
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0]!.tool.driver.rules.map((x) => x.id)).toContain("atomic");
    const ids = sarif.runs[0]!.results.map((x) => x.ruleId).sort();
    expect(ids).toEqual(["atomic", "binding", "binding", "filter", "jsonpatch-path", "match", "params", "schema", "schema"]);
    for (const x of sarif.runs[0]!.results) expect(x.locations?.[0]?.physicalLocation.artifactLocation.uri).toBe("test/fixtures/lint/static-bad.yaml");
    // The policy's document starts at line 3 of the file (after the comment).
    expect(sarif.runs[0]!.results.find((x) => x.ruleId === "atomic")?.locations?.[0]?.physicalLocation.region).toEqual({ startLine: 3 });
  });

  it("--disable drops checks; exit 0 when nothing is left to find", async () => {
    const r = await runCli(["lint", "-f", "examples/lint/label-conflict.yaml", "--disable", "order"]);
    expect(r.code).toBe(0);
    const bad = await runCli(["lint", "-f", "examples/lint/label-conflict.yaml", "--disable", "ordr"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--disable: unknown check "ordr"; the checks are order, idempotence, convergence');
  });

  it("--seed makes the report repeatable", async () => {
    const a = await runCli(["lint", "-f", "examples/lint/image-prefix-maps.yaml", "-o", "json", "--seed", "7"]);
    const b = await runCli(["lint", "-f", "examples/lint/image-prefix-maps.yaml", "-o", "json", "--seed", "7"]);
    expect(a.stdout).toBe(b.stdout);
  });

  it("bad input: exit 2 with file#doc and no stack trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "celmap-lint-"));
    const p = join(dir, "bad.yaml");
    writeFileSync(
      p,
      `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: bad}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: "Object{"}
`,
    );
    const r = await runCli(["lint", "-f", p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${p}#0: spec.mutations[0].applyConfiguration.expression: Invalid value`);
    expect(r.stderr).toContain("celmap lint: 1 input error; nothing linted");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const missing = await runCli(["lint"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing -f <file|dir> with the policies to lint");
  });

  it("celmap test --lint: each finding is a failed row, so a suite fails on a non-idempotent set", async () => {
    const dir = mkdtempSync(join(tmpdir(), "celmap-lint-suite-"));
    writeFileSync(join(dir, "policy.yaml"), readFileSync(join(REPO_ROOT, "examples/lint/image-prefix-kyverno.yaml"), "utf8"));
    writeFileSync(join(dir, "resource.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: nginx:1.25}]\n");
    writeFileSync(
      join(dir, "kyverno-test.yaml"),
      "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\npolicies: [policy.yaml]\nresources: [resource.yaml]\nresults:\n  - {policy: gcr-prefix, kind: Pod, resources: [web], result: pass}\n",
    );
    const plain = await runCli(["test", dir]);
    expect(plain.code).toBe(0);
    const linted = await runCli(["test", dir, "--lint"], { timeoutMs: 60_000 });
    expect(linted.code).toBe(1);
    expect(linted.stdout).toMatch(/│ gcr-prefix, billing-registry\s+│\s+│ Pod\/billing\/lint-\d+ \(generated\)\s+│ Fail\s+│ Lint: idempotence\s+│/);
    expect(linted.stdout).toMatch(/Test Summary: 1 tests passed and 3 tests failed\n$/);
    const clean = mkdtempSync(join(tmpdir(), "celmap-lint-suite-"));
    writeFileSync(join(clean, "policy.yaml"), readFileSync(join(REPO_ROOT, "examples/lint/team-mirror-ifneeded.yaml"), "utf8"));
    writeFileSync(join(clean, "resource.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: app, image: nginx:1.25}]\n");
    writeFileSync(join(clean, "kyverno-test.yaml"), "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\npolicies: [policy.yaml]\nresources: [resource.yaml]\nresults: []\n");
    const ok = await runCli(["test", clean, "--lint"], { timeoutMs: 60_000 });
    expect(ok.stdout).toContain("Lint: clean");
    expect(ok.code).toBe(0);
  });

  it("--help teaches the checks and exit codes", async () => {
    const r = await runCli(["lint", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("celmap lint -f");
    expect(r.stdout).toMatch(/idempotence\s+admitting the admitted object again/);
    expect(r.stdout).toContain("2  bad input");
  });
});
