import { describe, expect, it } from "vitest";
import { errorString } from "../diag/field-error.js";
import {
  prepareMutatingAdmissionPolicy,
  prepareMutatingAdmissionPolicyBinding,
  type PrepareResult,
} from "./prepare.js";

// ---------------------------------------------------------------------------------------
// Builders

type Json = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);

function basePolicy(version = "v1"): Json {
  return {
    apiVersion: `admissionregistration.k8s.io/${version}`,
    kind: "MutatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
      },
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
      reinvocationPolicy: "Never",
    },
  };
}

function baseBinding(version = "v1"): Json {
  return {
    apiVersion: `admissionregistration.k8s.io/${version}`,
    kind: "MutatingAdmissionPolicyBinding",
    metadata: { name: "b" },
    spec: { policyName: "p" },
  };
}

const spec = (o: Json) => o["spec"] as Json;
const mc = (o: Json) => spec(o)["matchConstraints"] as Json;
const rule0 = (o: Json) => (mc(o)["resourceRules"] as Json[])[0]!;
const mut0 = (o: Json) => (spec(o)["mutations"] as Json[])[0]!;

function messages<T>(r: PrepareResult<T>): string[] {
  if (r.ok) return [];
  if (r.stage === "decode") return [r.message];
  return r.errors.map(errorString);
}

function policyErrors(edit: (p: Json) => void, version = "v1"): string[] {
  const p = basePolicy(version);
  edit(p);
  return messages(prepareMutatingAdmissionPolicy(p));
}

function bindingErrors(edit: (b: Json) => void, version = "v1"): string[] {
  const b = baseBinding(version);
  edit(b);
  return messages(prepareMutatingAdmissionPolicyBinding(b));
}

// apimachinery messages used below
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_KEY_TOO_MANY_SLASHES =
  "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const MUTATING_OPS = 'supported values: "*", "CONNECT", "CREATE", "UPDATE"';
const ALL_OPS = 'supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"';
const RR = "spec.matchConstraints.resourceRules[0]";

// ---------------------------------------------------------------------------------------

describe("a valid policy and binding", () => {
  it.each(["v1alpha1", "v1beta1", "v1"])("policy %s passes", (v) => {
    expect(policyErrors(() => {}, v)).toEqual([]);
  });
  it.each(["v1alpha1", "v1beta1", "v1"])("binding %s passes", (v) => {
    expect(bindingErrors(() => {}, v)).toEqual([]);
  });
});

type Case = [name: string, edit: (o: Json) => void, want: string[]];

describe("MutatingAdmissionPolicy metadata", () => {
  const cases: Case[] = [
    ["name missing", (p) => delete (p["metadata"] as Json)["name"], ["metadata.name: Required value: name or generateName is required"]],
    ["name not a DNS subdomain", (p) => ((p["metadata"] as Json)["name"] = "Bad_Name"), [`metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN}`]],
    ["name with dots is fine", (p) => ((p["metadata"] as Json)["name"] = "a.b.c"), []],
    // pkg/util/validation.MaxLenError says "characters" (validate/content's, for label keys, says "bytes").
    ["name too long", (p) => ((p["metadata"] as Json)["name"] = "a".repeat(254)), [`metadata.name: Invalid value: "${"a".repeat(254)}": must be no more than 253 characters`]],
    ["label value too long", (p) => ((p["metadata"] as Json)["labels"] = { app: "v".repeat(64) }), [`metadata.labels: Invalid value: "${"v".repeat(64)}": must be no more than 63 bytes`]],
    ["generateName stands in for the name", (p) => (p["metadata"] = { generateName: "gen-" }), []],
    [
      "generateName invalid",
      (p) => (p["metadata"] = { generateName: "Gen-" }),
      [
        `metadata.generateName: Invalid value: "Gen-": ${SUBDOMAIN}`,
        `metadata.name: Invalid value: "Gen-xxxxx": ${SUBDOMAIN}`,
      ],
    ],
    ["generation is set to 1 on create (a negative one is no error)", (p) => ((p["metadata"] as Json)["generation"] = -5), []],
    ["namespace is cleared, not an error (cluster-scoped)", (p) => ((p["metadata"] as Json)["namespace"] = "default"), []],
    ["label value invalid", (p) => ((p["metadata"] as Json)["labels"] = { app: "bad value" }), [`metadata.labels: Invalid value: "bad value": ${LABEL_VALUE}`]],
    ["label key invalid", (p) => ((p["metadata"] as Json)["labels"] = { "-x": "v" }), [`metadata.labels: Invalid value: "-x": ${NAME_PART}`]],
    ["annotation key invalid", (p) => ((p["metadata"] as Json)["annotations"] = { "a/b/c": "v" }), [`metadata.annotations: Invalid value: "a/b/c": ${LABEL_KEY_TOO_MANY_SLASHES}`]],
    ["annotation keys are checked lower-cased", (p) => ((p["metadata"] as Json)["annotations"] = { "Example.COM/X": "v" }), []],
    [
      "annotations too large",
      (p) => ((p["metadata"] as Json)["annotations"] = { a: "x".repeat(256 * 1024) }),
      ["metadata.annotations: Too long: may not be more than 262144 bytes"],
    ],
  ];
  it.each(cases)("%s", (_n, edit, want) => expect(policyErrors(edit)).toEqual(want));

  it("a generated name gets a fixed suffix", () => {
    const p = basePolicy();
    p["metadata"] = { generateName: "gen-" };
    const r = prepareMutatingAdmissionPolicy(p);
    expect(r.ok && r.object.metadata?.name).toBe("gen-xxxxx");
  });
});

describe("MutatingAdmissionPolicy spec", () => {
  const cases: Case[] = [
    // failurePolicy
    ["failurePolicy Ignore", (p) => (spec(p)["failurePolicy"] = "Ignore"), []],
    ["failurePolicy unsupported", (p) => (spec(p)["failurePolicy"] = "Sometimes"), ['spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"']],
    ["failurePolicy empty string is not defaulted", (p) => (spec(p)["failurePolicy"] = ""), ['spec.failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"']],
    ["failurePolicy null is defaulted", (p) => (spec(p)["failurePolicy"] = null), []],
    // paramKind
    ["paramKind valid", (p) => (spec(p)["paramKind"] = { apiVersion: "v1", kind: "ConfigMap" }), []],
    ["paramKind with group", (p) => (spec(p)["paramKind"] = { apiVersion: "example.com/v1", kind: "Widget" }), []],
    ["paramKind empty", (p) => (spec(p)["paramKind"] = {}), ["spec.paramKind.apiVersion: Required value", "spec.paramKind.kind: Required value"]],
    [
      "paramKind apiVersion with two slashes",
      (p) => (spec(p)["paramKind"] = { apiVersion: "a/b/c", kind: "K" }),
      ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
    ],
    ["paramKind group invalid", (p) => (spec(p)["paramKind"] = { apiVersion: "Example.com/v1", kind: "K" }), [`spec.paramKind.apiVersion: Invalid value: "Example.com": ${SUBDOMAIN}`]],
    ["paramKind version missing", (p) => (spec(p)["paramKind"] = { apiVersion: "example.com/", kind: "K" }), ['spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified']],
    ["paramKind version not DNS-1035", (p) => (spec(p)["paramKind"] = { apiVersion: "1v", kind: "K" }), [`spec.paramKind.apiVersion: Invalid value: "1v": ${DNS1035}`]],
    [
      "paramKind kind not DNS-1035 (lower-cased)",
      (p) => (spec(p)["paramKind"] = { apiVersion: "v1", kind: "Config_Map" }),
      [`spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: ${DNS1035}`],
    ],
    // matchConstraints
    ["matchConstraints missing", (p) => delete spec(p)["matchConstraints"], ["spec.matchConstraints: Required value"]],
    ["resourceRules empty", (p) => (spec(p)["matchConstraints"] = {}), ["spec.matchConstraints.resourceRules: Required value"]],
    ["matchPolicy unsupported", (p) => (mc(p)["matchPolicy"] = "Fuzzy"), ['spec.matchConstraints.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"']],
    ["matchPolicy Exact", (p) => (mc(p)["matchPolicy"] = "Exact"), []],
    ["operation DELETE is not mutable", (p) => (rule0(p)["operations"] = ["DELETE"]), [`spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": ${MUTATING_OPS}`]],
    [
      "operation unknown",
      (p) => (rule0(p)["operations"] = ["FOO"]),
      [`${RR}.operations[0]: Unsupported value: "FOO": ${ALL_OPS}`, `spec.matchConstraints.resourceRules.operations: Unsupported value: "FOO": ${MUTATING_OPS}`],
    ],
    ["operations CONNECT, UPDATE and *", (p) => (rule0(p)["operations"] = ["CREATE", "UPDATE", "CONNECT"]), []],
    ["operations empty", (p) => (rule0(p)["operations"] = []), [`${RR}.operations: Required value`]],
    ["operations * with others", (p) => (rule0(p)["operations"] = ["*", "CREATE"]), [`${RR}.operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`]],
    ["apiGroups empty", (p) => (rule0(p)["apiGroups"] = []), [`${RR}.apiGroups: Required value`]],
    ["apiGroups * with others", (p) => (rule0(p)["apiGroups"] = ["*", "apps"]), [`${RR}.apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups`]],
    ["apiVersions empty", (p) => delete rule0(p)["apiVersions"], [`${RR}.apiVersions: Required value`]],
    ["apiVersions empty entry", (p) => (rule0(p)["apiVersions"] = ["v1", ""]), [`${RR}.apiVersions[1]: Required value`]],
    ["apiVersions * with others", (p) => (rule0(p)["apiVersions"] = ["*", "v1"]), [`${RR}.apiVersions: Invalid value: ["*","v1"]: if '*' is present, must not specify other API versions`]],
    ["resources empty", (p) => (rule0(p)["resources"] = []), [`${RR}.resources: Required value`]],
    ["resources empty entry", (p) => (rule0(p)["resources"] = ["", "pods"]), [`${RR}.resources[0]: Required value`]],
    ["resources */* with others", (p) => (rule0(p)["resources"] = ["*/*", "pods"]), [`${RR}.resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`]],
    ["resources * with a plain resource", (p) => (rule0(p)["resources"] = ["*", "pods"]), [`${RR}.resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources`]],
    ["resources: Go quirk, the last plain entry decides (pods, *)", (p) => (rule0(p)["resources"] = ["pods", "*"]), []],
    ["resources * with subresources", (p) => (rule0(p)["resources"] = ["*", "pods/status"]), []],
    ["resources x/* then x/y", (p) => (rule0(p)["resources"] = ["pods/*", "pods/status"]), [`${RR}.resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`]],
    ["resources */y then x/y", (p) => (rule0(p)["resources"] = ["*/status", "pods/status"]), [`${RR}.resources[1]: Invalid value: "pods/status": if '*/status' is present, must not specify pods/status`]],
    ["scope unsupported", (p) => (rule0(p)["scope"] = "Global"), [`${RR}.scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"`]],
    ["scope Namespaced", (p) => (rule0(p)["scope"] = "Namespaced"), []],
    [
      "resourceNames: duplicates and path segments",
      (p) => (rule0(p)["resourceNames"] = ["a", "a", "b/c", "..", "x%"]),
      [
        `${RR}.resourceNames[1]: Duplicate value: "a"`,
        `${RR}.resourceNames[2]: Invalid value: "b/c": may not contain '/'`,
        `${RR}.resourceNames[3]: Invalid value: "..": may not be '..'`,
        `${RR}.resourceNames[4]: Invalid value: "x%": may not contain '%'`,
      ],
    ],
    [
      "excludeResourceRules validated like resourceRules (DELETE allowed there)",
      (p) => (mc(p)["excludeResourceRules"] = [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: [] }]),
      ["spec.matchConstraints.excludeResourceRules[0].resources: Required value"],
    ],
    // selectors
    [
      "namespaceSelector In without values",
      (p) => (mc(p)["namespaceSelector"] = { matchExpressions: [{ key: "env", operator: "In" }] }),
      ["spec.matchConstraints.namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    ],
    [
      "namespaceSelector Exists with values",
      (p) => (mc(p)["namespaceSelector"] = { matchExpressions: [{ key: "env", operator: "Exists", values: ["a"] }] }),
      ["spec.matchConstraints.namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
    ],
    [
      "objectSelector unknown operator",
      (p) => (mc(p)["objectSelector"] = { matchExpressions: [{ key: "env", operator: "Equals", values: ["a"] }] }),
      ['spec.matchConstraints.objectSelector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator'],
    ],
    [
      "objectSelector bad key and value",
      (p) => (mc(p)["objectSelector"] = { matchExpressions: [{ key: "bad key", operator: "NotIn", values: ["ok", "bad value"] }] }),
      [
        `spec.matchConstraints.objectSelector.matchExpressions[0].key: Invalid value: "bad key": ${NAME_PART}`,
        `spec.matchConstraints.objectSelector.matchExpressions[0].values[1]: Invalid value: "bad value": ${LABEL_VALUE}`,
      ],
    ],
    [
      "matchLabels bad key (too many slashes), reported at the map",
      (p) => (mc(p)["objectSelector"] = { matchLabels: { "a/b/c": "x" } }),
      [`spec.matchConstraints.objectSelector.matchLabels: Invalid value: "a/b/c": ${LABEL_KEY_TOO_MANY_SLASHES}`],
    ],
    [
      "matchLabels empty prefix",
      (p) => (mc(p)["objectSelector"] = { matchLabels: { "/x": "y" } }),
      ['spec.matchConstraints.objectSelector.matchLabels: Invalid value: "/x": prefix part must be non-empty'],
    ],
    ["matchLabels with prefixed keys and empty value valid", (p) => (mc(p)["objectSelector"] = { matchLabels: { "app.kubernetes.io/name": "web", tier: "" } }), []],
    ["In with valid values", (p) => (mc(p)["namespaceSelector"] = { matchExpressions: [{ key: "env", operator: "In", values: ["prod", "staging"] }] }), []],
    ["resourceNames valid", (p) => (rule0(p)["resourceNames"] = ["a", "b.c"]), []],
    ["resources pods/* with another resource's subresource", (p) => (rule0(p)["resources"] = ["pods/*", "deployments/scale"]), []],
    ["matchLabels DoesNotExist valid", (p) => (mc(p)["objectSelector"] = { matchExpressions: [{ key: "a.io/b", operator: "DoesNotExist" }] }), []],
    // matchConditions
    ["matchConditions valid", (p) => (spec(p)["matchConditions"] = [{ name: "example.com/is-pod", expression: "true" }]), []],
    [
      "matchConditions exactly 64",
      (p) => (spec(p)["matchConditions"] = Array.from({ length: 64 }, (_, i) => ({ name: `c${i}`, expression: "true" }))),
      [],
    ],
    [
      "matchConditions over 64",
      (p) => (spec(p)["matchConditions"] = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: "true" }))),
      ["spec.matchConditions: Too many: 65: must have at most 64 items"],
    ],
    [
      "matchConditions duplicate name",
      (p) => (spec(p)["matchConditions"] = [{ name: "a", expression: "true" }, { name: "a", expression: "true" }]),
      ['spec.matchConditions[1].name: Duplicate value: "a"'],
    ],
    [
      "matchCondition without name and expression",
      (p) => (spec(p)["matchConditions"] = [{ expression: "   " }]),
      ["spec.matchConditions[0].expression: Required value", "spec.matchConditions[0].name: Required value"],
    ],
    [
      "matchCondition name not a qualified name",
      (p) => (spec(p)["matchConditions"] = [{ name: "-a", expression: "true" }]),
      [`spec.matchConditions[0].name: Invalid value: "-a": ${NAME_PART}`],
    ],
    // variables
    ["variables valid", (p) => (spec(p)["variables"] = [{ name: "_x1", expression: "1" }, { name: "Camel", expression: "variables._x1" }]), []],
    ["variable name missing", (p) => (spec(p)["variables"] = [{ name: " ", expression: "1" }]), ["spec.variables[0].name: Required value: name is not specified"]],
    ["variable name not an identifier", (p) => (spec(p)["variables"] = [{ name: "1x", expression: "1" }]), ['spec.variables[0].name: Invalid value: "1x": must be a valid CEL identifier']],
    ["variable name reserved", (p) => (spec(p)["variables"] = [{ name: "namespace", expression: "1" }]), ['spec.variables[0].name: Invalid value: "namespace": must be a valid CEL identifier']],
    ["variable expression missing", (p) => (spec(p)["variables"] = [{ name: "x" }]), ["spec.variables[0].expression: Required value: expression is not specified"]],
    // mutations
    ["mutations empty", (p) => (spec(p)["mutations"] = []), ["spec.mutations: Required value: mutations must contain at least one item"]],
    ["mutations missing", (p) => delete spec(p)["mutations"], ["spec.mutations: Required value: mutations must contain at least one item"]],
    ["patchType missing", (p) => delete mut0(p)["patchType"], ["spec.mutations[0].patchType: Required value"]],
    ["patchType unsupported", (p) => (mut0(p)["patchType"] = "Merge"), ['spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"']],
    ["JSONPatch without jsonPatch", (p) => (spec(p)["mutations"] = [{ patchType: "JSONPatch" }]), ["spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch"]],
    [
      "JSONPatch with applyConfiguration too",
      (p) => (mut0(p)["patchType"] = "JSONPatch"),
      [
        "spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
        'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch',
      ],
    ],
    ["JSONPatch valid", (p) => (spec(p)["mutations"] = [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }]), []],
    ["ApplyConfiguration without member", (p) => (spec(p)["mutations"] = [{ patchType: "ApplyConfiguration" }]), ["spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration"]],
    [
      "ApplyConfiguration with jsonPatch too",
      (p) => (mut0(p)["jsonPatch"] = { expression: "[]" }),
      ['spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration'],
    ],
    ["expression blank", (p) => (mut0(p)["applyConfiguration"] = { expression: " \n " }), ["spec.mutations[0].applyConfiguration.expression: Required value"]],
    // reinvocationPolicy
    ["reinvocationPolicy missing", (p) => delete spec(p)["reinvocationPolicy"], ["spec.reinvocationPolicy: Required value"]],
    ["reinvocationPolicy IfNeeded", (p) => (spec(p)["reinvocationPolicy"] = "IfNeeded"), []],
    ["reinvocationPolicy unsupported", (p) => (spec(p)["reinvocationPolicy"] = "Always"), ['spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']],
  ];
  it.each(cases)("%s", (_n, edit, want) => expect(policyErrors(edit)).toEqual(want));

  it("accumulates every error in the apiserver's order and renders the 422 message", () => {
    const p = basePolicy();
    (p["metadata"] as Json)["name"] = "p";
    delete spec(p)["reinvocationPolicy"];
    spec(p)["mutations"] = [];
    spec(p)["failurePolicy"] = "Never";
    rule0(p)["operations"] = ["DELETE"];
    const r = prepareMutatingAdmissionPolicy(p, { source: { file: "policy.yaml", docIndex: 2 } });
    expect(r.ok).toBe(false);
    if (r.ok || r.stage !== "validate") throw new Error("expected validation failure");
    expect(r.message).toBe(
      'MutatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: [' +
        'spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore", ' +
        `spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": ${MUTATING_OPS}, ` +
        "spec.mutations: Required value: mutations must contain at least one item, " +
        "spec.reinvocationPolicy: Required value]",
    );
    expect(r.errors.every((e) => e.source?.file === "policy.yaml" && e.source.docIndex === 2)).toBe(true);
  });

  it("prints a single error without brackets", () => {
    const p = basePolicy();
    delete spec(p)["reinvocationPolicy"];
    const r = prepareMutatingAdmissionPolicy(p);
    expect(!r.ok && r.message).toBe('MutatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: spec.reinvocationPolicy: Required value');
  });
});

describe("MutatingAdmissionPolicyBinding", () => {
  const cases: [string, (b: Json) => void, string[], string?][] = [
    ["policyName missing", (b) => delete spec(b)["policyName"], ["spec.policyName: Required value"]],
    ["policyName not a DNS subdomain", (b) => (spec(b)["policyName"] = "Bad"), [`spec.policyName: Invalid value: "Bad": ${SUBDOMAIN}`]],
    ["metadata.name missing", (b) => (b["metadata"] = {}), ["metadata.name: Required value: name or generateName is required"]],
    ["paramRef by name", (b) => (spec(b)["paramRef"] = { name: "cfg", namespace: "ns", parameterNotFoundAction: "Allow" }), []],
    ["paramRef by selector", (b) => (spec(b)["paramRef"] = { selector: {}, parameterNotFoundAction: "Deny" }), []],
    [
      "paramRef name and selector",
      (b) => (spec(b)["paramRef"] = { name: "cfg", selector: {}, parameterNotFoundAction: "Deny" }),
      ["spec.paramRef.name: Forbidden: name and selector are mutually exclusive", "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive"],
    ],
    [
      "paramRef neither name nor selector (v1: action required too)",
      (b) => (spec(b)["paramRef"] = {}),
      ["spec.paramRef: Required value: one of name or selector must be specified", "spec.paramRef.parameterNotFoundAction: Required value"],
    ],
    ["paramRef without action in v1beta1", (b) => (spec(b)["paramRef"] = { name: "x" }), ["spec.paramRef.parameterNotFoundAction: Required value"], "v1beta1"],
    ["paramRef without action in v1alpha1 is defaulted to Deny", (b) => (spec(b)["paramRef"] = { name: "x" }), [], "v1alpha1"],
    ["paramRef empty action is not defaulted (v1alpha1)", (b) => (spec(b)["paramRef"] = { name: "x", parameterNotFoundAction: "" }), ["spec.paramRef.parameterNotFoundAction: Required value"], "v1alpha1"],
    [
      "paramRef action unsupported (values in the apiserver's order)",
      (b) => (spec(b)["paramRef"] = { name: "x", parameterNotFoundAction: "Maybe" }),
      ['spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"'],
    ],
    ["paramRef name not a path segment", (b) => (spec(b)["paramRef"] = { name: "a/b", parameterNotFoundAction: "Deny" }), [`spec.paramRef.name: Invalid value: "a/b": may not contain '/'`]],
    [
      "paramRef selector validated",
      (b) => (spec(b)["paramRef"] = { selector: { matchExpressions: [{ key: "k", operator: "In" }] }, parameterNotFoundAction: "Deny" }),
      ["spec.paramRef.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    ],
    ["matchResources empty is fine (no resourceRules needed)", (b) => (spec(b)["matchResources"] = {}), []],
    [
      "matchResources DELETE",
      (b) => (spec(b)["matchResources"] = { resourceRules: [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] }),
      [`spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": ${MUTATING_OPS}`],
    ],
    ["matchResources matchPolicy unsupported", (b) => (spec(b)["matchResources"] = { matchPolicy: "X" }), ['spec.matchResources.matchPolicy: Unsupported value: "X": supported values: "Equivalent", "Exact"']],
  ];
  it.each(cases)("%s", (_n, edit, want, version) => expect(bindingErrors(edit, version)).toEqual(want));

  it("renders the 422 message with the binding kind", () => {
    const b = baseBinding();
    delete spec(b)["policyName"];
    const r = prepareMutatingAdmissionPolicyBinding(b);
    expect(!r.ok && r.message).toBe('MutatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: spec.policyName: Required value');
  });
});
