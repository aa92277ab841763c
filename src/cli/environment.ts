/**
 * The CEL environment `celmap cel` compiles against: Kubernetes' base CEL
 * environment as far as celmap implements it — the standard library, the
 * Kubernetes libraries and the cel-go extensions Kubernetes enables, in the
 * order its base environment (`k8s.io/apiserver/pkg/cel/environment/base.go`)
 * adds them — with Kubernetes' language options: homogeneous aggregate
 * literals, cross-type numeric comparisons, and compile-time validation of
 * duration/timestamp/regex literals. Every variable given on the command line
 * is declared `dyn`, as the apiserver declares objects that have no schema.
 *
 * Not included, because Kubernetes does not enable them: `cel.bind`
 * (ext.Bindings), the math and encoders extensions, strings v3+.
 */
import { Env, OPTIONAL_LIBRARY, TWO_VAR_COMPREHENSIONS_LIBRARY, DYN, type CelType, type Library } from "../cel/index.js";
import { KUBERNETES_LISTS_LIBRARY } from "../cel/ext/lists.js";
import { SETS_LIBRARY } from "../cel/ext/sets.js";
import { KUBERNETES_STRINGS_LIBRARY } from "../cel/ext/strings.js";
import { AUTHZ_LIBRARY, AUTHZ_SELECTORS_LIBRARY } from "../cel/k8s/authz.js";
import { CIDR_LIBRARY } from "../cel/k8s/cidr.js";
import { IP_LIBRARY } from "../cel/k8s/ip.js";
import { K8S_LISTS_LIBRARY } from "../cel/k8s/lists.js";
import { QUANTITY_LIBRARY } from "../cel/k8s/quantity.js";
import { REGEX_LIBRARY } from "../cel/k8s/regex.js";
import { SEMVER_LIBRARY } from "../cel/k8s/semver.js";

/** Libraries beyond the standard one, in the order Kubernetes' base environment adds them. */
export const EXTENSION_LIBRARIES: readonly Library[] = [
  REGEX_LIBRARY, // 1.0
  K8S_LISTS_LIBRARY, // 1.0
  AUTHZ_LIBRARY, // 1.27
  OPTIONAL_LIBRARY, // 1.28
  QUANTITY_LIBRARY, // 1.28
  KUBERNETES_STRINGS_LIBRARY, // strings v2, 1.29
  SETS_LIBRARY, // 1.29
  IP_LIBRARY, // 1.30
  CIDR_LIBRARY, // 1.30
  AUTHZ_SELECTORS_LIBRARY, // 1.31
  TWO_VAR_COMPREHENSIONS_LIBRARY, // 1.32
  SEMVER_LIBRARY, // semver v1, 1.33
  KUBERNETES_LISTS_LIBRARY, // cel-go ext lists v3, 1.34
];

export function cliEnv(variableNames: Iterable<string>): Env {
  // fromEntries defines own properties, so even a variable named __proto__ is declared.
  const variables: Record<string, CelType> = Object.fromEntries([...variableNames].map((name) => [name, DYN]));
  return new Env({
    variables,
    libraries: EXTENSION_LIBRARIES,
    homogeneousAggregateLiterals: true,
    crossTypeNumericComparisons: true,
    validateLiterals: true,
  });
}
