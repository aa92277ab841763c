/**
 * `celmap webhook -f` given a CustomResourceDefinition as a file: a review for the custom resource
 * (as kube-apiserver sends it) is mutated by the CRD's schema. Before src/engine, the -f source did
 * not serve a CRD's kind and answered 503 `Resource kind … not found`. The expected spec is the one
 * a real kube-apiserver 1.36.3 stores for the same MAP natively (test/e2e/cluster-mode.test.ts):
 * `ports` merged as a list-map keyed by name, `tags` as a set.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applyJsonPatch } from "../../src/admission/patch/json-patch.js";
import { PolicyStore, readPaths } from "../../src/webhook/policies.js";
import { handleReview } from "../../src/webhook/review.js";

const dir = mkdtempSync(join(tmpdir(), "celmap-crd-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.e2e.celmap.io" },
  spec: {
    group: "e2e.celmap.io",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: {
      mode: { type: "string", default: "auto" },
      tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
      ports: { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } } },
    } } } } } }],
  },
};
const rule = { apiGroups: ["e2e.celmap.io"], apiVersions: ["v1"], resources: ["widgets"], operations: ["CREATE", "UPDATE"] };
const policy = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingAdmissionPolicy",
  metadata: { name: "widget-ports" },
  spec: {
    matchConstraints: { resourceRules: [rule] },
    failurePolicy: "Fail",
    reinvocationPolicy: "Never",
    mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: 'Object{spec: Object.spec{tags: ["b"], ports: [Object.spec.ports{name: "admin", port: 9443}, Object.spec.ports{name: "metrics", port: 9090}]}}' } }],
  },
};
const binding = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingAdmissionPolicyBinding",
  metadata: { name: "widget-ports" },
  spec: { policyName: "widget-ports", matchResources: { namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["team-a"] }] } } },
};
const widget = { apiVersion: "e2e.celmap.io/v1", kind: "Widget", metadata: { name: "w1", namespace: "team-a" }, spec: { mode: "manual", tags: ["a"], ports: [{ name: "http", port: 80 }, { name: "admin", port: 9000 }] } };
const gvr = { group: "e2e.celmap.io", version: "v1", resource: "widgets" };
const gvk = { group: "e2e.celmap.io", version: "v1", kind: "Widget" };
const reviewText = JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: { uid: "u1", kind: gvk, resource: gvr, requestKind: gvk, requestResource: gvr, name: "w1", namespace: "team-a", operation: "CREATE", userInfo: { username: "alice", groups: ["system:authenticated"] }, object: widget, oldObject: null, dryRun: false, options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" } },
});

describe("celmap webhook -f with a CRD file", () => {
  it("mutates the custom resource by the CRD's schema (list-map ports, set tags)", () => {
    writeFileSync(join(dir, "widgets.yaml"), [crd, policy, binding].map((d) => JSON.stringify(d)).join("\n---\n"));
    const update = readPaths([dir]);
    expect(update.ok, update.ok ? "" : update.errors.join("\n")).toBe(true);
    const store = new PolicyStore();
    store.apply(update);
    const now = (): number => 0;
    const reply = handleReview(reviewText, { settings: { failurePolicy: "Fail" }, snapshot: store.current, deadline: 10_000, now });
    const body = JSON.parse(reply.body) as { response: { allowed: boolean; patch?: string; status?: unknown } };
    expect(body.response.status).toBeUndefined();
    expect(body.response.allowed).toBe(true);
    expect(reply.outcome).toBe("mutated");
    const ops = JSON.parse(Buffer.from(body.response.patch!, "base64").toString("utf8"));
    const patched = applyJsonPatch(widget, ops);
    if (patched.ok !== true) throw new Error(`the webhook's patch does not apply: ${JSON.stringify(patched)}`);
    expect((patched.doc as { spec: unknown }).spec).toEqual({ mode: "manual", tags: ["a", "b"], ports: [{ name: "http", port: 80 }, { name: "admin", port: 9443 }, { name: "metrics", port: 9090 }] });
  });
});
