/**
 * Gatekeeper mutators (`mutations.gatekeeper.sh` Assign, AssignMetadata, ModifySet,
 * AssignImage) with Gatekeeper v3.23.0's exact semantics: location paths, validation,
 * match criteria, the mutators themselves and the System's ordered fixpoint loop.
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
export { mutate, System, type MutateOptions, type MutateResult } from "./system.js";
export { compareObjects, loadCases, runCase, type CaseOutcome, type GatekeeperCase } from "./cases.js";
