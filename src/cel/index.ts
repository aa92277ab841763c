/**
 * celmap's CEL engine: the public surface. Everything else under `src/cel/` is
 * internal and may change without notice.
 *
 *     const env = new Env({ variables: { object: DYN }, libraries: [OPTIONAL_LIBRARY] });
 *     const program = env.program(env.compile("object.metadata.name"));   // throws CelCompileError
 *     program.eval({ object: fromJson(json) });                           // throws CelEvalError
 */
export { Env, type EnvOptions } from "./env.js";
export type { Activation, Program, EvalOptions, CostedResult } from "./planner.js";
export {
  estimateCost,
  checkEstimatedCost,
  costBudgetMessage,
  CelCostLimitError,
  COST_LIMIT_MESSAGE,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
  KUBERNETES_COST_OPTIONS,
  type CostOptions,
  type CostRange,
  type OverloadCost,
  type SizeEstimator,
  type AstNode,
  type EstimateOptions,
} from "./cost.js";
export { withEvalLimits, CelInterruptedError, INTERRUPTED_MESSAGE, INTERRUPT_CHECK_FREQUENCY, type EvalLimits } from "./eval-limits.js";
export { kubernetesCostEstimator, KUBERNETES_STRINGS_COST_LIBRARY } from "./cost-k8s.js";
export type { ParsedExpr, Expr, SourceInfo } from "./ast.js";
export type { CheckedExpr, Reference } from "./checked.js";
export {
  func,
  overload,
  memberOverload,
  type FunctionDecl,
  type OverloadDecl,
  type VariableDecl,
  type Library,
  type MacroSet,
  type TypeProvider,
  type Impl,
} from "./decls.js";
export {
  CelType,
  typeEquals,
  listType,
  mapType,
  optionalType,
  opaqueType,
  messageType,
  typeParam,
  typeType,
  wrapperType,
  DYN,
  NULL_TYPE,
  BOOL,
  INT,
  UINT,
  DOUBLE,
  STRING,
  BYTES,
  TIMESTAMP,
  DURATION,
  TYPE,
  ANY,
  type TypeKind,
} from "./types.js";
export {
  CelUint,
  CelTimestamp,
  CelDuration,
  CelOptional,
  CelObject,
  INT64_MIN,
  INT64_MAX,
  UINT64_MAX,
  isList,
  isMap,
  type CelValue,
  type CelMapKey,
} from "./values.js";
export { CelEvalError, CelCompileError, type CelIssue } from "./errors.js";
export { CelInstantiationError } from "./instantiate.js";
export { celEquals } from "./runtime/equality.js";
export { typeOf } from "./runtime/type-of.js";
export { fromJson, fromJsonLazy, JsonObjectMap, toJson, type JsonValue } from "./runtime/json.js";
export { STANDARD_LIBRARY } from "./std/index.js";
export { OPTIONAL_LIBRARY } from "./ext/optionals.js";
export { TWO_VAR_COMPREHENSIONS_LIBRARY } from "./ext/comprehensions.js";
export { stringsLibrary, KUBERNETES_STRINGS_LIBRARY } from "./ext/strings.js";
export { listsLibrary, KUBERNETES_LISTS_LIBRARY } from "./ext/lists.js";
export { SETS_LIBRARY } from "./ext/sets.js";
export { mathLibrary } from "./ext/math.js";
export { ENCODERS_LIBRARY } from "./ext/encoders.js";
export { LIST_SEMANTICS, listSemantics, withListSemantics, type ListSemantics } from "./values.js";
// The Kubernetes base environment (kube-apiserver 1.36); the admission environments are src/admission/environment.ts.
export { kubernetesBaseEnv, KUBERNETES_BASE_LIBRARIES } from "./k8s/base-env.js";
export {
  ObjectValue,
  OBJECT_TYPE,
  OBJECT_TYPE_NAME,
  objectTypeProvider,
  checkOutputType,
  checkTypeNames,
  typeNameMismatches,
  applyConfigurationJson,
  UnconvertibleValueError,
  type PatchJson,
} from "./k8s/object.js";
export {
  JsonPatchValue,
  JSONPATCH_TYPE,
  JSONPATCH_LIBRARY,
  escapeKey as jsonPatchEscapeKey,
  jsonPatchOperations,
  type JsonPatchOperation,
} from "./k8s/jsonpatch.js";
export { kubernetesValue, escapeName, unescapeName, setList, mapList, type CelSchemaNode } from "./k8s/values.js";
