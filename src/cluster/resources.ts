/**
 * The resources a policy set is read from in a live cluster (MAPs, bindings, namespaces, Kyverno's
 * and Gatekeeper's policy CRDs, param kinds), their REST paths, and putting back the `apiVersion`
 * and `kind` that list items come without.
 */
import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { ClusterError, getJson } from "./rest.js";

/** A resource to read: `group` "" for the core group. */
export interface WatchedResource {
  readonly group: string;
  readonly version: string;
  /** Plural resource name, e.g. `configmaps`. */
  readonly resource: string;
  /** The kind of the objects (list items come without it); known for the built-in roles. */
  readonly kind?: string;
  /** What the objects are to the evaluator. */
  readonly role: "policy" | "binding" | "namespace" | "param";
  /** Read only when the API server serves the group-version (CRDs that may not be installed). */
  readonly optional?: boolean;
}

export const MAP_RESOURCES: readonly WatchedResource[] = [
  { group: "admissionregistration.k8s.io", version: "v1", resource: "mutatingadmissionpolicies", kind: "MutatingAdmissionPolicy", role: "policy" },
  { group: "admissionregistration.k8s.io", version: "v1", resource: "mutatingadmissionpolicybindings", kind: "MutatingAdmissionPolicyBinding", role: "binding" },
  { group: "", version: "v1", resource: "namespaces", kind: "Namespace", role: "namespace" },
];

/** Kyverno's policy CRDs (policies.kyverno.io), read when served. */
export const KYVERNO_RESOURCES: readonly WatchedResource[] = [
  { group: "policies.kyverno.io", version: "v1", resource: "mutatingpolicies", kind: "MutatingPolicy", role: "policy", optional: true },
  { group: "policies.kyverno.io", version: "v1", resource: "namespacedmutatingpolicies", kind: "NamespacedMutatingPolicy", role: "policy", optional: true },
  { group: "policies.kyverno.io", version: "v1", resource: "policyexceptions", kind: "PolicyException", role: "policy", optional: true },
];

/** Gatekeeper's mutator CRDs (mutations.gatekeeper.sh), read when served. */
export const GATEKEEPER_RESOURCES: readonly WatchedResource[] = [
  { group: "mutations.gatekeeper.sh", version: "v1", resource: "assign", kind: "Assign", role: "policy", optional: true },
  { group: "mutations.gatekeeper.sh", version: "v1", resource: "assignmetadata", kind: "AssignMetadata", role: "policy", optional: true },
  { group: "mutations.gatekeeper.sh", version: "v1", resource: "modifyset", kind: "ModifySet", role: "policy", optional: true },
  { group: "mutations.gatekeeper.sh", version: "v1alpha1", resource: "assignimage", kind: "AssignImage", role: "policy", optional: true },
];

/** The collection path, cluster-wide or in one namespace: `/api/v1/pods`, `/apis/apps/v1/namespaces/ns/deployments`. */
export function resourcePath(r: { readonly group: string; readonly version: string; readonly resource: string }, namespace?: string): string {
  const base = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return namespace === undefined ? `${base}/${r.resource}` : `${base}/namespaces/${encodeURIComponent(namespace)}/${r.resource}`;
}

/** `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(o: KubernetesObject): string {
  const ns = o.metadata?.namespace;
  return `${ns !== undefined && ns !== "" ? `${ns}/` : ""}${o.metadata?.name ?? ""}`;
}

/** List items come without apiVersion/kind: put them back (the loader sorts documents by them). */
export function withTypeMeta(o: KubernetesObject, r: { readonly group: string; readonly version: string; readonly kind?: string }): KubernetesObject {
  if (o.apiVersion !== undefined && o.kind !== undefined) return o;
  return { ...o, apiVersion: o.apiVersion ?? (r.group === "" ? r.version : `${r.group}/${r.version}`), ...(r.kind !== undefined && o.kind === undefined ? { kind: r.kind } : {}) };
}

/**
 * Keeps the optional resources whose group-version the API server serves (404: not installed).
 * Anything but a 404 (network, 5xx) is taken as served when `assumeServed` (the webhook: its
 * informers retry), else rethrown.
 */
export async function probeServed(kc: KubeConfig, resources: readonly WatchedResource[], assumeServed = true): Promise<{ keep: WatchedResource[]; absent: string[] }> {
  const served = new Map<string, Promise<readonly string[] | undefined>>();
  const resourcesOf = (gv: string): Promise<readonly string[] | undefined> => {
    let p = served.get(gv);
    if (p === undefined) {
      p = getJson<{ resources?: { name?: string }[] }>(kc, `/apis/${gv}`).then(
        (l) => (l.resources ?? []).map((r) => r.name ?? ""),
        (e: unknown) => {
          if (e instanceof ClusterError && e.status === 404) return [];
          if (assumeServed) return undefined;
          throw e;
        },
      );
      served.set(gv, p);
    }
    return p;
  };
  const keep: WatchedResource[] = [];
  const absent: string[] = [];
  for (const r of resources) {
    if (r.optional !== true) {
      keep.push(r);
      continue;
    }
    const names = await resourcesOf(`${r.group}/${r.version}`);
    if (names === undefined || names.includes(r.resource)) keep.push(r);
    else absent.push(`${r.group}/${r.version} ${r.resource}`);
  }
  return { keep, absent };
}
