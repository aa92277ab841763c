/**
 * Types of objects that passed decoding, defaulting and validation: what the apiserver
 * guarantees about a stored MutatingAdmissionPolicy / binding, so that consumers (matching,
 * dispatch) need not re-check presence or enum values.
 */
import type { LabelSelector, MatchResources, Mutation, ObjectMeta, ParamRef } from "./schemas/common.js";
import type { MutatingAdmissionPolicyBinding, MutatingAdmissionPolicyBindingSpec } from "./schemas/map-binding.js";
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicySpec } from "./schemas/map.js";

export type FailurePolicy = "Fail" | "Ignore";
export type MatchPolicy = "Exact" | "Equivalent";
export type ReinvocationPolicy = "Never" | "IfNeeded";
export type PatchType = "ApplyConfiguration" | "JSONPatch";
export type ParameterNotFoundAction = "Deny" | "Allow";

/** MatchResources after defaulting and validation. */
export type ValidMatchResources = MatchResources & {
  matchPolicy: MatchPolicy;
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
};

/** A mutation: exactly the member named by `patchType`, with a non-blank expression. */
export type ValidMutation =
  | (Mutation & { patchType: "ApplyConfiguration"; applyConfiguration: { expression: string }; jsonPatch?: undefined })
  | (Mutation & { patchType: "JSONPatch"; jsonPatch: { expression: string }; applyConfiguration?: undefined });

export type ValidMutatingAdmissionPolicy = MutatingAdmissionPolicy & {
  metadata: ObjectMeta & { name: string };
  spec: MutatingAdmissionPolicySpec & {
    failurePolicy: FailurePolicy;
    matchConstraints: ValidMatchResources;
    mutations: ValidMutation[];
    reinvocationPolicy: ReinvocationPolicy;
  };
};

export type ValidParamRef = ParamRef & { parameterNotFoundAction: ParameterNotFoundAction };

export type ValidMutatingAdmissionPolicyBinding = MutatingAdmissionPolicyBinding & {
  metadata: ObjectMeta & { name: string };
  spec: MutatingAdmissionPolicyBindingSpec & {
    policyName: string;
    paramRef?: ValidParamRef;
    matchResources?: ValidMatchResources;
  };
};
