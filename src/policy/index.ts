/**
 * MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding: zod schemas and types,
 * strict decoding, the apiserver's defaulting and validation. Pure: receives parsed
 * documents (with their SourceRef), never reads files.
 *
 * The pipeline is the apiserver's create path:
 *
 *   decode (strict; 400)  →  normalise (namespace cleared, generateName)  →  default  →  validate (422)
 *
 * Typical use, at the edge:
 *
 *   const { documents, errors } = loadPaths(["policies/"]);              // src/io
 *   const set = collectPolicies(documents, { compileExpression });       // here
 *   for (const f of set.failures) console.error(f.message);              // apiserver wording
 *   // or per error, with position: renderFieldError(e, doc.locate(e.path))  (src/diag)
 *
 * `compileExpression` is the CEL hook (see `validate.ts`): it receives each expression with
 * the environment the apiserver would compile it in and returns `{type, detail}` issues,
 * e.g. `{type: "Invalid", detail: "compilation failed: " + celCompileError.message}`.
 */
export * from "./schemas/common.js";
export * from "./schemas/map.js";
export * from "./schemas/map-binding.js";
export {
  BINDING_KIND,
  MAP_KIND,
  decodeMutatingAdmissionPolicy,
  decodeMutatingAdmissionPolicyBinding,
  isPolicyDocument,
  mapApiVersion,
  type DecodeResult,
  type PolicyKind,
} from "./decode.js";
export { defaultMatchResources, defaultMutatingAdmissionPolicy, defaultMutatingAdmissionPolicyBinding } from "./defaults.js";
export {
  validateMatchResources,
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateMutatingAdmissionPolicyUpdate,
  validateObjectMeta,
  validateParamKind,
  validateParamRef,
  type CompileExpression,
  type CompileExpressionRequest,
  type ExpressionIssue,
  type ExpressionKind,
  type ValidateOptions,
} from "./validate.js";
export { validateLabelSelector, validateLabels } from "./label-selector.js";
export {
  CEL_RESERVED,
  isCELIdentifier,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
} from "./names.js";
export {
  GENERATED_NAME_SUFFIX,
  prepareMutatingAdmissionPolicy,
  prepareMutatingAdmissionPolicyBinding,
  type PrepareOptions,
  type PrepareResult,
} from "./prepare.js";
export { collectPolicies, type PolicyFailure, type PolicySet, type Prepared, type SourcedDocument } from "./collect.js";
export type {
  FailurePolicy,
  MatchPolicy,
  ParameterNotFoundAction,
  PatchType,
  ReinvocationPolicy,
  ValidMatchResources,
  ValidMutatingAdmissionPolicy,
  ValidMutatingAdmissionPolicyBinding,
  ValidMutation,
  ValidParamRef,
} from "./valid-types.js";
