/**
 * zod schemas for the types MutatingAdmissionPolicy and its binding share
 * (`k8s.io/api/admissionregistration/v1`, identical in v1alpha1 and v1beta1 — map.md §1.1)
 * and for `metav1.ObjectMeta` / `metav1.LabelSelector`.
 *
 * The schemas describe what the apiserver's strict JSON *decoder* accepts, not what is valid:
 *
 * - every object is strict: an unknown field is a decoding error (`unknown field "spec.foo"`);
 * - every field is optional and `null` means absent (Go decodes `null` into a zero value);
 * - enum-like fields are plain strings: a wrong value such as `patchType: Merge` decodes fine
 *   and is rejected later by validation with the apiserver's NotSupported message.
 *
 * Validation (required fields, enums, name syntax, ...) is in `../validate.ts`.
 */
import { z } from "zod";

/** An optional field; `null` decodes as absent. */
export function opt<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === null ? undefined : v), schema.optional());
}

/** Go integer fields accept JSON integers (numbers or, from the CEL number mode, bigints). */
export const Int = z.union([z.int(), z.bigint()]);

const StringList = z.array(z.string());
const StringMap = z.record(z.string(), z.string());

export const LabelSelectorRequirement = z.strictObject({
  key: opt(z.string()),
  operator: opt(z.string()),
  values: opt(StringList),
});
export type LabelSelectorRequirement = z.infer<typeof LabelSelectorRequirement>;

export const LabelSelector = z.strictObject({
  matchLabels: opt(StringMap),
  matchExpressions: opt(z.array(LabelSelectorRequirement)),
});
export type LabelSelector = z.infer<typeof LabelSelector>;

const OwnerReference = z.strictObject({
  apiVersion: opt(z.string()),
  kind: opt(z.string()),
  name: opt(z.string()),
  uid: opt(z.string()),
  controller: opt(z.boolean()),
  blockOwnerDeletion: opt(z.boolean()),
});

const ManagedFieldsEntry = z.strictObject({
  manager: opt(z.string()),
  operation: opt(z.string()),
  apiVersion: opt(z.string()),
  time: opt(z.string()),
  fieldsType: opt(z.string()),
  fieldsV1: opt(z.record(z.string(), z.unknown())),
  subresource: opt(z.string()),
});

/** `metav1.ObjectMeta` (all fields, as the strict decoder knows them). */
export const ObjectMeta = z.strictObject({
  name: opt(z.string()),
  generateName: opt(z.string()),
  namespace: opt(z.string()),
  selfLink: opt(z.string()),
  uid: opt(z.string()),
  resourceVersion: opt(z.string()),
  generation: opt(Int),
  creationTimestamp: opt(z.string()),
  deletionTimestamp: opt(z.string()),
  deletionGracePeriodSeconds: opt(Int),
  labels: opt(StringMap),
  annotations: opt(StringMap),
  ownerReferences: opt(z.array(OwnerReference)),
  finalizers: opt(StringList),
  managedFields: opt(z.array(ManagedFieldsEntry)),
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

/** `NamedRuleWithOperations` (a `RuleWithOperations` plus `resourceNames`). */
export const NamedRuleWithOperations = z.strictObject({
  resourceNames: opt(StringList),
  operations: opt(StringList),
  apiGroups: opt(StringList),
  apiVersions: opt(StringList),
  resources: opt(StringList),
  scope: opt(z.string()),
});
export type NamedRuleWithOperations = z.infer<typeof NamedRuleWithOperations>;

/** `MatchResources` (policy `spec.matchConstraints`, binding `spec.matchResources`). */
export const MatchResources = z.strictObject({
  namespaceSelector: opt(LabelSelector),
  objectSelector: opt(LabelSelector),
  resourceRules: opt(z.array(NamedRuleWithOperations)),
  excludeResourceRules: opt(z.array(NamedRuleWithOperations)),
  matchPolicy: opt(z.string()),
});
export type MatchResources = z.infer<typeof MatchResources>;

export const ParamKind = z.strictObject({
  apiVersion: opt(z.string()),
  kind: opt(z.string()),
});
export type ParamKind = z.infer<typeof ParamKind>;

export const ParamRef = z.strictObject({
  name: opt(z.string()),
  namespace: opt(z.string()),
  selector: opt(LabelSelector),
  parameterNotFoundAction: opt(z.string()),
});
export type ParamRef = z.infer<typeof ParamRef>;

export const Variable = z.strictObject({
  name: opt(z.string()),
  expression: opt(z.string()),
});
export type Variable = z.infer<typeof Variable>;

export const MatchCondition = z.strictObject({
  name: opt(z.string()),
  expression: opt(z.string()),
});
export type MatchCondition = z.infer<typeof MatchCondition>;

export const ApplyConfiguration = z.strictObject({ expression: opt(z.string()) });
export type ApplyConfiguration = z.infer<typeof ApplyConfiguration>;

export const JSONPatch = z.strictObject({ expression: opt(z.string()) });
export type JSONPatch = z.infer<typeof JSONPatch>;

export const Mutation = z.strictObject({
  patchType: opt(z.string()),
  applyConfiguration: opt(ApplyConfiguration),
  jsonPatch: opt(JSONPatch),
});
export type Mutation = z.infer<typeof Mutation>;

/** The API group of both kinds. */
export const GROUP = "admissionregistration.k8s.io";
/** Versions that serve MutatingAdmissionPolicy in kube-apiserver 1.36 (map.md §1.1). */
export const VERSIONS = ["v1alpha1", "v1beta1", "v1"] as const;
export type ApiVersionName = (typeof VERSIONS)[number];
