/**
 * The CEL environments `celmap cel` compiles against, and the values their
 * admission variables take when no file binds them.
 *
 * - `base`: Kubernetes' base CEL environment (`kubernetesBaseEnv()`: the
 *   libraries and language options of the apiserver's
 *   `environment.MustBaseEnvSet`, in base.go's order). No variables.
 * - `mutation`, `variables`, `match`: the MutatingAdmissionPolicy environments
 *   of `kubernetesEnv()`, with the admission variables (`object`, `oldObject`,
 *   `request`, `namespaceObject`, `authorizer`, and `params`/`variables` where
 *   they apply) declared with the apiserver's types.
 *
 * Every other variable given on the command line is declared `dyn`, as the
 * apiserver declares objects that have no schema. Like Kubernetes, no
 * environment has `cel.bind`, the math or encoders extensions, or strings v3+.
 */
import { DYN, type CelType, type CelValue, type Env } from "../cel/index.js";
import { OFFLINE_AUTHORIZER, authorizerBindings } from "../cel/k8s/authz.js";
import { LazyVariables, kubernetesEnv, type KubernetesEnvKind } from "../admission/environment.js";
import type { CelSchemaNode } from "../cel/k8s/values.js";

/** The `--env` values, in the order help and error messages list them. */
export const ENV_KINDS: readonly KubernetesEnvKind[] = ["base", "mutation", "variables", "match"];

export interface CliEnvOptions {
  /** Default `base`. */
  readonly kind?: KubernetesEnvKind;
  /** Whether `params` is declared, as for a policy with a paramKind. */
  readonly hasParams?: boolean;
  /** Strict Object mode (mutation only): `Object.<path>` types resolve against this schema. */
  readonly objectSchema?: CelSchemaNode;
}

/** The environment of `kind`, plus every name in `variableNames` it does not declare, as `dyn`. */
export function cliEnv(variableNames: Iterable<string>, options: CliEnvOptions = {}): Env {
  const kind = options.kind ?? "base";
  const env = kubernetesEnv({
    kind,
    hasParams: options.hasParams === true,
    ...(options.objectSchema === undefined ? {} : { objectSchema: options.objectSchema }),
  });
  const extra = [...variableNames].filter((name) => !env.variables.has(name));
  if (extra.length === 0) return env;
  // fromEntries defines own properties, so even a variable named __proto__ is declared.
  const variables: Record<string, CelType> = Object.fromEntries(extra.map((name) => [name, DYN]));
  return env.extend({ variables });
}

/**
 * Values of the admission variables nobody bound: `oldObject`, `namespaceObject`
 * and `params` null (a CREATE of a cluster-scoped object), an offline authorizer
 * that answers every check with no opinion, an empty `variables`. `object` and
 * `request` stay unbound: reading them is an error.
 */
export function defaultBindings(kind: KubernetesEnvKind, hasParams: boolean): Record<string, CelValue> {
  if (kind === "base") return {};
  const out: Record<string, CelValue> = {
    oldObject: null,
    namespaceObject: null,
    ...authorizerBindings(undefined, OFFLINE_AUTHORIZER, { group: "", resource: "", subresource: "", namespace: "", name: "" }),
  };
  if (hasParams) out["params"] = null;
  if (kind !== "match") out["variables"] = new LazyVariables([], out);
  return out;
}
