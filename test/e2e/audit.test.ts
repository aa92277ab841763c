/**
 * `celmap eval --kubeconfig` and `celmap audit` against the real kube-apiserver: a few hundred
 * objects (Pods and ConfigMaps in three namespaces, a CRD's objects) are seeded, then
 * MutatingAdmissionPolicies, bindings and a param are installed there. The apiserver applies those
 * MAPs natively, so the oracle for every audited object is the apiserver itself: a server-side
 * dry-run UPDATE (PUT of the stored object, `dryRun=All`) returns what it would store, and celmap's
 * report must say exactly that (the same objects changed, the patch giving the same object, the same
 * denials). A Kyverno MutatingPolicy is read from a MutatingPolicy CRD created here (Kyverno itself
 * does not run in the fixture, so its effect has no apiserver oracle: it is checked against the
 * policy's own text and `celmap eval -f` of the same policy). Missing permissions: a
 * ServiceAccount whose ClusterRole lacks `list configmaps`, with a token from the TokenRequest API.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { collectionPath, objectPath, ok, strip, waitFor, type Kube, type Obj } from "../../e2e/kube.js";
import { jsonDiff, type JsonObject } from "../../src/admission/index.js";
import { run } from "../../src/cli/run.js";
import { CLI_PATH, runCli } from "../support/cli.js";
import { documents, renderChart } from "../support/helm.js";
import { ac, cluster, freePort, jp, mapPolicy, rule, toYaml } from "./support.js";

const kube = cluster();
const d = kube === undefined ? describe.skip : describe;

const NS = ["audit-a", "audit-b", "audit-c"] as const;
const SEED = { "celmap-audit": "seed" };
const PODS_PER_NS = 60;
const CMS_PER_NS = 30;
const GIZMOS_PER_NS = 10;
const TOTAL = NS.length * (PODS_PER_NS + CMS_PER_NS + GIZMOS_PER_NS);

const GIZMO_CRD: Obj = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gizmos.audit.celmap.io" },
  spec: {
    group: "audit.celmap.io",
    scope: "Namespaced",
    names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo", listKind: "GizmoList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  size: { type: "integer" },
                  tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/**
 * A stand-in for Kyverno's MutatingPolicy CRD (policies.kyverno.io/v1 mutatingpolicies, cluster
 * scoped), with an open schema: Kyverno's own CRD is not in this repository; celmap reads the objects
 * and validates them as Kyverno's admission does.
 */
const KYVERNO_CRD: Obj = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "mutatingpolicies.policies.kyverno.io" },
  spec: {
    group: "policies.kyverno.io",
    scope: "Cluster",
    names: { plural: "mutatingpolicies", singular: "mutatingpolicy", kind: "MutatingPolicy", listKind: "MutatingPolicyList", shortNames: ["mpol"] },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
};

const KYVERNO_POLICY: Obj = {
  apiVersion: "policies.kyverno.io/v1",
  kind: "MutatingPolicy",
  metadata: { name: "audit-kyverno-owner" },
  spec: {
    matchConstraints: {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] }],
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "audit-c" } },
    },
    mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: 'Object{metadata: Object.metadata{annotations: {"audit.celmap.io/kyverno": "seen"}}}' } }],
  },
};

const selected = ["audit-a", "audit-b"];
/** Pods labelled tier=web in the selected namespaces get team=platform (UPDATE and CREATE). */
const POD_POLICY = mapPolicy(
  "audit-pod-team",
  {
    resources: [rule([""], ["v1"], ["pods"], ["CREATE", "UPDATE"])],
    matchConditions: [{ name: "web", expression: "has(object.metadata.labels) && 'tier' in object.metadata.labels && object.metadata.labels['tier'] == 'web'" }],
    mutations: [ac('Object{metadata: Object.metadata{labels: {"team": "platform"}}}')],
  },
  selected,
);
/** ConfigMaps in the selected namespaces get data.owner from the param; those labelled broken=yes make the mutation fail (failurePolicy Fail: denied). */
const CM_POLICY = mapPolicy(
  "audit-cm-owner",
  {
    resources: [rule([""], ["v1"], ["configmaps"], ["CREATE", "UPDATE"])],
    paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    matchConditions: [{ name: "seeded", expression: "has(object.metadata.labels) && 'celmap-audit' in object.metadata.labels" }],
    mutations: [
      jp(
        "has(object.metadata.labels) && 'broken' in object.metadata.labels ? [JSONPatch{op: 'add', path: '/data/x', value: object.data['no-such-key']}] : " +
          "[JSONPatch{op: 'add', path: '/data/owner', value: params.data.owner}]",
      ),
    ],
  },
  selected,
  { paramRef: { name: "audit-params", namespace: "audit-params", parameterNotFoundAction: "Deny" } },
);
/** Gizmos everywhere seeded get the tag "audited" (a set: merged with their own). */
const GIZMO_POLICY = mapPolicy(
  "audit-gizmo-tags",
  { resources: [rule(["audit.celmap.io"], ["v1"], ["gizmos"], ["CREATE", "UPDATE"])], mutations: [ac('Object{spec: Object.spec{tags: ["audited"]}}')] },
  [...NS],
);
const PARAM: Obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "audit-params", namespace: "audit-params" }, data: { owner: "team-x" } };

function seeds(): Obj[] {
  const out: Obj[] = [];
  for (const ns of NS) {
    for (let i = 0; i < PODS_PER_NS; i++) {
      const labels: Record<string, string> = { ...SEED, app: `p${i}`, ...(i % 3 === 0 ? { tier: "web" } : i % 3 === 1 ? { tier: "db" } : {}) };
      out.push({ apiVersion: "v1", kind: "Pod", metadata: { name: `p${i}`, namespace: ns, labels }, spec: { containers: [{ name: "app", image: `nginx:1.${i % 7}` }] } });
    }
    for (let i = 0; i < CMS_PER_NS; i++) {
      out.push({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}`, namespace: ns, labels: { ...SEED, ...(i % 10 === 0 ? { broken: "yes" } : {}) } }, data: { k: `v${i}` } });
    }
    for (let i = 0; i < GIZMOS_PER_NS; i++) {
      out.push({ apiVersion: "audit.celmap.io/v1", kind: "Gizmo", metadata: { name: `g${i}`, namespace: ns, labels: SEED }, spec: { size: i, tags: i % 2 === 0 ? ["a"] : ["audited", "b"] } });
    }
  }
  return out;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `celmap <argv>` in-process (src/cli run), as a user's shell would see it. */
async function celmap(argv: string[]): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readFile: (p) => readFileSync(p, "utf8") });
  return { code, stdout, stderr };
}

type Report = {
  totals: { objects: number; changed: number; unchanged: number; denied: number; invalid: number };
  kinds: { resource: string; objects: number; changed: number; denied: number }[];
  policies: { policy: string; changed: number; denied: number }[];
  changes: { object: { apiVersion: string; kind: string; namespace?: string; name: string }; policies: string[]; patch: { op: string; path: string; value?: unknown }[] }[];
  denials: { object: { kind: string; namespace?: string; name: string }; code: number; reason: string; message: string; stage: string }[];
  errors: { resource?: string; message: string }[];
  shard: { count: number; indexes: number[] };
};

const keyOf = (o: { kind: string; namespace?: string; name: string }): string => `${o.kind} ${o.namespace ?? ""}/${o.name}`;

/** RFC 6902 add/replace/remove on a copy. */
function applyPatch(doc: Obj, ops: readonly { op: string; path: string; value?: unknown }[]): Obj {
  const out = structuredClone(doc);
  for (const o of ops) {
    const parts = o.path.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = parts.pop()!;
    let cur: unknown = out;
    for (const p of parts) cur = Array.isArray(cur) ? cur[Number(p)] : (cur as Obj)[p];
    if (Array.isArray(cur)) {
      const i = last === "-" ? cur.length : Number(last);
      if (o.op === "add") cur.splice(i, 0, o.value);
      else if (o.op === "replace") cur[i] = o.value;
      else cur.splice(i, 1);
    } else if (o.op === "remove") delete (cur as Obj)[last];
    else (cur as Obj)[last] = o.value;
  }
  return out;
}

async function pool<T, R>(items: readonly T[], n: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      for (;;) {
        const i = next++;
        if (i >= items.length) return;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}

function kubeconfigYaml(server: string, ca: string, token: string): string {
  return toYaml([
    {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "e2e", cluster: { server, "certificate-authority-data": Buffer.from(ca).toString("base64") } }],
      users: [{ name: "u", user: { token } }],
      contexts: [{ name: "e2e", context: { cluster: "e2e", user: "u" } }, { name: "other", context: { cluster: "e2e", user: "u", namespace: "x" } }],
      "current-context": "e2e",
    },
  ]);
}

d("celmap eval --kubeconfig and celmap audit against the real kube-apiserver", () => {
  const k = kube!;
  let dir = "";
  let kubeconfig = "";
  const cleanup: Obj[] = [];
  const stored = new Map<string, Obj>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "celmap-e2e-audit-"));
    kubeconfig = join(dir, "admin.kubeconfig");
    writeFileSync(kubeconfig, kubeconfigYaml(k.info.server, readFileSync(k.info.caFile, "utf8"), k.info.token));
    for (const ns of NS) await k.namespace(ns, ns === "audit-c" ? { "audit-e2e": "off" } : { "audit-e2e": "on" });
    await k.namespace("audit-params");
    for (const crd of [GIZMO_CRD, KYVERNO_CRD]) {
      cleanup.push(await k.create(crd));
      await waitFor(`${String((crd.metadata as Obj).name)} established`, async () => {
        const g = await k.get(crd);
        return ((g.body.status as Obj | undefined)?.conditions as Obj[] | undefined)?.some((c) => c.type === "Established" && c.status === "True") === true;
      });
    }
    // Objects first: stored as they are, before any policy exists.
    await waitFor("gizmos served", async () => (await k.request("GET", "/apis/audit.celmap.io/v1/gizmos")).status === 200);
    const created = await pool(seeds(), 8, (o) => k.create(o));
    for (const o of created) stored.set(keyOf({ kind: String(o.kind), namespace: String((o.metadata as Obj).namespace), name: String((o.metadata as Obj).name) }), o);
    expect(stored.size).toBe(TOTAL);
    cleanup.push(await k.create(PARAM));
    for (const o of [...POD_POLICY, ...CM_POLICY, ...GIZMO_POLICY]) cleanup.push(await k.create(o));
    ok(await k.request("POST", "/apis/policies.kyverno.io/v1/mutatingpolicies", KYVERNO_POLICY), "create MutatingPolicy");
    // The apiserver acts on the policies once its dry-run UPDATEs show them (policies re-read about once a second; the param informer synced).
    const probe = async (key: string, ok: (o: Obj) => boolean): Promise<boolean> => {
      const s = (await k.get(stored.get(key)!)).body;
      const r = await k.request("PUT", objectPath(s), s, { dryRun: true });
      return r.status === 200 && ok(r.body);
    };
    await waitFor("pod policy active", () => probe("Pod audit-a/p0", (o) => ((o.metadata as Obj).labels as Obj).team === "platform"), 60_000);
    await waitFor("configmap policy and param active", () => probe("ConfigMap audit-a/c1", (o) => (o.data as Obj).owner === "team-x"), 60_000);
    await waitFor("gizmo policy active", () => probe("Gizmo audit-a/g0", (o) => ((o.spec as Obj).tags as string[]).includes("audited")), 60_000);
  });

  afterAll(async () => {
    await k.request("DELETE", "/apis/policies.kyverno.io/v1/mutatingpolicies/audit-kyverno-owner").catch(() => {});
    for (const o of cleanup.reverse()) await k.remove(o).catch(() => {});
    for (const ns of [...NS, "audit-params", "audit-perm", "audit-chart"]) await k.request("DELETE", `/api/v1/namespaces/${ns}`).catch(() => {});
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("eval --kubeconfig: a new Pod and ConfigMap get what the apiserver gives them (dry-run create is the oracle)", async () => {
    const pod: Obj = { apiVersion: "v1", kind: "Pod", metadata: { name: "fresh", namespace: "audit-b", labels: { tier: "web" } }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    const cm: Obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fresh", namespace: "audit-a", labels: { ...SEED } }, data: { a: "1" } };
    const file = join(dir, "fresh.yaml");
    writeFileSync(file, toYaml([pod, cm]));
    const r = await celmap(["eval", "--kubeconfig", kubeconfig, "-r", file, "-o", "json"]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    const results = JSON.parse(r.stdout) as { object: Obj; allowed: boolean }[];
    for (const [i, o] of [pod, cm].entries()) {
      const oracle = ok(await k.request("POST", collectionPath(o), o, { dryRun: true }), "dry-run create");
      expect(results[i]!.allowed).toBe(true);
      expect(strip(results[i]!.object, { keepNamespace: true })).toEqual(strip(oracle, { keepNamespace: true }));
    }
    expect(((results[0]!.object.metadata as Obj).labels as Obj).team).toBe("platform");
    expect((results[1]!.object.data as Obj).owner).toBe("team-x");
  });

  it("eval --kubeconfig -f: a local policy with the cluster policy's name replaces it (a proposed change); --context picks the context", async () => {
    const proposed = structuredClone(POD_POLICY[0]!);
    ((proposed.spec as Obj).mutations as Obj[])[0] = ac('Object{metadata: Object.metadata{labels: {"team": "proposed"}}}');
    const pfile = join(dir, "proposed.yaml");
    writeFileSync(pfile, toYaml([proposed]));
    const rfile = join(dir, "web.yaml");
    writeFileSync(rfile, toYaml([{ apiVersion: "v1", kind: "Pod", metadata: { name: "w", namespace: "audit-a", labels: { tier: "web" } }, spec: { containers: [{ name: "c", image: "busybox" }] } }]));
    const r = await celmap(["eval", "--kubeconfig", kubeconfig, "--context", "e2e", "-f", pfile, "-r", rfile, "-o", "json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/note: local -f documents replace the cluster's MutatingAdmissionPolicy audit-pod-team\n/);
    expect((((JSON.parse(r.stdout) as { object: Obj }[])[0]!.object.metadata as Obj).labels as Obj).team).toBe("proposed");
    const bad = await celmap(["eval", "--kubeconfig", kubeconfig, "--context", "nope", "-r", rfile]);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/context "nope" not found \(contexts: e2e, other\)/);
  });

  let full: Report;

  it(`audit: ${TOTAL} seeded objects; the changes and denials are exactly what the apiserver's dry-run UPDATE of each object does`, async () => {
    const r = await celmap(["audit", "--kubeconfig", kubeconfig, "-l", "celmap-audit=seed", "-o", "json", "--chunk-size", "37"]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    full = JSON.parse(r.stdout) as Report;
    expect(full.errors).toEqual([]);
    expect(full.totals.objects).toBe(TOTAL);
    const changes = new Map(full.changes.map((c) => [keyOf(c.object), c]));
    const denials = new Map(full.denials.map((x) => [keyOf(x.object), x]));
    let checked = 0;
    let changedByApiserver = 0;
    let deniedByApiserver = 0;
    const mismatches: string[] = [];
    await pool([...stored.keys()], 8, async (key) => {
      const now = (await k.get(stored.get(key)!)).body;
      const oracle = await k.request("PUT", objectPath(now), now, { dryRun: true });
      const kyvernoOnly = key.startsWith("ConfigMap audit-c/");
      checked++;
      if (oracle.status !== 200) {
        deniedByApiserver++;
        const got = denials.get(key);
        if (got === undefined || got.code !== oracle.status || got.message !== String(oracle.body.message)) mismatches.push(`${key}: apiserver ${oracle.status} ${String(oracle.body.message)}; celmap ${got === undefined ? "no denial" : `${got.code} ${got.message}`}`);
        return;
      }
      if (denials.has(key)) mismatches.push(`${key}: celmap denied it (${denials.get(key)!.message}); the apiserver admits it`);
      const want = strip(oracle.body, { keepNamespace: true });
      const before = strip(now, { keepNamespace: true });
      const c = changes.get(key);
      if (kyvernoOnly) {
        // No Kyverno in the fixture: the apiserver changes nothing; celmap adds the MutatingPolicy's annotation, and nothing else.
        expect(want).toEqual(before);
        expect(c?.policies).toEqual(["MutatingPolicy/audit-kyverno-owner"]);
        expect(strip(applyPatch(now, c!.patch), { keepNamespace: true })).toEqual({ ...before, metadata: { ...(before.metadata as Obj), annotations: { "audit.celmap.io/kyverno": "seen" } } });
        return;
      }
      if (!isDeepStrictEqual(want, before)) changedByApiserver++;
      const predicted = c === undefined ? before : strip(applyPatch(now, c.patch), { keepNamespace: true });
      if (!isDeepStrictEqual(predicted, want)) mismatches.push(`${key}: from what the apiserver stores to celmap's prediction: ${JSON.stringify(jsonDiff(want as JsonObject, predicted as JsonObject))}`);
    });
    expect(mismatches).toEqual([]);
    expect(checked).toBe(TOTAL);
    // Not vacuous: tier=web Pods (20 per selected namespace), ConfigMaps (27 + 3 broken per selected namespace), every Gizmo without the tag.
    expect(changedByApiserver).toBe(2 * 20 + 2 * 27 + 3 * 5);
    expect(deniedByApiserver).toBe(2 * 3);
    expect(full.totals.changed).toBe(changedByApiserver + CMS_PER_NS);
    expect(full.totals.denied).toBe(deniedByApiserver);
    expect(full.kinds.map((x) => [x.resource, x.objects])).toEqual([
      ["audit.celmap.io/v1/gizmos", 30],
      ["v1/configmaps", 90],
      ["v1/pods", 180],
    ]);
    expect(full.policies).toEqual([
      { policy: "MutatingAdmissionPolicy/audit-cm-owner", changed: 54, denied: 6 },
      { policy: "MutatingAdmissionPolicy/audit-gizmo-tags", changed: 15, denied: 0 },
      { policy: "MutatingAdmissionPolicy/audit-pod-team", changed: 40, denied: 0 },
      { policy: "MutatingPolicy/audit-kyverno-owner", changed: 30, denied: 0 },
    ]);
  });

  it("audit -f: the Kyverno policy's changes equal celmap eval -f of the same policy on the stored objects (UPDATE, oldObject = stored)", async () => {
    const objs = [...stored.entries()].filter(([key]) => key.startsWith("ConfigMap audit-c/")).map(([, o]) => o);
    const now = await Promise.all(objs.map(async (o) => (await k.get(o)).body));
    const rfile = join(dir, "audit-c.yaml");
    writeFileSync(rfile, toYaml(now));
    const pfile = join(dir, "kyverno.yaml");
    writeFileSync(pfile, toYaml([KYVERNO_POLICY]));
    const e = await celmap(["eval", "-f", pfile, "-r", rfile, "--old", rfile, "-o", "json"]);
    expect(e.code).toBe(0);
    const byName = new Map((JSON.parse(e.stdout) as { patch: unknown[]; resource: { name: string } }[]).map((x) => [x.resource.name, x.patch]));
    for (const c of full.changes.filter((x) => x.object.namespace === "audit-c" && x.object.kind === "ConfigMap")) expect(c.patch).toEqual(byName.get(c.object.name));
  });

  it("audit --shard i/3: every object in exactly one shard; audit merge of the shards == the unsharded report", async () => {
    const files: string[] = [];
    const seen = new Map<string, number>();
    for (let i = 0; i < 3; i++) {
      const r = await celmap(["audit", "--kubeconfig", kubeconfig, "-l", "celmap-audit=seed", "-o", "json", "--shard", `${i}/3`]);
      expect(r.stderr).not.toMatch(/^error/m);
      expect(r.code).toBe(0);
      const rep = JSON.parse(r.stdout) as Report;
      expect(rep.shard).toEqual({ count: 3, indexes: [i] });
      expect(rep.totals.objects).toBeGreaterThan(TOTAL / 6);
      for (const c of [...rep.changes, ...rep.denials]) seen.set(keyOf(c.object), (seen.get(keyOf(c.object)) ?? 0) + 1);
      const f = join(dir, `shard-${i}.json`);
      writeFileSync(f, r.stdout);
      files.push(f);
    }
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(seen.size).toBe(full.changes.length + full.denials.length);
    const m = await celmap(["audit", "merge", ...files, "-o", "json"]);
    expect(m.code).toBe(0);
    const merged = JSON.parse(m.stdout) as Report;
    expect({ ...merged, shard: undefined }).toEqual({ ...full, shard: undefined });
    expect(merged.shard).toEqual({ count: 3, indexes: [0, 1, 2] });
    const partial = await celmap(["audit", "merge", files[0]!, files[2]!]);
    expect(partial.code).toBe(4);
    expect(partial.stderr).toMatch(/incomplete: shard 1 of 3 missing/);
    const twice = await celmap(["audit", "merge", files[0]!, files[0]!]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/shard 0\/3 is given twice/);
  });

  it("audit -o text|markdown|yaml, -n, --exit-code, --operation CREATE", async () => {
    const t = await celmap(["audit", "--kubeconfig", kubeconfig, "-l", "celmap-audit=seed", "-n", "audit-a", "--exit-code"]);
    expect(t.code).toBe(1);
    expect(t.stdout).toMatch(/: 52 of 100 objects would change, 45 unchanged, 3 denied, 0 invalid\n/);
    expect(t.stdout).toMatch(new RegExp(`^  v1/pods +${PODS_PER_NS} +20 +40 +0 +0$`, "m"));
    expect(t.stdout).toMatch(/v1 Pod audit-a\/p0 \(MutatingAdmissionPolicy\/audit-pod-team\)\n {4}add \/metadata\/labels\/team "platform"/);
    const md = await celmap(["audit", "--kubeconfig", kubeconfig, "-l", "celmap-audit=seed", "-n", "audit-a", "-o", "markdown"]);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^### celmap audit: 52 of 100 objects would change, 3 denied, 0 invalid$/m);
    expect(md.stdout).toContain("| `v1/configmaps` | 30 | 27 | 0 | 3 | 0 |");
    expect(md.stdout).toContain("<details><summary>52 changes</summary>");
    const y = await celmap(["audit", "--kubeconfig", kubeconfig, "-l", "celmap-audit=seed", "-n", "audit-b", "-o", "yaml"]);
    expect((parse(y.stdout) as Report).totals).toEqual({ objects: 100, changed: 52, unchanged: 45, denied: 3, invalid: 0 });
    // CREATE: the same policies match CREATE too; server-set metadata dropped.
    const c = await celmap(["audit", "--kubeconfig", kubeconfig, "-l", "celmap-audit=seed,tier=web", "-n", "audit-a", "--operation", "CREATE", "-o", "json"]);
    const cr = JSON.parse(c.stdout) as Report;
    expect(cr.totals).toEqual({ objects: 20, changed: 20, unchanged: 0, denied: 0, invalid: 0 });
  });

  it("a ServiceAccount that may not list configmaps: the 403 names the resource, the verb and the user; everything else is still reported (exit 4)", async () => {
    await k.namespace("audit-perm");
    cleanup.push(await k.create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "auditor", namespace: "audit-perm" } }));
    const role: Obj = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "celmap-audit-e2e-partial" },
      rules: [
        { apiGroups: ["admissionregistration.k8s.io"], resources: ["mutatingadmissionpolicies", "mutatingadmissionpolicybindings"], verbs: ["list"] },
        { apiGroups: [""], resources: ["namespaces", "pods"], verbs: ["list"] },
        { apiGroups: ["policies.kyverno.io"], resources: ["mutatingpolicies"], verbs: ["list"] },
        { apiGroups: ["audit.celmap.io"], resources: ["gizmos"], verbs: ["list"] },
      ],
    };
    cleanup.push(await k.create(role));
    cleanup.push(
      await k.create({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "celmap-audit-e2e-partial" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "celmap-audit-e2e-partial" },
        subjects: [{ kind: "ServiceAccount", name: "auditor", namespace: "audit-perm" }],
      }),
    );
    const tr = ok(await k.request("POST", "/api/v1/namespaces/audit-perm/serviceaccounts/auditor/token", { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } }), "token request");
    const token = String((tr.status as Obj).token);
    const sa = join(dir, "sa.kubeconfig");
    writeFileSync(sa, kubeconfigYaml(k.info.server, readFileSync(k.info.caFile, "utf8"), token));
    // The policies' param kind (ConfigMap) cannot be listed: nothing can be audited.
    const r = await celmap(["audit", "--kubeconfig", sa, "-l", "celmap-audit=seed"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/cannot list configmaps \(v1\/configmaps\): forbidden \(HTTP 403\): configmaps is forbidden: User "system:serviceaccount:audit-perm:auditor" cannot list resource "configmaps" in API group "" at the cluster scope/);
    // With the policy set from files (ConfigMap params among them), the objects: pods and gizmos are audited, configmaps named as an error.
    const pfile = join(dir, "local-set.yaml");
    writeFileSync(pfile, toYaml([...POD_POLICY, ...CM_POLICY, ...GIZMO_POLICY, PARAM]));
    const l = await celmap(["audit", "--kubeconfig", sa, "--no-cluster-policies", "-f", pfile, "-l", "celmap-audit=seed", "-o", "json"]);
    expect(l.code).toBe(4);
    const rep = JSON.parse(l.stdout) as Report;
    expect(rep.errors).toEqual([
      { resource: "v1/configmaps", message: 'cannot list configmaps (v1/configmaps): forbidden (HTTP 403): configmaps is forbidden: User "system:serviceaccount:audit-perm:auditor" cannot list resource "configmaps" in API group "" at the cluster scope' },
    ]);
    expect(rep.kinds.map((x) => [x.resource, x.objects, x.changed])).toEqual([
      ["audit.celmap.io/v1/gizmos", 30, 15],
      ["v1/pods", 180, 40],
    ]);
    expect(l.stderr).toMatch(/^error: cannot list configmaps/m);
  });

  it("the Helm chart's audit Job: its RBAC and Job pass the apiserver's server-side dry-run; its shards, run with the rendered args under the rendered ClusterRole, merge into the full report", async () => {
    await k.namespace("audit-chart");
    const rendered = documents(
      renderChart("celmap", "audit-chart", {
        audit: {
          enabled: true,
          shards: 3,
          parallelism: 3,
          extraArgs: ["-l", "celmap-audit=seed"],
          listResources: [
            { apiGroups: [""], resources: ["pods", "configmaps"] },
            { apiGroups: ["audit.celmap.io"], resources: ["gizmos"] },
          ],
        },
      }),
      "rendered.yaml",
    ).filter((o) => (o.metadata as Obj | undefined)?.name === "celmap-audit") as Obj[];
    expect(rendered.map((o) => o.kind)).toEqual(["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Job"]);
    for (const o of rendered) {
      const r = await k.request("POST", collectionPath(o), o, { dryRun: true });
      expect(r.status, `${String(o.kind)}: ${JSON.stringify(r.body).slice(0, 500)}`).toBe(201);
    }
    // The RBAC for real (no Pods run here: no kubelet), the Job's args as the kubelet expands them, with the ServiceAccount's token.
    for (const o of rendered.slice(0, 3)) cleanup.push(await k.create(o));
    const tr = ok(await k.request("POST", "/api/v1/namespaces/audit-chart/serviceaccounts/celmap-audit/token", { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } }), "token request");
    const sa = join(dir, "job.kubeconfig");
    writeFileSync(sa, kubeconfigYaml(k.info.server, readFileSync(k.info.caFile, "utf8"), String((tr.status as Obj).token)));
    const job = rendered[3]!;
    const args = ((((job.spec as Obj).template as Obj).spec as Obj).containers as Obj[])[0]!.args as string[];
    const logs: string[] = [];
    for (let i = 0; i < ((job.spec as Obj).completions as number); i++) {
      const argv = args.map((a) => a.replace("$(JOB_COMPLETION_INDEX)", String(i)));
      const r = await celmap([...argv, "--kubeconfig", sa]);
      expect(r.code, r.stderr).toBe(0);
      const log = join(dir, `job-${i}.log`);
      writeFileSync(log, `${r.stderr}${r.stdout}note: the log goes on after the report\n`);
      logs.push(log);
    }
    const m = await celmap(["audit", "merge", ...logs, "-o", "json"]);
    expect(m.code, m.stderr).toBe(0);
    const merged = JSON.parse(m.stdout) as Report;
    // Namespaces were created since the first audit (they are part of the policy set): compared with an unsharded audit of now, as admin.
    const now = await celmap(["audit", "--kubeconfig", kubeconfig, "-l", "celmap-audit=seed", "-o", "json"]);
    expect({ ...merged, shard: undefined }).toEqual({ ...(JSON.parse(now.stdout) as Report), shard: undefined });
    expect({ ...merged, shard: undefined, policySet: undefined }).toEqual({ ...full, shard: undefined, policySet: undefined });
  });

  it("a progress line on stderr when it is a terminal (util-linux script gives it one), none otherwise", async () => {
    if (!existsSync("/usr/bin/script")) return void console.log("skipped: /usr/bin/script (util-linux) not found: no terminal to give the process");
    const out = join(dir, "tty.json");
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_PATH)} audit --kubeconfig ${JSON.stringify(kubeconfig)} -l celmap-audit=seed --chunk-size 50 -o json > ${JSON.stringify(out)}`;
    const tty = await new Promise<string>((res, rej) => execFile("/usr/bin/script", ["-qec", cmd, "/dev/null"], { env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 }, (e, stdout) => (e !== null ? rej(e) : res(stdout))));
    expect(tty).toMatch(/\r\u001b\[Kcelmap audit: (audit\.celmap\.io\/v1\/gizmos|v1\/configmaps|v1\/pods) \(\d\/3\): \d+ listed, \d+ admitted/);
    // Cleared at the end, before the closing summary line.
    expect(tty, JSON.stringify(tty.slice(-600))).toMatch(/\r\u001b\[Kcelmap audit: 300 objects in v1\/configmaps, v1\/pods, audit\.celmap\.io\/v1\/gizmos: 139 would change, 6 denied, 0 invalid\r\n$/);
    expect((JSON.parse(readFileSync(out, "utf8")) as Report).totals.objects).toBe(TOTAL);
    const piped = await runCli(["audit", "--kubeconfig", kubeconfig, "-l", "celmap-audit=seed", "-o", "json"]);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain("\r");
  });

  it("an unreachable cluster: exit 4 and the address, from the built executable", async () => {
    const port = await freePort();
    const f = join(dir, "gone.kubeconfig");
    writeFileSync(f, kubeconfigYaml(`https://127.0.0.1:${port}`, readFileSync(k.info.caFile, "utf8"), "x"));
    const r = await runCli(["audit", "--kubeconfig", f]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(new RegExp(`error: cannot reach the cluster at https://127.0.0.1:${port} \\(GET /apis/policies.kyverno.io/v1\\): connect ECONNREFUSED`));
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const e = await runCli(["eval", "--kubeconfig", f, "-r", join(dir, "fresh.yaml")]);
    expect(e.code).toBe(4);
    expect(e.stderr).toMatch(/cannot reach the cluster/);
  });
});
