/**
 * How the Kubernetes cost estimator (`k8s.io/apiserver/pkg/cel/library/cost.go`)
 * charges the functions of the Kubernetes CEL libraries, recorded per overload
 * id for the cost work to consume. Each library file exports a table of these.
 *
 * Notation (cel-go `common` constants): `StringTraversalCostFactor` = 0.1,
 * `RegexStringLengthCostFactor` = 0.25. "size" is the CEL size of a value
 * (characters of a string, bytes of bytes, elements of a list).
 */
export interface K8sCallCost {
  /** Runtime cost (`CallCost`) from the actual arguments. */
  readonly runtime: string;
  /** Compile-time estimate (`EstimateCallCost`) from size estimates. */
  readonly estimate: string;
}

export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

/** Both phases charge exactly 1. */
export const CONSTANT_1: K8sCallCost = { runtime: "constant 1", estimate: "constant 1 (min 1, max 1)" };
