/**
 * Custom resource schemas from the cluster's OpenAPI v3, end to end: the real webhook server with
 * the real ClusterPolicySource (client-node informers for the policies, `/openapi/v3` polled for the
 * schemas) against the fake API server on loopback, and AdmissionReviews for a custom resource
 * over TLS. The MAP's ApplyConfiguration merges a list-map by its keys (a key's default included)
 * and a set, keeps preserve-unknown fields, and may not mutate an atomic struct or list: only
 * right with the CRD's schema (without one, the apiserver answers 503).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClusterPolicySource } from "../../src/webhook/cluster.js";
import { buildTypes, OpenApiTypes, resolveRefs } from "../../src/webhook/openapi.js";
import { PolicyStore, type StoreEvent } from "../../src/webhook/policies.js";
import { crdOpenApiDocument, startFakeCluster, type CrdVersion, type FakeApiServer, type FakeCluster } from "./fake-apiserver.js";
import { call, makePki, patchOf, removeDir, responseOf, startServer, waitFor, type Pki, type Started } from "./support.js";

const MAPS = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
const BINDINGS = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";

/** A CRD version's `openAPIV3Schema`: a list-map keyed by name and protocol (protocol defaults to TCP), an atomic struct, a set, a preserve-unknown object. */
const WIDGET_SCHEMA = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name", "protocol"],
          items: {
            type: "object",
            required: ["name"],
            properties: {
              name: { type: "string" },
              protocol: { type: "string", default: "TCP" },
              port: { type: "integer", format: "int32" },
              appProtocol: { type: "string" },
            },
          },
        },
        selector: {
          type: "object",
          "x-kubernetes-map-type": "atomic",
          properties: { matchLabels: { type: "object", additionalProperties: { type: "string" } }, tier: { type: "string" } },
        },
        tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
        config: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
  },
};

const WIDGET_V1: CrdVersion = { group: "example.com", version: "v1", kind: "Widget", plural: "widgets", status: true, schema: WIDGET_SCHEMA };

const MUTATION =
  'Object{spec: Object.spec{ports: [Object.spec.ports{name: "http", port: 8080}, Object.spec.ports{name: "metrics", port: 9090}], tags: ["b", "c"]}}';

function widgetPolicy(name: string, expression = MUTATION): Record<string, unknown> {
  return {
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      reinvocationPolicy: "Never",
      matchConstraints: { resourceRules: [{ apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"] }] },
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
    },
  };
}

let seq = 0;
function widgetReview(): string {
  const object = {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: `w${++seq}`, namespace: "default" },
    spec: {
      ports: [{ name: "http", protocol: "TCP", port: 80, appProtocol: "h2" }],
      selector: { matchLabels: { app: "w" } },
      tags: ["a", "b"],
      config: { anything: { goes: [1, 2] } },
    },
  };
  const request = {
    uid: `uid-widget-${seq}`,
    kind: { group: "example.com", version: "v1", kind: "Widget" },
    resource: { group: "example.com", version: "v1", resource: "widgets" },
    requestKind: { group: "example.com", version: "v1", kind: "Widget" },
    requestResource: { group: "example.com", version: "v1", resource: "widgets" },
    name: object.metadata.name,
    namespace: "default",
    operation: "CREATE",
    userInfo: { username: "alice", uid: "1", groups: ["system:authenticated"] },
    object,
    oldObject: null,
    dryRun: false,
    options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
  };
  return JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request });
}

/** The object after applying a JSON Patch (only the ops the webhook emits at the top levels used here). */
function applied(patch: { op: string; path: string; value?: unknown }[]): Record<string, unknown> {
  const obj = JSON.parse(widgetReview()).request.object as Record<string, unknown>;
  for (const p of patch) {
    const parts = p.path.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    let cur: any = obj;
    for (const k of parts.slice(0, -1)) cur = cur[k];
    const last = parts[parts.length - 1]!;
    if (p.op === "remove") {
      if (Array.isArray(cur)) cur.splice(Number(last), 1);
      else delete cur[last];
    } else if (Array.isArray(cur) && p.op === "add") {
      if (last === "-") cur.push(p.value);
      else cur.splice(Number(last), 0, p.value);
    } else cur[last] = p.value;
  }
  return obj;
}

describe("custom resource schemas from the cluster's OpenAPI v3", () => {
  let api: FakeApiServer;
  let pki: Pki;
  let kubeconfig: string;

  let cluster: FakeCluster;

  beforeEach(async () => {
    pki = makePki();
    cluster = await startFakeCluster(pki, "celmap-openapi-");
    ({ api, kubeconfig } = cluster);
    // Built-in group-versions are listed too; their documents must not be fetched.
    api.openapi.set("api/v1", { openapi: "3.0.0", components: { schemas: {} } });
    api.openapi.set("apis/apps/v1", { openapi: "3.0.0", components: { schemas: {} } });
  });

  afterEach(async () => {
    await cluster.close();
    removeDir(pki.dir);
  });

  it("a MAP merges a custom resource by its OpenAPI schema; CRD created, updated, deleted → new snapshots; a bad schema keeps the last good one", async () => {
    api.put(MAPS, widgetPolicy("widgets"));
    api.put(BINDINGS, { metadata: { name: "widgets" }, spec: { policyName: "widgets" } });
    const source = new ClusterPolicySource({ kubeconfig, debounceMs: 20, openapiPollMs: 100, kyverno: false, gatekeeper: false });
    let s: Started | undefined;
    try {
      s = await startServer(pki, [], { source });
      const started = s;
      const store = started.server.store;
      const events: StoreEvent[] = [];
      store.onEvent((e) => events.push(e));
      const send = async () => responseOf(await call(pki, started.port, widgetReview()));
      expect(store.loaded).toBe(true);
      const s0 = store.current!;

      // Not installed: no type converter for the kind → the apiserver's 503.
      const before = await send();
      expect(before.allowed).toBe(false);
      expect(before.status?.code).toBe(503);
      expect(before.status?.message).toContain("Resource kind example.com/v1, Kind=Widget not found");

      // Installed: the next poll of /openapi/v3 sees the new group-version; a new snapshot carries its schema.
      api.installCrd(WIDGET_V1);
      await waitFor(() => store.current !== s0, 5_000, "a snapshot with the CRD");
      const s1 = store.current!;
      expect(s1.schemas.forKind("example.com/v1", "Widget")).toBeDefined();
      expect(s1.catalog.kindFor({ group: "example.com", version: "v1", resource: "widgets" }, "status")).toEqual({ group: "example.com", version: "v1", kind: "Widget" });
      expect(s0.schemas.forKind("example.com/v1", "Widget")).toBeUndefined();
      expect(api.requests.filter((r) => r.startsWith("/openapi/v3/api/v1") || r.startsWith("/openapi/v3/apis/apps/"))).toEqual([]);

      const r1 = await send();
      expect(r1.status).toBeUndefined();
      expect(r1.allowed).toBe(true);
      const o1 = applied(patchOf(r1)) as { spec: Record<string, unknown> };
      // ports: a list-map keyed by (name, protocol): "http" (protocol defaulted to TCP) merges into
      // the existing item (appProtocol kept), "metrics" is added. Without the schema the list would
      // be replaced (atomic) and appProtocol lost.
      expect(o1.spec["ports"]).toEqual([
        { name: "http", protocol: "TCP", port: 8080, appProtocol: "h2" },
        { name: "metrics", port: 9090 },
      ]);
      // selector: untouched.
      expect(o1.spec["selector"]).toEqual({ matchLabels: { app: "w" } });
      // tags: a set, merged.
      expect(o1.spec["tags"]).toEqual(["a", "b", "c"]);
      // config: preserve-unknown-fields, untouched.
      expect(o1.spec["config"]).toEqual({ anything: { goes: [1, 2] } });

      // An atomic struct may not be mutated by an ApplyConfiguration (1.36): denied, as the apiserver does.
      api.put(MAPS, widgetPolicy("selector", 'Object{spec: Object.spec{selector: Object.spec.selector{tier: "web"}}}'));
      api.put(BINDINGS, { metadata: { name: "selector" }, spec: { policyName: "selector" } });
      await waitFor(() => store.current!.policies.length === 2, 5_000, "the second policy");
      const denied = await send();
      expect(denied.allowed).toBe(false);
      expect(denied.status?.message).toContain("may not mutate atomic arrays, maps or structs: .spec.selector");
      api.remove(MAPS, "selector");
      api.remove(BINDINGS, "selector");
      await waitFor(() => store.current!.policies.length === 1, 5_000, "the second policy removed");
      const s1b = store.current!;

      // Updated CRD (ports becomes atomic): a new snapshot, and the same mutation is now denied.
      const atomicPorts = structuredClone(WIDGET_SCHEMA) as any;
      delete atomicPorts.properties.spec.properties.ports["x-kubernetes-list-type"];
      delete atomicPorts.properties.spec.properties.ports["x-kubernetes-list-map-keys"];
      api.installCrd({ ...WIDGET_V1, schema: atomicPorts });
      await waitFor(() => store.current !== s1b, 5_000, "a snapshot with the updated CRD");
      const s2 = store.current!;
      const r2 = await send();
      expect(r2.allowed).toBe(false);
      expect(r2.status?.message).toContain("may not mutate atomic arrays, maps or structs: .spec.ports");

      // A schema that cannot be converted (a $ref to a missing definition): reported, the last good snapshot stays.
      const bad = crdOpenApiDocument(WIDGET_V1) as any;
      bad.components.schemas["com.example.v1.Widget"].properties.spec = { $ref: "#/components/schemas/com.example.v1.Missing" };
      api.openapi.set("apis/example.com/v1", bad);
      await waitFor(() => events.some((e) => e.type === "rejected"), 5_000, "the bad schema rejected");
      const rejected = events.find((e) => e.type === "rejected") as Extract<StoreEvent, { type: "rejected" }>;
      expect(rejected.errors.join("\n")).toMatch(/com\.example\.v1\.Widget: \$ref to a missing schema "com\.example\.v1\.Missing"/);
      expect(store.current).toBe(s2);
      expect(started.log.find((l) => l["event"] === "policies_rejected")).toBeDefined();
      expect((await send()).status?.message).toContain(".spec.ports");

      // Deleted CRD: a new snapshot without the kind; its requests answer 503 again.
      api.uninstallCrd("example.com", "v1");
      await waitFor(() => store.current !== s2 && store.lastUpdateOk, 5_000, "a snapshot without the CRD");
      expect(store.current!.schemas.forKind("example.com/v1", "Widget")).toBeUndefined();
      expect((await send()).status?.code).toBe(503);
    } finally {
      await s?.server.shutdown("test");
      source.close();
    }
  });

  it("an unreadable /openapi/v3 at start loads nothing and is reported; it loads once the OpenAPI is readable", async () => {
    api.installCrd(WIDGET_V1);
    api.openapiStatus = 503;
    const store = new PolicyStore();
    const events: StoreEvent[] = [];
    store.onEvent((e) => events.push(e));
    const source = new ClusterPolicySource({ kubeconfig, debounceMs: 20, openapiPollMs: 100, kyverno: false, gatekeeper: false });
    try {
      await source.start(store.apply);
      expect(store.loaded).toBe(false);
      const r = events.find((e) => e.type === "rejected") as Extract<StoreEvent, { type: "rejected" }>;
      expect(r.errors.join("\n")).toContain("/openapi/v3: GET /openapi/v3: HTTP 503");
      api.openapiStatus = 200;
      await waitFor(() => store.loaded, 5_000, "loaded");
      expect(store.current!.schemas.forKind("example.com/v1", "Widget")).toBeDefined();
    } finally {
      source.close();
    }
  });

  it("a 404 for /openapi/v3 is a note, not an error; openapi: false reads nothing", async () => {
    const store = new PolicyStore();
    api.openapiStatus = 404;
    const source = new ClusterPolicySource({ kubeconfig, debounceMs: 20, kyverno: false, gatekeeper: false });
    const off = new ClusterPolicySource({ kubeconfig, openapi: false, kyverno: false, gatekeeper: false });
    try {
      await source.start(store.apply);
      expect(store.loaded).toBe(true);
      expect(store.current!.notes.join("\n")).toContain("does not serve /openapi/v3");
      const n = api.requests.length;
      const store2 = new PolicyStore();
      await off.start(store2.apply);
      expect(store2.loaded).toBe(true);
      expect(api.requests.slice(n).filter((r) => r.startsWith("/openapi"))).toEqual([]);
    } finally {
      source.close();
      off.close();
    }
  });
});

describe("OpenApiTypes / buildTypes", () => {
  it("registers the served versions of a resource as equivalent, with their subresources and scope", async () => {
    const docs = new Map<string, unknown>([
      ["/openapi/v3", { paths: { "apis/example.com/v1": { serverRelativeURL: "/openapi/v3/apis/example.com/v1?hash=A" }, "apis/example.com/v1beta1": { serverRelativeURL: "/openapi/v3/apis/example.com/v1beta1?hash=B" } } }],
      ["/openapi/v3/apis/example.com/v1?hash=A", crdOpenApiDocument(WIDGET_V1)],
      ["/openapi/v3/apis/example.com/v1beta1?hash=B", crdOpenApiDocument({ ...WIDGET_V1, version: "v1beta1", namespaced: false })],
      ["/apis/example.com/v1", { resources: [{ name: "widgets", kind: "Widget", namespaced: true }, { name: "widgets/scale", kind: "Scale", group: "autoscaling", version: "v1", namespaced: true }] }],
      ["/apis/example.com/v1beta1", { resources: [{ name: "widgets", kind: "Widget", namespaced: true }] }],
    ]);
    const fetched: string[] = [];
    const types = new OpenApiTypes(async (p) => {
      fetched.push(p);
      return docs.get(p);
    });
    expect(await types.refresh()).toBe(true);
    const r = types.types();
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.types.kinds).toEqual(["example.com/v1 Widget", "example.com/v1beta1 Widget"]);
    const c = r.types.catalog;
    expect(c.equivalentResourcesFor({ group: "example.com", version: "v1beta1", resource: "widgets" }, "")).toEqual([
      { group: "example.com", version: "v1", resource: "widgets" },
      { group: "example.com", version: "v1beta1", resource: "widgets" },
    ]);
    expect(c.kindFor({ group: "example.com", version: "v1", resource: "widgets" }, "scale")).toEqual({ group: "autoscaling", version: "v1", kind: "Scale" });
    expect(c.lookup({ group: "example.com", version: "v1", resource: "widgets" })?.scope).toBe("Namespaced");
    // Unchanged hashes: nothing re-fetched, same types object.
    const n = fetched.length;
    expect(await types.refresh()).toBe(false);
    expect(fetched.slice(n)).toEqual(["/openapi/v3"]);
    expect(types.types()).toBe(r);
  });

  it("resolves $refs (allOf wrappers with siblings; recursion becomes untyped)", () => {
    const components = {
      A: { type: "object", properties: { b: { allOf: [{ $ref: "#/components/schemas/B" }], description: "d" }, self: { $ref: "#/components/schemas/A" } } },
      B: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
    };
    expect(resolveRefs(components.A as never, components as never)).toEqual({
      type: "object",
      properties: {
        b: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set", description: "d" },
        self: { type: "object", properties: { b: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set", description: "d" }, self: { "x-kubernetes-preserve-unknown-fields": true } } },
      },
    });
    expect(buildTypes([], "x").ok).toBe(true);
  });
});
