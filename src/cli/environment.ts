/**
 * The CEL environment `celmap cel` compiles against: the standard library plus
 * the extension libraries Kubernetes enables that celmap implements, with
 * Kubernetes' language options (homogeneous aggregate literals, cross-type
 * numeric comparisons). Every variable given on the command line is declared
 * `dyn`, as the apiserver declares objects that have no schema.
 *
 * Not included, because Kubernetes does not enable them: `cel.bind` (ext.Bindings),
 * math and encoders extensions, strings v3+.
 */
import { Env, OPTIONAL_LIBRARY, TWO_VAR_COMPREHENSIONS_LIBRARY, DYN, type CelType, type Library } from "../cel/index.js";
import { KUBERNETES_LISTS_LIBRARY } from "../cel/ext/lists.js";
import { SETS_LIBRARY } from "../cel/ext/sets.js";
import { KUBERNETES_STRINGS_LIBRARY } from "../cel/ext/strings.js";

/** Extension libraries, in the order Kubernetes' base environment adds them. */
export const EXTENSION_LIBRARIES: readonly Library[] = [
  KUBERNETES_LISTS_LIBRARY,
  OPTIONAL_LIBRARY,
  KUBERNETES_STRINGS_LIBRARY,
  SETS_LIBRARY,
  TWO_VAR_COMPREHENSIONS_LIBRARY,
];

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
