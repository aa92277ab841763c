/** zod schema of `MutatingAdmissionPolicyBinding` (admissionregistration.k8s.io v1alpha1/v1beta1/v1). */
import { z } from "zod";
import { MatchResources, ObjectMeta, ParamRef, opt } from "./common.js";

export const MutatingAdmissionPolicyBindingSpec = z.strictObject({
  policyName: opt(z.string()),
  paramRef: opt(ParamRef),
  matchResources: opt(MatchResources),
});
export type MutatingAdmissionPolicyBindingSpec = z.infer<typeof MutatingAdmissionPolicyBindingSpec>;

export const MutatingAdmissionPolicyBinding = z.strictObject({
  apiVersion: opt(z.string()),
  kind: opt(z.string()),
  metadata: opt(ObjectMeta),
  spec: opt(MutatingAdmissionPolicyBindingSpec),
});
export type MutatingAdmissionPolicyBinding = z.infer<typeof MutatingAdmissionPolicyBinding>;
