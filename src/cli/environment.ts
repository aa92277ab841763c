/**
 * The CEL environment `celmap cel` compiles against: Kubernetes' base CEL
 * environment (`kubernetesBaseEnv()`: the libraries and language options of the
 * apiserver's `environment.MustBaseEnvSet`, in base.go's order), extended with
 * every variable given on the command line, declared `dyn` as the apiserver
 * declares objects that have no schema.
 *
 * Like Kubernetes, it has no `cel.bind`, math or encoders extension and no
 * strings v3+ functions.
 */
import { DYN, type CelType, type Env } from "../cel/index.js";
import { kubernetesBaseEnv } from "../cel/k8s/environment.js";

export function cliEnv(variableNames: Iterable<string>): Env {
  // fromEntries defines own properties, so even a variable named __proto__ is declared.
  const variables: Record<string, CelType> = Object.fromEntries([...variableNames].map((name) => [name, DYN]));
  return kubernetesBaseEnv().extend({ variables });
}
