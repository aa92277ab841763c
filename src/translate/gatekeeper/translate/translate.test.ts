import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compileMutator, type Mutator } from "../../../gatekeeper/index.js";
import { mutate } from "../../../gatekeeper/index.js";
import { jsonEqual } from "../../../gatekeeper/index.js";
import { normalizeResult } from "./cases.js";
import { DOC_EXAMPLES_YAML } from "./docs-examples.js";
import { translate, type TranslateResult } from "./index.js";
import { runTranslated } from "./run.js";

type Obj = Record<string, unknown>;

function pod(ns: string, containers: Obj[], extra: Obj = {}): Obj {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "nginx-1", namespace: ns, labels: { app: "web" } }, spec: { containers, ...extra } };
}

const SAMPLE_PODS: Obj[] = [
  pod("bar", [{ name: "foo", image: "nginx:1.2", args: ["--alsologtostderr", "-v"] }]),
  pod("bar", [{ name: "nginx", image: "docker.io/library/nginx:latest" }, { name: "foo", image: "x", securityContext: { privileged: true } }]),
  pod("system", [{ name: "a", image: "my.registry.io:2000/repo/app:latest", imagePullPolicy: "Never" }]),
  pod("default", [{ name: "networking", image: "old" }, { name: "b", image: "b", env: [{ name: "DEPLOYMENT_TIMESTAMP", value: "x" }] }], { dnsConfig: { searches: ["a"] } }),
  pod("default", []),
];

const NAMESPACES: Record<string, Obj> = Object.fromEntries(
  ["bar", "system", "default"].map((n) => [n, { apiVersion: "v1", kind: "Namespace", metadata: { name: n, labels: { "kubernetes.io/metadata.name": n } } }]),
);

function compile(docs: unknown[]): Mutator[] {
  return docs.map((d) => {
    const r = compileMutator(d);
    if (!r.ok) throw new Error(r.issues.map((i) => i.message).join("; "));
    return r.mutator;
  });
}

/** Reference vs translated on every sample Pod, CREATE and UPDATE. */
function expectSameAsGatekeeper(docs: unknown[], t: TranslateResult, objects: Obj[] = SAMPLE_PODS): void {
  const ms = compile(docs);
  for (const o of objects) {
    for (const operation of ["CREATE", "UPDATE"] as const) {
      const ns = NAMESPACES[(o.metadata as Obj).namespace as string];
      const ref = mutate(o, ms, { operation, namespace: ns });
      const got = runTranslated(t, o, { operation, namespace: ns });
      if (ref.error !== undefined) {
        expect(got.allowed, `Gatekeeper fails (${ref.error}); MAP must deny`).toBe(false);
        continue;
      }
      expect(got.allowed, got.message).toBe(true);
      expect(normalizeResult(got.object, o)).toEqual(normalizeResult(ref.object, o));
    }
  }
}

describe("Gatekeeper documentation examples", () => {
  const docs = DOC_EXAMPLES_YAML.map((y) => parse(y) as Obj);
  for (const doc of docs) {
    const label = `${String(doc.kind)}/${String((doc.metadata as Obj).name)} ${JSON.stringify((doc.spec as Obj).location)}`;
    it(`${label}: translates exactly, validates, behaves as Gatekeeper`, () => {
      const t = translate([doc]);
      expect(t.issues).toEqual([]);
      expect(t.verdicts.map((v) => v.verdict)).toEqual(["exact"]);
      expect(t.policies).toHaveLength(1);
      expectSameAsGatekeeper([doc], t);
    });
  }
  it("all examples as one Gatekeeper system (unique names)", () => {
    const set = docs.map((d, i) => ({ ...d, metadata: { name: `${String((d.metadata as Obj).name)}-${i}` } }));
    const t = translate(set);
    expect(t.issues).toEqual([]);
    expect(t.verdicts.every((v) => v.verdict === "exact")).toBe(true);
    expectSameAsGatekeeper(set, t);
  });
});

describe("verdicts", () => {
  const base = { apiVersion: "mutations.gatekeeper.sh/v1", kind: "Assign" };
  const applyTo = [{ groups: [""], versions: ["v1"], kinds: ["Pod"] }];
  it("refuses external data with the reason at the field", () => {
    const t = translate([
      { ...base, metadata: { name: "ext" }, spec: { applyTo, location: "spec.containers[name: *].image", parameters: { assign: { externalData: { provider: "p" } } } } },
    ]);
    expect(t.policies).toEqual([]);
    expect(t.verdicts[0]!.verdict).toBe("refused");
    expect(t.verdicts[0]!.reasons[0]!.path).toBe("spec.parameters.assign.externalData");
    expect(t.verdicts[0]!.reasons[0]!.message).toContain("a MAP cannot call out");
  });
  it("refuses what Gatekeeper rejects, with Gatekeeper's message", () => {
    const t = translate([{ ...base, metadata: { name: "bad" }, spec: { applyTo, location: "metadata.labels.x", parameters: { assign: { value: "v" } } } }]);
    expect(t.verdicts[0]!.verdict).toBe("refused");
    expect(t.verdicts[0]!.reasons[0]!.message).toContain("can't change metadata");
  });
  it("states a difference for ModifySet numbers", () => {
    const t = translate([
      { apiVersion: "mutations.gatekeeper.sh/v1", kind: "ModifySet", metadata: { name: "n" }, spec: { applyTo, location: "spec.x", parameters: { values: { fromList: [1] } } } },
    ]);
    expect(t.verdicts[0]!.verdict).toBe("difference");
    expect(t.verdicts[0]!.reasons[0]!.path).toBe("spec.parameters.values.fromList");
  });
  it("emits nothing for source Generated and for schema conflicts (Gatekeeper never runs them), exactly", () => {
    const t = translate([
      { ...base, metadata: { name: "gen" }, spec: { applyTo, match: { source: "Generated" }, location: "spec.a", parameters: { assign: { value: 1 } } } },
      { ...base, metadata: { name: "c1" }, spec: { applyTo, location: "spec.containers[name: x].image", parameters: { assign: { value: "i" } } } },
      { ...base, metadata: { name: "c2" }, spec: { applyTo, location: "spec.containers.image", parameters: { assign: { value: "i" } } } },
    ]);
    expect(t.policies).toEqual([]);
    expect(t.verdicts.map((v) => v.verdict)).toEqual(["exact", "exact", "exact"]);
  });
  it("v1alpha1 before 1.34 refuses list traversals (no list.flatten) in the exact form", () => {
    const t = translate([{ ...base, metadata: { name: "g" }, spec: { applyTo, location: "spec.containers[name: *].image", parameters: { assign: { value: "i" } } } }], { apiVersion: "v1alpha1", form: "exact" });
    expect(t.verdicts[0]!.verdict).toBe("refused");
    const t2 = translate([{ ...base, metadata: { name: "g" }, spec: { applyTo, location: "spec.dnsPolicy", parameters: { assign: { value: "None" } } } }], { apiVersion: "v1alpha1" });
    expect(t2.verdicts[0]!.verdict).toBe("exact");
    expect(t2.issues).toEqual([]);
    expect(t2.policies[0]!.apiVersion).toBe("admissionregistration.k8s.io/v1alpha1");
  });
  it("v1alpha1 (1.32) translates a single glob of a constant in the readable form (transformList, no flatten)", () => {
    const docs = [{ ...base, metadata: { name: "g" }, spec: { applyTo, location: "spec.containers[name: *].image", parameters: { assign: { value: "i" } } } }];
    const t = translate(docs, { apiVersion: "v1alpha1" });
    expect(t.verdicts[0]!.verdict).toBe("exact");
    expect(t.issues).toEqual([]);
    const expr = ((t.policies[0]!.spec as Obj).mutations as { jsonPatch: { expression: string } }[])[0]!.jsonPatch.expression;
    expect(expr).toContain("object.spec.containers.transformList(i, c,");
    expect(expr).not.toContain("flatten");
    expectSameAsGatekeeper(docs, t);
  });
  it("emits v1beta1 objects that validate", () => {
    const t = translate(DOC_EXAMPLES_YAML.map((y) => parse(y)).slice(0, 3), { apiVersion: "v1beta1" });
    expect(t.issues).toEqual([]);
    expect(t.policies.every((p) => p.apiVersion === "admissionregistration.k8s.io/v1beta1")).toBe(true);
  });
});

describe("grouping and passes", () => {
  const applyTo = [{ groups: [""], versions: ["v1"], kinds: ["Pod"] }];
  const assign = (name: string, location: string, value: unknown, extra: Obj = {}) => ({
    apiVersion: "mutations.gatekeeper.sh/v1",
    kind: "Assign",
    metadata: { name },
    spec: { applyTo, location, parameters: { assign: { value }, ...extra } },
  });
  it("a sidecar and a glob default interact: one policy, Gatekeeper's result (the sidecar's replace-whole-element undoes the default each pass)", () => {
    const docs = [
      assign("a-pull", "spec.containers[name: *].imagePullPolicy", "Always"),
      assign("b-sidecar", "spec.containers[name: net]", { name: "net", image: "n" }),
    ];
    const t = translate(docs);
    expect(t.policies).toHaveLength(1);
    expectSameAsGatekeeper(docs, t);
    const out = runTranslated(t, pod("default", [{ name: "c", image: "i" }]));
    expect((out.object as { spec: { containers: Obj[] } }).spec.containers).toEqual([
      { name: "c", image: "i", imagePullPolicy: "Always" },
      { name: "net", image: "n" },
    ]);
  });
  it("last writer wins at the same location (Gatekeeper order = name order)", () => {
    const docs = [assign("b", "spec.dnsPolicy", "Default"), assign("a", "spec.dnsPolicy", "None")];
    const t = translate(docs);
    const out = runTranslated(t, pod("default", []));
    expect((out.object as { spec: Obj }).spec.dnsPolicy).toBe("Default");
    expectSameAsGatekeeper(docs, t);
  });
  it("AssignMetadata feeding a labelSelector is grouped", () => {
    const docs = [
      { apiVersion: "mutations.gatekeeper.sh/v1", kind: "AssignMetadata", metadata: { name: "label" }, spec: { location: "metadata.labels.tier", parameters: { assign: { value: "gold" } } } },
      assign("pull", "spec.containers[name: *].imagePullPolicy", "Always"),
    ];
    (docs[1]!.spec as Obj).match = { labelSelector: { matchLabels: { tier: "gold" } } };
    const t = translate(docs);
    expect(t.policies).toHaveLength(1);
    expectSameAsGatekeeper(docs, t);
  });
  it("independent mutators get a policy each without bundling", () => {
    const t = translate([assign("a", "spec.dnsPolicy", "None"), assign("b", "spec.hostname", "h")], { bundle: false });
    expect(t.policies).toHaveLength(2);
    expect(t.bindings.map((b) => (b.spec as Obj).policyName)).toEqual(t.policies.map((p) => (p.metadata as Obj).name));
  });
  it("independent mutators of the same resource rules share one policy, their criteria named in a comment; merged where provably the same", () => {
    const docs = [assign("a", "spec.dnsPolicy", "None"), assign("b", "spec.hostname", "h")];
    ((docs[1] as Obj).spec as Obj).match = { namespaces: ["bar"] };
    // The exact form (JSONPatch walks, which merge.ts joins); the readable one is tested below.
    const t = translate(docs, { form: "exact" });
    expect(t.issues).toEqual([]);
    expect(t.policies).toHaveLength(1);
    const spec = t.policies[0]!.spec as { matchConditions?: unknown; mutations: { jsonPatch: { expression: string } }[] };
    expect(spec.matchConditions).toBeUndefined();
    // Both under the Pod's spec (always present for a built-in), at different keys: one mutation.
    expect(spec.mutations).toHaveLength(1);
    expect(spec.mutations[0]!.jsonPatch.expression).toContain("// match: gatekeeper-match-namespaces");
    expect(t.verdicts.every((v) => v.verdict === "exact" && v.notes.some((n) => n.startsWith("bundled")))).toBe(true);
    expectSameAsGatekeeper(docs, t);
    // With failurePolicy Ignore a policy's error drops only its own mutations: no bundles.
    expect(translate(docs, { failurePolicy: "Ignore" }).policies).toHaveLength(2);
  });
  it("the same bundle in the readable form: one ApplyConfiguration per constant, guarded by its criteria", () => {
    const docs = [assign("a", "spec.dnsPolicy", "None"), assign("b", "spec.hostname", "h")];
    ((docs[1] as Obj).spec as Obj).match = { namespaces: ["bar"] };
    const t = translate(docs);
    expect(t.issues).toEqual([]);
    expect(t.policies).toHaveLength(1);
    const ms = (t.policies[0]!.spec as { mutations: { patchType: string; applyConfiguration: { expression: string } }[] }).mutations;
    expect(ms.map((m) => m.patchType)).toEqual(["ApplyConfiguration", "ApplyConfiguration"]);
    expect(ms[0]!.applyConfiguration.expression).toContain('Object{spec: Object.spec{dnsPolicy: "None"}}');
    expect(ms[1]!.applyConfiguration.expression).toContain("// match: gatekeeper-match-namespaces");
    expectSameAsGatekeeper(docs, t);
  });
  it("independent AssignMetadata mutators become one ApplyConfiguration", () => {
    const md = (name: string, location: string, assign: Obj, match?: Obj): Obj => ({
      apiVersion: "mutations.gatekeeper.sh/v1",
      kind: "AssignMetadata",
      metadata: { name },
      spec: { location, parameters: { assign }, ...(match !== undefined ? { match } : {}) },
    });
    const docs = [
      md("a", "metadata.labels.team", { value: "x" }, { namespaces: ["bar"] }),
      md("b", "metadata.annotations.owner", { fromMetadata: { field: "name" } }),
      md("c", "metadata.labels.app", { value: "other" }),
      md("d", "metadata.annotations.sel", { value: "y" }, { labelSelector: { matchLabels: { app: "web" } } }),
    ];
    const t = translate(docs);
    expect(t.issues).toEqual([]);
    expect(t.policies).toHaveLength(1);
    const muts = (t.policies[0]!.spec as { mutations: { patchType: string; applyConfiguration: { expression: string } }[] }).mutations;
    // a and b in one; c writes the label d selects on: they are a group of their own.
    const bundled = muts.filter((m) => m.applyConfiguration.expression.includes("optional.ofNonZeroValue"));
    expect(bundled).toHaveLength(1);
    expect(bundled[0]!.applyConfiguration.expression).toMatch(/"team"[\s\S]*"owner"/);
    expect(muts.length).toBeLessThan(docs.length);
    const objects = [
      ...SAMPLE_PODS,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "bar" } },
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "default", labels: { team: "y" }, annotations: { owner: "z" } } },
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "bar" } },
    ];
    expectSameAsGatekeeper(docs, t, objects);
  });
});

describe("webhook exemptions (option)", () => {
  it("skips Gatekeeper's namespace, ignored and exempt namespaces; validates", () => {
    const doc = parse(DOC_EXAMPLES_YAML.find((y) => y.includes("demo-image-pull-policy"))!) as Obj;
    const t = translate([doc], { webhook: { exemptNamespaces: ["kube-*"] } });
    expect(t.issues).toEqual([]);
    const spec = t.policies[0]!.spec as { matchConstraints: { namespaceSelector: unknown }; matchConditions: { name: string }[] };
    expect(spec.matchConstraints.namespaceSelector).toBeDefined();
    expect(spec.matchConditions.map((c) => c.name)).toContain("gatekeeper-webhook-not-gatekeeper");
    const nsObj = (name: string, labels: Obj = {}) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { "kubernetes.io/metadata.name": name, ...labels } } });
    const run = (ns: Obj) => {
      const o = pod((ns.metadata as Obj).name as string, [{ name: "c", image: "i" }]);
      return ((runTranslated(t, o, { namespace: ns }).object as { spec: { containers: Obj[] } }).spec.containers[0]!).imagePullPolicy;
    };
    expect(run(nsObj("default"))).toBe("Always");
    expect(run(nsObj("gatekeeper-system"))).toBeUndefined();
    expect(run(nsObj("kube-public"))).toBeUndefined();
    expect(run(nsObj("app", { "admission.gatekeeper.sh/ignore": "yes" }))).toBeUndefined();
  });
});

describe("regressions", () => {
  it("a namespaced object's request namespace, not a made-up default (fromMetadata namespace)", () => {
    const docs = [{ apiVersion: "mutations.gatekeeper.sh/v1", kind: "AssignMetadata", metadata: { name: "ns" }, spec: { location: "metadata.labels.ns", parameters: { assign: { fromMetadata: { field: "namespace" } } } } }];
    const t = translate(docs);
    expectSameAsGatekeeper(docs, t);
    const ns = runTranslated(t, { apiVersion: "v1", kind: "Namespace", metadata: { name: "x" } });
    expect(((ns.object as { metadata: Obj }).metadata.labels as Obj).ns).toBe("");
  });
  it("MustExist on spec with the typed Pod shell", () => {
    const docs = [
      {
        apiVersion: "mutations.gatekeeper.sh/v1",
        kind: "ModifySet",
        metadata: { name: "m0" },
        spec: { applyTo: [{ groups: [""], versions: ["v1"], kinds: ["Pod"] }], location: "spec.containers[name: a].args", parameters: { operation: "prune", values: { fromList: [] }, pathTests: [{ subPath: "spec", condition: "MustExist" }] } },
      },
    ];
    expectSameAsGatekeeper(docs, translate(docs));
  });
  it("type mismatch under a glob fails the request as Gatekeeper fails it", () => {
    const docs = [{ apiVersion: "mutations.gatekeeper.sh/v1", kind: "Assign", metadata: { name: "w" }, spec: { applyTo: [{ groups: ["example.com"], versions: ["v1"], kinds: ["Widget"] }], location: "spec.items[name: *].v", parameters: { assign: { value: 1 } } } }];
    const t = translate(docs);
    const o = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "default" }, spec: { items: [{ name: "x" }, "s"] } };
    expect(mutate(o, compile(docs)).error).toBeDefined();
    expect(runTranslated(t, o).allowed).toBe(false);
  });
  it("a mutator whose pathTests exclude everything is not emitted (an all-[] expression would type as list(dyn))", () => {
    const t = translate([
      { apiVersion: "mutations.gatekeeper.sh/v1", kind: "Assign", metadata: { name: "m1" }, spec: { applyTo: [{ groups: [""], versions: ["v1"], kinds: ["Pod"] }], location: "spec.containers[name: *].imagePullPolicy", parameters: { assign: { value: "Always" }, pathTests: [{ subPath: "spec", condition: "MustNotExist" }] } } },
    ]);
    expect(t.issues).toEqual([]);
    expect(t.policies).toEqual([]);
    expect(t.verdicts[0]!.verdict).toBe("exact");
  });
  it("the result equals what jsonEqual says for unchanged objects", () => {
    expect(jsonEqual(normalizeResult({ a: {}, b: null }, {}), {})).toBe(true);
  });
});
