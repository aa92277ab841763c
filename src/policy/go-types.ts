/**
 * The Go types behind the JSON of MutatingAdmissionPolicy and its binding
 * (`k8s.io/api/admissionregistration/{v1,v1beta1,v1alpha1}` and `metav1`, v0.36.3), just
 * enough to reproduce what the apiserver's JSON decoder (sigs.k8s.io/json, a fork of
 * `encoding/json`) says about a value of the wrong type:
 *
 *   json: cannot unmarshal string into Go struct field NamedRuleWithOperations.spec.matchConstraints.resourceRules.operations of type []v1.OperationType
 *
 * i.e. `<Struct>.<field path without indices or map keys> of type <Go type>`, where Struct is
 * the struct being decoded (the outer one for promoted fields of embedded structs), and of
 * how Go decodes `null` (a zero value).
 *
 * Some types are aliases of v1's in v1beta1/v1alpha1 (`Rule`, `RuleWithOperations`,
 * `OperationType`, `ScopeType`, `ReinvocationPolicyType`); they print as `v1.X` everywhere.
 */
import type { ApiVersionName } from "./schemas/common.js";

export type GoType =
  | { readonly k: "struct"; readonly name: string; readonly pkg: Pkg; readonly fields: () => Readonly<Record<string, GoType>> }
  | { readonly k: "slice"; readonly elem: GoType }
  | { readonly k: "map"; readonly elem: GoType }
  | { readonly k: "string"; readonly named?: { readonly name: string; readonly pkg: Pkg } }
  | { readonly k: "int64" }
  | { readonly k: "bool" }
  | { readonly k: "time" }
  | { readonly k: "any" };

/** `adm`: the admissionregistration version package; `v1`: always v1 (aliases, metav1). */
type Pkg = "adm" | "v1";

const str: GoType = { k: "string" };
const int64: GoType = { k: "int64" };
const bool: GoType = { k: "bool" };
const time: GoType = { k: "time" };
const slice = (elem: GoType): GoType => ({ k: "slice", elem });
const map = (elem: GoType): GoType => ({ k: "map", elem });
const named = (name: string, pkg: Pkg): GoType => ({ k: "string", named: { name, pkg } });
const struct = (name: string, pkg: Pkg, fields: () => Record<string, GoType>): GoType => ({ k: "struct", name, pkg, fields });

const LabelSelectorRequirement = struct("LabelSelectorRequirement", "v1", () => ({
  key: str,
  operator: named("LabelSelectorOperator", "v1"),
  values: slice(str),
}));
const LabelSelector = struct("LabelSelector", "v1", () => ({
  matchLabels: map(str),
  matchExpressions: slice(LabelSelectorRequirement),
}));
const OwnerReference = struct("OwnerReference", "v1", () => ({
  apiVersion: str,
  kind: str,
  name: str,
  uid: named("UID", "v1"),
  controller: bool,
  blockOwnerDeletion: bool,
}));
const ManagedFieldsEntry = struct("ManagedFieldsEntry", "v1", () => ({
  manager: str,
  operation: named("ManagedFieldsOperationType", "v1"),
  apiVersion: str,
  time,
  fieldsType: str,
  fieldsV1: { k: "any" },
  subresource: str,
}));
const ObjectMeta = struct("ObjectMeta", "v1", () => ({
  name: str,
  generateName: str,
  namespace: str,
  selfLink: str,
  uid: named("UID", "v1"),
  resourceVersion: str,
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: map(str),
  annotations: map(str),
  ownerReferences: slice(OwnerReference),
  finalizers: slice(str),
  managedFields: slice(ManagedFieldsEntry),
}));

const NamedRuleWithOperations = struct("NamedRuleWithOperations", "adm", () => ({
  resourceNames: slice(str),
  operations: slice(named("OperationType", "v1")),
  apiGroups: slice(str),
  apiVersions: slice(str),
  resources: slice(str),
  scope: named("ScopeType", "v1"),
}));
const MatchResources = struct("MatchResources", "adm", () => ({
  namespaceSelector: LabelSelector,
  objectSelector: LabelSelector,
  resourceRules: slice(NamedRuleWithOperations),
  excludeResourceRules: slice(NamedRuleWithOperations),
  matchPolicy: named("MatchPolicyType", "adm"),
}));
const Expression = (name: string) => struct(name, "adm", () => ({ expression: str }));
const NameExpression = (name: string) => struct(name, "adm", () => ({ name: str, expression: str }));

const MutatingAdmissionPolicySpec = struct("MutatingAdmissionPolicySpec", "adm", () => ({
  paramKind: struct("ParamKind", "adm", () => ({ apiVersion: str, kind: str })),
  matchConstraints: MatchResources,
  variables: slice(NameExpression("Variable")),
  mutations: slice(
    struct("Mutation", "adm", () => ({
      patchType: named("PatchType", "adm"),
      applyConfiguration: Expression("ApplyConfiguration"),
      jsonPatch: Expression("JSONPatch"),
    })),
  ),
  failurePolicy: named("FailurePolicyType", "adm"),
  matchConditions: slice(NameExpression("MatchCondition")),
  reinvocationPolicy: named("ReinvocationPolicyType", "v1"),
}));

const MutatingAdmissionPolicyBindingSpec = struct("MutatingAdmissionPolicyBindingSpec", "adm", () => ({
  policyName: str,
  paramRef: struct("ParamRef", "adm", () => ({
    name: str,
    namespace: str,
    selector: LabelSelector,
    parameterNotFoundAction: named("ParameterNotFoundActionType", "adm"),
  })),
  matchResources: MatchResources,
}));

export const MutatingAdmissionPolicyGo = struct("MutatingAdmissionPolicy", "adm", () => ({
  apiVersion: str,
  kind: str,
  metadata: ObjectMeta,
  spec: MutatingAdmissionPolicySpec,
}));

export const MutatingAdmissionPolicyBindingGo = struct("MutatingAdmissionPolicyBinding", "adm", () => ({
  apiVersion: str,
  kind: str,
  metadata: ObjectMeta,
  spec: MutatingAdmissionPolicyBindingSpec,
}));

/** Go's `reflect.Type.String()` of a type, e.g. `[]v1.OperationType`, `map[string]string`. */
export function goTypeString(t: GoType, version: ApiVersionName): string {
  const pkg = (p: Pkg) => (p === "v1" ? "v1" : version);
  switch (t.k) {
    case "struct":
      return `${pkg(t.pkg)}.${t.name}`;
    case "slice":
      return "[]" + goTypeString(t.elem, version);
    case "map":
      return "map[string]" + goTypeString(t.elem, version);
    case "string":
      return t.named ? `${pkg(t.named.pkg)}.${t.named.name}` : "string";
    case "int64":
      return "int64";
    case "bool":
      return "bool";
    case "time":
      return "v1.Time";
    case "any":
      return "interface {}";
  }
}

/** Go's description of a JSON value in an UnmarshalTypeError (`number 1.5` into an integer). */
function goValueWord(v: unknown, into: GoType): string {
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "bigint":
      return "number";
    case "number":
      return into.k === "int64" && !Number.isInteger(v) ? `number ${v}` : "number";
    case "object":
      return v === null ? "null" : "object";
    default:
      return typeof v;
  }
}

/**
 * The decoder's error for a wrong value at `path` (zod path: field names, map keys and
 * indices), or undefined if the path leaves the known types.
 */
export function unmarshalTypeError(
  root: GoType,
  path: readonly PropertyKey[],
  value: unknown,
  version: ApiVersionName,
): { value: string; struct: string; field: string; type: string } | undefined {
  let t = root;
  let struct = "";
  const fields: string[] = [];
  for (const seg of path) {
    if (t.k === "struct" && typeof seg === "string") {
      const f = t.fields()[seg];
      if (f === undefined) return undefined;
      struct = t.name;
      fields.push(seg);
      t = f;
    } else if (t.k === "slice" && typeof seg === "number") {
      t = t.elem;
    } else if (t.k === "map" && typeof seg === "string") {
      t = t.elem;
    } else return undefined;
  }
  return { value: goValueWord(value, t), struct, field: fields.join("."), type: goTypeString(t, version) };
}

/** Go's zero value of a type, as JSON (what `null` decodes to inside lists and maps). */
export function zeroValue(t: GoType): unknown {
  switch (t.k) {
    case "struct":
      return {};
    case "string":
      return "";
    case "int64":
      return 0;
    case "bool":
      return false;
    default:
      return undefined;
  }
}

/**
 * Replaces `null` elements of lists and values of maps by Go's zero value (as the decoder
 * does), so that `operations: [null]` reads as `[""]`. Null *fields* are left alone (the
 * schemas read them as absent). Returns a new value; unknown parts are copied as they are.
 */
export function fillNulls(v: unknown, t: GoType | undefined): unknown {
  if (Array.isArray(v)) {
    const elem = t?.k === "slice" ? t.elem : undefined;
    return v.map((x) => (x === null && elem !== undefined ? (zeroValue(elem) ?? null) : fillNulls(x, elem)));
  }
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (t?.k === "map") out[k] = x === null ? (zeroValue(t.elem) ?? null) : fillNulls(x, t.elem);
      else out[k] = fillNulls(x, t?.k === "struct" ? t.fields()[k] : undefined);
    }
    return out;
  }
  return v;
}
