/**
 * Gatekeeper mutators (`mutations.gatekeeper.sh` Assign, AssignMetadata, ModifySet,
 * AssignImage) with Gatekeeper v3.23.0's exact semantics: location paths, validation,
 * match criteria, the mutators themselves and the System's ordered fixpoint loop. Other folders
 * import this dialect only through this file; the translator to MAP is `src/translate/gatekeeper`.
 *
 *   const r = compileMutator(doc);               // CRD schema + Gatekeeper's MutatorFor* checks
 *   if (!r.ok) report(r.issues);                 // [{path, message, code}], Gatekeeper's words
 *   const out = mutate(pod, [r.mutator], { namespace: nsObject });
 *   // out: {object, changed, iterations, applied: ["Assign//name:1"], error?, conflicts}
 *
 * Nothing here reads files or mutates its inputs. Numbers follow Go's decoding: whole numbers
 * in objects and ModifySet values are int64, every number in an Assign `value` is float64
 * (so `80` there never equals an object's `80`). External data needs a resolver
 * (`MutateOptions.externalData`); without one a placeholder fails the request.
 */
export { formatPath, printPath } from "./path/print.js";
export {
  parsePath,
  pathEqual,
  tryParsePath,
  PathParseError,
  type ListNode,
  type ObjectNode,
  type Path,
  type PathNode,
} from "./path/parser.js";
export { Tester, type Condition, type PathTest } from "./path/tester.js";
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
} from "./mutators/index.js";
export { decodeResource, GROUP, SERVED_VERSIONS, type MutatorKind } from "./types.js";
export {
  appliesTo,
  matches,
  wildcardMatches,
  wildcardMatchesGenerateName,
  type Matchable,
  type Operation,
  type Source,
} from "./match.js";
export { mutateImage, parseImage, validateImageParts, type ImageRef } from "./image.js";
export { SchemaDB, conflictMessage } from "./schema.js";
export { mutate, System, type ExternalDataResponse, type MutateOptions, type MutateResult } from "./system.js";
export {
  compareObjects,
  isReferenceCase,
  loadCases,
  runCase,
  runCaseFile,
  type CaseFileReport,
  type CaseOutcome,
  type GatekeeperCase,
} from "./cases.js";
// What the translator (src/translate/gatekeeper) builds on: Go value model, traversal, selectors,
// the mutators' shared checks.
export * from "./value.js";
export * from "./core.js";
export * from "./labels.js";
export * from "./mutators/common.js";
export * from "./path/parser.js";
export * from "./path/tester.js";
export * from "./path/print.js";
export * from "./mutators/index.js";
export * from "./types.js";
export * from "./match.js";
export * from "./image.js";
export * from "./schema.js";
export * from "./system.js";
export * from "./cases.js";
