/** Server-side-apply merging of MutatingAdmissionPolicy ApplyConfiguration patches. */
export { applyConfiguration, findAtomics, missingSchemaMessage, type ApplyConfigurationError, type ApplyConfigurationOptions, type ApplyConfigurationResult } from "./apply.js";
export { mergeValues } from "./merge.js";
export { formatErrors, typeContext, validate, type FieldError, type TypeContext } from "./typed.js";
export { crdSchemaNode } from "./crd.js";
