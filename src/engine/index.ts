/**
 * The engine: the one composition of celmap's layers that every entry point uses (`celmap eval`,
 * `test`, `conformance`, `webhook`, `translate`, `bench/`, and whatever comes next: a linter, a
 * browser playground, a cluster audit). Pure: no files, no HTTP, no Node built-ins; documents come
 * in parsed, with their source.
 *
 *     import { admit, load, errorText } from "../engine/index.js";
 *
 *     const { policySet, errors, warnings } = load(documents, { closedWorld: true });
 *     if (errors.length > 0) throw new Error(errors.map(errorText).join("\n"));   // file#doc: field: message
 *     // Compiled once; admit as many requests as you like against it.
 *     const a = admit(policySet, { operation: "CREATE", object: pod });           // as `kubectl create` sends it
 *     // or, in a webhook: admit(policySet, { review: admissionRequest })          // as the apiserver sends it
 *     if (!a.ok) console.error(a.error.message);
 *     else if (!a.result.allowed) console.log("denied:", a.result.status!.message);
 *     else console.log(a.result.object, a.result.patch);                         // + a.result.trace
 *
 * - `load(documents, options) -> { policySet, errors, warnings }` sorts documents by kind
 *   (load.ts): MAPs and bindings validated and compiled, CRDs, Namespaces, params, Kyverno
 *   MutatingPolicies, PolicyExceptions and CLI Context, Gatekeeper mutators translated to MAPs.
 * - `admit(policySet, request, options) -> Admission` (admit.ts): the bare-namespace rule
 *   (namespace.ts), the defaulting decision (full built-in and CRD defaulting, src/validation), the
 *   Kyverno webhook stage, `evaluate` (with version conversion for `matchPolicy: Equivalent`) and,
 *   with `validate`, the apiserver's validation before storage (`stage: "validation"` when it would
 *   answer 422 Invalid; validate.ts).
 * - Errors carry a `kind` (`input` | `internal`): classify by it, never by message text.
 */
export { load, objectProblem, isGatekeeperMutator } from "./load.js";
export { admit, kyvernoContext, unknownKind } from "./admit.js";
export { validateAdmission } from "./validate.js";
export { bareNamespace, namespaceLookup, storedNamespace } from "./namespace.js";
export { errorText } from "./errors.js";
export type {
  Admission,
  AdmitOptions,
  AdmitRequest,
  EngineDocument,
  EngineError,
  EngineErrorKind,
  KyvernoInputs,
  LoadOptions,
  LoadResult,
  ObjectRequest,
  PolicySet,
  RejectionStage,
  ReviewRequest,
} from "./types.js";
