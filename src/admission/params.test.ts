/**
 * Params resolution, policy/binding pairing and invocation selection (unit cases; the oracle
 * scenarios are in params.oracle.test.ts). Messages are the apiserver's, from
 * `generic/policy_dispatcher.go` and `generic/policy_source.go` (v0.36.3).
 */
import { describe, expect, it } from "vitest";
import type { MatchResources, ParamKind, ParamRef } from "../policy/schemas/common.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "../policy/valid-types.js";
import type { JsonObject } from "./json.js";
import { ResourceCatalog, type ResourceScope } from "./match/catalog.js";
import {
  buildHooks,
  collectParams,
  formatPolicyError,
  inMemoryParamSource,
  paramKindString,
  selectInvocations,
  type BindingLike,
  type ParamSource,
  type PolicyLike,
} from "./params.js";
import { newAdmissionRequest, type AdmissionRequest } from "./request.js";

const cm = (name: string, namespace: string, labels?: Record<string, string>): JsonObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, ...(labels !== undefined ? { labels } : {}) },
});
const ns = (name: string, labels?: Record<string, string>): JsonObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, ...(labels !== undefined ? { labels } : {}) },
});

const PARAMS: JsonObject[] = [
  cm("p1", "team-a", { role: "param" }),
  cm("p2", "team-a", { role: "param", tier: "gold" }),
  cm("p0", "team-a", { role: "param" }),
  cm("other", "team-a", { role: "other" }),
  cm("p1", "team-b", { role: "param" }),
  cm("shared", "params", { role: "param" }),
  ns("ns-param", { role: "param" }),
  ns("ns-param-2", { role: "param" }),
  ns("ns-other"),
];
const source = inMemoryParamSource(PARAMS);
const CM: ParamKind = { apiVersion: "v1", kind: "ConfigMap" };
const NS: ParamKind = { apiVersion: "v1", kind: "Namespace" };
const names = (r: ReturnType<typeof collectParams>) =>
  r.ok ? r.params.map((p) => (p === null ? null : `${(p.metadata as JsonObject).namespace ?? ""}/${(p.metadata as JsonObject).name}`)) : r.error;

interface ParamCase {
  name: string;
  paramKind?: ParamKind;
  scope?: ResourceScope;
  ref?: ParamRef;
  namespace?: string;
  source?: ParamSource | null;
  want: (string | null)[] | string;
}

const PARAM_CASES: ParamCase[] = [
  { name: "no paramKind: one invocation without params", want: [null] },
  { name: "no paramKind: paramRef is ignored", ref: { name: "nope", parameterNotFoundAction: "Deny" }, want: [null] },
  { name: "paramKind without paramRef: params is null", paramKind: CM, scope: "Namespaced", want: [null] },
  { name: "by name in the request namespace", paramKind: CM, scope: "Namespaced", ref: { name: "p1", parameterNotFoundAction: "Deny" }, want: ["team-a/p1"] },
  {
    name: "by name in paramRef.namespace",
    paramKind: CM,
    scope: "Namespaced",
    ref: { name: "p1", namespace: "team-b", parameterNotFoundAction: "Deny" },
    want: ["team-b/p1"],
  },
  { name: "by name, not found, Allow: no invocation", paramKind: CM, scope: "Namespaced", ref: { name: "zz", parameterNotFoundAction: "Allow" }, want: [] },
  {
    name: "by name, not found, Deny",
    paramKind: CM,
    scope: "Namespaced",
    ref: { name: "zz", parameterNotFoundAction: "Deny" },
    want: "no params found for policy binding with `Deny` parameterNotFoundAction",
  },
  { name: "by name, not found, action absent behaves as Allow", paramKind: CM, scope: "Namespaced", ref: { name: "zz" }, want: [] },
  {
    name: "a param in another namespace is not found by name",
    paramKind: CM,
    scope: "Namespaced",
    ref: { name: "shared", parameterNotFoundAction: "Deny" },
    want: "no params found for policy binding with `Deny` parameterNotFoundAction",
  },
  {
    name: "by selector: every match, sorted by namespace then name",
    paramKind: CM,
    scope: "Namespaced",
    ref: { selector: { matchLabels: { role: "param" } }, parameterNotFoundAction: "Deny" },
    want: ["team-a/p0", "team-a/p1", "team-a/p2"],
  },
  {
    name: "by selector with expressions",
    paramKind: CM,
    scope: "Namespaced",
    ref: { selector: { matchExpressions: [{ key: "tier", operator: "Exists" }] }, parameterNotFoundAction: "Deny" },
    want: ["team-a/p2"],
  },
  {
    name: "empty selector selects every object of the kind in the namespace",
    paramKind: CM,
    scope: "Namespaced",
    ref: { selector: {}, parameterNotFoundAction: "Deny" },
    want: ["team-a/other", "team-a/p0", "team-a/p1", "team-a/p2"],
  },
  {
    name: "selector in paramRef.namespace",
    paramKind: CM,
    scope: "Namespaced",
    ref: { selector: {}, namespace: "params", parameterNotFoundAction: "Deny" },
    want: ["params/shared"],
  },
  {
    name: "selector matching nothing, Deny",
    paramKind: CM,
    scope: "Namespaced",
    ref: { selector: { matchLabels: { role: "none" } }, parameterNotFoundAction: "Deny" },
    want: "no params found for policy binding with `Deny` parameterNotFoundAction",
  },
  { name: "selector matching nothing, Allow", paramKind: CM, scope: "Namespaced", ref: { selector: { matchLabels: { role: "none" } }, parameterNotFoundAction: "Allow" }, want: [] },
  {
    name: "namespaced paramKind on a cluster-scoped request without paramRef.namespace",
    paramKind: CM,
    scope: "Namespaced",
    ref: { name: "p1", parameterNotFoundAction: "Deny" },
    namespace: "",
    want: "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
  },
  {
    name: "namespaced paramKind on a cluster-scoped request with paramRef.namespace",
    paramKind: CM,
    scope: "Namespaced",
    ref: { name: "p1", namespace: "team-b", parameterNotFoundAction: "Deny" },
    namespace: "",
    want: ["team-b/p1"],
  },
  { name: "cluster-scoped paramKind by name", paramKind: NS, scope: "Cluster", ref: { name: "ns-param", parameterNotFoundAction: "Deny" }, want: ["/ns-param"] },
  {
    name: "cluster-scoped paramKind by selector",
    paramKind: NS,
    scope: "Cluster",
    ref: { selector: { matchLabels: { role: "param" } }, parameterNotFoundAction: "Deny" },
    want: ["/ns-param", "/ns-param-2"],
  },
  {
    name: "cluster-scoped paramKind with paramRef.namespace",
    paramKind: NS,
    scope: "Cluster",
    ref: { name: "ns-param", namespace: "team-a", parameterNotFoundAction: "Deny" },
    want: "paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
  },
  {
    name: "name and selector together",
    paramKind: CM,
    scope: "Namespaced",
    ref: { name: "p1", selector: {}, parameterNotFoundAction: "Deny" },
    want: "paramRef.name and paramRef.selector are mutually exclusive",
  },
  { name: "neither name nor selector", paramKind: CM, scope: "Namespaced", ref: { parameterNotFoundAction: "Deny" }, want: "one of name or selector must be provided" },
  {
    name: "no param source for the kind",
    paramKind: CM,
    scope: "Namespaced",
    ref: { name: "p1", parameterNotFoundAction: "Deny" },
    source: null,
    want: "paramKind kind `&ParamKind{APIVersion:v1,Kind:ConfigMap,}` not known",
  },
  {
    name: "a failing source reports its error",
    paramKind: CM,
    scope: "Namespaced",
    ref: { name: "p1", parameterNotFoundAction: "Allow" },
    source: {
      get: () => {
        throw new Error('configmaps "p1" is forbidden');
      },
      list: () => [],
    },
    want: 'configmaps "p1" is forbidden',
  },
  {
    name: "results of a sloppy source are filtered by namespace and labels",
    paramKind: CM,
    scope: "Namespaced",
    ref: { selector: { matchLabels: { role: "param" } }, parameterNotFoundAction: "Deny" },
    source: { get: () => undefined, list: () => PARAMS.filter((p) => p.kind === "ConfigMap") },
    want: ["team-a/p0", "team-a/p1", "team-a/p2"],
  },
  {
    name: "invalid selector operator",
    paramKind: CM,
    scope: "Namespaced",
    ref: { selector: { matchExpressions: [{ key: "a", operator: "Has" }] }, parameterNotFoundAction: "Deny" },
    want: '"Has" is not a valid label selector operator',
  },
];

describe("collectParams", () => {
  for (const c of PARAM_CASES) {
    it(c.name, () => {
      const src = c.source === null ? undefined : (c.source ?? source);
      expect(names(collectParams(c.paramKind, c.scope, c.ref, c.namespace ?? "team-a", src))).toEqual(c.want);
    });
  }

  it("passes the selector's wire form to the source", () => {
    const seen: string[] = [];
    collectParams(CM, "Namespaced", { selector: { matchLabels: { b: "2", a: "1" } }, parameterNotFoundAction: "Allow" }, "x", {
      get: () => undefined,
      list: (q) => {
        seen.push(`${q.namespace}:${q.labelSelector}`);
        return [];
      },
    });
    expect(seen).toEqual(["x:a=1,b=2"]);
  });

  it("formats ParamKind as gogo-protobuf String()", () => {
    expect(paramKindString({ apiVersion: "example.com/v1", kind: "Setting" })).toBe("&ParamKind{APIVersion:example.com/v1,Kind:Setting,}");
  });
});

// ---------------------------------------------------------------------------------------------

const ALL = {};
const cmRules: MatchResources = {
  namespaceSelector: ALL,
  objectSelector: ALL,
  matchPolicy: "Equivalent",
  resourceRules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"], scope: "*" }],
};

function policy(name: string, more: Partial<PolicyLike["spec"]> = {}): PolicyLike {
  return { metadata: { name }, spec: { matchConstraints: cmRules, failurePolicy: "Fail", ...more } };
}
function binding(name: string, policyName: string, more: Partial<BindingLike["spec"]> = {}): BindingLike {
  return { metadata: { name }, spec: { policyName, ...more } };
}

const catalog = ResourceCatalog.builtin();
const NAMESPACES: Record<string, JsonObject> = { "team-a": ns("team-a", { env: "prod" }), "team-b": ns("team-b") };

function request(object: JsonObject, operation: "CREATE" | "UPDATE" | "DELETE" = "CREATE"): AdmissionRequest {
  const r = newAdmissionRequest({ operation, object, ...(operation === "DELETE" ? { object: null, oldObject: object } : {}) }, catalog);
  if (!r.ok) throw new Error(r.error);
  return r.request;
}

function select(policies: PolicyLike[], bindings: BindingLike[], req: AdmissionRequest = request(cm("target", "team-a"))) {
  const set = buildHooks(policies, bindings, catalog);
  return {
    set,
    sel: selectInvocations(req, set.hooks, { catalog, getNamespace: (n) => NAMESPACES[n], params: source }),
  };
}

const show = (sel: ReturnType<typeof select>["sel"]) =>
  sel.invocations.map((i) => `${i.policy.metadata.name}/${i.binding.metadata.name}/${i.param === null ? "-" : String((i.param.metadata as JsonObject).name)}`);
const errs = (sel: ReturnType<typeof select>["sel"]) =>
  sel.errors.map((e) => formatPolicyError(e.policy.metadata.name, e.binding?.metadata.name, e.message));

describe("pairing policies and bindings", () => {
  it("orders hooks by policy name and bindings by name, whatever the input order", () => {
    const { set, sel } = select(
      [policy("zeta"), policy("alpha"), policy("mid")],
      [binding("b2", "alpha"), binding("z", "zeta"), binding("b1", "alpha"), binding("m", "mid")],
    );
    expect(set.hooks.map((h) => [h.policy.metadata.name, h.bindings.map((b) => b.metadata.name)])).toEqual([
      ["alpha", ["b1", "b2"]],
      ["mid", ["m"]],
      ["zeta", ["z"]],
    ]);
    expect(show(sel)).toEqual(["alpha/b1/-", "alpha/b2/-", "mid/m/-", "zeta/z/-"]);
  });

  it("an unbound policy is a no-op", () => {
    const { set, sel } = select([policy("lonely")], []);
    expect(set.hooks).toEqual([]);
    expect(set.unboundPolicies.map((p) => p.metadata.name)).toEqual(["lonely"]);
    expect(sel.invocations).toEqual([]);
    expect(sel.errors).toEqual([]);
  });

  it("a binding to a missing policy is ignored", () => {
    const { set, sel } = select([policy("p")], [binding("b", "p"), binding("orphan", "missing")]);
    expect(set.orphanBindings.map((b) => b.metadata.name)).toEqual(["orphan"]);
    expect(show(sel)).toEqual(["p/b/-"]);
  });

  it("an unknown paramKind is a policy configuration error, only when the policy matches", () => {
    const pk = { apiVersion: "example.com/v1", kind: "Setting" };
    const { set, sel } = select([policy("p", { paramKind: pk })], [binding("b", "p", { paramRef: { name: "x", parameterNotFoundAction: "Deny" } })]);
    expect(set.hooks[0]!.configurationError).toBe("failed to find resource referenced by paramKind: 'example.com/v1, Kind=Setting'");
    expect(errs(sel)).toEqual([`policy "p" denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Setting'`]);
    const other = select([policy("p", { paramKind: pk })], [binding("b", "p")], request({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "team-a" } }));
    expect(other.sel.errors).toEqual([]);
  });

  it("a core paramKind unknown in that version prints with an empty group", () => {
    const { set } = select([policy("p", { paramKind: { apiVersion: "v2", kind: "ConfigMap" } })], [binding("b", "p")]);
    expect(set.hooks[0]!.configurationError).toBe("failed to find resource referenced by paramKind: '/v2, Kind=ConfigMap'");
  });

  it("a paramKind in a version the apiserver does not serve is unknown", () => {
    const { set } = select([policy("p", { paramKind: { apiVersion: "resource.k8s.io/v1beta1", kind: "DeviceClass" } })], [binding("b", "p")]);
    expect(set.hooks[0]!.configurationError).toBe("failed to find resource referenced by paramKind: 'resource.k8s.io/v1beta1, Kind=DeviceClass'");
  });

  it("a paramKind apiVersion that does not parse drops the policy", () => {
    const { set, sel } = select([policy("p", { paramKind: { apiVersion: "a/b/c", kind: "X" } })], [binding("b", "p")]);
    expect(set.hooks).toEqual([]);
    expect(set.dropped.map((d) => d.message)).toEqual(["failed to parse paramKind APIVersion: unexpected GroupVersion string: a/b/c"]);
    expect(sel.invocations).toEqual([]);
  });

  it("a CRD paramKind resolves once the CRD is registered", () => {
    const c = ResourceCatalog.builtin();
    c.addCustomResourceDefinition({ spec: { group: "example.com", scope: "Cluster", names: { plural: "settings", kind: "Setting" }, versions: [{ name: "v1", served: true }] } });
    const set = buildHooks([policy("p", { paramKind: { apiVersion: "example.com/v1", kind: "Setting" } })], [binding("b", "p")], c);
    expect(set.hooks[0]!.paramScope).toBe("Cluster");
    expect(set.hooks[0]!.configurationError).toBeUndefined();
  });

  it("accepts the validated policy and binding types (checked by tsc)", () => {
    const policies: ValidMutatingAdmissionPolicy[] = [];
    const bindings: ValidMutatingAdmissionPolicyBinding[] = [];
    const set = buildHooks(policies, bindings, catalog);
    const hooks: readonly { policy: ValidMutatingAdmissionPolicy }[] = set.hooks;
    expect(hooks).toEqual([]);
  });
});

describe("selecting invocations", () => {
  it("one policy, two bindings with different params: invocations in binding order", () => {
    const { sel } = select(
      [policy("p", { paramKind: CM })],
      [binding("b2", "p", { paramRef: { name: "p2", parameterNotFoundAction: "Deny" } }), binding("b1", "p", { paramRef: { name: "p1", parameterNotFoundAction: "Deny" } })],
    );
    expect(show(sel)).toEqual(["p/b1/p1", "p/b2/p2"]);
  });

  it("selector params expand into one invocation each", () => {
    const { sel } = select([policy("p", { paramKind: CM })], [binding("b", "p", { paramRef: { selector: { matchLabels: { role: "param" } }, parameterNotFoundAction: "Deny" } })]);
    expect(show(sel)).toEqual(["p/b/p0", "p/b/p1", "p/b/p2"]);
  });

  it("policy not matching: nothing, with a reason", () => {
    const { sel } = select([policy("p")], [binding("b", "p")], request({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "team-a" } }));
    expect(sel.invocations).toEqual([]);
    expect(sel.trace).toEqual([{ policy: "p", step: "policy", ok: false, reason: "resource rule 0 does not match: resource 'secrets' not in [configmaps]" }]);
  });

  it("binding not matching: nothing for that binding, others still apply", () => {
    const { sel } = select(
      [policy("p")],
      [
        binding("prod-only", "p", { matchResources: { namespaceSelector: { matchLabels: { env: "prod" } }, objectSelector: ALL } }),
        binding("dev-only", "p", { matchResources: { namespaceSelector: { matchLabels: { env: "dev" } }, objectSelector: ALL } }),
      ],
    );
    expect(show(sel)).toEqual(["p/prod-only/-"]);
    expect(sel.trace.find((t) => t.binding === "dev-only")?.reason).toContain("namespaceSelector 'env=dev' does not match namespace 'team-a'");
  });

  it("the policy's matched kind is used, not the binding's", () => {
    const hpaRules: MatchResources = {
      namespaceSelector: ALL,
      objectSelector: ALL,
      matchPolicy: "Equivalent",
      resourceRules: [{ operations: ["*"], apiGroups: ["autoscaling"], apiVersions: ["v1"], resources: ["horizontalpodautoscalers"] }],
    };
    const hpa = { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "h", namespace: "team-a" } };
    const { sel } = select([policy("p", { matchConstraints: hpaRules })], [binding("b", "p", { matchResources: { namespaceSelector: ALL, objectSelector: ALL } })], request(hpa));
    expect(sel.invocations[0]!.matchedKind).toEqual({ group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler" });
    expect(sel.invocations[0]!.matchedResource).toEqual({ group: "autoscaling", version: "v1", resource: "horizontalpodautoscalers" });
  });

  it("a policy matching error is a policy configuration error", () => {
    const { sel } = select([policy("p", { matchConstraints: { ...cmRules, namespaceSelector: { matchLabels: { env: "prod" } } } })], [binding("b", "p")], request(cm("x", "ghost")));
    expect(errs(sel)).toEqual([`policy "p" denied request: failed to configure policy: namespaces "ghost" not found`]);
  });

  it("a binding matching error is a binding configuration error", () => {
    const { sel } = select(
      [policy("p")],
      [binding("b", "p", { matchResources: { namespaceSelector: { matchLabels: { env: "prod" } }, objectSelector: ALL } })],
      request(cm("x", "ghost")),
    );
    expect(errs(sel)).toEqual([`policy 'p' with binding 'b' denied request: failed to configure binding: namespaces "ghost" not found`]);
  });

  it("param errors are binding configuration errors and do not stop other bindings", () => {
    const { sel } = select(
      [policy("p", { paramKind: CM, failurePolicy: "Ignore" })],
      [binding("a", "p", { paramRef: { name: "zz", parameterNotFoundAction: "Deny" } }), binding("b", "p", { paramRef: { name: "p1", parameterNotFoundAction: "Deny" } })],
    );
    expect(show(sel)).toEqual(["p/b/p1"]);
    expect(errs(sel)).toEqual(["policy 'p' with binding 'a' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"]);
  });

  it("a namespaced paramKind for a cluster-scoped request", () => {
    const nsRules: MatchResources = { ...cmRules, resourceRules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"] }] };
    const { sel } = select(
      [policy("p", { paramKind: CM, matchConstraints: nsRules })],
      [binding("b", "p", { paramRef: { name: "p1", parameterNotFoundAction: "Allow" } })],
      request(ns("brand-new")),
    );
    expect(errs(sel)).toEqual([
      "policy 'p' with binding 'b' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
    ]);
  });

  it("an UPDATE of a namespace looks params up in that namespace (its own name)", () => {
    const nsRules: MatchResources = { ...cmRules, resourceRules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"] }] };
    const { sel } = select(
      [policy("p", { paramKind: CM, matchConstraints: nsRules })],
      [binding("b", "p", { paramRef: { name: "p1", parameterNotFoundAction: "Deny" } })],
      request(ns("team-b"), "UPDATE"),
    );
    expect(sel.invocations.map((i) => (i.param!.metadata as JsonObject).namespace)).toEqual(["team-b"]);
  });

  it("DELETE is never handled", () => {
    const delRules: MatchResources = { ...cmRules, resourceRules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }] };
    const { sel } = select([policy("p", { matchConstraints: delRules })], [binding("b", "p")], request(cm("x", "team-a"), "DELETE"));
    expect(sel.invocations).toEqual([]);
    expect(sel.trace[0]!.step).toBe("exempt");
  });

  it("policy resources are never handled", () => {
    const anyRules: MatchResources = { ...cmRules, resourceRules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }] };
    const target = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingAdmissionPolicy", metadata: { name: "x" } };
    const { sel } = select([policy("p", { matchConstraints: anyRules })], [binding("b", "p")], request(target));
    expect(sel.invocations).toEqual([]);
    expect(sel.trace[0]!.reason).toContain("admission policy resource");
  });

  it("webhook configurations are not exempt", () => {
    const anyRules: MatchResources = { ...cmRules, resourceRules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }] };
    const target = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: { name: "x" } };
    const { sel } = select([policy("p", { matchConstraints: anyRules })], [binding("b", "p")], request(target));
    expect(show(sel)).toEqual(["p/b/-"]);
  });

  it("formats policy errors as PolicyError.Error()", () => {
    expect(formatPolicyError("p", "b", "boom")).toBe("policy 'p' with binding 'b' denied request: boom");
    expect(formatPolicyError("p", undefined, "boom")).toBe('policy "p" denied request: boom');
  });
});
