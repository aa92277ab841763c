/**
 * The Kubernetes base CEL environment (k8s.io/apiserver v0.36 `pkg/cel/environment/base.go`,
 * `environment.MustBaseEnvSet(1.36)`): the engine with the Kubernetes libraries and language
 * options, no variables. CRD validation rules compile here; the admission environments
 * (`object`, `request`, `params`, `variables`, ...) build on it in `src/admission/environment.ts`.
 */
import { KUBERNETES_COST_OPTIONS } from "../cost-runtime.js";
import type { Library } from "../decls.js";
import { Env } from "../env.js";
import { OPTIONAL_LIBRARY } from "../ext/optionals.js";
import { TWO_VAR_COMPREHENSIONS_LIBRARY } from "../ext/comprehensions.js";
import { KUBERNETES_LISTS_LIBRARY } from "../ext/lists.js";
import { SETS_LIBRARY } from "../ext/sets.js";
import { KUBERNETES_STRINGS_LIBRARY } from "../ext/strings.js";
import { KUBERNETES_STRINGS_COST_LIBRARY } from "../cost-k8s.js";
import { AUTHZ_LIBRARY, AUTHZ_SELECTORS_LIBRARY } from "./authz.js";
import { CIDR_LIBRARY } from "./cidr.js";
import { FORMAT_LIBRARY } from "./format.js";
import { IP_LIBRARY } from "./ip.js";
import { K8S_LISTS_LIBRARY } from "./lists.js";
import { QUANTITY_LIBRARY } from "./quantity.js";
import { REGEX_LIBRARY } from "./regex.js";
import { SEMVER_LIBRARY } from "./semver.js";
import { URLS_LIBRARY } from "./urls.js";

/** Libraries beyond the standard one, in the order base.go adds them (with the version that introduced them). */
export const KUBERNETES_BASE_LIBRARIES: readonly Library[] = [
  URLS_LIBRARY, // 1.0
  REGEX_LIBRARY, // 1.0
  K8S_LISTS_LIBRARY, // 1.0
  AUTHZ_LIBRARY, // 1.27
  OPTIONAL_LIBRARY, // 1.28 (optional types, optMap/optFlatMap)
  QUANTITY_LIBRARY, // 1.28
  KUBERNETES_STRINGS_LIBRARY, // 1.29, strings v2
  KUBERNETES_STRINGS_COST_LIBRARY, // the run-time costs Kubernetes' estimator adds to the strings extension
  SETS_LIBRARY, // 1.29
  IP_LIBRARY, // 1.30
  CIDR_LIBRARY, // 1.30
  FORMAT_LIBRARY, // 1.31
  AUTHZ_SELECTORS_LIBRARY, // 1.31 (AuthorizeWithSelectors, GA and locked on since 1.34)
  TWO_VAR_COMPREHENSIONS_LIBRARY, // 1.32
  SEMVER_LIBRARY, // 1.33, semver v1
  KUBERNETES_LISTS_LIBRARY, // 1.34, cel-go lists v3 (sortBy)
];

let base: Env | undefined;

/** The 1.36 base environment (cached). */
export function kubernetesBaseEnv(): Env {
  base ??= new Env({
    libraries: KUBERNETES_BASE_LIBRARIES,
    homogeneousAggregateLiterals: true,
    crossTypeNumericComparisons: true,
    validateLiterals: true,
    // has() costs nothing (PresenceTestHasCost(false)); constant folding (OptOptimize).
    cost: KUBERNETES_COST_OPTIONS,
  });
  return base;
}
