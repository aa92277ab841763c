/**
 * Gatekeeper mutators (`mutations.gatekeeper.sh` Assign, AssignMetadata, ModifySet,
 * AssignImage) with Gatekeeper v3.23.0's exact semantics: location paths, validation,
 * match criteria, the mutators themselves and the System's ordered fixpoint loop.
 *
 *   const r = compileMutator(doc);               // CRD schema + Gatekeeper's MutatorFor* checks
 *   if (!r.ok) report(r.issues);                 // [{path, message, code}], Gatekeeper's words
 *   const out = mutate(pod, [r.mutator], { namespace: nsObject });
 *   // out: {object, changed, iterations, applied: ["Assign//name:1"], error?, conflicts}
 *
 * Translating to MAP (for `celmap translate`):
 *
 *   const t = translate(docs, { apiVersion: "v1", minKubernetes: "1.34", failurePolicy: "Fail",
 *                               webhook: { namespace: "gatekeeper-system", exemptNamespaces: [] } });
 *   // t.policies, t.bindings: plain JSON (print as YAML documents, policies then bindings)
 *   // t.verdicts: per mutator {mutator: "Kind/name", verdict: exact|difference|refused,
 *   //             reasons: [{path: "spec.parameters.assign.externalData", message}], notes, policy}
 *   // t.issues: self-validation failures of the output (empty unless celmap has a bug)
 *   const r = runTranslated(t, object, { namespace: nsObject });   // through the MAP pipeline
 *
 * Nothing here reads files or mutates its inputs. Numbers follow Go's decoding: whole numbers
 * in objects and ModifySet values are int64, every number in an Assign `value` is float64
 * (so `80` there never equals an object's `80`). External data needs a resolver
 * (`MutateOptions.externalData`); without one a placeholder fails the request.
 */
export { formatPath, printPath } from "../../gatekeeper/path/print.js";
export {
  parsePath,
  pathEqual,
  tryParsePath,
  PathParseError,
  type ListNode,
  type ObjectNode,
  type Path,
  type PathNode,
} from "../../gatekeeper/path/parser.js";
export { Tester, type Condition, type PathTest } from "../../gatekeeper/path/tester.js";
export {
  compileMutator,
  idString,
  type AssignImageMutator,
  type AssignMetadataMutator,
  type AssignMutator,
  type Binding,
  type CompileResult,
  type ModifySetMutator,
  type Mutator,
  type MutatorID,
  type MutatorIssue,
  type IssueCode,
} from "../../gatekeeper/mutators/index.js";
export { decodeResource, GROUP, SERVED_VERSIONS, type MutatorKind } from "../../gatekeeper/types.js";
export {
  appliesTo,
  matches,
  wildcardMatches,
  wildcardMatchesGenerateName,
  type Matchable,
  type Operation,
  type Source,
} from "../../gatekeeper/match.js";
export { mutateImage, parseImage, validateImageParts, type ImageRef } from "../../gatekeeper/image.js";
export { SchemaDB, conflictMessage } from "../../gatekeeper/schema.js";
export { mutate, System, type ExternalDataResponse, type MutateOptions, type MutateResult } from "../../gatekeeper/system.js";
export {
  compareObjects,
  isReferenceCase,
  loadCases,
  runCase,
  runCaseFile,
  type CaseFileReport,
  type CaseOutcome,
  type GatekeeperCase,
} from "../../gatekeeper/cases.js";
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
