/**
 * `celmap lint`'s checks, table-driven, in process (src/lint through the CLI's loader): for each
 * check, sets that break it (the finding, its policies and field) and sets that look suspicious but
 * do not (no finding). Real policies through the real admission pipeline; no -r samples unless the
 * case says so, so the generator has to find the witness.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocuments } from "../src/io/load.js";
import { lintDocuments } from "../src/cli/commands/lint.js";
import type { CheckName, Finding } from "../src/lint/index.js";
import { REPO_ROOT } from "./support/cli.js";

const EX = join(REPO_ROOT, "examples/lint");
const FX = join(REPO_ROOT, "test/fixtures/lint");
const read = (p: string): string => readFileSync(p, "utf8");

function mapPolicy(name: string, mutation: string, opts: { patchType?: string; resources?: string; group?: string; reinvocation?: string; matchConditions?: string; binding?: string } = {}): string {
  const patchType = opts.patchType ?? "ApplyConfiguration";
  const holder = patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration";
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: ["${opts.group ?? ""}"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["${opts.resources ?? "pods"}"]}
${opts.matchConditions !== undefined ? `  matchConditions:\n    - name: c\n      expression: ${JSON.stringify(opts.matchConditions)}\n` : ""}  failurePolicy: Fail
  reinvocationPolicy: ${opts.reinvocation ?? "Never"}
  mutations:
    - patchType: ${patchType}
      ${holder}:
        expression: ${JSON.stringify(mutation)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec:
  policyName: ${name}
${opts.binding ?? ""}---
`;
}

interface Case {
  readonly name: string;
  readonly policies: string;
  readonly samples?: string;
  /** Expected findings: check and policy names (sorted); [] = clean. */
  readonly expect: readonly { readonly check: CheckName; readonly policies: readonly string[]; readonly path?: string }[];
  /** Only these checks' findings are compared (default all). */
  readonly only?: readonly CheckName[];
}

function run(c: Case): { findings: readonly Finding[]; errors: readonly string[] } {
  const f = parseDocuments(c.policies, "policies.yaml", { numbers: "cel" });
  const r = parseDocuments(c.samples ?? "", "samples.yaml", { numbers: "cel" });
  expect(f.errors).toEqual([]);
  const out = lintDocuments(f.documents, r.documents, { seed: 1, generate: 24 });
  return { findings: out.report?.findings ?? [], errors: out.errors };
}

function summary(fs: readonly Finding[], only?: readonly CheckName[]): { check: CheckName; policies: string[]; path?: string }[] {
  return fs
    .filter((f) => only === undefined || only.includes(f.check))
    .map((f) => ({ check: f.check, policies: f.policies.map((p) => p.name).sort() }))
    .sort((a, b) => `${a.check}${a.policies.join()}`.localeCompare(`${b.check}${b.policies.join()}`));
}

const LABEL = (name: string, key: string, value: string): string => mapPolicy(name, `Object{metadata: Object.metadata{labels: {"${key}": "${value}"}}}`);

const CASES: readonly Case[] = [
  // ---- order
  { name: "order: two MAPs write the same label to different values", policies: read(join(EX, "label-conflict.yaml")), expect: [{ check: "order", policies: ["tier-frontend", "tier-web"] }] },
  {
    name: "order: JSONPatch add at /spec/containers/0 beside an ApplyConfiguration adding the same container",
    policies: read(join(EX, "container-order.yaml")),
    expect: [{ check: "order", policies: ["mesh-sidecar", "proxy-first"] }],
  },
  { name: "order (false positive): JSONPatch add at /spec/containers/0 beside an ApplyConfiguration adding another container", policies: read(join(EX, "container-order-independent.yaml")), expect: [] },
  { name: "order (false positive): two MAPs write different labels", policies: LABEL("a", "team", "x") + LABEL("b", "tier", "y"), expect: [] },
  { name: "order (false positive): two MAPs write the same label to the same value", policies: LABEL("a", "tier", "web") + LABEL("b", "tier", "web"), expect: [] },
  {
    name: "order (false positive): three MAPs on disjoint fields, one JSONPatch",
    policies:
      LABEL("a", "team", "x") +
      mapPolicy("b", `Object{metadata: Object.metadata{annotations: {"seen": "yes"}}}`) +
      mapPolicy("c", `[JSONPatch{op: "add", path: "/spec/priority", value: 1}]`, { patchType: "JSONPatch" }),
    expect: [],
  },
  {
    name: "order: three MAPs, the conflict is between two of them",
    policies: LABEL("a", "tier", "x") + LABEL("b", "tier", "y") + LABEL("c", "team", "z"),
    expect: [{ check: "order", policies: ["a", "b"] }],
  },
  // ---- idempotence
  {
    name: "idempotence: the image-prefix example as two MAPs, found without samples",
    policies: read(join(EX, "image-prefix-maps.yaml")),
    only: ["idempotence"],
    expect: [{ check: "idempotence", policies: ["billing-registry", "gcr-prefix"] }],
  },
  {
    name: "idempotence: the image-prefix example as two Kyverno MutatingPolicies, found without samples",
    policies: read(join(EX, "image-prefix-kyverno.yaml")),
    only: ["idempotence"],
    expect: [{ check: "idempotence", policies: ["billing-registry", "gcr-prefix"] }],
  },
  {
    name: "idempotence: one policy that appends to an annotation on every admission",
    policies: mapPolicy("stamp", `Object{metadata: Object.metadata{annotations: {"seen": (has(object.metadata.annotations) && "seen" in object.metadata.annotations ? object.metadata.annotations["seen"] : "") + "x"}}}`),
    only: ["idempotence"],
    expect: [{ check: "idempotence", policies: ["stamp"] }],
  },
  {
    name: "idempotence (false positive): one guarded prefix policy alone",
    policies: read(join(EX, "image-prefix-maps.yaml")).split(/^---$/m).slice(0, 2).join("---"),
    expect: [],
  },
  {
    name: "idempotence (false positive): a sidecar added by server-side apply (merged by name, never doubled)",
    policies: read(join(REPO_ROOT, "examples/policies/sidecar.yaml")),
    expect: [],
  },
  // ---- convergence
  {
    name: "convergence: a set that needs 2 passes with reinvocationPolicy Never",
    policies: read(join(EX, "team-mirror.yaml")),
    only: ["convergence"],
    expect: [{ check: "convergence", policies: ["a-team-annotation"] }],
  },
  { name: "convergence (false positive): the same set with IfNeeded, settled by the apiserver's second pass", policies: read(join(EX, "team-mirror-ifneeded.yaml")), expect: [] },
  {
    name: "convergence: the image-prefix example never settles",
    policies: read(join(EX, "image-prefix-maps.yaml")),
    only: ["convergence"],
    expect: [{ check: "convergence", policies: ["billing-registry", "gcr-prefix"] }],
  },
  // ---- static
  {
    name: "atomic: an ApplyConfiguration setting a container's args",
    policies: mapPolicy("args", `Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, args: ["-v"]})}}`),
    only: ["atomic"],
    expect: [{ check: "atomic", policies: ["args"], path: "spec.containers.args" }],
  },
  {
    name: "atomic (false positive): a Kyverno MutatingPolicy with evaluation.useServerSideApply (atomic values replaced whole)",
    policies: `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: ssa-args}
spec:
  evaluation: {useServerSideApply: true}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, args: ["-v"]})}}'
`,
    only: ["atomic"],
    expect: [],
  },
  {
    name: "atomic (false positive): list maps and granular maps (containers, labels)",
    policies: read(join(REPO_ROOT, "examples/policies/sidecar.yaml")) + "---\n" + LABEL("l", "a", "b"),
    only: ["atomic"],
    expect: [],
  },
  {
    name: "filter: list-item removal written as filter() in an ApplyConfiguration",
    policies: mapPolicy("drop", `Object{spec: Object.spec{containers: object.spec.containers.filter(c, c.name != "debug")}}`),
    only: ["filter"],
    expect: [{ check: "filter", policies: ["drop"], path: "spec.containers" }],
  },
  {
    name: "filter (false positive): filter() choosing which items to modify, then map()",
    policies: read(join(EX, "image-prefix-maps.yaml")),
    only: ["filter"],
    expect: [],
  },
  {
    name: "schema: an undeclared field and a mistyped value",
    policies: mapPolicy("typo", `Object{spec: Object.spec{replica: 2, minReadySeconds: "10"}}`, { group: "apps", resources: "deployments" }),
    only: ["schema"],
    expect: [
      { check: "schema", policies: ["typo"] },
      { check: "schema", policies: ["typo"] },
    ],
  },
  {
    name: "schema (false positive): int-or-string and nested Object types",
    policies: mapPolicy("ok", `Object{spec: Object.spec{strategy: Object.spec.strategy{rollingUpdate: Object.spec.strategy.rollingUpdate{maxSurge: "25%", maxUnavailable: 1}}}}`, { group: "apps", resources: "deployments" }),
    only: ["schema"],
    expect: [],
  },
  {
    name: "jsonpatch-path: a path no Pod has",
    policies: mapPolicy("rep", `[JSONPatch{op: "replace", path: "/spec/replicas", value: 2}]`, { patchType: "JSONPatch" }),
    only: ["jsonpatch-path"],
    expect: [{ check: "jsonpatch-path", policies: ["rep"] }],
  },
  {
    name: "jsonpatch-path (false positive): add at a list index, a map key and an escaped label key",
    policies: mapPolicy(
      "ok",
      `[JSONPatch{op: "add", path: "/spec/containers/0", value: Object.spec.containers{name: "p", image: "p"}}, JSONPatch{op: "add", path: "/metadata/labels/app.kubernetes.io~1name", value: "x"}, JSONPatch{op: "add", path: "/spec/nodeSelector/disk", value: "ssd"}]`,
      { patchType: "JSONPatch" },
    ),
    only: ["jsonpatch-path"],
    expect: [],
  },
  {
    name: "jsonpatch-path (false positive): a deliberate no-op test on \"/\"",
    policies: mapPolicy("noop", `object.spec.containers.size() > 5 ? [JSONPatch{op: "remove", path: "/spec/containers/5"}] : [JSONPatch{op: "test", path: "/", value: null}]`, { patchType: "JSONPatch" }),
    only: ["jsonpatch-path"],
    expect: [],
  },
  { name: "binding, params, match: the static mistakes fixture", policies: read(join(FX, "static-bad.yaml")), only: ["binding", "params", "match"], expect: [
    { check: "binding", policies: ["orphan"] },
    { check: "binding", policies: ["unbound"] },
    { check: "match", policies: ["widgets"] },
    { check: "params", policies: ["team-param"] },
  ] },
  {
    name: "match (false positive): a custom resource whose CRD is given",
    policies:
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: integer}}}
---
` + mapPolicy("w", `Object{spec: Object.spec{size: 3}}`, { group: "example.com", resources: "widgets" }),
    only: ["match", "schema"],
    expect: [],
  },
  { name: "cost: a matchCondition over the per-call limit on every evaluation", policies: read(join(FX, "cost.yaml")), only: ["cost"], expect: [{ check: "cost", policies: ["expensive"] }] },
  { name: "cost (false positive): comprehensions over the object", policies: read(join(EX, "image-prefix-maps.yaml")), only: ["cost"], expect: [] },
];

describe("celmap lint checks", () => {
  it.each(CASES)("$name", (c) => {
    const r = run(c);
    expect(r.errors).toEqual([]);
    const got = summary(r.findings, c.only);
    expect(got.map(({ check, policies }) => ({ check, policies }))).toEqual(c.expect.map(({ check, policies }) => ({ check, policies: [...policies].sort() })));
    for (const e of c.expect) {
      if (e.path === undefined) continue;
      expect(r.findings.some((f) => f.check === e.check && f.path === e.path)).toBe(true);
    }
  });

  it("the image-prefix witness is a minimal Pod in the billing namespace, and the second admission doubles its image", () => {
    for (const file of ["image-prefix-maps.yaml", "image-prefix-kyverno.yaml"]) {
      const r = run({ name: file, policies: read(join(EX, file)), expect: [] });
      const f = r.findings.find((x) => x.check === "idempotence")!;
      expect(f.witness?.origin).toBe("generated");
      expect(f.witness?.object).toEqual({ apiVersion: "v1", kind: "Pod", metadata: { name: expect.any(String), namespace: "billing" }, spec: { containers: [{ name: "app", image: "nginx:1.25" }] } });
      expect(f.path).toBe("spec.containers[0].image");
      const [first, again] = f.results!;
      const image = (o: unknown): string => (o as { spec: { containers: { image: string }[] } }).spec.containers[0]!.image;
      const once = image(first.object);
      expect(once === "gcr.io/billing.company.com/nginx:1.25" || once === "billing.company.com/gcr.io/nginx:1.25").toBe(true);
      // The prefix pair appears twice after the second admission.
      const pair = once.slice(0, once.length - "nginx:1.25".length);
      expect(image(again.object)).toBe(`${pair}${pair}nginx:1.25`);
    }
  });

  it("a -r sample that shows the problem is the witness, shrunk", () => {
    const samples = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}, annotations: {note: keep}}
spec:
  containers: [{name: web, image: nginx:1.25, ports: [{containerPort: 80}]}]
`;
    const r = run({ name: "sample", policies: read(join(EX, "label-conflict.yaml")), samples, expect: [] });
    const f = r.findings.find((x) => x.check === "order")!;
    expect(f.witness).toEqual({ origin: "sample", source: "samples.yaml#0", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "web", namespace: "default" } } });
  });

  it("is deterministic for a seed", () => {
    const a = run({ name: "a", policies: read(join(EX, "image-prefix-maps.yaml")), expect: [] });
    const b = run({ name: "b", policies: read(join(EX, "image-prefix-maps.yaml")), expect: [] });
    expect(JSON.stringify(a.findings, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).toBe(JSON.stringify(b.findings, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)));
  });

  it("samples orders beyond 6 policies and says so, still finding the conflicting pair", () => {
    let p = LABEL("conflict-a", "tier", "x") + LABEL("conflict-b", "tier", "y");
    for (let i = 0; i < 6; i++) p += LABEL(`other-${i}`, `k${i}`, "v");
    const f = parseDocuments(p, "p.yaml", { numbers: "cel" });
    const out = lintDocuments(f.documents, [], { seed: 1, generate: 2, disable: new Set(["idempotence", "convergence"]) });
    expect(summary(out.report!.findings)).toEqual([{ check: "order", policies: ["conflict-a", "conflict-b"] }]);
    expect(out.report!.notes.join("\n")).toMatch(/more than 6 policies.*sampled/);
  });
});
