/**
 * celmap's MutatingAdmissionPolicy evaluator: the public API of `src/admission`.
 *
 *     import { evaluate, newAdmissionRequest, policyCompileHook, ResourceCatalog } from "./admission/index.js";
 *     import { collectPolicies } from "./policy/index.js";
 *
 *     const set = collectPolicies(docs, { compileExpression: policyCompileHook });   // 422s at load
 *     const catalog = ResourceCatalog.builtin();
 *     const built = newAdmissionRequest({ operation: "CREATE", object, dryRun: true }, catalog);
 *     if (!built.ok) throw new Error(built.error);
 *     const result = evaluate(built.request, {
 *       policies: set.policies.map((p) => p.object),
 *       bindings: set.bindings.map((b) => b.object),
 *       params: inMemoryParamSource(paramObjects),
 *       namespaces: namespaceObjects,
 *       catalog,                                   // + CRDs: catalog.addCustomResourceDefinition(crd)
 *       schemas,                                   // + CRDs: schemas.addKind(apiVersion, kind, crdSchemaNode(...))
 *       authorizer,                                // optional; default denies every check
 *     });
 *     // result.allowed, result.object, result.patch (RFC 6902), result.status (403/404/500/503), result.trace
 *
 * Pure: no file or network access (no node:fs, node:http, yaml, src/io, src/cli).
 */
export { evaluate, type AdmissionStatus, type DenialSource, type EvaluateContext, type EvaluateOptions, type EvaluateResult } from "./pipeline.js";
export {
  admissionRequestValue,
  dispatchPass,
  type Converter,
  type ConversionResult,
  type Defaulter,
  type DispatchPolicy,
  type DispatchInput,
  type DispatchResult,
  type PolicyError,
  type StatusError,
} from "./dispatch.js";
export {
  compilePolicy,
  policyCompileHook,
  type CompilablePolicy,
  type CompiledExpression,
  type CompiledMatchCondition,
  type CompiledMutation,
  type CompiledPolicy,
} from "./compile.js";
export { ReinvocationState, invocationKey } from "./reinvocation.js";
export { jsonDiff, escapePointerToken, type PatchOperation } from "./diff.js";
export type { InvocationTrace, MatchConditionTrace, MutationErrorKind, MutationOutcome, MutationTrace, PassTrace, Trace } from "./trace.js";
export {
  newAdmissionRequest,
  mapExemption,
  gvkOfObject,
  type AdmissionRequest,
  type Operation,
  type RequestInput,
  type RequestResult,
  type UserInfo,
} from "./request.js";
export {
  buildHooks,
  collectParams,
  formatPolicyError,
  inMemoryParamSource,
  selectInvocations,
  type BindingLike,
  type Invocation,
  type ParamSource,
  type PolicyLike,
} from "./params.js";
export { ResourceCatalog, type GroupVersionKind, type GroupVersionResource, type ResourceScope } from "./match/catalog.js";
export { crdSchemaNode } from "./ssa/crd.js";
export { builtinDefaulter, composeDefaulters, crdDefaulter } from "./defaulting.js";
export { strictTypedDecode, pruneUnknownFields } from "./typed-decode.js";
export type { JsonObject, JsonValue } from "./json.js";
