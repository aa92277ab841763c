/**
 * Kyverno autogen on the syntax tree (src/kyverno/autogen.ts) and MAP
 * generation (generate-map.ts): unit cases against Kyverno v1.19's output, the
 * chainsaw class-D expectations (generate-mutating-admission-policy-v1), and the
 * autogen property: autogen'd policy on a Deployment ≡ original on its pod template.
 */
import { readdirSync, readFileSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseAllDocuments } from "yaml";
import { autogen, rewrite } from "../src/kyverno/index.js";
import { generateMap } from "../src/translate/kyverno/generate-map.js";
import { prepareMutatingAdmissionPolicy, prepareMutatingAdmissionPolicyBinding } from "../src/policy/prepare.js";
import { evaluate, type EvaluateResult } from "../src/admission/pipeline.js";
import { newAdmissionRequest } from "../src/admission/request.js";
import { ResourceCatalog } from "../src/admission/match/catalog.js";
import type { JsonObject } from "../src/admission/json.js";
import { upstreamPath } from "./support/upstream.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe("autogen rewrite (syntax tree)", () => {
  const cases: [string, string, string][] = [
    [
      "kyverno.md example",
      "Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name})}}",
      "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: object.spec.template.spec.containers.map(c, Object.spec.template.spec.containers{name: c.name})}}}}",
    ],
    [
      "#17438: Object.metadata{ is renamed",
      "Object{metadata: Object.metadata{labels: {'a': 'b'}}}",
      'Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: {"a": "b"}}}}}',
    ],
    [
      "#15474: JSONPatch paths (literal, concatenation, conditional)",
      "[JSONPatch{op: 'add', path: '/spec/containers/' + string(0) + '/image', value: 'x'}, JSONPatch{op: 'add', path: true ? '/metadata/labels/a' : '/metadata/annotations', value: 'b'}]",
      '[JSONPatch{op: "add", path: "/spec/template/spec/containers/" + string(0) + "/image", value: "x"}, JSONPatch{op: "add", path: true ? "/spec/template/metadata/labels/a" : "/spec/template/metadata/annotations", value: "b"}]',
    ],
    [
      "conditional Object{} (not at the start of the text); empty Object{} kept",
      "has(object.metadata.labels) ? Object{} : Object{metadata: Object.metadata{annotations: {'x': 'y'}}}",
      'has(object.spec.template.metadata.labels) ? Object{} : Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{annotations: {"x": "y"}}}}}',
    ],
    [
      "request.object, oldObject, optional selection; macro-bound names untouched; metadata.name kept",
      "request.object.spec.x + oldObject.?spec.orValue(1) + [1].map(object, object.spec) + object.metadata.name + object.metadata.?labels.orValue(1)",
      'request.object.spec.template.spec.x + oldObject.spec.template.?spec.orValue(1) + [1].map(object, object.spec) + object.metadata.name + object.spec.template.metadata.?labels.orValue(1)',
    ],
    [
      "index and optional-index forms",
      "object['spec'].x + object.metadata['labels'].y + object.metadata[?'annotations'].orValue(1) + object.?metadata.?labels.orValue(2)",
      'object.spec.template["spec"].x + object.spec.template.metadata["labels"].y + object.spec.template.metadata[?"annotations"].orValue(1) + object.spec.template.?metadata.?labels.orValue(2)',
    ],
    ["namespaceObject untouched", "namespaceObject.metadata.labels['a'] == 'b'", "namespaceObject.metadata.labels['a'] == 'b'"],
  ];
  for (const [name, src, want] of cases) it(name, () => expect(rewrite(src, "defaults")).toBe(want));

  it("cronjobs prefix", () => {
    expect(rewrite("Object{spec: Object.spec{x: object.spec.y}}", "cronjobs")).toBe(
      "Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{spec: Object.spec.jobTemplate.spec.template.spec{x: object.spec.jobTemplate.spec.template.spec.y}}}}}}",
    );
    expect(rewrite("[JSONPatch{op: 'remove', path: '/spec/x'}]", "cronjobs")).toBe('[JSONPatch{op: "remove", path: "/spec/jobTemplate/spec/template/spec/x"}]');
  });
});

const podPolicy = (spec: Json = {}): Json => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "MutatingPolicy",
  metadata: { name: "p" },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }], namespaceSelector: { matchLabels: { a: "b" } } },
    mutations: [],
    ...spec,
  },
});

describe("autogen configs (Kyverno's shape)", () => {
  it("defaults + cronjobs, match constraints rebuilt, targets sorted", () => {
    const r = autogen(podPolicy());
    expect(Object.keys(r.configs)).toEqual(["cronjobs", "defaults"]);
    expect(r.configs.defaults?.spec.matchConstraints).toEqual({
      resourceRules: [
        { apiGroups: ["apps"], apiVersions: ["v1"], resources: ["daemonsets", "deployments", "replicasets", "statefulsets"], operations: ["CREATE", "UPDATE"] },
        { apiGroups: ["batch"], apiVersions: ["v1"], resources: ["jobs"], operations: ["CREATE", "UPDATE"] },
      ],
      namespaceSelector: { matchLabels: { a: "b" } },
    });
    expect(r.configs.defaults?.targets.map((t) => t.kind)).toEqual(["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet", "Job"]);
    expect(r.configs.cronjobs?.targets).toEqual([{ group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob" }]);
  });
  it("keeps exact (bigint) integers of a policy loaded with them, instead of crashing", () => {
    const p = podPolicy();
    p.spec.failurePolicyExtra = { retries: 3n };
    const r = autogen(p);
    expect((r.configs.defaults?.spec as Json).failurePolicyExtra).toEqual({ retries: 3n });
  });
  it("controllers list: subset, [] none; not eligible: object selector, two rules, resourceNames", () => {
    expect(Object.keys(autogen(podPolicy({ autogen: { podControllers: { controllers: ["deployments"] } } })).configs)).toEqual(["defaults"]);
    expect(autogen(podPolicy({ autogen: { podControllers: { controllers: [] } } })).configs).toEqual({});
    const p = podPolicy();
    p.spec.matchConstraints.objectSelector = { matchLabels: { x: "y" } };
    expect(autogen(p).configs).toEqual({});
    const q = podPolicy();
    q.spec.matchConstraints.resourceRules[0].resourceNames = ["x"];
    expect(autogen(q).configs).toEqual({});
  });
});

// ---------------------------------------------------------------------------
// Chainsaw class D (v1): generate-mutating-admission-policy-v1

const CLASS_D_PATH = upstreamPath("kyverno-tests/test/conformance/chainsaw/generate-mutating-admission-policy-v1", "the chainsaw class D MAP-generation tests (one per case directory)");
const CLASS_D = CLASS_D_PATH ?? "";

function docs(file: string): Json[] {
  return existsSync(file) ? parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJSON()).filter((d) => d != null) : [];
}

/** Chainsaw-style subset assertion; keys `(list[?name == 'x'])` filter a list. Returns mismatch paths. */
function subset(expected: Json, actual: Json, path = ""): string[] {
  if (expected === null || typeof expected !== "object") return expected === actual ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${path}: expected ${expected.length} items, got ${JSON.stringify(actual)}`];
    return expected.flatMap((e, i) => subset(e, actual[i], `${path}[${i}]`));
  }
  if (actual === null || typeof actual !== "object") return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
  return Object.entries(expected).flatMap(([k, v]) => {
    const m = /^\((\w+)\[\?name == '([^']*)'\]\)$/.exec(k);
    if (m) return subset(v, ((actual[m[1] as string] ?? []) as Json[]).filter((x) => x?.name === m[2]), `${path}.${k}`);
    return subset(v, actual[k], `${path}.${k}`);
  });
}

function caseDirs(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (!statSync(p).isDirectory()) return [];
    return existsSync(join(p, "policy.yaml")) ? [p] : caseDirs(p);
  });
}

describe.skipIf(CLASS_D_PATH === undefined)("chainsaw class D (v1): MAP generation", () => {
  const dirs = CLASS_D_PATH !== undefined ? caseDirs(CLASS_D) : [];
  it("finds the cases", () => expect(dirs.length).toBe(7));
  for (const dir of dirs) {
    it(dir.slice(CLASS_D.length + 1), () => {
      const [policy] = docs(join(dir, "policy.yaml"));
      const exceptions = docs(join(dir, "exception.yaml"));
      const test = readFileSync(join(dir, "chainsaw-test.yaml"), "utf8");
      const expectGenerated = docs(join(dir, "policy-assert.yaml"))[0]?.status?.generated;
      const r = generateMap(policy, { exceptions });
      expect(r.generated).toBe(expectGenerated);
      const absent = /-\s*error:\s*\n\s*file:\s*mutatingadmissionpolicy\.yaml/.test(test);
      expect(absent).toBe(!expectGenerated);
      if (!r.generated) return;
      expect(subset(docs(join(dir, "mutatingadmissionpolicy.yaml"))[0], r.policy)).toEqual([]);
      expect(subset(docs(join(dir, "mutatingadmissionpolicybinding.yaml"))[0], r.binding)).toEqual([]);
    });
  }
});

describe("MAP generation: what does not carry over is said", () => {
  it("selectors, exclusions, partial exceptions, Kyverno libraries", () => {
    const p = podPolicy({
      autogen: { podControllers: { controllers: [] }, mutatingAdmissionPolicy: { enabled: true } },
      variables: [{ name: "img", expression: "image('nginx').registry()" }],
    });
    p.spec.matchConstraints.objectSelector = { matchLabels: { x: "y" } };
    const r = generateMap(p, { exceptions: [{ metadata: { name: "e" }, spec: { policyRefs: [{ name: "p", kind: "MutatingPolicy" }], images: ["x"], matchConditions: [] } }] });
    expect(r.generated).toBe(true);
    expect(r.dropped.map((d) => d.field)).toEqual([
      "spec.matchConstraints.namespaceSelector",
      "spec.matchConstraints.objectSelector",
      "PolicyException e: spec.images",
      "spec.variables[0]",
    ]);
  });
  it("NamespacedMutatingPolicy, useServerSideApply, variables in matchConditions: not generated", () => {
    const on = { autogen: { podControllers: { controllers: [] }, mutatingAdmissionPolicy: { enabled: true } } };
    expect(generateMap({ ...podPolicy(on), kind: "NamespacedMutatingPolicy" }).generated).toBe(false);
    expect(generateMap(podPolicy({ ...on, evaluation: { useServerSideApply: true } })).generated).toBe(false);
    expect(generateMap(podPolicy({ ...on, matchConditions: [{ name: "a", expression: "variables.x" }] })).generated).toBe(false);
    expect(generateMap(podPolicy({ ...on, matchConditions: [{ name: "a", expression: "'variables.x' != ''" }] })).generated).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// Property: autogen'd policy on a Deployment ≡ original on the pod template

const catalog = ResourceCatalog.builtin();

/** Evaluate a MutatingPolicy spec (no Kyverno libraries) through the MAP pipeline. */
function run(spec: Json, object: JsonObject): EvaluateResult {
  const pr = prepareMutatingAdmissionPolicy({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: {
      matchConstraints: { resourceRules: spec.matchConstraints.resourceRules },
      ...(spec.matchConditions ? { matchConditions: spec.matchConditions } : {}),
      ...(spec.variables ? { variables: spec.variables } : {}),
      failurePolicy: "Fail",
      reinvocationPolicy: "Never",
      mutations: spec.mutations,
    },
  });
  if (!pr.ok) throw new Error(pr.message);
  const br = prepareMutatingAdmissionPolicyBinding({ apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingAdmissionPolicyBinding", metadata: { name: "p" }, spec: { policyName: "p" } });
  if (!br.ok) throw new Error(br.message);
  const req = newAdmissionRequest({ operation: "CREATE", object, dryRun: true }, catalog);
  if (!req.ok) throw new Error(req.error);
  return evaluate(req.request, { policies: [pr.object], bindings: [br.object], catalog, namespaces: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }] });
}

const key = fc.constantFrom("app", "tier", "team");
const val = fc.constantFrom("a", "b", "c1");
const image = fc.constantFrom("nginx:1", "busybox:2", "reg.io/x:3");
const AC = (fields: string) => ({ patchType: "ApplyConfiguration", applyConfiguration: { expression: `Object{${fields}}` } });
const JP = (expr: string) => ({ patchType: "JSONPatch", jsonPatch: { expression: expr } });

const mutation = fc.oneof(
  fc.tuple(key, val).map(([k, v]) => AC(`metadata: Object.metadata{labels: {"${k}": "${v}"}}`)),
  fc.tuple(key, val).map(([k, v]) => AC(`metadata: Object.metadata{annotations: {"${k}": "${v}"}}`)),
  image.map((i) => AC(`spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, image: "${i}"})}`)),
  fc.tuple(key, val).map(([k, v]) => AC(`spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, env: [Object.spec.containers.env{name: "${k}", value: "${v}"}]})}`)),
  fc.boolean().map((b) => AC(`spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: ${b}}}`)),
  fc.boolean().map((b) => AC(`spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, securityContext: Object.spec.containers.securityContext{allowPrivilegeEscalation: ${b}}})}`)),
  fc.tuple(key, val).map(([k, v]) => ({
    patchType: "ApplyConfiguration",
    applyConfiguration: { expression: `has(object.metadata.labels) && "${k}" in object.metadata.labels ? Object{metadata: Object.metadata{annotations: {"seen-${k}": "${v}"}}} : Object{}` },
  })),
  fc.tuple(key, val).map(([k, v]) =>
    JP(`has(object.metadata.labels) ? [JSONPatch{op: "add", path: "/metadata/labels/${k}", value: "${v}"}] : [JSONPatch{op: "add", path: "/metadata/labels", value: {"${k}": "${v}"}}]`),
  ),
  image.map((i) => JP(`[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "${i}"}]`)),
  fc.integer({ min: 0, max: 2000 }).map((n) => JP(`[JSONPatch{op: "add", path: "/spec/securityContext", value: {"runAsUser": ${n}}}]`)),
  image.map((i) => JP(`object.spec.containers.map(c, JSONPatch{op: "replace", path: "/spec/containers/" + string(object.spec.containers.indexOf(c)) + "/image", value: "${i}"})`)),
  fc.constant(AC(`spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, image: variables.img})}`)),
);

const container = fc.record({ name: fc.constantFrom("app", "side", "init"), image, env: fc.option(fc.array(fc.record({ name: key, value: val }), { maxLength: 2 }), { nil: undefined }) });
const template = fc.record({
  labels: fc.option(fc.dictionary(key, val, { maxKeys: 2 }), { nil: undefined }),
  annotations: fc.option(fc.dictionary(key, val, { maxKeys: 2 }), { nil: undefined }),
  containers: fc.uniqueArray(container, { minLength: 1, maxLength: 2, selector: (c) => c.name }),
});

const condition = fc.option(
  fc.constantFrom(
    'object.spec.containers.exists(c, c.name == "app")',
    'has(object.metadata.labels) && object.metadata.labels.exists(k, k == "tier")',
    "object.spec.containers.size() < 2",
  ),
  { nil: undefined },
);

function clean(o: unknown): JsonObject {
  return JSON.parse(JSON.stringify(o)) as JsonObject;
}

// ---------------------------------------------------------------------------
// Evidence for the differences: Kyverno v1.19's text replacement, ported
// (pkg/cel/policies/mpol/autogen/autogen.go convertPodToTemplateExpression), run
// through the same pipeline next to ours.

function kyvernoTextRewrite(expression: string): string {
  let e = expression
    .replace(/\b(object|oldObject|Object)\.spec/g, "$1.spec.template.spec")
    .replace(/\b(object|oldObject|Object)\.metadata\.labels/g, "$1.spec.template.metadata.labels")
    .replace(/\b(object|oldObject|Object)\.metadata\.annotations/g, "$1.spec.template.metadata.annotations");
  const t = e.trim();
  if (!t.startsWith("Object")) return e;
  let content = t.slice("Object".length).replace(/^[ \t\r\n]+/, "");
  if (!content.startsWith("{")) return e;
  content = content.slice(1);
  let depth = 1;
  let end = 0;
  for (let i = 0; i < content.length; i++) {
    if (content[i] === "{") depth++;
    else if (content[i] === "}" && --depth === 0) {
      end = i;
      break;
    }
  }
  if (end > 0) e = "Object{spec: Object.spec{template: Object.spec.template{" + content.slice(0, end) + "}}}" + content.slice(end + 1);
  return e;
}

describe("differences from Kyverno's text replacement (same pipeline)", () => {
  const deploy = (labels?: Json): JsonObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", namespace: "default" },
    spec: { selector: { matchLabels: { app: "x" } }, template: { metadata: labels ? { labels } : {}, spec: { containers: [{ name: "app", image: "nginx:1" }] } } },
  });
  const pods = [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }];
  const both = (m: Json) => {
    const spec = podPolicy({ mutations: [m] }).spec;
    spec.matchConstraints = { resourceRules: pods };
    const ours = autogen({ spec }).configs.defaults?.spec;
    const theirs = JSON.parse(JSON.stringify(ours));
    const orig = m.applyConfiguration?.expression ?? m.jsonPatch.expression;
    if (m.applyConfiguration) theirs.mutations[0].applyConfiguration.expression = kyvernoTextRewrite(orig);
    else theirs.mutations[0].jsonPatch.expression = orig; // Kyverno leaves JSONPatch as written
    return { ours: run(ours, deploy({ app: "x" })), theirs: run(theirs, deploy({ app: "x" })) };
  };
  const tpl = (r: EvaluateResult) => ((r.object?.spec as JsonObject).template as JsonObject);

  it("#17438: Object.metadata{…} in a pod mutation — Kyverno's output errors on every controller, ours sets the template label", () => {
    const r = both(AC(`metadata: Object.metadata{labels: {"team": "a"}}`));
    expect(r.theirs.allowed).toBe(false);
    console.log(`#17438 Kyverno text rewrite: ${r.theirs.status?.message}`);
    expect(r.ours.allowed).toBe(true);
    expect((tpl(r.ours).metadata as JsonObject).labels).toEqual({ app: "x", team: "a" });
  });

  it("#15474: JSONPatch pod paths — Kyverno's output patches the Deployment's own spec (an error here), ours the template", () => {
    const r = both(JP(`[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "busybox:2"}]`));
    expect(r.theirs.allowed).toBe(false);
    console.log(`#15474 Kyverno text rewrite: ${r.theirs.status?.message}`);
    expect(r.ours.allowed).toBe(true);
    expect((tpl(r.ours).spec as JsonObject).containers).toEqual([{ name: "app", image: "busybox:2" }]);
  });

  it("conditional Object{} — Kyverno does not wrap it (error), ours does", () => {
    const r = both({ patchType: "ApplyConfiguration", applyConfiguration: { expression: `true ? Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true}}} : Object{}` } });
    expect(r.theirs.allowed).toBe(false);
    console.log(`conditional Object{} Kyverno text rewrite: ${r.theirs.status?.message}`);
    expect(r.ours.allowed).toBe(true);
    expect((tpl(r.ours).spec as JsonObject).securityContext).toEqual({ runAsNonRoot: true });
  });
});

describe("autogen property (fast-check)", () => {
  it("autogen'd policy on a Deployment ≡ original on the pod template", () => {
    let admitted = 0;
    let changed = 0;
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), condition, template, (mutations, cond, t) => {
        const spec = podPolicy({
          mutations,
          variables: [{ name: "img", expression: '"v" + string(object.spec.containers.size()) + ":" + (has(object.metadata.labels) ? "l" : "n")' }],
          ...(cond ? { matchConditions: [{ name: "c", expression: cond }] } : {}),
        }).spec;
        const meta = clean({ labels: t.labels, annotations: t.annotations });
        const podSpec = clean({ containers: t.containers });
        const pod: JsonObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "x", namespace: "default", ...meta }, spec: podSpec };
        const deploy: JsonObject = {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: "d", namespace: "default" },
          spec: { selector: { matchLabels: { app: "x" } }, template: { metadata: meta, spec: podSpec } },
        };
        const auto = autogen({ kind: "MutatingPolicy", spec }).configs.defaults;
        if (auto === undefined) throw new Error("no autogen");
        const a = run(spec, pod);
        const b = run(auto.spec, deploy);
        expect(b.allowed, JSON.stringify([a.status, b.status, auto.spec])).toBe(a.allowed);
        if (!a.allowed) return;
        admitted++;
        if (b.patch.length > 0) changed++;
        const tpl = ((b.object?.spec as JsonObject).template ?? {}) as JsonObject;
        const podMeta = (a.object?.metadata ?? {}) as JsonObject;
        const tplMeta = (tpl.metadata ?? {}) as JsonObject;
        expect(tplMeta.labels).toEqual(podMeta.labels);
        expect(tplMeta.annotations).toEqual(podMeta.annotations);
        expect(tpl.spec).toEqual(a.object?.spec);
        // the controller itself is untouched outside the template
        expect((b.object as JsonObject).metadata).toEqual(deploy.metadata);
        // CronJobs: the cronjobs config on spec.jobTemplate.spec.template
        const cron = autogen({ kind: "MutatingPolicy", spec }).configs.cronjobs;
        if (cron === undefined) throw new Error("no cronjobs autogen");
        const cj: JsonObject = {
          apiVersion: "batch/v1",
          kind: "CronJob",
          metadata: { name: "cj", namespace: "default" },
          spec: { schedule: "* * * * *", jobTemplate: { spec: { template: { metadata: meta, spec: { ...podSpec, restartPolicy: "Never" } } } } },
        };
        const podNever: JsonObject = { ...pod, spec: { ...podSpec, restartPolicy: "Never" } };
        const a2 = run(spec, podNever);
        const c = run(cron.spec, cj);
        expect(c.allowed).toBe(a2.allowed);
        if (!a2.allowed) return;
        const ctpl = ((((c.object?.spec as JsonObject).jobTemplate as JsonObject).spec as JsonObject).template ?? {}) as JsonObject;
        expect(((ctpl.metadata ?? {}) as JsonObject).labels).toEqual(((a2.object?.metadata ?? {}) as JsonObject).labels);
        expect(((ctpl.metadata ?? {}) as JsonObject).annotations).toEqual(((a2.object?.metadata ?? {}) as JsonObject).annotations);
        expect(ctpl.spec).toEqual(a2.object?.spec);
      }),
      { numRuns: 200, seed: 17 },
    );
    console.log(`autogen property: 200 runs (Deployment + CronJob each), ${admitted} admitted, ${changed} with a patch`);
    expect(admitted).toBeGreaterThan(130);
    expect(changed).toBeGreaterThan(60);
  });
});

describe("index helpers", () => {
  it("autogen webhook match conditions (Kyverno's CreateMatchConditions)", async () => {
    const { autogenWebhookMatchConditions, autogenVariants } = await import("../src/translate/kyverno/index.js");
    const v = autogenVariants(podPolicy({ autogen: { podControllers: { controllers: ["deployments", "jobs"] } } }));
    expect(v.map((x) => x.config)).toEqual(["defaults"]);
    expect(autogenWebhookMatchConditions("defaults", v[0]!.targets, [{ name: "c", expression: "true" }])).toEqual([
      { name: "autogen-defaults-c", expression: "!((object.apiVersion == 'apps/v1' && object.kind =='Deployment') || (object.apiVersion == 'batch/v1' && object.kind =='Job')) || (true)" },
    ]);
  });
});

describe("MAP generation skip reasons (Kyverno's status messages)", () => {
  it("not enabled / autogen active / useServerSideApply", () => {
    expect(generateMap(podPolicy()).reason).toBe("skip generating MutatingAdmissionPolicy: not enabled.");
    expect(generateMap(podPolicy({ autogen: { mutatingAdmissionPolicy: { enabled: true } } })).reason).toBe(
      "skip generating MutatingAdmissionPolicy: pod controllers autogen is enabled.",
    );
    expect(generateMap(podPolicy({ autogen: { podControllers: { controllers: [] }, mutatingAdmissionPolicy: { enabled: true } }, evaluation: { useServerSideApply: true } })).reason).toBe(
      "skip generating MutatingAdmissionPolicy: useServerSideApply is enabled, which mutates atomic fields that a native MutatingAdmissionPolicy rejects.",
    );
  });
});

describe("Kyverno's own TestConvertPodToTemplateExpression (autogen_test.go v1.19), compared as syntax trees", async () => {
  const { parse } = await import("../src/cel/parser.js");
  const { unparse } = await import("../src/cel/unparse.js");
  const { PARSE_OPTIONS } = await import("../src/kyverno/index.js");
  const norm = (s: string) => {
    const p = parse(s, PARSE_OPTIONS);
    return unparse(p.expr, p.sourceInfo);
  };
  const containers = `Object{spec: Object.spec{containers: object.spec.containers.map(container, Object.spec.containers{name: container.name, securityContext: Object.spec.containers.securityContext{allowPrivilegeEscalation: false}})}}`;
  const cases: [string, "defaults" | "cronjobs", string, string][] = [
    [
      "deployment containers conversion",
      "defaults",
      containers,
      `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: object.spec.template.spec.containers.map(container, Object.spec.template.spec.containers{name: container.name, securityContext: Object.spec.template.spec.containers.securityContext{allowPrivilegeEscalation: false}})}}}}`,
    ],
    [
      "cronjob containers conversion",
      "cronjobs",
      containers,
      `Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{spec: Object.spec.jobTemplate.spec.template.spec{containers: object.spec.jobTemplate.spec.template.spec.containers.map(container, Object.spec.jobTemplate.spec.template.spec.containers{name: container.name, securityContext: Object.spec.jobTemplate.spec.template.spec.containers.securityContext{allowPrivilegeEscalation: false}})}}}}}}`,
    ],
    [
      "statefulset containers conversion",
      "defaults",
      `Object{spec: Object.spec{containers: [Object.spec.containers{name: "nginx", image: "nginx:latest", securityContext: Object.spec.containers.securityContext{allowPrivilegeEscalation: false}}]}}`,
      `Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", image: "nginx:latest", securityContext: Object.spec.template.spec.containers.securityContext{allowPrivilegeEscalation: false}}]}}}}`,
    ],
    ["namespaceObject labels not modified", "defaults", `'istio.io/dataplane-mode' in namespaceObject.metadata.labels`, `'istio.io/dataplane-mode' in namespaceObject.metadata.labels`],
    ["namespaceObject labels not modified (cronjobs)", "cronjobs", `'istio.io/dataplane-mode' in namespaceObject.metadata.labels`, `'istio.io/dataplane-mode' in namespaceObject.metadata.labels`],
    ["namespaceObject spec not modified", "defaults", `namespaceObject.spec.containers`, `namespaceObject.spec.containers`],
    ["namespaceObject annotations not modified (cronjobs)", "cronjobs", `'team' in namespaceObject.metadata.annotations`, `'team' in namespaceObject.metadata.annotations`],
    ["oldObject spec still modified", "defaults", `oldObject.spec.containers`, `oldObject.spec.template.spec.containers`],
  ];
  for (const [name, config, input, expected] of cases) it(name, () => expect(norm(rewrite(input, config))).toBe(norm(expected)));

  it("'no containers in expression' — the one case we differ on purpose (#17438)", () => {
    const input = `Object{metadata: Object.metadata{labels: Object.metadata.labels{foo: "bar"}}}`;
    // Kyverno's expectation keeps `Object.metadata{`, which the type check rejects on every controller (see above).
    const kyverno = `Object{spec: Object.spec{template: Object.spec.template{metadata: Object.metadata{labels: Object.spec.template.metadata.labels{foo: "bar"}}}}}`;
    expect(kyvernoTextRewrite(input).replace(/\s+/g, " ")).toBe(kyverno);
    expect(norm(rewrite(input, "defaults"))).toBe(
      norm(`Object{spec: Object.spec{template: Object.spec.template{metadata: Object.spec.template.metadata{labels: Object.spec.template.metadata.labels{foo: "bar"}}}}}`),
    );
  });
});
