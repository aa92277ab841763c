/**
 * The admission request as plain data: what `admission.Attributes` / `admissionv1.AdmissionRequest`
 * carry, in the shape the MAP evaluator needs. Pure; no CEL.
 *
 * `kind` / `resource` / `subResource` are the request's own (the version the client used).
 * `requestKind` / `requestResource` / `requestSubResource` are the same values: they differ
 * only in the AdmissionRequest that a *matched* policy sees after `matchPolicy: Equivalent`
 * chose another version, and that view is built per invocation from the match result.
 *
 * Building a request from an object ({@link newAdmissionRequest}) derives the resource from the
 * object's GVK through a {@link ResourceCatalog} (built-ins from the 1.36 OpenAPI, CRDs with their
 * own plural), the scope, and the namespace as the apiserver's request-info parser would see it:
 * - namespaced resources: `metadata.namespace`, else `defaultNamespace` (kubectl's `default`);
 * - cluster-scoped resources: `""` — except the `namespaces` resource itself, whose requests
 *   addressed to an existing object (UPDATE, CONNECT, any subresource) carry the namespace's own
 *   name as namespace (`/api/v1/namespaces/{name}`), while CREATE (`POST /api/v1/namespaces`)
 *   has `""` (apiserver `pkg/endpoints/request/requestinfo.go`).
 */
import type { JsonObject } from "./json.js";
import {
  groupVersionString,
  guessResourceForKind,
  parseGroupVersion,
  type GroupVersionKind,
  type GroupVersionResource,
  type ResourceCatalog,
  type ResourceScope,
} from "./match/catalog.js";

export type { GroupVersionKind, GroupVersionResource, ResourceScope } from "./match/catalog.js";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
export const OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

export interface UserInfo {
  readonly username: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  /** `""` when the request is for the resource itself. */
  readonly subResource: string;
  readonly requestKind: GroupVersionKind;
  readonly requestResource: GroupVersionResource;
  readonly requestSubResource: string;
  /** `""` for a CREATE that relies on `generateName`. */
  readonly name: string;
  /** `""` for cluster-scoped resources (but see the `namespaces` rule above). */
  readonly namespace: string;
  readonly operation: Operation;
  readonly userInfo: UserInfo;
  /** CREATE/UPDATE: the new object; CONNECT: the options object; DELETE: null. */
  readonly object: JsonObject | null;
  /** UPDATE/DELETE: the existing object; otherwise null. */
  readonly oldObject: JsonObject | null;
  readonly dryRun: boolean;
  /** CreateOptions / UpdateOptions / ... as sent (meta.k8s.io/v1). */
  readonly options: JsonObject | null;
}

/** The core `namespaces` resource (rules.go `namespaceResource`). */
export const NAMESPACE_RESOURCE: GroupVersionResource = { group: "", version: "v1", resource: "namespaces" };

export function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === "" && r.version === "v1" && r.resource === "namespaces";
}

/** The GVK an object declares (`apiVersion`, `kind`), or an error for a malformed apiVersion. */
export function gvkOfObject(obj: JsonObject): GroupVersionKind | { error: string } {
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  const kind = typeof obj.kind === "string" ? obj.kind : "";
  const gv = parseGroupVersion(apiVersion);
  if ("error" in gv) return gv;
  return { group: gv.group, version: gv.version, kind };
}

function metaString(obj: JsonObject | null | undefined, field: string): string | undefined {
  const md = obj?.metadata;
  if (typeof md !== "object" || md === null || Array.isArray(md)) return undefined;
  const v = (md as JsonObject)[field];
  return typeof v === "string" ? v : undefined;
}

/** The labels of an object (`metadata.labels`), `undefined` when it has none. */
export function objectLabels(obj: JsonObject | null | undefined): Readonly<Record<string, string>> | undefined {
  const md = obj?.metadata;
  if (typeof md !== "object" || md === null || Array.isArray(md)) return undefined;
  const labels = (md as JsonObject).labels;
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

/** The resource of a kind: the catalog's, else the plural guessed from the kind (scope unknown). */
export function resourceForKind(
  gvk: GroupVersionKind,
  catalog: ResourceCatalog,
): { gvr: GroupVersionResource; scope: ResourceScope | undefined } {
  const info = catalog.resourceForKind(gvk);
  if (info !== undefined) return { gvr: info.gvr, scope: info.scope };
  return { gvr: { group: gvk.group, version: gvk.version, resource: guessResourceForKind(gvk.kind) }, scope: undefined };
}

// ---------------------------------------------------------------------------------------------
// Exemptions (map.md §8; apiserver generic/plugin.go, kubernetes pkg/kubeapiserver/admission/exclusion)

/** Operations the MAP plugin handles (`admission.NewHandler(Create, Update, Connect)`). */
export const MAP_OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "CONNECT"];

/** Non-persisted resources no admission policy ever sees (`exclusion.Excluded()`), as group/resource. */
export const EXCLUDED_RESOURCES: readonly string[] = [
  "authentication.k8s.io/selfsubjectreviews",
  "authentication.k8s.io/tokenreviews",
  "authorization.k8s.io/localsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
  "authorization.k8s.io/subjectaccessreviews",
];

/** Policy resources API-created policies never apply to (`admissionResources`; any version). */
export const ADMISSION_POLICY_RESOURCES: readonly string[] = [
  "admissionregistration.k8s.io/validatingadmissionpolicies",
  "admissionregistration.k8s.io/validatingadmissionpolicybindings",
  "admissionregistration.k8s.io/mutatingadmissionpolicies",
  "admissionregistration.k8s.io/mutatingadmissionpolicybindings",
];

/**
 * Non-persisted resources that policies do see (`exclusion.Included()`), group/resource with the
 * subresource, for reference. Webhook configurations are *not* exempt from MAP.
 */
export const INCLUDED_NON_PERSISTED_RESOURCES: readonly string[] = [
  "/bindings",
  "/pods/attach",
  "/pods/binding",
  "/pods/eviction",
  "/pods/exec",
  "/pods/portforward",
  "/serviceaccounts/token",
];

export interface Exemption {
  readonly exempt: boolean;
  /** Why MAP does not look at the request (for the trace), or `""`. */
  readonly reason: string;
}

/**
 * Whether MutatingAdmissionPolicies are skipped for the request as a whole: an operation other
 * than CREATE/UPDATE/CONNECT, an excluded review resource, or a policy/binding resource (API
 * policies; static-manifest policies are not modelled). The group/resource is compared without
 * version and subresource, as `GroupResource()` is.
 */
export function mapExemption(req: Pick<AdmissionRequest, "operation" | "resource">): Exemption {
  if (!MAP_OPERATIONS.includes(req.operation)) {
    return { exempt: true, reason: `operation ${req.operation} is never handled by MutatingAdmissionPolicy (only CREATE, UPDATE, CONNECT)` };
  }
  const gr = `${req.resource.group}/${req.resource.resource}`;
  if (EXCLUDED_RESOURCES.includes(gr)) {
    return { exempt: true, reason: `resource ${gr} is excluded from all admission policies` };
  }
  if (ADMISSION_POLICY_RESOURCES.includes(gr)) {
    return { exempt: true, reason: `resource ${gr} is an admission policy resource, which API-created policies never apply to` };
  }
  return { exempt: false, reason: "" };
}

// ---------------------------------------------------------------------------------------------
// Building a request

export interface RequestInput {
  readonly operation: Operation;
  /** New object (CREATE/UPDATE) or options object (CONNECT). */
  readonly object?: JsonObject | null;
  readonly oldObject?: JsonObject | null;
  /** Default: the GVK of `object` (or `oldObject`); required for CONNECT with a subresource. */
  readonly kind?: GroupVersionKind;
  /** Default: from the kind through the catalog. */
  readonly resource?: GroupVersionResource;
  readonly subResource?: string;
  /** Default: `metadata.name` of object / oldObject. */
  readonly name?: string;
  /** Default: see the module comment. */
  readonly namespace?: string;
  /** For namespaced resources whose object has no `metadata.namespace`. Default `default`. */
  readonly defaultNamespace?: string;
  readonly userInfo?: Partial<UserInfo>;
  readonly dryRun?: boolean;
  /** Default: `{apiVersion: meta.k8s.io/v1, kind: CreateOptions|UpdateOptions}` (+ `dryRun: [All]`). */
  readonly options?: JsonObject | null;
  readonly uid?: string;
}

export type RequestResult =
  | { readonly ok: true; readonly request: AdmissionRequest; readonly scope: ResourceScope | undefined }
  | { readonly ok: false; readonly error: string };

const OPTIONS_KIND: Readonly<Record<Operation, string>> = {
  CREATE: "CreateOptions",
  UPDATE: "UpdateOptions",
  DELETE: "DeleteOptions",
  CONNECT: "",
};

/** Builds an {@link AdmissionRequest} from objects, deriving what is not given. */
export function newAdmissionRequest(input: RequestInput, catalog: ResourceCatalog): RequestResult {
  const object = input.object ?? null;
  const oldObject = input.oldObject ?? null;
  if (!OPERATIONS.includes(input.operation)) return { ok: false, error: `unknown operation ${JSON.stringify(input.operation)}` };
  let kind = input.kind;
  if (kind === undefined) {
    const source = object ?? oldObject;
    if (source === null) return { ok: false, error: "a request needs an object, an oldObject or an explicit kind" };
    const k = gvkOfObject(source);
    if ("error" in k) return { ok: false, error: k.error };
    if (k.version === "" || k.kind === "") return { ok: false, error: "object has no apiVersion or kind" };
    kind = k;
  }
  const subResource = input.subResource ?? "";
  let resource = input.resource;
  let scope: ResourceScope | undefined;
  if (resource === undefined) {
    const r = resourceForKind(kind, catalog);
    resource = r.gvr;
    scope = r.scope;
  } else {
    scope = catalog.lookup(resource)?.scope;
  }
  const name = input.name ?? metaString(object, "name") ?? metaString(oldObject, "name") ?? "";
  let namespace = input.namespace;
  if (namespace === undefined) {
    if (isNamespaceResource(resource)) {
      namespace = input.operation === "CREATE" && subResource === "" ? "" : name;
    } else if (scope === "Cluster") {
      namespace = "";
    } else {
      const own = metaString(object, "namespace") ?? metaString(oldObject, "namespace");
      namespace = own !== undefined && own !== "" ? own : scope === "Namespaced" ? (input.defaultNamespace ?? "default") : "";
    }
  }
  const dryRun = input.dryRun ?? false;
  let options: JsonObject | null;
  if (input.options !== undefined) options = input.options;
  else if (OPTIONS_KIND[input.operation] === "") options = null;
  else {
    options = { apiVersion: "meta.k8s.io/v1", kind: OPTIONS_KIND[input.operation] };
    if (dryRun) options.dryRun = ["All"];
  }
  const userInfo: UserInfo = {
    username: input.userInfo?.username ?? "",
    uid: input.userInfo?.uid ?? "",
    groups: input.userInfo?.groups ?? [],
    extra: input.userInfo?.extra ?? {},
  };
  const request: AdmissionRequest = {
    uid: input.uid ?? "",
    kind,
    resource,
    subResource,
    requestKind: kind,
    requestResource: resource,
    requestSubResource: subResource,
    name,
    namespace,
    operation: input.operation,
    userInfo,
    object,
    oldObject,
    dryRun,
    options,
  };
  return { ok: true, request, scope };
}

/** `apps/v1 Deployment` style display of a kind, for traces. */
export function gvkDisplay(k: GroupVersionKind): string {
  return `${groupVersionString(k.group, k.version)} ${k.kind}`;
}
