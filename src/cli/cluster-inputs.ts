/**
 * `--kubeconfig` / `--context` for `celmap eval` and `celmap audit`: the policy set installed in a
 * live cluster (src/cluster `readClusterPolicies`) with the local `-f` documents laid over it (a
 * local policy with a cluster policy's name replaces it: a proposed change), and the load options
 * that start the engine from the cluster's custom resource types.
 *
 * src/cluster (and @kubernetes/client-node, seconds to import on a loaded machine) is imported only
 * when a cluster is asked for: `celmap eval` without `--kubeconfig` does not pay for it.
 */
import type { ClusterPolicies } from "../cluster/policies.js";
import type { KubeConfig } from "@kubernetes/client-node";
import type { LoadOptions } from "../engine/index.js";
import type { LoadedDocument } from "../io/load.js";
import type { OptionSpec, ParsedArgs } from "./options.js";

/** Exit code when the cluster cannot be read (unreachable, a list forbidden, a bad kubeconfig). */
export const CLUSTER_EXIT = 4;

export const KUBECONFIG_OPTIONS: readonly OptionSpec[] = [
  {
    name: "kubeconfig",
    type: "string",
    placeholder: "<file>",
    description:
      "Read the installed policy set from this cluster: MutatingAdmissionPolicies and bindings, the param objects of their paramKinds, Namespaces, Kyverno MutatingPolicies and PolicyExceptions, Gatekeeper mutators and the custom resource schemas (/openapi/v3). Needs only list (and discovery) permission. -f files are laid over it: a local object with a cluster object's kind, namespace and name replaces it.",
  },
  { name: "context", type: "string", placeholder: "<name>", description: "The kubeconfig context (default: its current-context)." },
];

export const KUBECONFIG_HELP = `  --kubeconfig reads what the cluster has installed, once, with list requests only (no watch, no write):
  MutatingAdmissionPolicies and their bindings, the objects of every paramKind a policy names, Namespaces
  (so namespaceSelectors see their real labels), Kyverno MutatingPolicies, NamespacedMutatingPolicies and
  PolicyExceptions and Gatekeeper mutators when their CRDs are served, and the custom resource types
  from /openapi/v3 (the apiserver's MAP plugin reads the same). Local -f documents overlay it: a policy,
  binding, param or Namespace with the name of a cluster one replaces it (a proposed change); others are
  added. An unreachable cluster or a forbidden list is exit 4, naming the resource and the API server's words.`;

export interface ClusterInputs {
  readonly kubeConfig: KubeConfig;
  readonly policies: ClusterPolicies;
  /** The cluster's documents with the local ones laid over them. */
  readonly documents: readonly LoadedDocument[];
  /** For `load`: the cluster's custom types; not a closed world (the cluster's params are what it has). */
  readonly loadOptions: LoadOptions;
  /** Lines worth telling on stderr (replaced objects, groups not served). */
  readonly notes: readonly string[];
}

export type ClusterInputsResult = { readonly ok: true; readonly inputs: ClusterInputs } | { readonly ok: false; readonly error: string };

function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === "string" ? v : undefined;
}

/** Whether `--kubeconfig` (or `--context`) was given. */
export function wantsCluster(args: ParsedArgs): boolean {
  return str(args, "kubeconfig") !== undefined || str(args, "context") !== undefined;
}

/** Loads the kubeconfig named by the options (a one-line error when it cannot). */
export async function kubeConfigOf(args: ParsedArgs): Promise<{ ok: true; kc: KubeConfig } | { ok: false; error: string }> {
  const file = str(args, "kubeconfig");
  const context = str(args, "context");
  const { loadKubeConfig } = await import("../cluster/rest.js");
  try {
    return { ok: true, kc: loadKubeConfig({ ...(file !== undefined ? { kubeconfig: file } : {}), ...(context !== undefined ? { context } : {}) }) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** Reads the cluster's policy set and lays `local` over it. */
export async function clusterInputs(args: ParsedArgs, local: readonly LoadedDocument[], options: { readonly policies?: boolean } = {}): Promise<ClusterInputsResult> {
  const k = await kubeConfigOf(args);
  if (!k.ok) return k;
  const { overlay, readClusterPolicies, ClusterReadError } = await import("../cluster/policies.js");
  let policies: ClusterPolicies;
  try {
    policies = await readClusterPolicies(k.kc, options.policies === false ? { policies: false } : {});
  } catch (e) {
    if (e instanceof ClusterReadError) return { ok: false, error: e.message };
    return { ok: false, error: `reading the cluster: ${e instanceof Error ? e.message : String(e)}` };
  }
  const o = overlay(policies.documents, local);
  const notes = [...policies.notes];
  if (o.replaced.length > 0) notes.push(`local -f documents replace the cluster's ${o.replaced.join(", ")}`);
  return {
    ok: true,
    inputs: {
      kubeConfig: k.kc,
      policies,
      documents: o.documents,
      loadOptions: { closedWorld: false, ...(policies.catalog !== undefined ? { catalog: policies.catalog } : {}), ...(policies.schemas !== undefined ? { schemas: policies.schemas } : {}) },
      notes,
    },
  };
}
