/**
 * src/audit: sharding and the report, on generated inputs (fast-check). Every object is in exactly
 * one shard and always the same one; the merge of the shard reports equals the unsharded report
 * whatever the admission order; the merge refuses reports of different audits and shards given
 * twice. And one object through the engine: outcomes, who changed it, malformed objects.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mergeReports, missingShards, ReportBuilder, type AuditReport, type ObjectRef, type Outcome } from "../../src/audit/report.js";
import { auditObject, forCreate, type AuditOptions } from "../../src/audit/run.js";
import { inShard, parseShard, shardKey, shardOf } from "../../src/audit/shard.js";
import { auditedResources } from "../../src/audit/kinds.js";
import { load } from "../../src/engine/index.js";

const HEAD = { operation: "UPDATE" as const, policySet: "abc", cluster: "https://k", scope: {} };

const objectArb = fc.record({
  uid: fc.option(fc.uuid(), { nil: undefined }),
  namespace: fc.option(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { nil: undefined }),
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
  kind: fc.constantFrom("Pod", "ConfigMap", "Widget"),
});

type Gen = { uid: string | undefined; namespace: string | undefined; name: string; kind: string };

function asObject(g: Gen): { apiVersion: string; kind: string; metadata: { uid?: string; namespace?: string; name: string } } {
  return {
    apiVersion: g.kind === "Widget" ? "example.com/v1" : "v1",
    kind: g.kind,
    metadata: { name: g.name, ...(g.uid !== undefined ? { uid: g.uid } : {}), ...(g.namespace !== undefined ? { namespace: g.namespace } : {}) },
  };
}

/** Unique objects (by kind, namespace, name and uid). */
const objectsArb = fc.uniqueArray(objectArb, { selector: (g) => `${g.kind}/${g.namespace ?? ""}/${g.name}`, maxLength: 60 }).map((l) => {
  const uids = new Set<string>();
  return l.filter((g) => g.uid === undefined || (!uids.has(g.uid) && uids.add(g.uid)));
});

const outcomeArb: fc.Arbitrary<Outcome> = fc.oneof(
  fc.constant({ outcome: "unchanged" } as const),
  fc.record({
    outcome: fc.constant("changed" as const),
    policies: fc.uniqueArray(fc.constantFrom("MutatingAdmissionPolicy/a", "MutatingAdmissionPolicy/b", "MutatingPolicy/k"), { minLength: 1 }),
    patch: fc.array(fc.record({ op: fc.constant("add"), path: fc.constantFrom("/metadata/labels/x", "/data/y"), value: fc.string() }), { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    outcome: fc.constantFrom("denied" as const, "invalid" as const),
    code: fc.constantFrom(403, 422, 500),
    reason: fc.constantFrom("Forbidden", "Invalid"),
    message: fc.string(),
    policies: fc.constantFrom([], ["MutatingAdmissionPolicy/a"]),
  }),
);

function refOf(o: ReturnType<typeof asObject>): ObjectRef {
  return { apiVersion: o.apiVersion, kind: o.kind, ...(o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name };
}

const resourceOf = (o: ReturnType<typeof asObject>): string => (o.kind === "Pod" ? "v1/pods" : o.kind === "ConfigMap" ? "v1/configmaps" : "example.com/v1/widgets");

/** The report of an audit of `items` (in the given order) for one shard. */
function audit(items: readonly { o: ReturnType<typeof asObject>; out: Outcome }[], index: number, count: number, errorsFor?: (o: ReturnType<typeof asObject>) => string | undefined): AuditReport {
  const b = new ReportBuilder(HEAD, { index, count });
  for (const r of ["v1/pods", "v1/configmaps", "example.com/v1/widgets"]) b.resource(r);
  b.error({ resource: "v1/secrets", message: "cannot list secrets (v1/secrets): forbidden (HTTP 403): …" });
  for (const { o, out } of items) {
    if (!inShard(shardKey(o), { index, count })) continue;
    const e = errorsFor?.(o);
    if (e !== undefined) b.error({ resource: resourceOf(o), object: refOf(o), message: e });
    else b.add(resourceOf(o), refOf(o), out);
  }
  return b.finish();
}

describe("audit: sharding", () => {
  it("every object is in exactly one shard, the same one on every call; the key is the uid, else group/kind/namespace/name", () => {
    fc.assert(
      fc.property(objectsArb, fc.integer({ min: 1, max: 17 }), (gens, n) => {
        for (const g of gens) {
          const o = asObject(g);
          const key = shardKey(o);
          expect(key).toBe(g.uid ?? `${g.kind === "Widget" ? "example.com" : ""}/${g.kind}/${g.namespace ?? ""}/${g.name}`);
          const owners = Array.from({ length: n }, (_, i) => i).filter((i) => inShard(key, { index: i, count: n }));
          expect(owners).toEqual([shardOf(key, n)]);
          expect(shardOf(key, n)).toBe(shardOf(shardKey(structuredClone(o)), n));
        }
      }),
    );
  });

  it("spreads objects over the shards (2,000 uids, 4 shards: each between 20% and 30%)", () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 2000; i++) counts[shardOf(`00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, 4)]!++;
    for (const c of counts) {
      expect(c).toBeGreaterThan(400);
      expect(c).toBeLessThan(600);
    }
  });

  it("--shard i/n: parsed, 0-based, checked", () => {
    expect(parseShard("2/5")).toEqual({ ok: true, shard: { index: 2, count: 5 } });
    expect(parseShard("5/5")).toEqual({ ok: false, error: "--shard 5/5: the index is 0-based and must be below the count (0/5 … 4/5)" });
    expect(parseShard("1-of-3")).toMatchObject({ ok: false, error: expect.stringMatching(/must be i\/n/) });
    expect(parseShard("0/0")).toMatchObject({ ok: false });
  });
});

describe("audit: report and merge", () => {
  it("merge(shard reports) == the unsharded report, whatever the admission order; missing shards are named", () => {
    fc.assert(
      fc.property(
        objectsArb.chain((gens) => fc.tuple(fc.constant(gens), fc.array(outcomeArb, { minLength: gens.length, maxLength: gens.length }))),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 1000 }),
        ([gens, outs], n, seed) => {
          const items = gens.map((g, i) => ({ o: asObject(g), out: outs[i]! }));
          // Every 7th object malformed: an error naming it, in exactly one shard's report.
          const errorsFor = (o: ReturnType<typeof asObject>): string | undefined => (o.metadata.name.length % 7 === 0 ? "malformed object: kind: Required value" : undefined);
          const whole = audit(items, 0, 1, errorsFor);
          const shuffled = [...items].sort((a, b) => ((shardOf(shardKey(a.o) + seed, 97) - shardOf(shardKey(b.o) + seed, 97)) || 0));
          const shards = Array.from({ length: n }, (_, i) => audit(shuffled, i, n, errorsFor));
          expect(shards.reduce((a, s) => a + s.totals.objects, 0)).toBe(whole.totals.objects);
          const m = mergeReports([...shards].reverse());
          expect(m.ok).toBe(true);
          if (!m.ok) return;
          expect({ ...m.report, shard: undefined }).toEqual({ ...whole, shard: undefined });
          expect(m.report.shard).toEqual({ count: n, indexes: Array.from({ length: n }, (_, i) => i) });
          expect(missingShards(m.report)).toEqual([]);
          if (n > 1) {
            const partial = mergeReports(shards.slice(1));
            expect(partial.ok && missingShards(partial.report)).toEqual([0]);
          }
          // Counts add up.
          const t = whole.totals;
          expect(t.changed + t.unchanged + t.denied + t.invalid).toBe(t.objects);
          expect(whole.kinds.reduce((a, k) => a + k.objects, 0)).toBe(t.objects);
          expect(whole.changes.length).toBe(t.changed);
          expect(whole.denials.length).toBe(t.denied + t.invalid);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("refuses reports of different audits and a shard given twice", () => {
    const a = audit([], 0, 2);
    const b = audit([], 1, 2);
    expect(mergeReports([a, a])).toEqual({ ok: false, error: "shard 0/2 is given twice" });
    expect(mergeReports([a, { ...b, policySet: "other" }])).toEqual({ ok: false, error: 'report 2: policySet "other" differs from report 1\'s "abc": not shards of one audit' });
    expect(mergeReports([a, { ...b, operation: "CREATE" }])).toMatchObject({ ok: false, error: expect.stringMatching(/^report 2: operation "CREATE" differs/) });
    expect(mergeReports([a, audit([], 1, 3)])).toEqual({ ok: false, error: "report 2: 3 shards, report 1: 2" });
    expect(mergeReports([a, { ...b, scope: { namespace: "x" } }])).toMatchObject({ ok: false, error: expect.stringMatching(/scope/) });
    expect(mergeReports([])).toEqual({ ok: false, error: "no reports to merge" });
  });
});

describe("audit: one object through the engine", () => {
  const policy = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: "team" },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["configmaps"] }] },
      failurePolicy: "Fail",
      reinvocationPolicy: "Never",
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": object.metadata.name == "bad" ? object.data["missing"] : "a"}}}' } }],
    },
  };
  const binding = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingAdmissionPolicyBinding", metadata: { name: "team" }, spec: { policyName: "team" } };
  const { policySet, errors } = load([{ value: policy }, { value: binding }], { closedWorld: false });
  const options: AuditOptions = { operation: "UPDATE", shard: { index: 0, count: 1 }, admit: { validate: true } };
  const cm = (name: string): never => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns", uid: `u-${name}`, resourceVersion: "7" }, data: { a: "1" } }) as never;

  it("changed (with the policy that changed it and the patch), denied (with the apiserver's message), malformed and unknown kinds as errors naming the object", () => {
    expect(errors).toEqual([]);
    expect(auditedResources(policySet, "UPDATE").map((r) => `${r.gvr.version}/${r.gvr.resource}`)).toEqual(["v1/configmaps"]);
    expect(auditedResources(policySet, "CREATE")).toEqual([]);
    const b = new ReportBuilder(HEAD, { index: 0, count: 1 });
    auditObject(policySet, "v1/configmaps", cm("good"), options, b);
    auditObject(policySet, "v1/configmaps", cm("bad"), options, b);
    auditObject(policySet, "v1/configmaps", { apiVersion: "v1", metadata: { name: "nokind", namespace: "ns" } } as never, options, b);
    auditObject(policySet, "v1/things", { apiVersion: "example.com/v1", kind: "Thing", metadata: { name: "t", namespace: "ns" } } as never, options, b);
    const r = b.finish();
    expect(r.totals).toEqual({ objects: 2, changed: 1, unchanged: 0, denied: 1, invalid: 0 });
    expect(r.changes).toEqual([{ object: { apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "good" }, policies: ["MutatingAdmissionPolicy/team"], patch: [{ op: "add", path: "/metadata/labels", value: { team: "a" } }] }]);
    expect(r.denials).toMatchObject([{ object: { name: "bad" }, stage: "admission", code: 403, policies: ["MutatingAdmissionPolicy/team"], message: expect.stringMatching(/^policy 'team' with binding 'team' denied request: .*no such key: missing/) }]);
    expect(r.errors).toEqual([
      { resource: "v1/configmaps", object: { apiVersion: "v1", kind: "", namespace: "ns", name: "nokind" }, message: "malformed object: kind: Required value: every object needs apiVersion and kind" },
      { resource: "v1/things", object: { apiVersion: "example.com/v1", kind: "Thing", namespace: "ns", name: "t" }, message: expect.stringMatching(/Thing/) },
    ]);
    expect(r.policies).toEqual([{ policy: "MutatingAdmissionPolicy/team", changed: 1, denied: 1 }]);
  });

  it("resources to list: a wildcard policy lists every listable served resource once (create-only reviews left out); Kyverno autogen adds the pod controllers", () => {
    const wild = { ...policy, metadata: { name: "wild" }, spec: { ...policy.spec, matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }] } } };
    const w = load([{ value: wild }], { closedWorld: false });
    const names = auditedResources(w.policySet, "UPDATE").map((r) => `${r.gvr.group}/${r.gvr.version}/${r.gvr.resource}`);
    expect(names).toContain("/v1/pods");
    expect(names).toContain("apps/v1/deployments");
    expect(names.filter((n) => n.endsWith("/horizontalpodautoscalers"))).toEqual(["autoscaling/v2/horizontalpodautoscalers"]);
    expect(names.some((n) => /reviews$|\/bindings$/.test(n))).toBe(false);
    const mpol = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "k" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }] },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' } }],
      },
    };
    const k = load([{ value: mpol }], { closedWorld: false });
    expect(k.errors).toEqual([]);
    const kn = auditedResources(k.policySet, "UPDATE").map((r) => `${r.gvr.group}/${r.gvr.resource}`);
    expect(kn).toEqual(expect.arrayContaining(["/pods", "apps/deployments", "batch/jobs", "batch/cronjobs"]));
  });

  it("--operation CREATE admits the object without its server-set metadata", () => {
    expect(forCreate({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", uid: "u", resourceVersion: "1", creationTimestamp: "t", generation: 2, managedFields: [], labels: { x: "y" } } })).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", labels: { x: "y" } },
    });
  });
});
