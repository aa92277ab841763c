/**
 * Defaulting exactly as kube-apiserver 1.36 applies it after decoding
 * (`pkg/apis/admissionregistration/{v1,v1beta1,v1alpha1}/defaults.go`):
 *
 * | field | default | versions |
 * |---|---|---|
 * | policy `spec.failurePolicy` | `Fail` | all |
 * | `MatchResources.matchPolicy` (policy matchConstraints, binding matchResources, when present) | `Equivalent` | all |
 * | `MatchResources.namespaceSelector` / `objectSelector` | `{}` | all |
 * | `resourceRules[].scope`, `excludeResourceRules[].scope` | `*` | all |
 * | binding `spec.paramRef.parameterNotFoundAction` (when paramRef is present) | `Deny` | **v1alpha1 only** |
 *
 * Only absent fields (Go nil pointers) are defaulted: an explicit empty string stays and is
 * rejected by validation. `reinvocationPolicy` has no default (it is required).
 * Functions return new objects; their input is never changed.
 */
import type { ApiVersionName, MatchResources, NamedRuleWithOperations } from "./schemas/common.js";
import type { MutatingAdmissionPolicyBinding } from "./schemas/map-binding.js";
import type { MutatingAdmissionPolicy } from "./schemas/map.js";

function defaultRule(r: NamedRuleWithOperations): NamedRuleWithOperations {
  return r.scope === undefined ? { ...r, scope: "*" } : { ...r };
}

/** `SetDefaults_MatchResources` plus `SetDefaults_Rule` on every rule. */
export function defaultMatchResources(m: MatchResources): MatchResources {
  const out: MatchResources = { ...m };
  if (out.matchPolicy === undefined) out.matchPolicy = "Equivalent";
  if (out.namespaceSelector === undefined) out.namespaceSelector = {};
  if (out.objectSelector === undefined) out.objectSelector = {};
  if (out.resourceRules !== undefined) out.resourceRules = out.resourceRules.map(defaultRule);
  if (out.excludeResourceRules !== undefined) out.excludeResourceRules = out.excludeResourceRules.map(defaultRule);
  return out;
}

export function defaultMutatingAdmissionPolicy(p: MutatingAdmissionPolicy, _version: ApiVersionName): MutatingAdmissionPolicy {
  const spec = { ...(p.spec ?? {}) };
  if (spec.failurePolicy === undefined) spec.failurePolicy = "Fail";
  if (spec.matchConstraints !== undefined) spec.matchConstraints = defaultMatchResources(spec.matchConstraints);
  return { ...p, spec };
}

export function defaultMutatingAdmissionPolicyBinding(
  b: MutatingAdmissionPolicyBinding,
  version: ApiVersionName,
): MutatingAdmissionPolicyBinding {
  const spec = { ...(b.spec ?? {}) };
  if (spec.matchResources !== undefined) spec.matchResources = defaultMatchResources(spec.matchResources);
  if (version === "v1alpha1" && spec.paramRef !== undefined && spec.paramRef.parameterNotFoundAction === undefined) {
    spec.paramRef = { ...spec.paramRef, parameterNotFoundAction: "Deny" };
  }
  return { ...b, spec };
}
