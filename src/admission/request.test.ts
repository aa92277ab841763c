import { describe, expect, it } from "vitest";
import type { JsonObject } from "./json.js";
import { ResourceCatalog } from "./match/catalog.js";
import { gvkOfObject, mapExemption, newAdmissionRequest, objectLabels, resourceForKind, type Operation, type RequestInput } from "./request.js";

const catalog = ResourceCatalog.builtin();
catalog.addCustomResourceDefinition({
  spec: { group: "oracle.example.com", scope: "Namespaced", names: { plural: "widgets", kind: "Widget" }, versions: [{ name: "v1", served: true }] },
});
catalog.addCustomResourceDefinition({
  spec: { group: "example.com", scope: "Cluster", names: { plural: "clusterthings", kind: "ClusterThing" }, versions: [{ name: "v1", served: true }] },
});

function build(input: RequestInput) {
  const r = newAdmissionRequest(input, catalog);
  if (!r.ok) throw new Error(r.error);
  return r;
}

interface Case {
  name: string;
  input: RequestInput;
  resource: string;
  namespace: string;
  scope?: string;
  requestName?: string;
}

const obj = (apiVersion: string, kind: string, name: string, namespace?: string, extra: JsonObject = {}): JsonObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
  ...extra,
});

const CASES: Case[] = [
  { name: "Pod in its namespace", input: { operation: "CREATE", object: obj("v1", "Pod", "p", "team-a") }, resource: "/v1/pods", namespace: "team-a", scope: "Namespaced" },
  { name: "namespaced object without namespace gets default", input: { operation: "CREATE", object: obj("v1", "ConfigMap", "c") }, resource: "/v1/configmaps", namespace: "default" },
  {
    name: "defaultNamespace option",
    input: { operation: "CREATE", object: obj("v1", "ConfigMap", "c"), defaultNamespace: "kube-system" },
    resource: "/v1/configmaps",
    namespace: "kube-system",
  },
  { name: "Deployment", input: { operation: "CREATE", object: obj("apps/v1", "Deployment", "d", "x") }, resource: "apps/v1/deployments", namespace: "x" },
  { name: "Endpoints keeps its plural", input: { operation: "CREATE", object: obj("v1", "Endpoints", "e", "x") }, resource: "/v1/endpoints", namespace: "x" },
  { name: "Ingress", input: { operation: "CREATE", object: obj("networking.k8s.io/v1", "Ingress", "i", "x") }, resource: "networking.k8s.io/v1/ingresses", namespace: "x" },
  {
    name: "cluster-scoped object ignores a stray metadata.namespace",
    input: { operation: "CREATE", object: obj("rbac.authorization.k8s.io/v1", "ClusterRole", "r", "oops") },
    resource: "rbac.authorization.k8s.io/v1/clusterroles",
    namespace: "",
    scope: "Cluster",
  },
  { name: "Node", input: { operation: "UPDATE", object: obj("v1", "Node", "n"), oldObject: obj("v1", "Node", "n") }, resource: "/v1/nodes", namespace: "" },
  { name: "Namespace CREATE has no namespace", input: { operation: "CREATE", object: obj("v1", "Namespace", "new") }, resource: "/v1/namespaces", namespace: "" },
  {
    name: "Namespace UPDATE carries its own name as namespace",
    input: { operation: "UPDATE", object: obj("v1", "Namespace", "team-a"), oldObject: obj("v1", "Namespace", "team-a") },
    resource: "/v1/namespaces",
    namespace: "team-a",
  },
  {
    name: "namespaces/status CREATE-less subresource carries the name",
    input: { operation: "UPDATE", object: obj("v1", "Namespace", "team-a"), subResource: "status" },
    resource: "/v1/namespaces",
    namespace: "team-a",
  },
  { name: "CRD uses its plural", input: { operation: "CREATE", object: obj("oracle.example.com/v1", "Widget", "w", "x") }, resource: "oracle.example.com/v1/widgets", namespace: "x" },
  {
    name: "cluster-scoped CRD",
    input: { operation: "CREATE", object: obj("example.com/v1", "ClusterThing", "t", "x") },
    resource: "example.com/v1/clusterthings",
    namespace: "",
    scope: "Cluster",
  },
  {
    name: "unknown kind: guessed plural, namespace kept",
    input: { operation: "CREATE", object: obj("gateway.networking.k8s.io/v1", "Gateway", "g", "x") },
    resource: "gateway.networking.k8s.io/v1/gateways",
    namespace: "x",
  },
  { name: "generateName only: empty name", input: { operation: "CREATE", object: { apiVersion: "v1", kind: "Pod", metadata: { generateName: "p-", namespace: "x" } } }, resource: "/v1/pods", namespace: "x", requestName: "" },
  {
    name: "explicit resource and subresource (CONNECT exec)",
    input: {
      operation: "CONNECT",
      object: { apiVersion: "v1", kind: "PodExecOptions", command: ["sh"] },
      kind: { group: "", version: "v1", kind: "PodExecOptions" },
      resource: { group: "", version: "v1", resource: "pods" },
      subResource: "exec",
      name: "p",
      namespace: "x",
    },
    resource: "/v1/pods",
    namespace: "x",
    requestName: "p",
  },
  {
    name: "name from oldObject",
    input: { operation: "UPDATE", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "x" } }, oldObject: obj("v1", "ConfigMap", "old", "x") },
    resource: "/v1/configmaps",
    namespace: "x",
    requestName: "old",
  },
];

describe("newAdmissionRequest", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const { request, scope } = build(c.input);
      const r = request.resource;
      expect(`${r.group}/${r.version}/${r.resource}`).toBe(c.resource);
      expect(request.namespace).toBe(c.namespace);
      if (c.scope !== undefined) expect(scope).toBe(c.scope);
      if (c.requestName !== undefined) expect(request.name).toBe(c.requestName);
      expect(request.requestResource).toEqual(request.resource);
      expect(request.requestKind).toEqual(request.kind);
      expect(request.requestSubResource).toBe(request.subResource);
    });
  }

  it("fills defaults", () => {
    const { request } = build({ operation: "CREATE", object: obj("v1", "Pod", "p", "x") });
    expect(request.kind).toEqual({ group: "", version: "v1", kind: "Pod" });
    expect(request.subResource).toBe("");
    expect(request.userInfo).toEqual({ username: "", uid: "", groups: [], extra: {} });
    expect(request.oldObject).toBeNull();
    expect(request.dryRun).toBe(false);
    expect(request.options).toEqual({ apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" });
  });

  it("options follow the operation and dryRun", () => {
    const opts = (operation: Operation, dryRun: boolean) => build({ operation, object: obj("v1", "Pod", "p", "x"), dryRun }).request.options;
    expect(opts("UPDATE", true)).toEqual({ apiVersion: "meta.k8s.io/v1", kind: "UpdateOptions", dryRun: ["All"] });
    expect(opts("CONNECT", false)).toBeNull();
  });

  it("keeps the given user", () => {
    const { request } = build({ operation: "CREATE", object: obj("v1", "Pod", "p", "x"), userInfo: { username: "admin", groups: ["system:masters"] } });
    expect(request.userInfo).toEqual({ username: "admin", uid: "", groups: ["system:masters"], extra: {} });
  });

  it("errors", () => {
    expect(newAdmissionRequest({ operation: "CREATE" }, catalog)).toEqual({ ok: false, error: "a request needs an object, an oldObject or an explicit kind" });
    expect(newAdmissionRequest({ operation: "CREATE", object: { apiVersion: "a/b/c", kind: "X" } }, catalog)).toEqual({
      ok: false,
      error: "unexpected GroupVersion string: a/b/c",
    });
    expect(newAdmissionRequest({ operation: "CREATE", object: { metadata: {} } }, catalog)).toEqual({ ok: false, error: "object has no apiVersion or kind" });
    expect(newAdmissionRequest({ operation: "PATCH" as Operation, object: obj("v1", "Pod", "p") }, catalog).ok).toBe(false);
  });
});

describe("helpers", () => {
  it("gvkOfObject", () => {
    expect(gvkOfObject(obj("apps/v1", "Deployment", "d"))).toEqual({ group: "apps", version: "v1", kind: "Deployment" });
    expect(gvkOfObject(obj("v1", "Pod", "p"))).toEqual({ group: "", version: "v1", kind: "Pod" });
  });
  it("objectLabels", () => {
    expect(objectLabels({ metadata: { labels: { a: "b" } } })).toEqual({ a: "b" });
    expect(objectLabels({ metadata: {} })).toBeUndefined();
    expect(objectLabels({})).toBeUndefined();
    expect(objectLabels(null)).toBeUndefined();
  });
  it("resourceForKind", () => {
    expect(resourceForKind({ group: "batch", version: "v1", kind: "CronJob" }, catalog)).toEqual({
      gvr: { group: "batch", version: "v1", resource: "cronjobs" },
      scope: "Namespaced",
    });
    expect(resourceForKind({ group: "x.io", version: "v1", kind: "Policy" }, catalog)).toEqual({
      gvr: { group: "x.io", version: "v1", resource: "policies" },
      scope: undefined,
    });
  });
});

describe("MAP exemptions (map.md §8)", () => {
  const cases: [string, Operation, string, string, boolean][] = [
    ["CREATE of pods", "CREATE", "", "pods", false],
    ["UPDATE of pods", "UPDATE", "", "pods", false],
    ["CONNECT of pods", "CONNECT", "", "pods", false],
    ["DELETE is never handled", "DELETE", "", "pods", true],
    ["tokenreviews", "CREATE", "authentication.k8s.io", "tokenreviews", true],
    ["selfsubjectreviews", "CREATE", "authentication.k8s.io", "selfsubjectreviews", true],
    ["subjectaccessreviews", "CREATE", "authorization.k8s.io", "subjectaccessreviews", true],
    ["localsubjectaccessreviews", "CREATE", "authorization.k8s.io", "localsubjectaccessreviews", true],
    ["selfsubjectaccessreviews", "CREATE", "authorization.k8s.io", "selfsubjectaccessreviews", true],
    ["selfsubjectrulesreviews", "CREATE", "authorization.k8s.io", "selfsubjectrulesreviews", true],
    ["mutatingadmissionpolicies", "CREATE", "admissionregistration.k8s.io", "mutatingadmissionpolicies", true],
    ["mutatingadmissionpolicybindings", "UPDATE", "admissionregistration.k8s.io", "mutatingadmissionpolicybindings", true],
    ["validatingadmissionpolicies", "CREATE", "admissionregistration.k8s.io", "validatingadmissionpolicies", true],
    ["validatingadmissionpolicybindings", "CREATE", "admissionregistration.k8s.io", "validatingadmissionpolicybindings", true],
    ["webhook configurations are not exempt", "CREATE", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", false],
    ["bindings are included", "CREATE", "", "bindings", false],
    ["tokenreviews in another group is not exempt", "CREATE", "example.com", "tokenreviews", false],
  ];
  for (const [name, operation, group, resource, exempt] of cases) {
    it(name, () => {
      const e = mapExemption({ operation, resource: { group, version: "v1", resource } });
      expect(e.exempt).toBe(exempt);
      expect(e.reason === "").toBe(!exempt);
    });
  }
});
