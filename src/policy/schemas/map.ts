/** zod schema of `MutatingAdmissionPolicy` (admissionregistration.k8s.io v1alpha1/v1beta1/v1). */
import { z } from "zod";
import { MatchCondition, MatchResources, Mutation, ObjectMeta, ParamKind, Variable, opt } from "./common.js";

export const MutatingAdmissionPolicySpec = z.strictObject({
  paramKind: opt(ParamKind),
  matchConstraints: opt(MatchResources),
  variables: opt(z.array(Variable)),
  mutations: opt(z.array(Mutation)),
  failurePolicy: opt(z.string()),
  matchConditions: opt(z.array(MatchCondition)),
  reinvocationPolicy: opt(z.string()),
});
export type MutatingAdmissionPolicySpec = z.infer<typeof MutatingAdmissionPolicySpec>;

export const MutatingAdmissionPolicy = z.strictObject({
  apiVersion: opt(z.string()),
  kind: opt(z.string()),
  metadata: opt(ObjectMeta),
  spec: opt(MutatingAdmissionPolicySpec),
});
export type MutatingAdmissionPolicy = z.infer<typeof MutatingAdmissionPolicy>;
