import { describe, expect, it } from "vitest";
import { DataPendingError, ProviderError, type JsonObject } from "./common.js";
import { OfflineResourceProvider, guessResource } from "./providers.js";
import type { ResourceProvider } from "./resource.js";
import { err, run, v, type Outcome } from "./test-harness.js";

// Data of kyverno-tests test/cli/test-context-configmap-mpol (clusterresources.yaml), plus a few more.
const objects: JsonObject[] = [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "test-namespace", labels: { team: "a" } } },
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "env-config", namespace: "test-namespace", labels: { app: "x" } }, data: { env: "production" } },
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other", namespace: "test-namespace" }, data: { n: "1" } },
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "default", labels: { app: "x" } }, data: {} },
  { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default" }, spec: { replicas: 3 } },
  { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "ing", namespace: "default" } },
  { apiVersion: "cloud.google.com/v1", kind: "ComputeClass", metadata: { name: "autopilot" }, spec: { priorities: [] } },
];
const hint = "give it with --cluster-resources";
const resource = new OfflineResourceProvider({ objects, hint });

describe("resource library (cluster policy)", () => {
  it.each<[string, Outcome]>([
    // resource.get: Kyverno's own example policies (test-context-configmap-mpol, add-karpenter-nodeselector)
    [`resource.get("v1", "configmaps", "test-namespace", "env-config").data.env`, v("production")],
    [`resource.Get('v1', 'namespaces', '', 'test-namespace').metadata.labels`, v(new Map([["team", "a"]]))],
    [`resource.Get("apps/v1", "deployments", "default", "web").spec.replicas`, v(3n)],
    [`resource.get("cloud.google.com/v1", "computeclasses", "", "autopilot").metadata.name`, v("autopilot")],
    [`resource.Get("networking.k8s.io/v1", "ingresses", "default", "ing").kind`, v("Ingress")],
    // NotFound is null (impl.go), when the kind is in the data
    [`dyn(resource.Get("v1", "configmaps", "default", "missing")) == null`, v(true)],
    // map(string, any): null comparison and comprehensions need dyn(), as in cel-go (any is not a comprehension range)
    [`resource.Get("v1", "configmaps", "default", "missing") == null`, { compileError: "found no matching overload for '_==_' applied to '(map(string, any), null)'" }],
    [`resource.List("v1", "configmaps", "").items.map(i, i)`, { compileError: "expression of type 'any' cannot be range of a comprehension (must be list, map, or dynamic)" }],
    [`resource.Get("v1", "configmaps", "other-ns", "env-config")`, v(null)],
    // no data at all for the kind: a clear error
    [
      `resource.Get("v1", "secrets", "default", "x")`,
      err(`failed to get resource: resource.Get("v1", "secrets", "default", "x"): no such resource in the offline data (${hint})`),
    ],
    // subresources: status reads the object
    [`resource.Get("apps/v1", "deployments/status", "default", "web").metadata.name`, v("web")],
    // List: items sorted by namespace and name; "" = all namespaces; label selector
    [`dyn(resource.List("v1", "configmaps", "test-namespace").items).map(i, i.metadata.name)`, v(["env-config", "other"])],
    [`dyn(resource.list("v1", "configmaps", "").items).map(i, i.metadata.namespace + "/" + i.metadata.name)`, v(["default/cm", "test-namespace/env-config", "test-namespace/other"])],
    [`resource.List("v1", "configmaps", "", {"app": "x"}).items.size()`, v(2n)],
    [`resource.List("v1", "configmaps", "nowhere").items`, v([])],
    [`resource.List("v1", "configmaps", "default").kind`, v("ConfigMapList")],
    [`resource.List("v1", "pods", "default")`, err(`failed to list resource: resource.List("v1", "pods", "default"): no objects of this resource in the offline data (${hint})`)],
    // GVR overloads
    [`resource.Get(resource.ToGVR("apps/v1", "Deployment"), "default", "web").spec.replicas`, v(3n)],
    [`resource.toGVR("networking.k8s.io/v1", "Ingress") == resource.ToGVR("networking.k8s.io/v1", "Ingress")`, v(true)],
    [`resource.List(resource.ToGVR("v1", "ConfigMap"), "default", {"app": "x"}).items[0].metadata.name`, v("cm")],
    // Post is not available offline (Kyverno's CLI fake does not implement it either)
    [
      `resource.Post("authorization.k8s.io/v1", "subjectaccessreviews", {"spec": {}})`,
      err(`failed to create resource: resource.Post("authorization.k8s.io/v1", "subjectaccessreviews", "", …): resource.Post is not available offline (${hint})`),
    ],
    [`resource.Get("a/b/c", "x", "", "y")`, err("failed to get resource: unexpected GroupVersion string: a/b/c")],
  ])("%s", (expr, want) => {
    expect(run(expr, { resource })).toEqual(want);
  });

  it.each([
    `resource.Get("v1", "configmaps", "name")`, // the namespaced overload is not declared for a cluster policy
    `resource.Get("v1", 1, "", "x")`,
    `resource.List("v1", "configmaps", "", {"a": 1})`,
    `resource.Put("v1", "configmaps", "", {})`,
    `resource.Get(1)`,
  ])("rejects %s at compile time", (expr) => {
    expect(run(expr, { resource })).toHaveProperty("compileError");
  });
});

describe("resource library (namespaced policy)", () => {
  const opts = { resource, namespace: "test-namespace" };
  it.each<[string, Outcome]>([
    [`resource.Get("v1", "configmaps", "env-config").data.env`, v("production")],
    [`resource.get("v1", "configmaps", "cm")`, v(null)], // pinned to test-namespace
    [`resource.List("v1", "configmaps").items.size()`, v(2n)],
    [`resource.List("v1", "configmaps", {"app": "x"}).items.size()`, v(1n)],
    [`resource.List(resource.ToGVR("v1", "ConfigMap")).items.size()`, v(2n)],
    [`resource.Get(resource.ToGVR("v1", "ConfigMap"), "other").data.n`, v("1")],
  ])("%s", (expr, want) => {
    expect(run(expr, opts)).toEqual(want);
  });

  it("declares only the namespace-less overloads", () => {
    expect(run(`resource.Get("v1", "configmaps", "default", "cm")`, opts)).toHaveProperty("compileError");
  });
});

describe("resource providers", () => {
  it("words provider errors as Kyverno does", () => {
    const failing = (reason: ProviderError["reason"]): ResourceProvider => ({
      getResource: () => {
        throw new ProviderError("configmaps \"x\" is forbidden", reason);
      },
      listResources: () => {
        throw new ProviderError("boom", reason);
      },
      postResource: () => {
        throw new ProviderError("denied", reason);
      },
      toGVR: () => {
        throw new ProviderError("no matches for kind \"X\" in version \"v1\"", reason);
      },
    });
    expect(run(`resource.Get("v1", "configmaps", "", "x")`, { resource: failing("Forbidden") })).toEqual(
      err(`failed to get resource: permission denied: configmaps "x" is forbidden`),
    );
    expect(run(`resource.Get("v1", "configmaps", "", "x")`, { resource: failing("NotFound") })).toEqual(v(null));
    expect(run(`resource.List("v1", "configmaps", "")`, { resource: failing("Unauthorized") })).toEqual(err("failed to list resource: permission denied: boom"));
    expect(run(`resource.List("v1", "configmaps", "")`, { resource: failing("Other") })).toEqual(err("failed to list resource: boom"));
    expect(run(`resource.Post("v1", "configmaps", "", {})`, { resource: failing("Forbidden") })).toEqual(err("failed to create resource: permission denied: denied"));
    expect(run(`resource.ToGVR("v1", "X")`, { resource: failing("Other") })).toEqual(err(`failed to map kind to resource: no matches for kind "X" in version "v1"`));
  });

  it("passes Post data as JSON and returns the created object", () => {
    const seen: unknown[] = [];
    const p = new OfflineResourceProvider({
      post: (apiVersion, res, ns, data) => {
        seen.push([apiVersion, res, ns, data]);
        return { ...data, status: { allowed: true } };
      },
    });
    expect(run(`resource.Post("authorization.k8s.io/v1", "subjectaccessreviews", {"spec": {"user": "u", "n": "1"}}).status.allowed`, { resource: p })).toEqual(v(true));
    expect(seen).toEqual([["authorization.k8s.io/v1", "subjectaccessreviews", "", { spec: { user: "u", n: "1" } }]]);
  });

  it("has the modes null (Kyverno CLI), error and pending (webhook prefetch)", () => {
    const nullMode = new OfflineResourceProvider({ missing: "null" });
    expect(run(`resource.Get("v1", "secrets", "default", "x")`, { resource: nullMode })).toEqual(v(null));
    expect(run(`resource.List("v1", "secrets", "default").items`, { resource: nullMode })).toEqual(v([]));
    const errorMode = new OfflineResourceProvider({ objects, missing: "error" });
    expect(run(`resource.Get("v1", "configmaps", "default", "missing")`, { resource: errorMode })).toEqual(
      err(`failed to get resource: resource.Get("v1", "configmaps", "default", "missing"): no such resource in the offline data`),
    );
    const pending = new OfflineResourceProvider({ missing: "pending" });
    let thrown: unknown;
    try {
      run(`dyn(resource.Get("v1", "secrets", "default", "x")) == null || true`, { resource: pending });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(DataPendingError);
    expect((thrown as DataPendingError).requests).toEqual([{ kind: "resource.get", apiVersion: "v1", resource: "secrets", namespace: "default", name: "x" }]);
    // the webhook fetched it: a 404 is recorded, then evaluation completes
    pending.markAbsent("v1", "secrets", "default", "x");
    expect(run(`dyn(resource.Get("v1", "secrets", "default", "x")) == null`, { resource: pending })).toEqual(v(true));
    pending.setList("v1", "secrets", "default", undefined, { items: [{ metadata: { name: "s" } }] });
    expect(run(`resource.List("v1", "secrets", "default").items[0].metadata.name`, { resource: pending })).toEqual(v("s"));
  });

  it("guesses resources as apimachinery's UnsafeGuessKindToResource", () => {
    expect(["Pod", "Ingress", "NetworkPolicy", "Endpoints", "ComputeClass", ""].map(guessResource)).toEqual([
      "pods",
      "ingresses",
      "networkpolicies",
      "endpointses",
      "computeclasses",
      "",
    ]);
    const p = new OfflineResourceProvider({
      objects: [{ apiVersion: "v1", kind: "Endpoints", metadata: { name: "e", namespace: "d" } }],
      mappings: [{ apiVersion: "v1", kind: "Endpoints", resource: "endpoints" }],
    });
    expect(run(`resource.Get("v1", "endpoints", "d", "e").metadata.name`, { resource: p })).toEqual(v("e"));
  });
});
