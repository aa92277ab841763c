/**
 * The MAP dispatcher and pipeline (dispatch.ts, pipeline.ts): failure policies on each error
 * class, both error channels, matchConditions, reinvocation, params, UPDATE, subresources, trace.
 */
import { describe, expect, it } from "vitest";
import { prepareMutatingAdmissionPolicy, prepareMutatingAdmissionPolicyBinding } from "../policy/prepare.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "../policy/valid-types.js";
import { policyCompileHook } from "./compile.js";
import type { JsonObject } from "./json.js";
import { ResourceCatalog } from "./match/catalog.js";
import { inMemoryParamSource } from "./params.js";
import { evaluate, type EvaluateContext, type EvaluateResult } from "./pipeline.js";
import { newAdmissionRequest, type Operation } from "./request.js";

const catalog = ResourceCatalog.builtin();

interface PolicySpec {
  name?: string;
  mutations: (string | { jp: string })[];
  failurePolicy?: "Fail" | "Ignore";
  reinvocationPolicy?: "Never" | "IfNeeded";
  matchConditions?: { name: string; expression: string }[];
  variables?: { name: string; expression: string }[];
  paramKind?: { apiVersion: string; kind: string };
  resources?: string[];
  operations?: string[];
}

/** A validated policy; mutations are ApplyConfiguration expressions, or `{jp}` JSONPatch ones. No CEL validation (stored expressions). */
function policy(p: PolicySpec): ValidMutatingAdmissionPolicy {
  const r = prepareMutatingAdmissionPolicy({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: p.name ?? "p" },
    spec: {
      ...(p.paramKind !== undefined ? { paramKind: p.paramKind } : {}),
      matchConstraints: {
        resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: p.operations ?? ["CREATE", "UPDATE"], resources: p.resources ?? ["*"] }],
      },
      ...(p.matchConditions !== undefined ? { matchConditions: p.matchConditions } : {}),
      ...(p.variables !== undefined ? { variables: p.variables } : {}),
      failurePolicy: p.failurePolicy ?? "Fail",
      reinvocationPolicy: p.reinvocationPolicy ?? "Never",
      mutations: p.mutations.map((m) =>
        typeof m === "string" ? { patchType: "ApplyConfiguration", applyConfiguration: { expression: m } } : { patchType: "JSONPatch", jsonPatch: { expression: m.jp } },
      ),
    },
  });
  if (!r.ok) throw new Error(r.message);
  return r.object;
}

function binding(policyName: string, name = policyName, spec: JsonObject = {}): ValidMutatingAdmissionPolicyBinding {
  const r = prepareMutatingAdmissionPolicyBinding({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName, ...spec },
  });
  if (!r.ok) throw new Error(r.message);
  return r.object;
}

const NS: JsonObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "default", labels: { team: "a" } }, status: { phase: "Active" } };

const cm = (more: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cfg", namespace: "default", ...((more.metadata as JsonObject | undefined) ?? {}) },
  data: { a: "1" },
  ...Object.fromEntries(Object.entries(more).filter(([k]) => k !== "metadata")),
});

function run(
  policies: ValidMutatingAdmissionPolicy[],
  object: JsonObject = cm(),
  more: Partial<EvaluateContext> & { operation?: Operation; oldObject?: JsonObject; subResource?: string; bindings?: ValidMutatingAdmissionPolicyBinding[] } = {},
): EvaluateResult {
  const built = newAdmissionRequest(
    {
      operation: more.operation ?? "CREATE",
      object,
      ...(more.oldObject !== undefined ? { oldObject: more.oldObject } : {}),
      ...(more.subResource !== undefined ? { subResource: more.subResource } : {}),
      dryRun: true,
    },
    catalog,
  );
  if (!built.ok) throw new Error(built.error);
  return evaluate(built.request, {
    policies,
    bindings: more.bindings ?? policies.map((p) => binding(p.metadata.name)),
    namespaces: [NS],
    catalog,
    ...more,
  });
}

const labels = (r: EvaluateResult) => (r.object?.metadata as JsonObject | undefined)?.labels;
const annotations = (r: EvaluateResult) => (r.object?.metadata as JsonObject | undefined)?.annotations as JsonObject | undefined;
const SET_LABEL = 'Object{metadata: Object.metadata{labels: {"x": "y"}}}';

describe("failure policy on each policy-error class", () => {
  const classes: { name: string; mutation: string | { jp: string }; message: string }[] = [
    {
      name: "CEL runtime error",
      mutation: 'Object{metadata: Object.metadata{labels: {"t": object.metadata.labels["tier"]}}}',
      message: `expression 'Object{metadata: Object.metadata{labels: {"t": object.metadata.labels["tier"]}}}' resulted in error: no such key: labels`,
    },
    { name: "stored expression that does not compile (wrong type)", mutation: '"teapot"', message: "must evaluate to Object but got string" },
    { name: "stored expression that does not compile (syntax)", mutation: "Object{", message: "compilation failed: ERROR: <input>:1:8" },
    {
      name: "SSA conversion error",
      mutation: "Object{spec: Object.spec{x: 1}}",
      message: "error applying patch: failed to convert patch object to typed object: .spec: field not declared in schema",
    },
    {
      name: "atomic",
      mutation: 'Object{metadata: Object.metadata{ownerReferences: [Object.metadata.ownerReferences{uid: "u", name: "n", kind: "K", apiVersion: "v1"}]}}',
      message: "error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .metadata.ownerReferences[0]",
    },
    {
      name: "type-name mismatch",
      mutation: "Object{metadata: Object.spec{}}",
      message: 'type mismatch: unexpected type name "Object.spec", expected "Object.metadata", which matches field name path from root Object type',
    },
    {
      name: "JSON Patch error",
      mutation: { jp: '[JSONPatch{op: "remove", path: "/metadata/labels/nope"}]' },
      message: 'JSON Patch: remove operation does not apply: doc is missing path: "/metadata/labels/nope": missing value',
    },
    {
      name: "per-call cost limit",
      mutation: 'Object{metadata: Object.metadata{labels: {"n": string([0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c, [0,1,2,3,4,5,6,7,8,9].all(d, [0,1,2,3,4,5,6,7,8,9].all(e, [0,1,2,3,4,5,6,7,8,9].all(f, true)))))))}}}',
      message: "resulted in error: operation cancelled: actual cost limit exceeded",
    },
  ];
  for (const c of classes) {
    it(`${c.name}: Fail denies with 403 Invalid`, () => {
      const r = run([policy({ mutations: [c.mutation] })]);
      expect(r.allowed).toBe(false);
      expect(r.status?.code).toBe(403);
      expect(r.status?.reason).toBe("Invalid");
      expect(r.status?.message.startsWith("policy 'p' with binding 'p' denied request: ")).toBe(true);
      expect(r.status?.message).toContain(c.message);
      expect(r.status?.causes).toEqual([{ message: r.status!.message }]);
      expect(r.deniedBy).toEqual([{ kind: "policy", policy: "p", binding: "p" }]);
    });
    it(`${c.name}: Ignore admits unchanged`, () => {
      const r = run([policy({ mutations: [c.mutation], failurePolicy: "Ignore" })]);
      expect(r.allowed).toBe(true);
      expect(r.object).toEqual(cm());
      expect(r.patch).toEqual([]);
      expect(r.ignoredErrors.length).toBe(1);
      expect(r.deniedBy).toBeUndefined();
    });
  }

  it("configuration error (Deny, no params): 403 Forbidden, no reason; Ignore drops it", () => {
    const p = policy({ mutations: [SET_LABEL], paramKind: { apiVersion: "v1", kind: "ConfigMap" } });
    const b = binding("p", "b", { paramRef: { name: "missing", parameterNotFoundAction: "Deny" } });
    const r = run([p], cm(), { bindings: [b], params: inMemoryParamSource([]) });
    expect(r.deniedBy).toEqual([{ kind: "policy", policy: "p", binding: "b" }]);
    expect(r.status).toEqual({
      code: 403,
      reason: "Forbidden",
      message: "policy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      causes: [{ message: "policy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction" }],
      details: {
        name: "cfg",
        group: "",
        kind: "configmaps",
        causes: [{ message: "policy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction" }],
      },
    });
    const pi = policy({ mutations: [SET_LABEL], paramKind: { apiVersion: "v1", kind: "ConfigMap" }, failurePolicy: "Ignore" });
    expect(run([pi], cm(), { bindings: [b], params: inMemoryParamSource([]) }).allowed).toBe(true);
  });

  it("under Ignore, an error in mutation 1 does not stop mutation 2", () => {
    const r = run([policy({ mutations: ["Object{spec: Object.spec{x: 1}}", SET_LABEL], failurePolicy: "Ignore" })]);
    expect(r.allowed).toBe(true);
    expect(labels(r)).toEqual({ x: "y" });
  });

  it("under Fail, later mutations still run and every failing policy is a cause", () => {
    const a = policy({ name: "a", mutations: ["Object{spec: Object.spec{x: 1}}", SET_LABEL] });
    const b = policy({ name: "b", mutations: ['"nope"'] });
    const r = run([a, b]);
    expect(r.allowed).toBe(false);
    expect(r.status?.causes?.map((c) => c.message)).toEqual([
      "policy 'a' with binding 'a' denied request: error applying patch: failed to convert patch object to typed object: .spec: field not declared in schema",
      "policy 'b' with binding 'b' denied request: must evaluate to Object but got string",
    ]);
    expect(r.trace.passes[0]!.invocations[0]!.mutations.map((m) => m.outcome)).toEqual(["error", "applied"]);
  });

  it("a failing JSON Patch test is a silent no-op; the next mutation runs", () => {
    const r = run([
      policy({
        mutations: [{ jp: '[JSONPatch{op: "test", path: "/data/a", value: "2"}, JSONPatch{op: "replace", path: "/data/a", value: "3"}]' }, SET_LABEL],
      }),
    ]);
    expect(r.allowed).toBe(true);
    expect(r.object?.data).toEqual({ a: "1" });
    expect(labels(r)).toEqual({ x: "y" });
    expect(r.trace.passes[0]!.invocations[0]!.mutations[0]!.outcome).toBe("test-failed");
  });
});

describe("hard failures abort whatever the failure policy", () => {
  it("strict decoding of a JSON-patched built-in: 500", () => {
    const r = run([policy({ mutations: [{ jp: '[JSONPatch{op: "add", path: "/spec", value: {"bogus": 1}}]' }], failurePolicy: "Ignore" })]);
    expect(r.status).toEqual({ code: 500, reason: "InternalError", message: 'Internal error occurred: strict decoding error: unknown field "spec"' });
  });
  it("wrong JSON type in a built-in: 500 json: cannot unmarshal", () => {
    const r = run([policy({ mutations: [{ jp: '[JSONPatch{op: "add", path: "/data/n", value: 1}]' }], failurePolicy: "Ignore" })]);
    expect(r.status?.code).toBe(500);
    expect(r.status?.message).toBe("Internal error occurred: json: cannot unmarshal number into Go struct field ConfigMap.data of type string");
  });
  it("no schema for the kind: 503", () => {
    const crCatalog = ResourceCatalog.builtin();
    crCatalog.addCustomResourceDefinition({
      spec: { group: "example.com", scope: "Namespaced", names: { plural: "widgets", kind: "Widget" }, versions: [{ name: "v1", served: true }] },
    });
    const w: JsonObject = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "default" } };
    const built = newAdmissionRequest({ operation: "CREATE", object: w }, crCatalog);
    if (!built.ok) throw new Error(built.error);
    const p = policy({ mutations: [SET_LABEL], failurePolicy: "Ignore" });
    const r = evaluate(built.request, { policies: [p], bindings: [binding("p")], namespaces: [NS], catalog: crCatalog });
    expect(r.status?.code).toBe(503);
    expect(r.status?.message).toBe(
      "Resource kind example.com/v1, Kind=Widget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.",
    );
  });
  it("namespace not found: 404", () => {
    const r = run([policy({ mutations: [SET_LABEL], failurePolicy: "Ignore" })], cm({ metadata: { namespace: "gone" } }));
    expect(r.status).toEqual({ code: 404, reason: "NotFound", message: 'namespaces "gone" not found' });
  });
});

describe("matchConditions", () => {
  const mc = (...conds: [string, string][]) => conds.map(([name, expression]) => ({ name, expression }));
  it("false skips the invocation", () => {
    const r = run([policy({ mutations: [SET_LABEL], matchConditions: mc(["no", "false"]) })]);
    expect(r.allowed).toBe(true);
    expect(labels(r)).toBeUndefined();
    expect(r.trace.passes[0]!.invocations[0]!.skipped).toBe("matchCondition 'no' is false");
  });
  it("false beats an error, under Fail too", () => {
    const r = run([policy({ mutations: [SET_LABEL], matchConditions: mc(["err", "object.nope == 1"], ["no", "false"]) })]);
    expect(r.allowed).toBe(true);
    expect(labels(r)).toBeUndefined();
  });
  it("errors under Fail: 403 Invalid, several aggregated", () => {
    const r = run([policy({ mutations: [SET_LABEL], matchConditions: mc(["e1", "object.nope == 1"], ["e2", "object.nada == 1"], ["ok", "true"]) })]);
    expect(r.status?.reason).toBe("Invalid");
    expect(r.status?.message).toBe(
      "policy 'p' with binding 'p' denied request: [expression 'object.nope == 1' resulted in error: no such key: nope, expression 'object.nada == 1' resulted in error: no such key: nada]",
    );
  });
  it("errors under Ignore: skipped silently", () => {
    const r = run([policy({ mutations: [SET_LABEL], failurePolicy: "Ignore", matchConditions: mc(["e1", "object.nope == 1"]) })]);
    expect(r.allowed).toBe(true);
    expect(labels(r)).toBeUndefined();
    expect(r.ignoredErrors).toEqual([]);
  });
  it("see the object as mutated by earlier invocations, with namespaceObject null", () => {
    const a = policy({ name: "a", mutations: [SET_LABEL] });
    const b = policy({
      name: "b",
      mutations: ['Object{metadata: Object.metadata{annotations: {"b": "ran"}}}'],
      matchConditions: mc(["labelled", 'object.metadata.labels["x"] == "y" && namespaceObject == null']),
    });
    expect(annotations(run([a, b]))).toEqual({ b: "ran" });
  });
  it("share a 2,500,000 budget: running out is an error under Fail, a skip under Ignore", () => {
    // Each costs 870,012 as cel-go counts it (lists.range is charged its output size, cel-go ext/lists.go).
    const heavy = mc(["a", "lists.range(145000).all(x, x >= 0)"], ["b", "lists.range(145000).all(x, x >= 0)"], ["c", "lists.range(145000).all(x, x >= 0)"]);
    const r = run([policy({ mutations: [SET_LABEL], matchConditions: heavy })]);
    expect(r.status?.message).toBe(
      "policy 'p' with binding 'p' denied request: validation failed due to running out of cost budget, no further validation rules will be run",
    );
    expect(r.trace.passes[0]!.invocations[0]!.matchConditions.map((m) => m.result)).toEqual([true, true, "error"]);
    const ignored = run([policy({ mutations: [SET_LABEL], matchConditions: heavy, failurePolicy: "Ignore" })]);
    expect(ignored.allowed).toBe(true);
    expect(labels(ignored)).toBeUndefined();
    // Two of them fit.
    expect(labels(run([policy({ mutations: [SET_LABEL], matchConditions: heavy.slice(0, 2) })]))).toEqual({ x: "y" });
  });
  it("a compile error reads 'compilation error: …'", () => {
    const r = run([policy({ mutations: [SET_LABEL], matchConditions: mc(["c", "1 +"]) })]);
    expect(r.status?.message).toContain("denied request: compilation error: compilation failed: ERROR: <input>:1:4");
  });
});

describe("variables", () => {
  it("are lazy: an erroring variable that is not read is no error", () => {
    const r = run([policy({ mutations: [SET_LABEL], variables: [{ name: "bad", expression: "object.nope" }] })]);
    expect(r.allowed).toBe(true);
  });
  it("an erroring variable that is read: composited variable … fails to evaluate", () => {
    const r = run([
      policy({ mutations: ['Object{metadata: Object.metadata{labels: {"v": string(variables.bad)}}}'], variables: [{ name: "bad", expression: "object.nope" }] }),
    ]);
    expect(r.status?.message).toContain('resulted in error: composited variable "bad" fails to evaluate: no such key: nope');
  });
  it("count against the mutation's 10,000,000 budget (each within its own per-call limit)", () => {
    const vars = Array.from({ length: 11 }, (_, i) => ({ name: `v${i}`, expression: "lists.range(155000).all(x, x >= 0)" })); // 930,012 each
    const all = vars.map((v) => `variables.${v.name}`).join(" && ");
    const r = run([policy({ mutations: [`Object{metadata: Object.metadata{labels: {"ok": string(${all})}}}`], variables: vars })]);
    expect(r.status?.message).toBe(
      "policy 'p' with binding 'p' denied request: validation failed due to running out of cost budget, no further validation rules will be run",
    );
    const ten = vars.slice(0, 10).map((v) => `variables.${v.name}`).join(" && ");
    expect(labels(run([policy({ mutations: [`Object{metadata: Object.metadata{labels: {"ok": string(${ten})}}}`], variables: vars })]))).toEqual({ ok: "true" });
  });
  it("chain and see params and namespaceObject", () => {
    const p = policy({
      mutations: ['Object{metadata: Object.metadata{labels: {"v": variables.b}}}'],
      variables: [
        { name: "a", expression: 'namespaceObject.metadata.labels["team"]' },
        { name: "b", expression: 'variables.a + "-" + namespaceObject.status.phase' },
      ],
    });
    expect(labels(run([p]))).toEqual({ v: "a-Active" });
  });
});

describe("reinvocation", () => {
  const counter = 'Object{metadata: Object.metadata{annotations: {"n": string(int(object.?metadata.annotations["n"].orValue("0")) + 1)}}}';
  const n = (r: EvaluateResult) => annotations(r)?.n;
  it("a single IfNeeded policy runs twice (end-of-pass rule)", () => {
    const r = run([policy({ mutations: [counter], reinvocationPolicy: "IfNeeded" })]);
    expect(n(r)).toBe("2");
    expect(r.reinvoked).toBe(true);
  });
  it("a Never policy runs once", () => expect(n(run([policy({ mutations: [counter] })]))).toBe("1"));
  it("two IfNeeded policies: 4", () => {
    expect(n(run([policy({ name: "a", mutations: [counter], reinvocationPolicy: "IfNeeded" }), policy({ name: "b", mutations: [counter], reinvocationPolicy: "IfNeeded" })]))).toBe("4");
  });
  it("IfNeeded, IfNeeded, Never: 5 (integration test)", () => {
    const r = run([
      policy({ name: "a", mutations: [counter], reinvocationPolicy: "IfNeeded" }),
      policy({ name: "b", mutations: [counter], reinvocationPolicy: "IfNeeded" }),
      policy({ name: "c", mutations: [counter] }),
    ]);
    expect(n(r)).toBe("5");
    expect(r.trace.passes.map((p) => p.invocations.filter((i) => i.mutations.length > 0).map((i) => i.policy))).toEqual([
      ["a", "b", "c"],
      ["a", "b"],
    ]);
  });
  it("one IfNeeded policy with a selector matching two params plus a Never policy: 5", () => {
    const params = [1, 2].map((i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `p${i}`, namespace: "default", labels: { use: "yes" } } }));
    const a = policy({ name: "a", mutations: [counter], reinvocationPolicy: "IfNeeded", paramKind: { apiVersion: "v1", kind: "ConfigMap" } });
    const c = policy({ name: "c", mutations: [counter] });
    const r = run([a, c], cm(), {
      bindings: [binding("a", "a", { paramRef: { selector: { matchLabels: { use: "yes" } }, parameterNotFoundAction: "Deny" } }), binding("c")],
      params: inMemoryParamSource(params),
    });
    expect(n(r)).toBe("5");
    expect(r.trace.passes[0]!.invocations.map((i) => `${i.policy}/${i.param ?? "-"}`)).toEqual(["a/default/p1", "a/default/p2", "c/-"]);
  });
  it("a non-idempotent IfNeeded JSONPatch append runs twice", () => {
    const r = run([policy({ mutations: [{ jp: '[JSONPatch{op: "add", path: "/metadata/finalizers/-", value: "f"}]' }], reinvocationPolicy: "IfNeeded" })], cm({ metadata: { finalizers: [] } }));
    expect((r.object?.metadata as JsonObject).finalizers).toEqual(["f", "f"]);
  });
  it("reinvocation can be turned off", () => {
    expect(n(run([policy({ mutations: [counter], reinvocationPolicy: "IfNeeded" })], cm(), { options: { reinvocation: false } }))).toBe("1");
  });
  it("no successful mutation: no second pass", () => {
    const r = run([policy({ mutations: [SET_LABEL], reinvocationPolicy: "IfNeeded", matchConditions: [{ name: "no", expression: "false" }] })]);
    expect(r.reinvoked).toBe(false);
  });
});

describe("requests", () => {
  it("UPDATE: oldObject is visible", () => {
    const p = policy({ mutations: ['Object{metadata: Object.metadata{labels: {"old": string(oldObject.data["a"]), "op": request.operation}}}'] });
    const r = run([p], cm({ data: { a: "2" } }), { operation: "UPDATE", oldObject: cm() });
    expect(r.status).toBeUndefined();
    expect(labels(r)).toEqual({ old: "1", op: "UPDATE" });
  });
  it("a built-in is seen as its Go struct converts: metadata.creationTimestamp null, spec/status present", () => {
    const pod: JsonObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }] } };
    const p = policy({
      mutations: ['Object{metadata: Object.metadata{labels: {"ts": string(object.metadata.creationTimestamp == null), "status": string(has(object.status))}}}'],
    });
    const r = run([p], pod);
    expect(labels(r)).toEqual({ ts: "true", status: "true" });
    // ... but the admitted object gains nothing but the label.
    expect(r.patch).toEqual([{ op: "add", path: "/metadata/labels", value: { ts: "true", status: "true" } }]);
  });
  it("CREATE: oldObject is null; request.dryRun and userInfo are visible", () => {
    const p = policy({ mutations: ['Object{metadata: Object.metadata{labels: {"old": string(oldObject == null), "dry": string(request.dryRun)}}}'] });
    expect(labels(run([p]))).toEqual({ old: "true", dry: "true" });
  });
  it("subresources: a namespaces/status rule matches an UPDATE of the status subresource only", () => {
    const ns: JsonObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "default" }, status: { conditions: [{ type: "A", status: "Unknown" }] } };
    const p = policy({
      mutations: ['Object{status: Object.status{conditions: [Object.status.conditions{type: "A", message: "m"}]}}'],
      resources: ["namespaces/status"],
      operations: ["UPDATE"],
    });
    const r = run([p], ns, { operation: "UPDATE", oldObject: ns, subResource: "status" });
    expect((r.object?.status as JsonObject).conditions).toEqual([{ type: "A", status: "Unknown", message: "m" }]);
    const plain = run([p], ns, { operation: "UPDATE", oldObject: ns });
    expect(plain.object).toEqual(ns);
    expect(plain.trace.passes[0]!.selection[0]!.reason).toContain("does not match");
  });
  it("exempt requests: DELETE and policy resources", () => {
    const built = newAdmissionRequest({ operation: "DELETE", oldObject: cm() }, catalog);
    if (!built.ok) throw new Error(built.error);
    const r = evaluate(built.request, { policies: [policy({ mutations: [SET_LABEL] })], bindings: [binding("p")], namespaces: [NS] });
    expect(r.allowed).toBe(true);
    expect(r.trace.exempt).toContain("DELETE");
  });
});

describe("result and trace", () => {
  it("patch is RFC 6902 from input to output; trace has match reasons, costs and diffs", () => {
    const r = run([policy({ mutations: [SET_LABEL, { jp: '[JSONPatch{op: "replace", path: "/data/a", value: "2"}]' }] })]);
    expect(r.patch).toEqual([
      { op: "add", path: "/metadata/labels", value: { x: "y" } },
      { op: "replace", path: "/data/a", value: "2" },
    ]);
    expect(r.warnings).toEqual([]);
    const pass = r.trace.passes[0]!;
    expect(pass.selection.map((s) => [s.step, s.ok])).toEqual([
      ["policy", true],
      ["binding", true],
      ["params", true],
    ]);
    const inv = pass.invocations[0]!;
    expect(inv.matchedKind).toBe("v1 ConfigMap");
    expect(inv.mutations.map((m) => m.diff)).toEqual([[{ op: "add", path: "/metadata/labels", value: { x: "y" } }], [{ op: "replace", path: "/data/a", value: "2" }]]);
    expect(inv.mutations.every((m) => m.cost > 0)).toBe(true);
    expect(inv.changed).toBe(true);
  });
  it("order: policies by name, each policy's bindings by name", () => {
    const a = policy({ name: "a", mutations: [SET_LABEL] });
    const z = policy({ name: "z", mutations: [SET_LABEL] });
    const r = run([z, a], cm(), { bindings: [binding("z", "z1"), binding("a", "a2"), binding("a", "a1")] });
    expect(r.trace.passes[0]!.invocations.map((i) => i.binding)).toEqual(["a1", "a2", "z1"]);
  });
});

describe("policyCompileHook (API validation with the real compiler)", () => {
  const prepare = (mutation: JsonObject, more: JsonObject = {}) =>
    prepareMutatingAdmissionPolicy(
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingAdmissionPolicy",
        metadata: { name: "p" },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] },
          reinvocationPolicy: "Never",
          mutations: [mutation],
          ...more,
        },
      },
      { compileExpression: policyCompileHook },
    );
  it("rejects a non-Object apply configuration at its path", () => {
    const r = prepare({ patchType: "ApplyConfiguration", applyConfiguration: { expression: '"x"' } });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toBe(
      'MutatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: spec.mutations[0].applyConfiguration.expression: Invalid value: "\\"x\\"": must evaluate to Object but got string',
    );
  });
  it("rejects params without a paramKind, accepts them with one", () => {
    const m = { patchType: "JSONPatch", jsonPatch: { expression: '[JSONPatch{op: "add", path: "/x", value: params.data}]' } };
    expect(prepare(m).ok).toBe(false);
    expect(prepare(m, { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }).ok).toBe(true);
  });
  it("match conditions may not use variables; mutations may", () => {
    const m = { patchType: "ApplyConfiguration", applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": variables.v}}}' } };
    const vars = { variables: [{ name: "v", expression: '"x"' }] };
    expect(prepare(m, vars).ok).toBe(true);
    const r = prepare(m, { ...vars, matchConditions: [{ name: "c", expression: 'variables.v == "x"' }] });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain("spec.matchConditions[0].expression");
  });
  it("does not estimate cost (a huge comprehension is accepted)", () => {
    const expr = "Object{spec: Object.spec{n: [0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c, [0,1,2,3,4,5,6,7,8,9].all(d, [0,1,2,3,4,5,6,7,8,9].all(e, true)))))}}";
    expect(prepare({ patchType: "ApplyConfiguration", applyConfiguration: { expression: expr } }).ok).toBe(true);
  });
});

describe("deadline and timings", () => {
  const three = [policy({ name: "a", mutations: [SET_LABEL] }), policy({ name: "b", mutations: ['Object{metadata: Object.metadata{labels: {"b": "1"}}}'] }), policy({ name: "c", mutations: [{ jp: '[JSONPatch{op: "add", path: "/data/c", value: "3"}]' }] })];

  it("an expired deadline before any invocation: 504 Timeout, nothing applied", () => {
    const r = run(three, cm(), { options: { expired: () => true } });
    expect(r.allowed).toBe(false);
    expect(r.status).toEqual({ code: 504, reason: "Timeout", message: "Timeout: request did not complete within requested timeout - context deadline exceeded" });
    expect(r.patch).toEqual([]);
    expect(r.trace.passes[0]!.invocations).toEqual([]);
  });

  it("a deadline that passes mid-request abandons the rest: 504, the patch is empty", () => {
    let asked = 0;
    // Asked before each invocation and each mutation: a, a/0, b, b/0, then expired.
    const r = run(three, cm(), { options: { expired: () => ++asked > 4 } });
    expect(r.status?.code).toBe(504);
    expect(r.patch).toEqual([]);
    expect(r.trace.passes[0]!.invocations.map((i) => i.policy)).toEqual(["a", "b"]);
  });

  it("a deadline that never passes changes nothing", () => {
    const r = run(three, cm(), { options: { expired: () => false } });
    expect(r.allowed).toBe(true);
    expect(r.object?.data).toEqual({ a: "1", c: "3" });
  });

  it("mutations and matchConditions report their wall time", () => {
    const p = policy({ name: "m", mutations: [SET_LABEL], matchConditions: [{ name: "always", expression: "true" }] });
    const inv = run([p]).trace.passes[0]!.invocations[0]!;
    expect(inv.matchConditionSeconds).toBeGreaterThanOrEqual(0);
    expect(inv.matchConditionSeconds).toBeLessThan(5);
    expect(inv.mutations[0]!.seconds).toBeGreaterThan(0);
    expect(inv.mutations[0]!.seconds).toBeLessThan(5);
  });
});

describe("immutability: the pipeline never modifies a value in place", () => {
  const deepFreeze = <T>(v: T): T => {
    if (typeof v === "object" && v !== null) {
      for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
      Object.freeze(v);
    }
    return v;
  };

  it("a frozen input through ApplyConfiguration, JSON Patch, defaulting and reinvocation: same result as an unfrozen copy", () => {
    const ps = [
      policy({ name: "a", mutations: [SET_LABEL, { jp: '[JSONPatch{op: "add", path: "/data/b", value: "2"}, JSONPatch{op: "replace", path: "/data/a", value: "9"}]' }], reinvocationPolicy: "IfNeeded" }),
      policy({ name: "b", mutations: ['Object{metadata: Object.metadata{annotations: {"n": string(size(object.data))}}}', { jp: '[JSONPatch{op: "replace", path: "/metadata/labels/x", value: "z"}]' }] }),
    ];
    const input = deepFreeze(cm({ metadata: { labels: { keep: "me" } } }));
    const copy = JSON.parse(JSON.stringify(input)) as JsonObject;
    const frozen = run(ps, input, { options: { defaulter: (o) => o } });
    const plain = run(ps, copy);
    expect(frozen.status).toBeUndefined();
    expect(plain.status).toBeUndefined();
    expect(frozen.allowed).toBe(true);
    expect(frozen.object).toEqual(plain.object);
    expect(frozen.patch).toEqual(plain.patch);
    // b replaced x with z; a (IfNeeded) ran again in pass 2 and set it back.
    expect(labels(frozen)).toEqual({ keep: "me", x: "y" });
    expect(input).toEqual(copy);
  });
});

describe("mutation traces", () => {
  it("diff is computed on demand and serialised to JSON like the other fields", () => {
    const r = run([policy({ name: "t", mutations: [SET_LABEL] })]);
    const m = r.trace.passes[0]!.invocations[0]!.mutations[0]!;
    expect(m.diff).toEqual([{ op: "add", path: "/metadata/labels", value: { x: "y" } }]);
    const json = JSON.parse(JSON.stringify(m)) as Record<string, unknown>;
    expect(json).toMatchObject({ index: 0, patchType: "ApplyConfiguration", outcome: "applied", diff: [{ op: "add", path: "/metadata/labels", value: { x: "y" } }] });
    expect(typeof json.seconds).toBe("number");
  });
});

describe("JSON Patch without operations", () => {
  const NO_OPS = '[JSONPatch{op: "add", path: "/data/x", value: "1"}].filter(p, false)';
  it("after a JSON Patch the object is in typed form: an empty patch changes nothing", () => {
    const ps = [policy({ name: "a", mutations: [{ jp: '[JSONPatch{op: "add", path: "/data/b", value: "2"}]' }, { jp: NO_OPS }] })];
    const r = run(ps);
    expect(r.allowed).toBe(true);
    expect(r.object?.data).toEqual({ a: "1", b: "2" });
    expect(r.trace.passes[0]!.invocations[0]!.mutations.map((m) => m.outcome)).toEqual(["applied", "applied"]);
  });

  it("on an object not yet in typed form it still runs the typed round trip (an unknown field is a 500)", () => {
    const r = run([policy({ name: "a", mutations: [{ jp: NO_OPS }] })], cm({ bogus: 1 } as JsonObject));
    expect(r.status?.code).toBe(500);
    expect(r.status?.message).toContain('unknown field "bogus"');
  });
});
