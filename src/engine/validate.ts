/**
 * The step after admission: kube-apiserver validates the admitted object before storing it (the
 * registry strategy's validation) and answers 422 Invalid when it would not store it. `admit`
 * runs it with `AdmitOptions.validate`; `validateAdmission` is for results that changed after
 * `admit` (eval --engine gatekeeper: Gatekeeper's own mutators run on admit's result).
 */
import { defaultObject, validateStored } from "../validation/index.js";
import type { Admission, PolicySet } from "./types.js";

/**
 * The admission with its validation (and stage) replaced by a validation of its current result;
 * unchanged when it is an error or admission denied it. The object is defaulted first, as the
 * apiserver's defaulting after the last mutation leaves it.
 */
export function validateAdmission(set: PolicySet, a: Admission): Admission {
  if (!a.ok) return a;
  const { validation: _validation, stage: _stage, ...rest } = a;
  if (!a.result.allowed) return { ...rest, stage: "admission" };
  if (a.result.object === null) return rest;
  const validation = validateStored(defaultObject(a.result.object, set.validation), a.request.oldObject, set.validation);
  return { ...rest, validation, ...(validation.ok ? {} : { stage: "validation" as const }) };
}
