/** celmap as a library. For now: the CEL engine's public surface (see src/cel/index.ts). */
export * from "./cel/index.js";
// The Kubernetes admission environments (kube-apiserver 1.36) and MutatingAdmissionPolicy types.
export {
  kubernetesEnv,
  compileExpression,
  compileVariables,
  LazyVariables,
  APPLY_CONFIGURATION_TYPE,
  JSON_PATCH_LIST_TYPE,
  ADMISSION_REQUEST_TYPE,
  NAMESPACE_TYPE,
  VARIABLES_TYPE,
  type KubernetesEnvKind,
  type KubernetesEnvOptions,
  type CompileResult,
  type CompiledVariable,
  type DeclaredVariable,
  type VariableSource,
} from "./admission/environment.js";
