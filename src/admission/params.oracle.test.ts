/**
 * Invocation selection (matching + params) against the MAP oracle cases
 * (shared/conformance/map-oracle-cases.yaml: what a real kube-apiserver v1.36.2 did).
 *
 * Every case's policies and bindings are prepared as the apiserver would (decode, default,
 * validate), the request is built from the case's object, and `selectInvocations` runs with the
 * case's namespace and params. Expectations:
 * - the `match-`, `param-` and `two-bindings-` scenarios: the exact invocations / configuration
 *   error, as the case's expected result and notes imply (a no-op case whose notes say the policy
 *   did not apply selects nothing);
 * - every other case (they all mutate or fail inside a mutation): one invocation per binding and
 *   no configuration error — which checks matching on every kind, namespace and selector the
 *   oracle used.
 *
 * (Test-only: reads the shared YAML with node:fs and yaml; src/admission itself stays pure.)
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { prepareMutatingAdmissionPolicy, prepareMutatingAdmissionPolicyBinding } from "../policy/prepare.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "../policy/valid-types.js";
import type { JsonObject } from "./json.js";
import { ResourceCatalog } from "./match/catalog.js";
import { buildHooks, formatPolicyError, inMemoryParamSource, selectInvocations } from "./params.js";
import { newAdmissionRequest } from "./request.js";

const ORACLE = fileURLToPath(new URL("../../conformance/data/map-oracle-cases.yaml", import.meta.url));

interface OracleCase {
  name: string;
  operation: "CREATE";
  object: JsonObject;
  namespaceObject?: JsonObject;
  paramObjects?: JsonObject[];
  crd?: JsonObject;
  request?: { dryRun?: boolean; userInfo?: { username?: string; uid?: string; groups?: string[] } };
  policy?: JsonObject & { name?: string };
  policies?: (JsonObject & { name: string })[];
  bindings: (JsonObject & { name: string; policyName: string })[];
  expect: { object?: JsonObject; error?: string; errorClass?: string };
  notes: string;
}

const cases = (parse(readFileSync(ORACLE, "utf8")) as { cases: OracleCase[] }).cases;

interface Expected {
  /** `binding/param-name` (or `binding/-` without param) per invocation, in order. */
  invocations: string[];
  /** Full configuration error messages (as in the 403 causes). */
  errors?: string[];
}

/** The matching / params scenarios, with what the oracle's result implies. */
const SCENARIOS: Record<string, Expected> = {
  // resourceNames [target] on ConfigMap "target" → mutated.
  "oracle-match-resourcenames-hit": { invocations: ["oc-match-resourcenames-hit/-"] },
  // excludeResourceRules names "skip-me" → not mutated: the policy does not match.
  "oracle-match-exclude-hit": { invocations: [] },
  // the exclusion names another object → mutated.
  "oracle-match-exclude-miss": { invocations: ["oc-match-exclude-miss/-"] },
  // binding objectSelector inject=true on a labelled object → mutated.
  "oracle-match-objectselector-hit": { invocations: ["oc-match-objectselector-hit/-"] },
  // label inject=false → not mutated: the binding does not match.
  "oracle-match-objectselector-miss": { invocations: [] },
  // the binding's excludeResourceRules exclude the Pod → not mutated.
  "oracle-match-binding-excludes": { invocations: [] },
  // selector matches p1 and p2 (not p3) → two invocations, both annotations.
  "oracle-param-by-selector-two": { invocations: ["oc-param-by-selector-two/p1", "oc-param-by-selector-two/p2"] },
  "oracle-param-not-found-deny": {
    invocations: [],
    errors: [
      "policy 'oc-param-not-found-deny' with binding 'oc-param-not-found-deny' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    ],
  },
  "oracle-param-selector-empty-deny": {
    invocations: [],
    errors: [
      "policy 'oc-param-selector-empty-deny' with binding 'oc-param-selector-empty-deny' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    ],
  },
  // the error is raised, then dropped by failurePolicy Ignore (the dispatcher's filter): admitted unchanged.
  "oracle-param-not-found-deny-ignore": {
    invocations: [],
    errors: [
      "policy 'oc-param-not-found-deny-ignore' with binding 'oc-param-not-found-deny-ignore' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    ],
  },
  // paramRef.namespace oc-shared-params (not the request's namespace) → found there.
  "oracle-param-explicit-namespace": { invocations: ["oc-param-explicit-namespace/shared-param"] },
  // no paramRef.namespace: the request namespace.
  "oracle-param-data-as-annotations": { invocations: ["oc-param-data-as-annotations/p1"] },
  // paramKind without paramRef: runs once with params == null.
  "oracle-param-kind-without-paramref": { invocations: ["oc-param-kind-without-paramref/-"] },
};

function describeInvocation(i: { binding: { metadata: { name: string } }; param: JsonObject | null }): string {
  const md = i.param?.metadata as JsonObject | undefined;
  return `${i.binding.metadata.name}/${i.param === null ? "-" : String(md?.name)}`;
}

function run(c: OracleCase) {
  const policyDocs = c.policies ?? [{ ...c.policy!, name: c.policy!.name ?? c.bindings[0]!.policyName }];
  const policies: ValidMutatingAdmissionPolicy[] = policyDocs.map((p) => {
    const { name, mutations, ...rest } = p as JsonObject & { name: string; mutations: { patchType: string; expression: string }[] };
    // The case format writes each mutation as {patchType, expression}.
    const spec = {
      ...rest,
      mutations: mutations.map((m) =>
        m.patchType === "JSONPatch"
          ? { patchType: m.patchType, jsonPatch: { expression: m.expression } }
          : { patchType: m.patchType, applyConfiguration: { expression: m.expression } },
      ),
    };
    const r = prepareMutatingAdmissionPolicy({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name },
      spec,
    });
    if (!r.ok) throw new Error(`${c.name}: policy rejected: ${r.message}`);
    return r.object;
  });
  const bindings: ValidMutatingAdmissionPolicyBinding[] = c.bindings.map((b) => {
    const { name, ...spec } = b;
    const r = prepareMutatingAdmissionPolicyBinding({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name },
      spec,
    });
    if (!r.ok) throw new Error(`${c.name}: binding rejected: ${r.message}`);
    return r.object;
  });
  const catalog = ResourceCatalog.builtin();
  if (c.crd !== undefined) expect(catalog.addCustomResourceDefinition(c.crd)).toBeUndefined();
  const built = newAdmissionRequest(
    {
      operation: c.operation,
      object: c.object,
      dryRun: c.request?.dryRun ?? true,
      ...(c.request?.userInfo !== undefined ? { userInfo: c.request.userInfo } : {}),
    },
    catalog,
  );
  if (!built.ok) throw new Error(built.error);
  const set = buildHooks(policies, bindings, catalog);
  expect(set.orphanBindings).toEqual([]);
  expect(set.dropped).toEqual([]);
  const nsName = (c.namespaceObject?.metadata as JsonObject | undefined)?.name;
  const sel = selectInvocations(built.request, set.hooks, {
    catalog,
    getNamespace: (name) => (name === nsName ? c.namespaceObject : undefined),
    params: inMemoryParamSource(c.paramObjects ?? []),
  });
  return { sel, request: built.request };
}

const runnable = cases.filter((c) => c.expect.errorClass !== "policyCreation");

describe("oracle: matching and params scenarios", () => {
  const named = runnable.filter((c) => /^oracle-(match|param|two-bindings)-/.test(c.name));

  it("covers every match-/param-/two-bindings- case of the oracle file", () => {
    const names = named.map((c) => c.name).sort();
    expect(names).toEqual([...Object.keys(SCENARIOS), "oracle-two-bindings-same-policy"].sort());
  });

  for (const [name, want] of Object.entries(SCENARIOS)) {
    it(name, () => {
      const c = cases.find((x) => x.name === name)!;
      const { sel } = run(c);
      expect(sel.invocations.map(describeInvocation)).toEqual(want.invocations);
      expect(sel.errors.map((e) => formatPolicyError(e.policy.metadata.name, e.binding?.metadata.name, e.message))).toEqual(
        want.errors ?? [],
      );
      if (want.errors !== undefined && c.expect.error !== undefined) {
        expect(want.errors[0]).toContain(c.expect.error);
      }
    });
  }

  it("oracle-two-bindings-same-policy: two bindings of one policy are two invocations, in binding-name order", () => {
    const c = cases.find((x) => x.name === "oracle-two-bindings-same-policy")!;
    const { sel } = run(c);
    const names = c.bindings.map((b) => b.name).sort();
    expect(sel.invocations.map(describeInvocation)).toEqual(names.map((n) => `${n}/-`));
    expect(sel.errors).toEqual([]);
  });
});

describe("oracle: every other case selects one invocation per binding", () => {
  const others = runnable.filter((c) => !/^oracle-(match|param|two-bindings)-/.test(c.name));
  it("has cases", () => expect(others.length).toBeGreaterThan(80));
  for (const c of others) {
    it(c.name, () => {
      const { sel } = run(c);
      expect(sel.errors).toEqual([]);
      expect(sel.invocations.map(describeInvocation)).toEqual([...c.bindings.map((b) => b.name)].sort().map((n) => `${n}/-`));
      for (const inv of sel.invocations) {
        // No Equivalent detour on these requests: the matched kind is the request's own.
        expect(inv.matchedKind).toEqual(expect.objectContaining({ kind: c.object.kind }));
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// map-cases.yaml (Kubernetes unit and integration tests) with params and bindings. Their policies
// carry no matchConstraints (the tests match everything); we give them a match-all rule, and the
// bindings, which are unnamed there, the names b0, b1, ...

const MAP_CASES = fileURLToPath(new URL("../../conformance/data/map-cases.yaml", import.meta.url));

interface MapCase {
  name: string;
  operation: "CREATE";
  object: JsonObject;
  paramObjects?: JsonObject[];
  policy: { paramKind?: { apiVersion: string; kind: string }; failurePolicy?: string };
  bindings: { policyName: string; paramRef?: JsonObject }[];
  expect: { object?: JsonObject; error?: string };
}

const MAP_SCENARIOS: Record<string, Expected> = {
  // two bindings of one policy, each with its own param (explicit namespace) → both apply.
  "it-two-bindings-two-params": { invocations: ["b0/multi-binding-param-1", "b1/multi-binding-param-2"] },
  // paramRef without namespace → the request namespace.
  "it-native-param-by-name": { invocations: ["b0/policy-with-native-param"] },
  "params-not-found-deny": {
    invocations: [],
    errors: ["policy 'p' with binding 'b0' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"],
  },
  "params-namespace-on-cluster-scoped-kind": {
    invocations: [],
    errors: [
      "policy 'p' with binding 'b0' denied request: failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
    ],
  },
};

describe("map-cases.yaml: params scenarios", () => {
  const all = (parse(readFileSync(MAP_CASES, "utf8")) as { cases: MapCase[] }).cases;
  for (const [name, want] of Object.entries(MAP_SCENARIOS)) {
    it(name, () => {
      const c = all.find((x) => x.name === name)!;
      const policyName = c.bindings[0]!.policyName;
      const policy = {
        metadata: { name: policyName },
        spec: {
          ...(c.policy.paramKind !== undefined ? { paramKind: c.policy.paramKind } : {}),
          failurePolicy: c.policy.failurePolicy ?? "Fail",
          matchConstraints: {
            namespaceSelector: {},
            objectSelector: {},
            matchPolicy: "Equivalent",
            resourceRules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }],
          },
        },
      };
      const bindings = c.bindings.map((b, i) => ({ metadata: { name: `b${i}` }, spec: { policyName: b.policyName, ...(b.paramRef ? { paramRef: b.paramRef } : {}) } }));
      const catalog = ResourceCatalog.builtin();
      const built = newAdmissionRequest({ operation: c.operation, object: c.object }, catalog);
      if (!built.ok) throw new Error(built.error);
      const set = buildHooks([policy], bindings, catalog);
      const sel = selectInvocations(built.request, set.hooks, { catalog, params: inMemoryParamSource(c.paramObjects ?? []) });
      expect(sel.invocations.map(describeInvocation)).toEqual(want.invocations);
      expect(sel.errors.map((e) => formatPolicyError(e.policy.metadata.name, e.binding?.metadata.name, e.message))).toEqual(want.errors ?? []);
      if (c.expect.error !== undefined) expect(want.errors?.[0]).toContain(c.expect.error);
    });
  }
});
