/**
 * Live providers for Kyverno's CEL libraries with the cluster source, against the fake API server
 * on loopback (real client-node informers) and a real HTTPS server in a child process:
 * `resource.Get/List/ToGVR` from informer caches of the resources the policies name, with the
 * errors for what cannot be answered; `globalContext.Get` from GlobalContextEntries; and end to
 * end over TLS, a MutatingPolicy reading a ConfigMap and an HTTP endpoint to mutate a Pod.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { kyvernoEnv } from "../../src/kyverno/index.js";
import { toJson } from "../../src/cel/runtime/json.js";
import { ClusterPolicySource } from "../../src/webhook/cluster.js";
import { LiveKyvernoProviders } from "../../src/webhook/live.js";
import { PolicyStore } from "../../src/webhook/policies.js";
import { startFakeCluster, type FakeApiServer, type FakeCluster } from "./fake-apiserver.js";
import { startHttpTarget, type HttpTarget } from "./http-target.js";
import { call, makePki, patchOf, removeDir, responseOf, review, waitFor, type Pki } from "./support.js";

const MPOLS = "/apis/policies.kyverno.io/v1/mutatingpolicies";
const CONFIGMAPS = "/api/v1/configmaps";
const SECRETS = "/api/v1/secrets";
const GCES = "/apis/kyverno.io/v2beta1/globalcontextentries";

function mpol(name: string, labels: Record<string, string>, variables: { name: string; expression: string }[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const entries = Object.entries(labels)
    .map(([k, v]) => `${JSON.stringify(k)}: ${v}`)
    .join(", ");
  return {
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] },
      variables,
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {${entries}}}}` } }],
      ...extra,
    },
  };
}

describe("LiveKyvernoProviders.scan: the resources policies read, from the syntax tree", () => {
  it("finds literal GVRs (subresources to their resource), ToGVR kinds, namespaced forms, and reports computed calls", () => {
    const s = LiveKyvernoProviders.scan([
      mpol("a", { x: 'resource.Get("v1", "configmaps", "ns", "n").data.x' }, [
        { name: "l", expression: 'resource.list("apps/v1", "deployments", "")' },
        { name: "st", expression: 'resource.Get("v1", "pods/status", "ns", "p")' },
        { name: "g", expression: 'resource.List(resource.ToGVR("batch/v1", "Job"), "ns")' },
        { name: "d", expression: 'resource.Get("v1", object.metadata.name, "ns", "n")' },
        { name: "gc", expression: 'globalContext.Get("entry")' },
      ]),
    ]);
    expect(s.resources.map((r) => `${r.apiVersion} ${r.resource}`).sort()).toEqual(["apps/v1 deployments", "v1 configmaps", "v1 pods"]);
    expect(s.kinds).toEqual([{ apiVersion: "batch/v1", kind: "Job" }]);
    expect(s.dynamic).toHaveLength(1);
    expect(s.dynamic[0]).toContain("object.metadata.name");
    expect(s.globalContextNames).toEqual(["entry"]);
  });
});

describe("live Kyverno providers (cluster source against a fake API server)", () => {
  let api: FakeApiServer;
  let pki: Pki;
  let kubeconfig: string;
  let target: HttpTarget;
  let ca: string;

  beforeAll(async () => {
    pki = makePki();
    target = await startHttpTarget(pki);
    ca = readFileSync(pki.caCert, "utf8");
  });
  afterAll(async () => {
    await target.close();
    removeDir(pki.dir);
  });

  let cluster: FakeCluster;
  beforeEach(async () => {
    cluster = await startFakeCluster(pki, "celmap-live-");
    ({ api, kubeconfig } = cluster);
    api.discovery.set("policies.kyverno.io/v1", ["mutatingpolicies", "namespacedmutatingpolicies", "policyexceptions"]);
  });
  afterEach(async () => {
    await cluster.close();
  });

  /** Evaluates a CEL expression in Kyverno's environment with the source's live providers. */
  function evalWith(source: ClusterPolicySource, expr: string): unknown {
    const k = kyvernoEnv(source.kyvernoLive!.providers);
    return toJson(k.env.program(k.env.compile(expr)).eval(k.activation({})) as never);
  }

  it("resource.Get/List/ToGVR answer from informer caches; what cannot be answered is an error naming the call and why", async () => {
    api.put(CONFIGMAPS, { metadata: { name: "team-defaults", namespace: "platform", labels: { tier: "gold" } }, data: { team: "payments" } });
    api.put(CONFIGMAPS, { metadata: { name: "other", namespace: "shop", labels: { tier: "gold" } }, data: {} });
    api.forbidden.add(SECRETS);
    api.put(
      MPOLS,
      mpol("reads", { team: 'resource.Get("v1", "configmaps", "platform", "team-defaults").data.team' }, [
        { name: "s", expression: 'resource.Get("v1", "secrets", "platform", "x")' },
        { name: "w", expression: 'resource.List("example.com/v1", "widgets", "")' },
        { name: "g", expression: 'resource.ToGVR("v1", "ConfigMap")' },
      ]),
    );
    const store = new PolicyStore();
    const source = new ClusterPolicySource({ kubeconfig, debounceMs: 20, openapi: false, kyvernoData: { dataSyncTimeoutMs: 10_000 } });
    try {
      await source.start(store.apply);
      expect(store.loaded).toBe(true);
      expect(store.current!.kyvernoLive).toBe(source.kyvernoLive);
      // On a loaded machine the first lists can finish after the set was swapped in: wait for them to settle.
      const settled = { "v1 configmaps": "synced", "v1 secrets": "failed", "example.com/v1 widgets": "not-served" };
      await waitFor(() => JSON.stringify(Object.entries(source.kyvernoLive!.watched()).sort()) === JSON.stringify(Object.entries(settled).sort()), 15_000, "the data caches to settle");
      expect(source.kyvernoLive!.watched()).toEqual(settled);
      expect(store.current!.notes.join("\n")).toContain("kyverno resource.* data example.com/v1 widgets: the API server does not serve example.com/v1");

      expect(evalWith(source, 'resource.Get("v1", "configmaps", "platform", "team-defaults")')).toMatchObject({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "team-defaults", namespace: "platform" },
        data: { team: "payments" },
      });
      // The status subresource reads the object; a missing object is null (as Kyverno: NotFound → null).
      expect(evalWith(source, 'resource.Get("v1", "configmaps/status", "platform", "team-defaults").data.team')).toBe("payments");
      expect(evalWith(source, 'resource.Get("v1", "configmaps", "platform", "nope")')).toBe(null);
      // List: "" is every namespace, sorted; the label selector applies; the list kind is <Kind>List.
      const all = evalWith(source, 'resource.List("v1", "configmaps", "").items') as { metadata: { namespace: string; name: string } }[];
      expect(all.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(["platform/team-defaults", "shop/other"]);
      expect(evalWith(source, 'resource.List("v1", "configmaps", "shop", {"tier": "gold"}).items.size()')).toBe(1);
      expect(evalWith(source, 'resource.List("v1", "configmaps", "", {"tier": "silver"}).items.size()')).toBe(0);
      expect(evalWith(source, 'resource.List("v1", "configmaps", "platform").kind')).toBe("ConfigMapList");
      expect(evalWith(source, 'resource.Get(resource.ToGVR("v1", "ConfigMap"), "platform", "team-defaults").data.team')).toBe("payments");

      // Not named by any policy: an error naming the call, never a silent null.
      expect(() => evalWith(source, 'resource.Get("v1", "services", "platform", "x")')).toThrow(
        'failed to get resource: resource.Get("v1", "services", "platform", "x"): celmap\'s webhook answers resource.* from informer caches of the resources its MutatingPolicies name as string literals, and v1 services is not among them',
      );
      expect(() => evalWith(source, 'resource.Get("v1", "secrets", "platform", "x")')).toThrow(/failed to get resource: permission denied: resource\.Get\("v1", "secrets", "platform", "x"\): list \/api\/v1\/secrets: .*403/);
      expect(() => evalWith(source, 'resource.List("example.com/v1", "widgets", "")')).toThrow('failed to list resource: resource.List("example.com/v1", "widgets", ""): the API server does not serve example.com/v1');
      expect(() => evalWith(source, 'resource.ToGVR("apps/v1", "Deployment")')).toThrow(/failed to map kind to resource: no REST mapping for apps\/v1 Deployment/);
      expect(() => evalWith(source, 'resource.Post("v1", "configmaps", "platform", {"metadata": {"name": "x"}})')).toThrow(/failed to create resource: .*not supported by celmap's webhook/);

      // Followed by watch.
      api.put(CONFIGMAPS, { metadata: { name: "team-defaults", namespace: "platform", labels: { tier: "gold" } }, data: { team: "checkout" } });
      await waitFor(() => evalWith(source, 'resource.Get("v1", "configmaps", "platform", "team-defaults").data.team') === "checkout", 10_000, "watch update");
      // A new policy naming a new resource: its informer starts before the set is swapped in.
      api.put(MPOLS, mpol("nodes", { n: 'string(resource.List("v1", "nodes", "").items.size())' }));
      api.put("/api/v1/nodes", { metadata: { name: "node-1" } });
      await waitFor(() => store.current!.kyvernoPolicies.length === 2, 10_000, "second policy");
      expect(source.kyvernoLive!.watched()["v1 nodes"]).toBe("synced");
      expect(evalWith(source, 'resource.List("v1", "nodes", "").items[0].metadata.name')).toBe("node-1");
      // A cluster-scoped object is not found under a namespace (the API server answers 404).
      expect(evalWith(source, 'resource.Get("v1", "nodes", "platform", "node-1")')).toBe(null);
    } finally {
      source.close();
    }
  });

  it("globalContext.Get: kubernetesResource entries from their informer; missing → null; apiCall entries and projections are errors", async () => {
    api.discovery.set("kyverno.io/v2beta1", [{ name: "globalcontextentries", kind: "GlobalContextEntry", namespaced: false }]);
    api.put(CONFIGMAPS, { metadata: { name: "a", namespace: "platform" }, data: { n: "1" } });
    api.put(CONFIGMAPS, { metadata: { name: "b", namespace: "shop" }, data: { n: "2" } });
    api.put(GCES, { metadata: { name: "platform-cms" }, spec: { kubernetesResource: { version: "v1", resource: "configmaps", namespace: "platform" }, projections: [{ name: "names", jmesPath: "[].metadata.name" }] } });
    api.put(GCES, { metadata: { name: "all-cms" }, spec: { kubernetesResource: { version: "v1", resource: "configmaps" } } });
    api.put(GCES, { metadata: { name: "ext" }, spec: { apiCall: { urlPath: "/api/v1/namespaces", refreshInterval: "10m" } } });
    api.put(MPOLS, mpol("p", { x: '"y"' }));
    const store = new PolicyStore();
    const source = new ClusterPolicySource({ kubeconfig, debounceMs: 20, openapi: false });
    try {
      await source.start(store.apply);
      expect(store.loaded).toBe(true);
      expect(evalWith(source, 'globalContext.Get("platform-cms").map(o, o.metadata.name)')).toEqual(["a"]);
      expect(evalWith(source, 'globalContext.Get("all-cms").map(o, o.data.n)')).toEqual(["1", "2"]);
      expect(evalWith(source, 'globalContext.Get("nope")')).toBe(null);
      expect(() => evalWith(source, 'globalContext.Get("platform-cms", "names")')).toThrow('failed to get global reference: globalContext.Get("platform-cms", "names"): projections (JMESPath) are not supported by celmap\'s webhook');
      expect(() => evalWith(source, 'globalContext.Get("ext")')).toThrow(/failed to get global reference: .*"ext" is an apiCall entry, which celmap's webhook does not support/);
    } finally {
      source.close();
    }
  });

  it("end to end over TLS: a MutatingPolicy reads a ConfigMap (resource.Get) and an HTTPS endpoint (http.Get) to mutate a Pod; a slow endpoint is cut at the request deadline", async () => {
    const { startServer } = await import("./support.js");
    api.put(CONFIGMAPS, { metadata: { name: "team-defaults", namespace: "platform" }, data: { team: "payments" } });
    const client = `http.Client(${JSON.stringify(ca)})`;
    api.put(
      MPOLS,
      mpol(
        "enrich",
        { team: "string(variables.cm.data.team)", "from-http": `string(${client}.Get("${target.url("/json")}").team)`, replicas: `string(int(${client}.Get("${target.url("/json")}").replicas))` },
        [{ name: "cm", expression: 'resource.Get("v1", "configmaps", "platform", "team-defaults")' }],
        { matchConditions: [{ name: "not-slow", expression: '!has(object.metadata.labels) || !("slow" in object.metadata.labels)' }] },
      ),
    );
    api.put(
      MPOLS,
      mpol("slow", { s: `string(${client}.Get("${target.url("/slow?ms=60000")}").slow)` }, [], {
        matchConditions: [{ name: "slow", expression: 'has(object.metadata.labels) && "slow" in object.metadata.labels' }],
      }),
    );
    const source = new ClusterPolicySource({ kubeconfig, debounceMs: 20, openapi: false, kyvernoData: { http: { blocklist: [] } } });
    // A deadline a loaded machine meets for the ordinary request; the slow endpoint (60 s) never answers within it.
    const { server, port } = await startServer(pki, [], { source, timeoutMs: 4_000 });
    try {
      await waitFor(() => server.store.loaded, 10_000, "policy set loaded").catch((e: Error) => {
        throw new Error(`${e.message}: ${server.store.lastErrors.join("; ")}`);
      });
      const r = await call(pki, port, review({ namespace: "shop" }).body);
      expect(r.status).toBe(200);
      const res = responseOf(r);
      expect(res.status?.message ?? "").toBe("");
      expect(res.allowed).toBe(true);
      expect(patchOf(res)).toEqual([
        { op: "add", path: "/metadata/labels/team", value: "payments" },
        { op: "add", path: "/metadata/labels/from-http", value: "payments" },
        { op: "add", path: "/metadata/labels/replicas", value: "3" },
      ]);

      // The slow endpoint: the call is cut when the request's deadline runs out, long before the endpoint would answer.
      const t0 = Date.now();
      const slow = responseOf(await call(pki, port, review({ namespace: "shop", labels: { slow: "1" } }).body));
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(slow.allowed).toBe(false);
      expect(slow.status?.code).toBe(504);
    } finally {
      await server.shutdown("test");
      source.close();
    }
  });
});
