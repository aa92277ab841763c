/**
 * The Gatekeeper → MutatingAdmissionPolicy translator (for `celmap translate` and the engine);
 * Gatekeeper's own semantics (paths, match, mutators, System) are `src/gatekeeper`.
 *
 *   const t = translate(docs, { apiVersion: "v1", minKubernetes: "1.34", failurePolicy: "Fail",
 *                               webhook: { namespace: "gatekeeper-system", exemptNamespaces: [] } });
 *   // t.policies, t.bindings: plain JSON (print as YAML documents, policies then bindings)
 *   // t.verdicts: per mutator {mutator: "Kind/name", verdict: exact|difference|refused,
 *   //             reasons: [{path: "spec.parameters.assign.externalData", message}], notes, policy}
 *   // t.issues: self-validation failures of the output (empty unless celmap has a bug)
 *   const r = runTranslated(t, object, { namespace: nsObject });   // through the MAP pipeline
 */
// The translator (mutators → MutatingAdmissionPolicies + bindings, with verdicts) and running
// its output through the MAP pipeline: see translate/index.ts for the layout and verdict rules.
export {
  translate,
  interferes,
  locationsInteract,
  type MapApiVersion,
  type TranslateOptions,
  type TranslateResult,
  type Verdict,
  type VerdictKind,
  type VerdictReason,
} from "./translate/index.js";
export { runTranslated, type RunOptions, type RunResult } from "./translate/run.js";
export { checkMutators } from "./check.js";
export { runCaseTranslated } from "./translate/cases.js";
