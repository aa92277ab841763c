/**
 * The three drifts of issue 13 between entry points, each fixed by the engine being the one pipeline:
 * a CRD given with -f works in the webhook as in eval; a namespace not given is the same bare
 * namespace in eval and in the webhook; `celmap cel --namespace` sees the namespace as eval does.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { admit } from "../../src/engine/index.js";
import { loadPaths } from "../../src/io/load.js";
import { run, type CliIo } from "../../src/cli/run.js";
import { plain, review, reviewOutcome, webhookSnapshot } from "./support.js";

function memoryIo(files: Record<string, string> = {}): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout(t: string) {
      io.out += t;
    },
    stderr(t: string) {
      io.err += t;
    },
    readFile(path: string): string {
      const t = files[path];
      if (t === undefined) throw new Error(`ENOENT: ${path}`);
      return t;
    },
  };
  return io;
}

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), "celmap-drift-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
`;

const policy = (name: string, match: string, expression: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["${match.split("/")[0]}"], apiVersions: ["*"], operations: ["CREATE"], resources: ["${match.split("/")[1]}"]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        ${expression}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}}
`;

describe("one pipeline: the drifts of issue 13", () => {
  it("a CustomResourceDefinition given with -f serves its kind in the webhook, as in eval", () => {
    const d = dir({
      "crd.yaml": CRD,
      "policy.yaml": policy("size", "example.com/widgets", `Object{spec: Object.spec{size: "large"}}`),
    });
    const docs = loadPaths([d], { numbers: "cel" });
    expect(docs.errors).toEqual([]);
    const snapshot = webhookSnapshot(docs.documents);
    if ("errors" in snapshot) throw new Error(snapshot.errors.join("\n"));
    const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "default" }, spec: { size: "small" } };
    const a = admit(snapshot.policySet, { operation: "CREATE", object: widget });
    if (!a.ok) throw new Error(a.error.message);
    const reply = review(snapshot, a.request);
    const got = reviewOutcome(reply, a.request);
    expect(got.status?.message ?? "").not.toContain("not found");
    expect(got).toEqual({ allowed: true, object: plain(a.result.object) });
    expect((got.object!.spec as { size: string }).size).toBe("large");
  });

  it("a namespace not given is the same object in eval and in the webhook (phase Active, finalizer kubernetes, name label)", async () => {
    const expression =
      `Object{metadata: Object.metadata{annotations: {"phase": namespaceObject.?status.?phase.orValue("none"), ` +
      `"finalizers": namespaceObject.?spec.?finalizers.orValue([]).join(","), "label": namespaceObject.metadata.?labels["kubernetes.io/metadata.name"].orValue("none")}}}`;
    const d = dir({
      "policy.yaml": policy("ns", "/pods", expression),
      "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team-a}\nspec:\n  containers: [{name: app, image: nginx}]\n",
    });
    const io = memoryIo();
    const code = await run(["eval", "-f", join(d, "policy.yaml"), "-r", join(d, "pod.yaml"), "-o", "json"], io);
    expect(io.err).toBe("");
    expect(code).toBe(0);
    const evalObject = (JSON.parse(io.out) as { object: { metadata: { annotations: Record<string, string> } } }[])[0]!.object;
    const want = { phase: "Active", finalizers: "kubernetes", label: "team-a" };
    expect(evalObject.metadata.annotations).toEqual(want);

    const docs = loadPaths([join(d, "policy.yaml")], { numbers: "cel" });
    const snapshot = webhookSnapshot(docs.documents);
    if ("errors" in snapshot) throw new Error(snapshot.errors.join("\n"));
    const pod = loadPaths([join(d, "pod.yaml")], { numbers: "cel" }).documents[0]!.value as never;
    const a = admit(snapshot.policySet, { operation: "CREATE", object: pod });
    if (!a.ok) throw new Error(a.error.message);
    const got = reviewOutcome(review(snapshot, a.request), a.request);
    expect((got.object!.metadata as { annotations: unknown }).annotations).toEqual(want);
    expect(got.object).toEqual(plain(evalObject));
  });

  it("celmap cel --namespace binds the namespace as eval sees it (with the kubernetes.io/metadata.name label)", async () => {
    const io = memoryIo({ "ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n  labels:\n    env: prod\n" });
    const code = await run(["cel", "namespaceObject.metadata.labels['kubernetes.io/metadata.name'] + '/' + namespaceObject.metadata.labels['env'] + '/' + namespaceObject.status.phase", "--namespace", "ns.yaml"], io);
    expect(io.err).toBe("");
    expect(code).toBe(0);
    expect(io.out).toBe('"prod/prod/Active"\n');
  });
});
