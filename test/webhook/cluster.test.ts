/**
 * The in-cluster policy source against a fake Kubernetes API server on loopback: a real HTTP
 * server speaking the list (`GET <collection>`) and watch (`?watch=true`, newline-delimited
 * `{type, object}` events) JSON protocol for MAPs, bindings, namespaces and ConfigMaps. The real
 * @kubernetes/client-node informers talk to it through a real kubeconfig file; nothing is mocked.
 */
import { writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClusterPolicySource } from "../../src/webhook/cluster.js";
import { PolicyStore, type StoreEvent } from "../../src/webhook/policies.js";
import { startFakeCluster, type FakeApiServer, type FakeCluster } from "./fake-apiserver.js";
import { makePki, removeDir, type Pki } from "./support.js";

const MAPS = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
const BINDINGS = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";
const NAMESPACES = "/api/v1/namespaces";

function map(name: string, expression: string): Record<string, unknown> {
  return {
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      reinvocationPolicy: "Never",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] },
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
    },
  };
}
const binding = (name: string): Record<string, unknown> => ({ metadata: { name }, spec: { policyName: name } });
const LABEL = 'Object{metadata: Object.metadata{labels: {"a": "b"}}}';

describe("ClusterPolicySource (client-node informers against a fake API server on loopback)", () => {
  let api: FakeApiServer;
  let pki: Pki;
  let kubeconfig: string;

  let cluster: FakeCluster;

  beforeEach(async () => {
    pki = makePki();
    cluster = await startFakeCluster(pki, "celmap-cluster-");
    ({ api, kubeconfig } = cluster);
  });

  afterEach(async () => {
    await cluster.close();
    removeDir(pki.dir);
  });

  async function until(pred: () => boolean, ms = 15_000): Promise<void> {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error("timed out");
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it("loads the listed set, follows watch events, keeps the last good set on a bad update", async () => {
    api.put(MAPS, map("p1", LABEL));
    api.put(BINDINGS, binding("p1"));
    api.put(NAMESPACES, { metadata: { name: "team-a", labels: { "kubernetes.io/metadata.name": "team-a", env: "prod" } } });
    api.put("/api/v1/configmaps", { metadata: { name: "params", namespace: "team-a" }, data: { x: "1" } });

    const store = new PolicyStore();
    const events: StoreEvent[] = [];
    store.onEvent((e) => events.push(e));
    const source = new ClusterPolicySource({ kubeconfig, debounceMs: 20, paramResources: [{ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", role: "param" }] });
    try {
      await source.start(store.apply);
      expect(store.loaded).toBe(true);
      const s1 = store.current!;
      expect(s1.policies.map((p) => p.metadata.name)).toEqual(["p1"]);
      expect(s1.bindings.map((b) => b.metadata.name)).toEqual(["p1"]);
      expect((s1.namespaces.get("team-a")?.metadata as any)?.labels?.env).toBe("prod");

      // A watch event: a second policy.
      api.put(MAPS, map("p2", LABEL));
      api.put(BINDINGS, binding("p2"));
      await until(() => store.current!.policies.length === 2 && store.current!.bindings.length === 2);
      const s2 = store.current!;
      expect(s2.generation).toBeGreaterThan(s1.generation);

      // A policy that does not compile: rejected, the last good set stays (atomically).
      expect(events.filter((e) => e.type === "rejected")).toEqual([]);
      api.put(MAPS, map("p3", "Object{metadata: Object.metadata{labels: {"));
      await until(() => events.some((e) => e.type === "rejected"));
      expect(store.current).toBe(s2);
      expect(store.lastUpdateOk).toBe(false);

      // Fixed by deleting it: accepted again.
      api.remove(MAPS, "p3");
      await until(() => store.lastUpdateOk);
      expect(store.current!.policies.map((p) => p.metadata.name).sort()).toEqual(["p1", "p2"]);
    } finally {
      source.close();
    }
  });

  it("Kyverno MutatingPolicies and Gatekeeper mutators when their CRDs are served; absent groups are noted, not errors", async () => {
    const MPOLS = "/apis/policies.kyverno.io/v1/mutatingpolicies";
    const ASSIGN = "/apis/mutations.gatekeeper.sh/v1/assign";
    api.discovery.set("policies.kyverno.io/v1", ["mutatingpolicies", "namespacedmutatingpolicies", "policyexceptions"]);
    api.discovery.set("mutations.gatekeeper.sh/v1", ["assign", "assignmetadata", "modifyset"]);
    // mutations.gatekeeper.sh/v1alpha1 (AssignImage) is not served.
    const mpol = (name: string, label: string): Record<string, unknown> => ({
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {"${label}": "yes"}}}` } }],
      },
    });
    api.put(MPOLS, mpol("k1", "k1"));
    api.put(ASSIGN, {
      metadata: { name: "pull-always" },
      spec: {
        applyTo: [{ groups: [""], kinds: ["Pod"], versions: ["v1"] }],
        match: { scope: "Namespaced", kinds: [{ apiGroups: ["*"], kinds: ["Pod"] }] },
        location: "spec.containers[name:*].imagePullPolicy",
        parameters: { assign: { value: "Always" } },
      },
    });
    const store = new PolicyStore();
    const events: StoreEvent[] = [];
    store.onEvent((e) => events.push(e));
    const source = new ClusterPolicySource({ kubeconfig, debounceMs: 20 });
    try {
      await source.start(store.apply);
      expect(store.loaded).toBe(true);
      const s1 = store.current!;
      expect(s1.kyvernoPolicies.map((p) => p.metadata.name)).toEqual(["k1"]);
      expect(s1.policies.map((p) => p.metadata.name)).toEqual(["gatekeeper-assign-pull-always"]);
      expect(s1.notes.join("\n")).toContain("mutations.gatekeeper.sh/v1alpha1 assignimage");
      // Followed by watch: a second MutatingPolicy.
      api.put(MPOLS, mpol("k2", "k2"));
      await until(() => store.current!.kyvernoPolicies.length === 2);
      // A MutatingPolicy that does not compile keeps the last good set.
      api.put(MPOLS, { ...mpol("k3", "k3"), spec: { ...(mpol("k3", "k3").spec as object), mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{" } }] } });
      await until(() => events.some((e) => e.type === "rejected"));
      expect(store.current!.kyvernoPolicies.map((p) => p.metadata.name).sort()).toEqual(["k1", "k2"]);
      // Only the served resources were listed.
      expect([...api.collections.keys()].filter((k) => k.includes("gatekeeper")).sort()).toEqual([
        "/apis/mutations.gatekeeper.sh/v1/assign",
        "/apis/mutations.gatekeeper.sh/v1/assignmetadata",
        "/apis/mutations.gatekeeper.sh/v1/modifyset",
      ]);
    } finally {
      source.close();
    }
  });

  it("reports an unreachable API server as a failed update (nothing loaded)", async () => {
    writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority: ${JSON.stringify(pki.caCert)}}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`);
    const store = new PolicyStore();
    const source = new ClusterPolicySource({ kubeconfig, syncTimeoutMs: 1500 });
    try {
      await source.start(store.apply);
      expect(store.loaded).toBe(false);
      expect(store.lastUpdateOk).toBe(false);
    } finally {
      source.close();
    }
  });
});
