/**
 * Matching admission requests against MatchResources (policy matchConstraints, binding
 * matchResources), and the resource catalog it relies on. Pure; no CEL.
 */
export * from "./catalog.js";
export { BUILTIN_RESOURCES } from "./builtin-resources.js";
export { listDisplay, resourceNameMismatch, ruleMismatch, type RuleAttributes } from "./rules.js";
export {
  matchBindingResources,
  matchPolicyConstraints,
  matchResourceRules,
  matchResources,
  type MatchContext,
  type MatchError,
  type MatchResult,
} from "./match.js";
