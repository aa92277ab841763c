/**
 * A one-shot read of the policy set installed in a live cluster, for `celmap eval --kubeconfig`
 * and `celmap audit`: MutatingAdmissionPolicies and bindings, Namespaces, the param objects of the
 * kinds the policies' `paramKind` names, Kyverno MutatingPolicies, NamespacedMutatingPolicies and
 * PolicyExceptions and Gatekeeper mutators (when their CRDs are served), and the custom resource
 * types from `/openapi/v3` (the ResourceCatalog and SchemaRegistry the engine starts from), as the
 * webhook's cluster source reads them (the same resources, paths and OpenAPI reading), without
 * watching. Only `list` (and discovery/OpenAPI `get`) is needed.
 *
 * Local documents overlay the cluster's ({@link overlay}): a local object with the cluster object's
 * group, kind, namespace and name replaces it (a proposed change); others are added.
 */
import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import type { ResourceCatalog } from "../admission/index.js";
import type { SourceRef } from "../diag/source.js";
import type { LoadedDocument } from "../io/load.js";
import type { SchemaRegistry } from "../kube/schema.js";
import { OpenApiTypes } from "./openapi.js";
import { ClusterError, getJsonOr404, listAll, serverOf } from "./rest.js";
import { GATEKEEPER_RESOURCES, KYVERNO_RESOURCES, MAP_RESOURCES, objectKey, probeServed, resourcePath, withTypeMeta, type WatchedResource } from "./resources.js";

export interface ClusterPolicyOptions {
  /** Read Kyverno's policies when served (default true). */
  readonly kyverno?: boolean;
  /** Read Gatekeeper's mutators when served (default true). */
  readonly gatekeeper?: boolean;
  /** Read custom resource schemas from /openapi/v3 (default true). */
  readonly openapi?: boolean;
  /** Read policies, bindings and params (default true); false: Namespaces (and the OpenAPI types) only. */
  readonly policies?: boolean;
}

export interface ClusterPolicies {
  readonly server: string;
  /** Every object read, as documents whose source names the server, resource and object. */
  readonly documents: readonly LoadedDocument[];
  /** The built-ins plus the cluster's custom resources (undefined: `openapi: false`). */
  readonly catalog?: ResourceCatalog;
  readonly schemas?: SchemaRegistry;
  /** Worth telling: groups not served, an API server without /openapi/v3, param kinds not served. */
  readonly notes: readonly string[];
  /** `resource` (group/version/resource) → objects read. */
  readonly counts: ReadonlyMap<string, number>;
}

/** A failed read: which resource, which verb, and the API server's words. */
export class ClusterReadError extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

function gvrText(r: { readonly group: string; readonly version: string; readonly resource: string }): string {
  return r.group === "" ? `${r.version}/${r.resource}` : `${r.group}/${r.version}/${r.resource}`;
}

/** A message for a failed list: `cannot list pods (v1/pods): pods is forbidden: User "x" cannot list resource "pods" …`. */
export function listFailure(r: { readonly group: string; readonly version: string; readonly resource: string }, e: unknown, namespace?: string): string {
  const what = `${r.resource} (${gvrText(r)})${namespace !== undefined ? ` in namespace ${namespace}` : ""}`;
  if (e instanceof ClusterError) {
    if (e.status === 0) return e.message;
    if (e.status === 403) return `cannot list ${what}: forbidden (HTTP 403): ${e.kubeStatus?.message ?? e.message}`;
    return `cannot list ${what}: HTTP ${e.status}: ${e.kubeStatus?.message ?? e.message}`;
  }
  return `cannot list ${what}: ${e instanceof Error ? e.message : String(e)}`;
}

export function documentFor(server: string, r: WatchedResource | { group: string; version: string; resource: string; kind?: string }, o: KubernetesObject): LoadedDocument {
  const source: SourceRef = { file: `cluster ${server} ${r.resource}/${objectKey(o)}`, docIndex: 0 };
  return { value: withTypeMeta(o, r), source, locate: () => undefined };
}

async function list(kc: KubeConfig, r: WatchedResource): Promise<KubernetesObject[]> {
  try {
    return await listAll(kc, resourcePath(r));
  } catch (e) {
    throw new ClusterReadError(listFailure(r, e), e);
  }
}

/** Reads the installed policy set (see the module comment). Rejects with a {@link ClusterReadError} naming what could not be read. */
export async function readClusterPolicies(kc: KubeConfig, options: ClusterPolicyOptions = {}): Promise<ClusterPolicies> {
  const server = serverOf(kc);
  const wanted =
    options.policies === false
      ? MAP_RESOURCES.filter((r) => r.role === "namespace")
      : [...MAP_RESOURCES, ...(options.kyverno === false ? [] : KYVERNO_RESOURCES), ...(options.gatekeeper === false ? [] : GATEKEEPER_RESOURCES)];
  let probed: { keep: WatchedResource[]; absent: string[] };
  try {
    probed = await probeServed(kc, wanted, false);
  } catch (e) {
    throw new ClusterReadError(e instanceof Error ? e.message : String(e), e);
  }
  const notes: string[] = [];
  if (probed.absent.length > 0) notes.push(`not read (the API server does not serve them): ${probed.absent.join(", ")}`);
  const counts = new Map<string, number>();
  const documents: LoadedDocument[] = [];
  const lists = await Promise.all(probed.keep.map(async (r) => ({ r, items: await list(kc, r) })));
  for (const { r, items } of lists) {
    counts.set(gvrText(r), items.length);
    for (const o of items.sort((a, b) => objectKey(a).localeCompare(objectKey(b)))) documents.push(documentFor(server, r, o));
  }

  let catalog: ResourceCatalog | undefined;
  let schemas: SchemaRegistry | undefined;
  if (options.openapi !== false) {
    const types = new OpenApiTypes((path) => getJsonOr404(kc, path));
    await types.refresh();
    const t = types.types();
    if (!t.ok) throw new ClusterReadError(t.errors.join("; "), undefined);
    catalog = t.types.catalog;
    schemas = t.types.schemas;
    if (types.note !== undefined) notes.push(types.note);
  }

  // The param objects: every kind a MAP's paramKind names, cluster-wide.
  const paramKinds = new Map<string, { apiVersion: string; kind: string }>();
  for (const d of documents) {
    const v = d.value as { kind?: string; spec?: { paramKind?: { apiVersion?: string; kind?: string } } };
    const pk = v.spec?.paramKind;
    if (v.kind !== "MutatingAdmissionPolicy" || typeof pk?.apiVersion !== "string" || typeof pk.kind !== "string") continue;
    paramKinds.set(`${pk.apiVersion} ${pk.kind}`, { apiVersion: pk.apiVersion, kind: pk.kind });
  }
  for (const [text, pk] of [...paramKinds].sort(([a], [b]) => a.localeCompare(b))) {
    const slash = pk.apiVersion.indexOf("/");
    const gvk = { group: slash < 0 ? "" : pk.apiVersion.slice(0, slash), version: slash < 0 ? pk.apiVersion : pk.apiVersion.slice(slash + 1), kind: pk.kind };
    const info = catalog?.resourceForKind(gvk);
    if (info === undefined) {
      // The apiserver's plugin: a binding of this policy fails with the paramKind not found (the engine reports it per request).
      notes.push(`paramKind ${text}: not served by the API server; its params are not read`);
      continue;
    }
    const r: WatchedResource = { group: info.gvr.group, version: info.gvr.version, resource: info.gvr.resource, kind: pk.kind, role: "param" };
    if (MAP_RESOURCES.some((m) => m.group === r.group && m.resource === r.resource)) continue;
    const items = await list(kc, r);
    counts.set(gvrText(r), items.length);
    for (const o of items.sort((a, b) => objectKey(a).localeCompare(objectKey(b)))) documents.push(documentFor(server, r, o));
  }
  return { server, documents, ...(catalog !== undefined ? { catalog } : {}), ...(schemas !== undefined ? { schemas } : {}), notes, counts };
}

/** `Kind namespace/name` of a document's object. */
function describe(v: unknown): string {
  const o = v as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  return `${String(o.kind)} ${typeof o.metadata?.namespace === "string" ? `${o.metadata.namespace}/` : ""}${String(o.metadata?.name)}`;
}

/** `group/Kind/namespace/name` of a document's object (the version left out: a v1beta1 local policy replaces the cluster's v1). */
function identity(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const o = v as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  if (typeof o.apiVersion !== "string" || typeof o.kind !== "string" || typeof o.metadata?.name !== "string") return undefined;
  const group = o.apiVersion.includes("/") ? o.apiVersion.slice(0, o.apiVersion.indexOf("/")) : "";
  return `${group}/${o.kind}/${typeof o.metadata.namespace === "string" ? o.metadata.namespace : ""}/${o.metadata.name}`;
}

/**
 * The cluster's documents with the local ones laid over them: a local object with a cluster
 * object's identity (group, kind, namespace, name) replaces it, in its place; the rest are added
 * after. Returns what was replaced too (`Kind namespace/name`, for a note).
 */
export function overlay(cluster: readonly LoadedDocument[], local: readonly LoadedDocument[]): { documents: LoadedDocument[]; replaced: string[] } {
  const localById = new Map<string, LoadedDocument>();
  for (const d of local) {
    const id = identity(d.value);
    if (id !== undefined) localById.set(id, d);
  }
  const replaced: string[] = [];
  const used = new Set<LoadedDocument>();
  const documents: LoadedDocument[] = [];
  for (const d of cluster) {
    const id = identity(d.value);
    const l = id === undefined ? undefined : localById.get(id);
    if (l !== undefined && !used.has(l)) {
      replaced.push(describe(l.value));
      used.add(l);
      documents.push(l);
    } else if (l === undefined) documents.push(d);
  }
  for (const d of local) if (!used.has(d)) documents.push(d);
  return { documents, replaced };
}
