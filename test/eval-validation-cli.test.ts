/**
 * `celmap eval` goes on after admission as kube-apiserver does: it defaults and validates the
 * admitted object, and says which stage rejected a request (`admission` or `validation`);
 * `--no-validate` stops at admission. Multi-version CRDs: a policy matched through another
 * version (matchPolicy: Equivalent) sees the object converted to its version. Expected messages
 * are the apiserver's (checked against its own code in test/validation-oracle.test.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, runCli } from "./support/cli.js";

let dir: string;
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const evalCli = (...args: string[]) => runCli(["eval", ...args]);

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), "celmap-evalv-"));
});

function policy(resource: string, group: string, versions: string, mutation: string, extra = "", patchType = "ApplyConfiguration"): string {
  const body = patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: p
spec:
  matchConstraints:
${extra}    resourceRules:
      - apiGroups: ["${group}"]
        apiVersions: [${versions}]
        operations: ["CREATE"]
        resources: ["${resource}"]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ${patchType}
      ${body}:
        expression: ${JSON.stringify(mutation)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: p-binding
spec:
  policyName: p
`;
}

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: app
      image: nginx
`;

const CRD = (versions: string[]) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
${versions
  .map(
    (v, i) => `    - name: ${v}
      served: true
      storage: ${i === 0}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: {type: integer, minimum: 1}
                tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
                seenAs: {type: string}
`,
  )
  .join("")}`;

describe("celmap eval: validation after admission", () => {
  it("a mutation that breaks a rule: admitted, then rejected by validation with the apiserver's 422 (exit 1)", async () => {
    const f = file("img.yaml", policy("pods", "", '"v1"', "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'app', image: ''}]}}"));
    const r = await evalCli("-f", f, "-r", file("pod.yaml", POD));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('admitted, then rejected by validation: Error from server (Invalid): Pod "web" is invalid: spec.containers[0].image: Required value');
    const j = await evalCli("-f", f, "-r", file("pod.yaml", POD), "-o", "json");
    const [res] = JSON.parse(j.stdout) as [{ allowed: boolean; stage: string; status: { code: number; reason: string; details: { causes: { field: string }[] } } }];
    expect(res.allowed).toBe(false);
    expect(res.stage).toBe("validation");
    expect(res.status.code).toBe(422);
    expect(res.status.reason).toBe("Invalid");
    expect(res.status.details.causes[0]!.field).toBe("spec.containers[0].image");
    const t = await evalCli("-f", f, "-r", file("pod.yaml", POD), "--trace", "-o", "yaml");
    expect(t.stderr).toContain("validation: rejected (422 Invalid)");
    const off = await evalCli("-f", f, "-r", file("pod.yaml", POD), "--no-validate", "-o", "yaml");
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain("image: \"\"");
  });

  it("prints the object as the apiserver stores it: built-in defaults on the input and on what the policy added", async () => {
    const f = file("side.yaml", policy("pods", "", '"v1"', "Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: 'proxy', image: 'envoy:1.30', restartPolicy: 'Always'}]}}"));
    const r = await evalCli("-f", f, "-r", file("pod.yaml", POD), "-o", "json");
    expect(r.code, r.stderr).toBe(0);
    const [res] = JSON.parse(r.stdout) as [{ object: { spec: Record<string, unknown> & { initContainers: Record<string, unknown>[]; containers: Record<string, unknown>[] } } }];
    const spec = res.object.spec;
    expect(spec.dnsPolicy).toBe("ClusterFirst");
    expect(spec.enableServiceLinks).toBe(true);
    expect(spec.restartPolicy).toBe("Always");
    expect(spec.schedulerName).toBe("default-scheduler");
    expect(spec.securityContext).toEqual({});
    expect(spec.terminationGracePeriodSeconds).toBe(30);
    expect(spec.containers[0]).toMatchObject({ imagePullPolicy: "Always", resources: {}, terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" });
    expect(spec.initContainers[0]).toMatchObject({ imagePullPolicy: "IfNotPresent", resources: {}, terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" });
  });

  it("a JSONPatch that adds a duplicate to a CRD list-type set: the apiserver's Duplicate value", async () => {
    const f = file("tags.yaml", policy("widgets", "example.com", '"v1"', "[JSONPatch{op: 'add', path: '/spec/tags', value: ['a', 'b', 'a']}]", "", "JSONPatch"));
    const w = file("w.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {replicas: 2}\n");
    const r = await evalCli("-f", file("crd1.yaml", CRD(["v1"])), "-f", f, "-r", w);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Widget.example.com "w1" is invalid: spec.tags[2]: Duplicate value: "a"');
  });

  it("matchPolicy Equivalent on a two-version CRD: the v1 policy sees the object as v1, request.kind v1, requestKind v2; the result is stored as v2", async () => {
    const f = file(
      "eq.yaml",
      policy("widgets", "example.com", '"v1"', "Object{spec: Object.spec{seenAs: object.apiVersion + ' ' + request.kind.version + ' ' + request.requestKind.version}}", "    matchPolicy: Equivalent\n"),
    );
    const w = file("w2.yaml", "apiVersion: example.com/v2\nkind: Widget\nmetadata: {name: w1}\nspec: {replicas: 2}\n");
    const r = await evalCli("-f", file("crd2.yaml", CRD(["v1", "v2"])), "-f", f, "-r", w, "-o", "yaml");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("apiVersion: example.com/v2");
    expect(r.stdout).toContain("seenAs: example.com/v1 v1 v2");
    // Conversion is the apiserver's admission behaviour, not validation: --no-validate keeps it.
    const off = await evalCli("-f", file("crd2.yaml", CRD(["v1", "v2"])), "-f", f, "-r", w, "-o", "yaml", "--no-validate");
    expect(off.stdout).toContain("seenAs: example.com/v1 v1 v2");
  });
});
