/**
 * The object kube-apiserver would store after admission: defaulting, validation with the
 * apiserver's 422 messages, and version conversion across the versions of a CRD. Layered above
 * `src/kube`, `src/cel` and `src/admission`, below the engine; pure (no files, no network).
 * What is validated and what is not: docs/validation.md.
 */
export {
  coerceObject,
  crdConverter,
  defaultObject,
  requestDefaulter,
  storedObject,
  gvkOf,
  invalidStatus,
  validateStored,
  validationContext,
  type InvalidStatus,
  type StatusCause,
  type StoredResult,
  type ValidationContext,
} from "./stored.js";
export { KIND_DEFAULTS, defaultBuiltin, hasBuiltinDefaults, type KindDefaults } from "./defaults.js";
export { crdInfo, type CrdInfo } from "./crd/crd.js";
