import { describe, expect, it } from "vitest";
import { decodeMutatingAdmissionPolicy, decodeMutatingAdmissionPolicyBinding, isPolicyDocument, mapApiVersion } from "./decode.js";
import { defaultMutatingAdmissionPolicy, defaultMutatingAdmissionPolicyBinding } from "./defaults.js";
import type { MutatingAdmissionPolicyBinding } from "./schemas/map-binding.js";
import type { MutatingAdmissionPolicy } from "./schemas/map.js";
import { prepareMutatingAdmissionPolicy } from "./prepare.js";

const POLICY = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingAdmissionPolicy",
  metadata: { name: "p" },
  spec: {
    matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] },
    mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
    reinvocationPolicy: "Never",
  },
};

describe("strict decoding", () => {
  it("decodes a valid policy with its version", () => {
    const r = decodeMutatingAdmissionPolicy(POLICY);
    expect(r.ok && r.version).toBe("v1");
    expect(r.ok && r.value.spec?.mutations?.[0]?.patchType).toBe("ApplyConfiguration");
  });

  it("treats null fields as absent", () => {
    const r = decodeMutatingAdmissionPolicy({ ...POLICY, spec: { ...POLICY.spec, paramKind: null, variables: null } });
    expect(r.ok).toBe(true);
    expect(r.ok && "paramKind" in r.value.spec!).toBe(false);
  });

  const unknownCases: [string, unknown, string][] = [
    [
      "unknown spec field",
      { ...POLICY, spec: { ...POLICY.spec, foo: 1 } },
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: strict decoding error: unknown field "spec.foo"',
    ],
    [
      "unknown fields everywhere, in document order",
      {
        ...POLICY,
        bogus: true,
        metadata: { name: "p", nam: "x" },
        spec: { ...POLICY.spec, mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]", extra: null } }] },
      },
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: strict decoding error: ' +
        'unknown field "metadata.nam", unknown field "spec.mutations[0].jsonPatch.extra", unknown field "bogus"',
    ],
    [
      "unknown field inside a selector",
      { ...POLICY, spec: { ...POLICY.spec, matchConstraints: { ...POLICY.spec.matchConstraints, objectSelector: { matchLabel: {} } } } },
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: strict decoding error: unknown field "spec.matchConstraints.objectSelector.matchLabel"',
    ],
    [
      "a wrong type is reported alone",
      { ...POLICY, spec: { ...POLICY.spec, foo: 1, mutations: "x" } },
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: json: cannot unmarshal string into Go struct field MutatingAdmissionPolicySpec.spec.mutations of type []v1.Mutation',
    ],
    [
      "label values must be strings",
      { ...POLICY, metadata: { name: "p", labels: { a: 1 } } },
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    ],
    [
      "a string where a list is expected, in a promoted field of an embedded struct",
      { ...POLICY, spec: { ...POLICY.spec, matchConstraints: { resourceRules: [{ operations: "CREATE" }] } } },
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: json: cannot unmarshal string into Go struct field NamedRuleWithOperations.spec.matchConstraints.resourceRules.operations of type []v1.OperationType',
    ],
    [
      "a list element of the wrong type (aliased type prints as v1 in v1beta1)",
      { ...POLICY, apiVersion: "admissionregistration.k8s.io/v1beta1", spec: { ...POLICY.spec, matchConstraints: { resourceRules: [{ operations: [1] }] } } },
      'MutatingAdmissionPolicy in version "v1beta1" cannot be handled as a MutatingAdmissionPolicy: json: cannot unmarshal number into Go struct field NamedRuleWithOperations.spec.matchConstraints.resourceRules.operations of type v1.OperationType',
    ],
    [
      "a version-specific named type",
      { ...POLICY, apiVersion: "admissionregistration.k8s.io/v1alpha1", spec: { ...POLICY.spec, failurePolicy: true } },
      'MutatingAdmissionPolicy in version "v1alpha1" cannot be handled as a MutatingAdmissionPolicy: json: cannot unmarshal bool into Go struct field MutatingAdmissionPolicySpec.spec.failurePolicy of type v1alpha1.FailurePolicyType',
    ],
    [
      "an object where a struct field expects a string",
      { ...POLICY, spec: { ...POLICY.spec, mutations: [{ patchType: { a: 1 } }] } },
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: json: cannot unmarshal object into Go struct field Mutation.spec.mutations.patchType of type v1.PatchType',
    ],
    [
      "a fraction for an integer",
      { ...POLICY, metadata: { name: "p", generation: 1.5 } },
      'MutatingAdmissionPolicy in version "v1" cannot be handled as a MutatingAdmissionPolicy: json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64',
    ],
  ];
  it.each(unknownCases)("%s", (_n, doc, want) => {
    const r = decodeMutatingAdmissionPolicy(doc);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toBe(want);
  });

  it("decodes null list elements and map values as Go zero values", () => {
    const r = decodeMutatingAdmissionPolicy({
      ...POLICY,
      metadata: { name: "p", labels: { a: null } },
      spec: { ...POLICY.spec, matchConstraints: { resourceRules: [{ operations: [null], apiGroups: [""] }] } },
    });
    expect(r.ok && r.value.metadata?.labels).toEqual({ a: "" });
    expect(r.ok && r.value.spec?.matchConstraints?.resourceRules?.[0]?.operations).toEqual([""]);
  });

  it("rejects other kinds and versions", () => {
    expect(decodeMutatingAdmissionPolicy({ ...POLICY, apiVersion: "admissionregistration.k8s.io/v2" }).ok).toBe(false);
    expect(decodeMutatingAdmissionPolicy({ ...POLICY, kind: "ValidatingAdmissionPolicy" }).ok).toBe(false);
    expect(decodeMutatingAdmissionPolicy([]).ok).toBe(false);
    expect(decodeMutatingAdmissionPolicyBinding(POLICY).ok).toBe(false);
  });

  it("recognises policy documents and versions", () => {
    expect(mapApiVersion("admissionregistration.k8s.io/v1beta1")).toBe("v1beta1");
    expect(mapApiVersion("admissionregistration.k8s.io/v2")).toBeUndefined();
    expect(mapApiVersion("v1")).toBeUndefined();
    expect(isPolicyDocument(POLICY)).toBe(true);
    expect(isPolicyDocument({ apiVersion: "v1", kind: "ConfigMap" })).toBe(false);
  });

  it("keeps decode issues with their source", () => {
    const r = prepareMutatingAdmissionPolicy({ ...POLICY, spec: { ...POLICY.spec, foo: 1 } }, { source: { file: "f.yaml", docIndex: 1 } });
    expect(!r.ok && r.stage).toBe("decode");
    expect(!r.ok && r.stage === "decode" && r.issues[0]!.source).toEqual({ file: "f.yaml", docIndex: 1 });
  });
});

describe("defaulting", () => {
  const bare: MutatingAdmissionPolicy = {
    spec: {
      matchConstraints: {
        resourceRules: [{ operations: ["CREATE"] }],
        excludeResourceRules: [{ operations: ["UPDATE"], scope: "Cluster" }],
      },
    },
  };

  it.each(["v1alpha1", "v1beta1", "v1"] as const)("policy defaults (%s)", (v) => {
    const d = defaultMutatingAdmissionPolicy(bare, v);
    expect(d.spec).toEqual({
      failurePolicy: "Fail",
      matchConstraints: {
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
        resourceRules: [{ operations: ["CREATE"], scope: "*" }],
        excludeResourceRules: [{ operations: ["UPDATE"], scope: "Cluster" }],
      },
    });
    expect(d.spec?.reinvocationPolicy).toBeUndefined();
  });

  it("does not overwrite explicit values, including empty strings", () => {
    const d = defaultMutatingAdmissionPolicy(
      { spec: { failurePolicy: "", matchConstraints: { matchPolicy: "Exact", namespaceSelector: { matchLabels: { a: "b" } } } } },
      "v1",
    );
    expect(d.spec?.failurePolicy).toBe("");
    expect(d.spec?.matchConstraints?.matchPolicy).toBe("Exact");
    expect(d.spec?.matchConstraints?.namespaceSelector).toEqual({ matchLabels: { a: "b" } });
  });

  it("defaults a missing spec's failurePolicy (spec is a struct in Go)", () => {
    expect(defaultMutatingAdmissionPolicy({}, "v1").spec).toEqual({ failurePolicy: "Fail" });
  });

  it("never changes its input", () => {
    const input = structuredClone(bare);
    defaultMutatingAdmissionPolicy(input, "v1");
    expect(input).toEqual(bare);
  });

  const bindingCases: [string, "v1alpha1" | "v1beta1" | "v1", MutatingAdmissionPolicyBinding, MutatingAdmissionPolicyBinding["spec"]][] = [
    ["v1alpha1 paramRef action defaults to Deny", "v1alpha1", { spec: { paramRef: { name: "x" } } }, { paramRef: { name: "x", parameterNotFoundAction: "Deny" } }],
    ["v1beta1 paramRef action has no default", "v1beta1", { spec: { paramRef: { name: "x" } } }, { paramRef: { name: "x" } }],
    ["v1 paramRef action has no default", "v1", { spec: { paramRef: { name: "x" } } }, { paramRef: { name: "x" } }],
    ["v1alpha1 explicit Allow kept", "v1alpha1", { spec: { paramRef: { name: "x", parameterNotFoundAction: "Allow" } } }, { paramRef: { name: "x", parameterNotFoundAction: "Allow" } }],
    [
      "matchResources defaulted when present",
      "v1",
      { spec: { matchResources: { resourceRules: [{ operations: ["*"] }] } } },
      { matchResources: { matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, resourceRules: [{ operations: ["*"], scope: "*" }] } },
    ],
    ["matchResources absent stays absent", "v1", { spec: { policyName: "p" } }, { policyName: "p" }],
  ];
  it.each(bindingCases)("binding: %s", (_n, v, input, want) => {
    expect(defaultMutatingAdmissionPolicyBinding(input, v).spec).toEqual(want);
  });
});
