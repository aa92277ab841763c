/**
 * The resource catalog: the built-in table against the 1.36 OpenAPI document, the plural guess,
 * scopes, subresource kinds and equivalent resources. (Test-only: reads the OpenAPI document.)
 */
import { readFileSync } from "node:fs";
import { upstreamPath } from "../../../test/support/upstream.js";
import { describe, expect, it } from "vitest";
import { BUILTIN_RESOURCES } from "./builtin-resources.js";
import {
  ResourceCatalog,
  compareKubeVersions,
  groupVersionString,
  guessResourceForKind,
  gvkString,
  gvrString,
  parseGroupVersion,
  type GroupVersionResource,
} from "./catalog.js";

const SWAGGER = upstreamPath("k8s-openapi/swagger.json", "1 test (the built-in resources table against the OpenAPI document)");

interface Derived {
  kind: string;
  namespaced: boolean;
  subs: Map<string, string>;
}

/** Re-derives the table from the OpenAPI paths (the same rules the table was made with). */
function deriveFromOpenAPI(): Map<string, Derived> {
  const doc = JSON.parse(readFileSync(SWAGGER!, "utf8")) as {
    paths: Record<string, Record<string, { "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string } }>>;
  };
  const out = new Map<string, Derived>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (path.includes("/watch/")) continue;
    const m = /^\/(?:api|apis\/([^/]+))\/([^/]+)\/(.*)$/.exec(path);
    if (m === null) continue;
    const group = m[1] ?? "";
    const version = m[2]!;
    let rest = m[3]!;
    let namespaced = false;
    if (rest.startsWith("namespaces/{namespace}/")) {
      namespaced = true;
      rest = rest.slice("namespaces/{namespace}/".length);
    }
    const parts = rest.split("/");
    const resource = parts[0]!;
    if (resource === "") continue;
    let sub = "";
    if (parts.length >= 3 && parts[1] === "{name}") sub = parts[2]!;
    else if (parts.length === 2 && parts[1] !== "{name}") continue;
    const gvk = Object.values(ops)
      .map((o) => (typeof o === "object" && o !== null ? o["x-kubernetes-group-version-kind"] : undefined))
      .find((g) => g !== undefined);
    if (gvk === undefined) continue;
    const key = `${groupVersionString(group, version)} ${resource}`;
    const e = out.get(key) ?? { kind: "", namespaced: false, subs: new Map<string, string>() };
    if (namespaced) e.namespaced = true;
    if (sub !== "") e.subs.set(sub, `${gvk.group}/${gvk.version}/${gvk.kind}`);
    else e.kind = gvk.kind;
    out.set(key, e);
  }
  return out;
}

describe("built-in resources table", () => {
  it.skipIf(SWAGGER === undefined)("is exactly what the 1.36 OpenAPI document serves", () => {
    const derived = deriveFromOpenAPI();
    const catalog = ResourceCatalog.builtin({ enable: "all" });
    const ours = new Map<string, Derived>();
    for (const info of catalog.all()) {
      const subs = new Map<string, string>();
      for (const [s, k] of info.subresources) subs.set(s, `${k.group}/${k.version}/${k.kind}`);
      ours.set(`${groupVersionString(info.gvr.group, info.gvr.version)} ${info.gvr.resource}`, {
        kind: info.kind.kind,
        namespaced: info.scope === "Namespaced",
        subs,
      });
    }
    expect([...ours.keys()].sort()).toEqual([...derived.keys()].sort());
    for (const [k, d] of derived) {
      const o = ours.get(k)!;
      expect({ k, kind: o.kind, ns: o.namespaced, subs: [...o.subs].sort() }).toEqual({
        k,
        kind: d.kind,
        ns: d.namespaced,
        subs: [...d.subs].sort(),
      });
    }
  });

  it("every built-in plural is the guessed plural of its kind", () => {
    const misses = ResourceCatalog.builtin({ enable: "all" })
      .all()
      .filter((i) => guessResourceForKind(i.kind.kind) !== i.gvr.resource)
      .map((i) => `${i.kind.kind} → ${i.gvr.resource}`);
    expect(misses).toEqual([]);
  });

  it("has one entry string per group-version", () => {
    expect(Object.keys(BUILTIN_RESOURCES)).toContain("v1");
    expect(Object.keys(BUILTIN_RESOURCES)).toContain("apps/v1");
    expect(Object.keys(BUILTIN_RESOURCES)).not.toContain("extensions/v1beta1");
  });
});

describe("plural guess", () => {
  const CASES: [string, string][] = [
    ["Pod", "pods"],
    ["Endpoints", "endpoints"],
    ["Ingress", "ingresses"],
    ["NetworkPolicy", "networkpolicies"],
    ["ComponentStatus", "componentstatuses"],
    ["StorageClass", "storageclasses"],
    ["Widget", "widgets"],
    ["Gateway", "gateways"],
    ["Policy", "policies"],
    ["Patch", "patches"],
    ["Box", "boxes"],
    ["", ""],
  ];
  for (const [kind, plural] of CASES) it(`${kind || "<empty>"} → ${plural || "<empty>"}`, () => expect(guessResourceForKind(kind)).toBe(plural));
});

describe("group-version strings", () => {
  it("parses like schema.ParseGroupVersion", () => {
    expect(parseGroupVersion("v1")).toEqual({ group: "", version: "v1" });
    expect(parseGroupVersion("apps/v1")).toEqual({ group: "apps", version: "v1" });
    expect(parseGroupVersion("")).toEqual({ group: "", version: "" });
    expect(parseGroupVersion("a/b/c")).toEqual({ error: "unexpected GroupVersion string: a/b/c" });
  });
  it("formats like Go's String()", () => {
    expect(gvkString({ group: "", version: "v1", kind: "ConfigMap" })).toBe("/v1, Kind=ConfigMap");
    expect(gvrString({ group: "apps", version: "v1", resource: "deployments" })).toBe("apps/v1, Resource=deployments");
  });
  it("orders versions by Kubernetes priority", () => {
    const vs = ["v1alpha1", "v1beta1", "v2", "v1", "v1beta2", "v2alpha1", "foo"];
    expect([...vs].sort(compareKubeVersions)).toEqual(["v2", "v1", "v1beta2", "v1beta1", "v2alpha1", "v1alpha1", "foo"]);
  });
});

const gvr = (group: string, version: string, resource: string): GroupVersionResource => ({ group, version, resource });

describe("lookups", () => {
  const c = ResourceCatalog.builtin();
  const CASES: { name: string; group: string; version: string; kind: string; resource: string; scope: string }[] = [
    { name: "core namespaced", group: "", version: "v1", kind: "Pod", resource: "pods", scope: "Namespaced" },
    { name: "core cluster", group: "", version: "v1", kind: "Namespace", resource: "namespaces", scope: "Cluster" },
    { name: "core irregular plural", group: "", version: "v1", kind: "Endpoints", resource: "endpoints", scope: "Namespaced" },
    { name: "apps", group: "apps", version: "v1", kind: "Deployment", resource: "deployments", scope: "Namespaced" },
    { name: "rbac cluster", group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", resource: "clusterroles", scope: "Cluster" },
    { name: "node", group: "", version: "v1", kind: "Node", resource: "nodes", scope: "Cluster" },
    { name: "binding", group: "", version: "v1", kind: "Binding", resource: "bindings", scope: "Namespaced" },
    { name: "ingress", group: "networking.k8s.io", version: "v1", kind: "Ingress", resource: "ingresses", scope: "Namespaced" },
    { name: "MAP itself", group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingAdmissionPolicy", resource: "mutatingadmissionpolicies", scope: "Cluster" },
  ];
  for (const t of CASES) {
    it(`${t.name}: ${t.kind} → ${t.resource} (${t.scope})`, () => {
      const info = c.resourceForKind({ group: t.group, version: t.version, kind: t.kind })!;
      expect(info.gvr).toEqual(gvr(t.group, t.version, t.resource));
      expect(info.scope).toBe(t.scope);
    });
  }
  it("subresource kinds", () => {
    expect(c.kindFor(gvr("apps", "v1", "deployments"), "scale")).toEqual({ group: "autoscaling", version: "v1", kind: "Scale" });
    expect(c.kindFor(gvr("apps", "v1", "deployments"), "status")).toEqual({ group: "apps", version: "v1", kind: "Deployment" });
    expect(c.kindFor(gvr("", "v1", "pods"), "eviction")).toEqual({ group: "policy", version: "v1", kind: "Eviction" });
    expect(c.kindFor(gvr("", "v1", "pods"), "exec")).toEqual({ group: "", version: "v1", kind: "PodExecOptions" });
    expect(c.kindFor(gvr("", "v1", "serviceaccounts"), "token")).toEqual({ group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" });
    expect(c.kindFor(gvr("", "v1", "pods"), "nope")).toBeUndefined();
  });
  it("kinds only served as subresources have no top-level resource", () => {
    expect(c.resourceForKind({ group: "autoscaling", version: "v1", kind: "Scale" })).toBeUndefined();
    expect(c.resourceForKind({ group: "policy", version: "v1", kind: "Eviction" })).toBeUndefined();
  });
  it("alpha/beta versions are known but not served by default", () => {
    const info = c.lookup(gvr("resource.k8s.io", "v1beta1", "resourceclaims"))!;
    expect(info.served).toBe(false);
    expect(c.kindFor(info.gvr, "")).toBeUndefined();
  });
});

describe("equivalent resources", () => {
  const def = ResourceCatalog.builtin();
  const all = ResourceCatalog.builtin({ enable: "all" });
  const show = (rs: GroupVersionResource[]) => rs.map((r) => `${groupVersionString(r.group, r.version)} ${r.resource}`);

  it("apps/v1 deployments has no served equivalent in 1.36 (Equivalent = Exact)", () => {
    expect(show(def.equivalentResourcesFor(gvr("apps", "v1", "deployments"), ""))).toEqual(["apps/v1 deployments"]);
    expect(show(def.equivalentResourcesFor(gvr("apps", "v1", "deployments"), "scale"))).toEqual(["apps/v1 deployments"]);
  });
  it("horizontalpodautoscalers: autoscaling v2 and v1, by version priority", () => {
    expect(show(def.equivalentResourcesFor(gvr("autoscaling", "v1", "horizontalpodautoscalers"), ""))).toEqual([
      "autoscaling/v2 horizontalpodautoscalers",
      "autoscaling/v1 horizontalpodautoscalers",
    ]);
    expect(show(def.equivalentResourcesFor(gvr("autoscaling", "v2", "horizontalpodautoscalers"), "status"))).toHaveLength(2);
  });
  it("events: core and events.k8s.io share storage (cohabiting), core first", () => {
    expect(show(def.equivalentResourcesFor(gvr("events.k8s.io", "v1", "events"), ""))).toEqual(["v1 events", "events.k8s.io/v1 events"]);
  });
  it("beta versions join when enabled", () => {
    expect(show(def.equivalentResourcesFor(gvr("resource.k8s.io", "v1", "resourceclaims"), ""))).toEqual(["resource.k8s.io/v1 resourceclaims"]);
    expect(show(all.equivalentResourcesFor(gvr("resource.k8s.io", "v1", "resourceclaims"), ""))).toEqual([
      "resource.k8s.io/v1 resourceclaims",
      "resource.k8s.io/v1beta2 resourceclaims",
      "resource.k8s.io/v1beta1 resourceclaims",
    ]);
    const some = ResourceCatalog.builtin({ enable: ["storage.k8s.io/v1beta1"] });
    expect(show(some.equivalentResourcesFor(gvr("storage.k8s.io", "v1", "volumeattributesclasses"), ""))).toEqual([
      "storage.k8s.io/v1 volumeattributesclasses",
      "storage.k8s.io/v1beta1 volumeattributesclasses",
    ]);
  });
  it("no two built-in groups share a storage prefix except events", () => {
    const byKey = new Map<string, Set<string>>();
    for (const i of all.all()) {
      const s = byKey.get(i.equivalenceKey) ?? new Set<string>();
      s.add(i.gvr.group);
      byKey.set(i.equivalenceKey, s);
    }
    const shared = [...byKey].filter(([, g]) => g.size > 1).map(([k]) => k);
    expect(shared).toEqual(["builtin:events"]);
  });
  it("unknown resources have no equivalents", () => {
    expect(def.equivalentResourcesFor(gvr("example.com", "v1", "things"), "")).toEqual([]);
  });
});

describe("custom resources", () => {
  const crd = {
    spec: {
      group: "stable.example.com",
      scope: "Namespaced",
      names: { plural: "crontabs", kind: "CronTab" },
      versions: [
        { name: "v1", served: true, subresources: { status: {}, scale: {} } },
        { name: "v1beta1", served: true },
        { name: "v1alpha1", served: false },
      ],
    },
  };
  const c = ResourceCatalog.builtin();
  it("registers", () => expect(c.addCustomResourceDefinition(crd)).toBeUndefined());
  it("uses the CRD's plural and scope", () => {
    const info = c.resourceForKind({ group: "stable.example.com", version: "v1", kind: "CronTab" })!;
    expect(info.gvr.resource).toBe("crontabs");
    expect(info.scope).toBe("Namespaced");
  });
  it("cluster scope", () => {
    const c2 = ResourceCatalog.empty();
    c2.addCustomResourceDefinition({ spec: { ...crd.spec, scope: "Cluster", group: "x.example.com" } });
    expect(c2.resourceForKind({ group: "x.example.com", version: "v1", kind: "CronTab" })!.scope).toBe("Cluster");
  });
  it("served versions are equivalent, in spec order; subresources per version", () => {
    expect(c.equivalentResourcesFor(gvr("stable.example.com", "v1beta1", "crontabs"), "").map((r) => r.version)).toEqual(["v1", "v1beta1"]);
    expect(c.equivalentResourcesFor(gvr("stable.example.com", "v1", "crontabs"), "status").map((r) => r.version)).toEqual(["v1"]);
    expect(c.kindFor(gvr("stable.example.com", "v1", "crontabs"), "scale")).toEqual({ group: "autoscaling", version: "v1", kind: "Scale" });
  });
  it("rejects an incomplete CRD", () => {
    expect(ResourceCatalog.empty().addCustomResourceDefinition({ spec: { group: "g" } })).toMatch(/needs spec.group/);
  });
});
