/**
 * `celmap test` as a user moving CI from `kyverno test` meets it (issue 22): the Values file's
 * `subresources`, rows whose resource is missing from the patched-resource file, no false pass when
 * a policy never ran, `--junit` into a missing directory, directory symlink loops, and the flags
 * users rely on (`-t/--test-case-selector`, `--remove-color`, the `Test Summary:` line).
 * In-process (`run(argv, io)`) on suites written to a temporary directory.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../src/cli/run.js";
import { captureIo } from "./support/memory-io.js";

const POLICY = `apiVersion: policies.kyverno.io/v1beta1
kind: MutatingPolicy
metadata:
  name: zone-id
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods/binding]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{annotations: {'zone': 'az-1'}}}"
`;
const BINDING = `apiVersion: v1
kind: Binding
metadata: {name: p1, namespace: default}
target: {apiVersion: v1, kind: Node, name: n1}
`;
const PATCHED_BINDING = `apiVersion: v1
kind: Binding
metadata: {name: p1, namespace: default, annotations: {zone: az-1}}
target: {apiVersion: v1, kind: Node, name: n1}
`;
const VALUES = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
metadata: {name: values}
subresources:
- parentResource: {kind: Pod, name: pods, namespaced: true, version: v1}
  subresource: {kind: Binding, name: pods/binding, namespaced: true, version: v1}
`;

function suite(files: Record<string, string>, root = mkdtempSync(join(tmpdir(), "celmap-kt-"))): string {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, ".."), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

function bindingTest(withValues: boolean): string {
  return `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resource.yaml]
${withValues ? "variables: values.yaml\n" : ""}results:
- kind: Binding
  policy: zone-id
  resources: [default/p1]
  patchedResources: patched.yaml
  result: pass
`;
}

async function celmapTest(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await run(["test", ...args], io);
  return { code, out: io.out, err: io.err };
}

describe("celmap test: the Values file's subresources", () => {
  it("a Binding with subresources pods/binding is a request on pods/binding: the policy runs and the patch is compared", async () => {
    const dir = suite({ "kyverno-test.yaml": bindingTest(true), "policy.yaml": POLICY, "resource.yaml": BINDING, "patched.yaml": PATCHED_BINDING, "values.yaml": VALUES });
    const r = await celmapTest([dir]);
    expect(r.out).toMatch(/│ zone-id +│ +│ Binding\/default\/p1 +│ Pass +│ Ok /);
    expect(r.out).toContain("Test Summary: 1 tests passed and 0 tests failed\n");
    expect(r.code).toBe(0);
  });

  it("no false pass: without the subresources the policy never runs, and the patched expectation makes the row fail", async () => {
    const dir = suite({ "kyverno-test.yaml": bindingTest(false), "policy.yaml": POLICY, "resource.yaml": BINDING, "patched.yaml": PATCHED_BINDING });
    const r = await celmapTest([dir, "--detailed-results"]);
    expect(r.out).toMatch(/Binding\/default\/p1 +│ Fail +│ Excluded, resource diff +│ the policy did not run on Binding default\/p1/);
    expect(r.out).toContain("Test Summary: 0 tests passed and 1 tests failed\n");
    expect(r.code).toBe(1);
  });

  it("a malformed subresources entry is a suite error naming the values file", async () => {
    const dir = suite({
      "kyverno-test.yaml": bindingTest(true),
      "policy.yaml": POLICY,
      "resource.yaml": BINDING,
      "patched.yaml": PATCHED_BINDING,
      "values.yaml": "apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\nsubresources:\n- subresource: {kind: Binding, name: binding}\n",
    });
    const r = await celmapTest([dir, "--detailed-results"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("values.yaml: subresources[0]: want {parentResource:");
  });
});

const LABEL_POLICY = `apiVersion: policies.kyverno.io/v1beta1
kind: MutatingPolicy
metadata: {name: add-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'team': 'a'}}}"
`;
const PODS = ["one", "two"].map((n) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${n}}\nspec:\n  containers: [{name: c, image: nginx}]\n`).join("---\n");
const PATCHED_ONE = "apiVersion: v1\nkind: Pod\nmetadata: {name: one, labels: {team: a}}\nspec:\n  containers: [{name: c, image: nginx}]\n";

function labelTest(extra = ""): string {
  return `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
results:
- kind: Pod
  policy: add-label
  resources: [one, two]
  patchedResources: patched.yaml
  result: pass
${extra}`;
}

describe("celmap test: rows whose resource is missing from the patched-resource file", () => {
  it("are skipped with a warning, as kyverno test does (failOnMissingResources false)", async () => {
    const dir = suite({ "kyverno-test.yaml": labelTest(), "policy.yaml": LABEL_POLICY, "resources.yaml": PODS, "patched.yaml": PATCHED_ONE });
    const r = await celmapTest([dir]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Pod\/one +│ Pass +│ Ok/);
    expect(r.out).toMatch(/Pod\/two +│ Skip +│ Not in patchedResources/);
    expect(r.err).toContain("warning: ");
    expect(r.err).toContain("add-label: no Pod two in patched.yaml: not compared (set failOnMissingResources: true to fail)");
    expect(r.out).toContain("Test Summary: 1 tests passed and 0 tests failed (1 not compared)\n");
  });

  it("fail with failOnMissingResources: true", async () => {
    const t = labelTest().replace("  result: pass\n", "  result: pass\n  failOnMissingResources: true\n");
    const dir = suite({ "kyverno-test.yaml": t, "policy.yaml": LABEL_POLICY, "resources.yaml": PODS, "patched.yaml": PATCHED_ONE });
    const r = await celmapTest([dir]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Pod\/two +│ Fail +│ Patched resource not found/);
  });
});

describe("celmap test: flags and files", () => {
  it("--junit into a directory that does not exist: a clear usage error, no stack trace, nothing run", async () => {
    const dir = suite({ "kyverno-test.yaml": labelTest(), "policy.yaml": LABEL_POLICY, "resources.yaml": PODS, "patched.yaml": PATCHED_ONE });
    const r = await celmapTest([dir, "--junit", "/nonexistent/dir/x.xml"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--junit /nonexistent/dir/x.xml: the directory /nonexistent/dir does not exist");
    expect(r.err).not.toMatch(/^\s+at /m);
    expect(r.out).not.toContain("Loading test");
  });

  it("a directory symlink loop: each suite runs once", async () => {
    const dir = suite({ "a/kyverno-test.yaml": labelTest(), "a/policy.yaml": LABEL_POLICY, "a/resources.yaml": PODS, "a/patched.yaml": PATCHED_ONE });
    symlinkSync(dir, join(dir, "a", "loop"));
    symlinkSync(join(dir, "a"), join(dir, "again"));
    const r = await celmapTest([dir]);
    expect(r.out.match(/Loading test/g)).toHaveLength(1);
  });

  it("-t/--test-case-selector runs only the selected rows (wildcards as kyverno test)", async () => {
    const dir = suite({ "kyverno-test.yaml": labelTest(), "policy.yaml": LABEL_POLICY, "resources.yaml": PODS, "patched.yaml": PATCHED_ONE });
    const one = await celmapTest([dir, "--test-case-selector", "policy=add-*, resource=one"]);
    expect(one.out).toMatch(/Pod\/one +│ Pass/);
    expect(one.out).not.toContain("Pod/two");
    expect(one.out).toContain("Test Summary: 1 tests passed and 0 tests failed\n");
    const none = await celmapTest([dir, "-t", "policy=other"]);
    expect(none.out).toContain("Test Summary: 0 tests passed and 0 tests failed\n");
    const bad = await celmapTest([dir, "-t", "polcy=x"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--test-case-selector: "polcy=x" is not policy=<name>, rule=<name> or resource=<name>');
  });

  it("--remove-color prints no escape sequences; --fail-only's summary is kyverno's 'N out of M tests failed'", async () => {
    const dir = suite({ "kyverno-test.yaml": labelTest(), "policy.yaml": LABEL_POLICY, "resources.yaml": PODS, "patched.yaml": PATCHED_ONE });
    const r = await celmapTest([dir, "--remove-color"]);
    expect(r.out).not.toContain("\u001b[");
    const f = await celmapTest([dir, "--fail-only"]);
    expect(f.out).toContain("Test Summary: 0 out of 1 tests failed");
  });

  it("the JUnit report marks rows not compared as skipped", async () => {
    const dir = suite({ "kyverno-test.yaml": labelTest(), "policy.yaml": LABEL_POLICY, "resources.yaml": PODS, "patched.yaml": PATCHED_ONE });
    const junit = join(dir, "report.xml");
    await celmapTest([dir, "--junit", junit]);
    expect(readFileSync(junit, "utf8")).toContain("<skipped message=");
  });
});

describe("celmap test: mutateExisting with targetMatchConstraints naming a subresource", () => {
  it("expression and resourceRules [pods/resize] together select the named target (they selected none)", async () => {
    const policy = `apiVersion: policies.kyverno.io/v1beta1
kind: MutatingPolicy
metadata: {name: resize}
spec:
  evaluation:
    admission: {enabled: false}
    background: {enabled: true}
    mutateExisting: {enabled: true}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  targetMatchConstraints:
    expression: resource.get("v1", "pods", request.namespace, "web")
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods/resize], resourceNames: [web]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "replace", path: "/spec/containers/0/resources/requests/cpu", value: "200m"}]'
`;
    const pod = (cpu: string) => `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: apps}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: ${cpu}}}
`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [trigger.yaml]
targetResources: [target.yaml]
results:
- kind: Pod
  policy: resize
  resources: [apps/web]
  patchedResources: patched.yaml
  result: pass
`;
    const dir = suite({
      "kyverno-test.yaml": test,
      "policy.yaml": policy,
      "trigger.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: trigger, namespace: apps}\n",
      "target.yaml": pod("100m"),
      "patched.yaml": pod("200m"),
    });
    const r = await celmapTest([dir, "--detailed-results"]);
    expect(r.out).toMatch(/Pod\/apps\/web +│ Pass +│ Ok/);
    expect(r.code).toBe(0);
  });
});
