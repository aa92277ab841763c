/**
 * Offline providers for the Kyverno libraries that read the outside world:
 * in-memory data (callers load it from files) and a clear CEL error when a
 * call asks for data that was not given.
 *
 * ## Providers are synchronous — how webhook mode backs them
 *
 * CEL evaluation cannot await. A webhook that wants live data has two options,
 * both built on these classes:
 *
 * 1. **Synchronous caches** (what `celmap webhook` does with the cluster source:
 *    `src/webhook/live.ts`, and `src/webhook/kyverno-http.ts` for HTTP). Keep informer-style caches (watched lists of the
 *    GVRs policies read, GlobalContextEntry data, an image-metadata LRU) and
 *    implement the provider interfaces over them. `resource.Get/List` then read
 *    the cache; misses that the cache can prove (a watched GVR without the
 *    object) are `null` / empty lists.
 * 2. **Evaluate, prefetch, re-evaluate.** Build the offline providers with
 *    `missing: "pending"`: a call without data throws {@link DataPendingError}
 *    (not a CEL error: `||`/`&&` do not absorb it, the evaluation aborts) that
 *    lists the requests. The webhook performs them asynchronously (API server,
 *    registry, HTTP), records the answers (`addObject`, `markAbsent`, `setList`,
 *    `setResponse`, `setImage`, `setEntry`) and evaluates the same program
 *    again, until it completes (bound the rounds: each round can only add
 *    requests whose arguments depend on earlier answers). Evaluation is pure
 *    apart from providers, `random()` and `time.now()`, so re-running is safe;
 *    `http.Post`/`resource.Post` are not idempotent, so record their responses
 *    and never re-send. Reuse one set of providers per admission request so
 *    every expression of the policy sees the same answers.
 */
import { fromJson, type JsonValue } from "../../cel/runtime/json.js";
import type { CelValue } from "../../cel/values.js";
import { DataPendingError, ProviderError, describeRequest, fromGoJson, goJsonMarshal, type DataRequest, type JsonObject } from "./common.js";
import type { GlobalContextProvider } from "./globalcontext.js";
import type { HttpProvider } from "./http.js";
import type { ImageDataProvider } from "./imagedata.js";
import type { GroupVersionResource, ResourceProvider } from "./resource.js";

/**
 * What a call without data does:
 * - `"error"`: a CEL error naming the call and `hint` (the brief's default for files);
 * - `"null"`: what Kyverno's CLI fake does (`resource.Get` → null, `globalContext.Get` → null);
 * - `"pending"`: throw {@link DataPendingError} (webhook prefetching, see above);
 * - `"null-if-kind-known"` (resources only; the default): `null` when the data holds
 *   objects of that resource type (so absence is meaningful), else `"error"`.
 */
export type MissingDataMode = "error" | "null" | "pending" | "null-if-kind-known";

function missing(request: DataRequest, hint: string | undefined, mode: "error" | "pending", what: string): never {
  if (mode === "pending") throw new DataPendingError([request]);
  throw new ProviderError(`${describeRequest(request)}: ${what}${hint === undefined || hint === "" ? "" : ` (${hint})`}`);
}

// ---------------------------------------------------------------------------
// Resources

/** apimachinery `meta.UnsafeGuessKindToResource`: `Ingress` → `ingresses`, `Policy` → `policies`, `Pod` → `pods`. */
export function guessResource(kind: string): string {
  const s = kind.toLowerCase();
  if (s === "") return s;
  if (s.endsWith("s")) return `${s}es`;
  if (s.endsWith("y")) return `${s.slice(0, -1)}ies`;
  return `${s}s`;
}

/** `schema.ParseGroupVersion`: "" → core; "v1" → core v1; "apps/v1"; more than one slash is an error. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  throw new ProviderError(`unexpected GroupVersion string: ${apiVersion}`, "BadRequest");
}

/** A kind's REST mapping, for objects whose resource name is not the guessed plural. */
export interface ResourceMapping {
  readonly apiVersion: string;
  readonly kind: string;
  readonly resource: string;
  /** Default true. */
  readonly namespaced?: boolean;
}

export interface OfflineResourceOptions {
  /** Kubernetes objects (`apiVersion`, `kind`, `metadata.name`, `metadata.namespace`). */
  readonly objects?: readonly JsonObject[];
  /** Mappings beyond the guessed plural (CRDs with irregular plurals). */
  readonly mappings?: readonly ResourceMapping[];
  /** Default `"null-if-kind-known"`. */
  readonly missing?: MissingDataMode;
  /** Appended to "no such resource in the offline data", e.g. `give it with --cluster-resources`. */
  readonly hint?: string;
  /** Answers `resource.Post`; absent: an error (Kyverno's CLI fake does not implement Post either). */
  readonly post?: (apiVersion: string, resource: string, namespace: string, data: JsonObject) => JsonObject;
}

const key = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`;

/**
 * Cluster resources from in-memory objects. Semantics of the live API where they
 * differ from Kyverno's CLI fake (documented deviations): `List` with namespace ""
 * lists every namespace (the fake: only cluster-scoped objects); the label
 * selector is applied (the fake ignores it); items come sorted by namespace and
 * name (the fake: Go map order); the list is `{apiVersion, kind: <Kind>List,
 * metadata: {}, items}` (the fake: `{items}` only); `ToGVR` answers from the
 * mappings (the fake panics). `Get` of `x/status` returns the object.
 */
export class OfflineResourceProvider implements ResourceProvider {
  /** gvr key → namespace → name → object */
  private readonly store = new Map<string, Map<string, Map<string, JsonObject>>>();
  private readonly absent = new Set<string>();
  private readonly lists = new Map<string, JsonObject>();
  private readonly kinds = new Map<string, ResourceMapping>();
  private readonly mode: MissingDataMode;

  constructor(private readonly options: OfflineResourceOptions = {}) {
    this.mode = options.missing ?? "null-if-kind-known";
    for (const m of options.mappings ?? []) this.kinds.set(`${m.apiVersion}/${m.kind}`, m);
    for (const o of options.objects ?? []) this.addObject(o);
  }

  /** The resource (plural) of a kind: an explicit mapping, else the guessed plural. */
  resourceOf(apiVersion: string, kind: string): string {
    return this.kinds.get(`${apiVersion}/${kind}`)?.resource ?? guessResource(kind);
  }

  /** Adds (or replaces) an object; lists returned by `setList` are not affected. */
  addObject(obj: JsonObject): void {
    const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
    const kind = typeof obj.kind === "string" ? obj.kind : "";
    const meta = (obj.metadata ?? {}) as JsonObject;
    const name = typeof meta.name === "string" ? meta.name : "";
    const namespace = typeof meta.namespace === "string" ? meta.namespace : "";
    const { group, version } = parseGroupVersion(apiVersion);
    const k = key(group, version, this.resourceOf(apiVersion, kind));
    let byNs = this.store.get(k);
    if (byNs === undefined) this.store.set(k, (byNs = new Map()));
    let byName = byNs.get(namespace);
    if (byName === undefined) byNs.set(namespace, (byName = new Map()));
    byName.set(name, obj);
  }

  /** Records that an object does not exist (a prefetched 404): `Get` is then null in every mode. */
  markAbsent(apiVersion: string, resource: string, namespace: string, name: string): void {
    const { group, version } = parseGroupVersion(apiVersion);
    this.absent.add(`${key(group, version, resource)}/${namespace}/${name}`);
  }

  /** Records the exact answer of one `List` call (prefetched from a live cluster). */
  setList(apiVersion: string, resource: string, namespace: string, labels: Readonly<Record<string, string>> | undefined, list: JsonObject): void {
    this.lists.set(listKey(apiVersion, resource, namespace, labels), list);
  }

  getResource(apiVersion: string, resource: string, namespace: string, name: string): JsonObject | null {
    const { group, version } = parseGroupVersion(apiVersion);
    const [base, ...sub] = resource.split("/");
    const k = key(group, version, base!);
    const byNs = this.store.get(k);
    const obj = byNs?.get(namespace)?.get(name);
    if (obj !== undefined && (sub.length === 0 || sub[0] === "status")) return obj;
    if (this.absent.has(`${k}/${namespace}/${name}`)) return null;
    const request: DataRequest = { kind: "resource.get", apiVersion, resource, namespace, name };
    const mode = this.mode === "null-if-kind-known" ? (byNs !== undefined && sub.length === 0 ? "null" : "error") : this.mode;
    if (mode === "null") return null;
    return missing(request, this.options.hint, mode, "no such resource in the offline data");
  }

  listResources(apiVersion: string, resource: string, namespace: string, labels: Readonly<Record<string, string>> | undefined): JsonObject {
    const recorded = this.lists.get(listKey(apiVersion, resource, namespace, labels));
    if (recorded !== undefined) return recorded;
    const { group, version } = parseGroupVersion(apiVersion);
    const byNs = this.store.get(key(group, version, resource));
    if (byNs === undefined) {
      const request: DataRequest = { kind: "resource.list", apiVersion, resource, namespace, ...(labels === undefined ? {} : { labels }) };
      const mode = this.mode === "null-if-kind-known" ? "error" : this.mode;
      if (mode !== "null") missing(request, this.options.hint, mode, "no objects of this resource in the offline data");
    }
    const items: JsonObject[] = [];
    const namespaces = namespace === "" ? [...(byNs?.keys() ?? [])].sort() : [namespace];
    for (const ns of namespaces) {
      const byName = byNs?.get(ns);
      if (byName === undefined) continue;
      for (const name of [...byName.keys()].sort()) {
        const obj = byName.get(name)!;
        if (labels !== undefined && !labelsMatch(obj, labels)) continue;
        items.push(obj);
      }
    }
    const kind = items.length > 0 && typeof items[0]!.kind === "string" ? `${items[0]!.kind}List` : "List";
    return { apiVersion, kind, metadata: {}, items };
  }

  postResource(apiVersion: string, resource: string, namespace: string, data: JsonObject): JsonObject {
    if (this.options.post !== undefined) return this.options.post(apiVersion, resource, namespace, data);
    const request: DataRequest = { kind: "resource.post", apiVersion, resource, namespace, data };
    return missing(request, this.options.hint, this.mode === "pending" ? "pending" : "error", "resource.Post is not available offline");
  }

  toGVR(apiVersion: string, kind: string): GroupVersionResource {
    const { group, version } = parseGroupVersion(apiVersion);
    const m = this.kinds.get(`${apiVersion}/${kind}`);
    if (m !== undefined) return { group, version, resource: m.resource };
    for (const k of this.store.keys()) {
      const [g, v, r] = k.split("/");
      if (g === group && v === version && r === guessResource(kind)) return { group, version, resource: r };
    }
    return { group, version, resource: guessResource(kind) };
  }
}

function listKey(apiVersion: string, resource: string, namespace: string, labels: Readonly<Record<string, string>> | undefined): string {
  const l = labels === undefined ? "" : Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join(",");
  return `${apiVersion}|${resource}|${namespace}|${l}`;
}

function labelsMatch(obj: JsonObject, selector: Readonly<Record<string, string>>): boolean {
  const labels = ((obj.metadata ?? {}) as JsonObject).labels as JsonObject | undefined;
  for (const [k, v] of Object.entries(selector)) {
    if (labels?.[k] !== v) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// HTTP

/** One canned response: the value returned to CEL (Kyverno's CLI mocks: `{body, statusCode}`). */
export interface HttpMock {
  /** `GET`, `POST` or absent (any method). */
  readonly method?: "GET" | "POST";
  readonly url: string;
  readonly response: JsonValue;
}

export interface OfflineHttpOptions {
  readonly mocks?: readonly HttpMock[];
  /** Default `"error"`; `"null"` is not meaningful for HTTP and reads as `"error"`. */
  readonly missing?: "error" | "pending";
  /** e.g. `give it with --http-responses`. */
  readonly hint?: string;
}

/**
 * HTTP answered from mocks, looked up as Kyverno's CLI does (`findMockResponse`):
 * `METHOD:url` first, then `url`. The mock value is returned as given — the CLI
 * returns `{body: <mock body>, statusCode: <code or 200>}`, use
 * {@link kyvernoCliHttpMock} to build that shape. `Client(ca)` keeps the mocks.
 * Unlike Kyverno's CLI, an unmocked URL is never fetched: it is an error.
 */
export class OfflineHttpProvider implements HttpProvider {
  private readonly responses = new Map<string, JsonValue>();
  constructor(private readonly options: OfflineHttpOptions = {}) {
    for (const m of options.mocks ?? []) this.setResponse(m.method, m.url, m.response);
  }

  setResponse(method: "GET" | "POST" | undefined, url: string, response: JsonValue): void {
    this.responses.set(method === undefined ? url : `${method}:${url}`, response);
  }

  private find(method: "GET" | "POST", url: string, request: DataRequest): unknown {
    const r = this.responses.get(`${method}:${url}`) ?? this.responses.get(url);
    if (r !== undefined) return r;
    return missing(request, this.options.hint, this.options.missing === "pending" ? "pending" : "error", "no response for this URL in the offline data");
  }

  get(url: string, headers: Readonly<Record<string, string>>): unknown {
    return this.find("GET", url, { kind: "http", method: "GET", url, headers });
  }

  post(url: string, body: unknown, headers: Readonly<Record<string, string>>): unknown {
    return this.find("POST", url, { kind: "http", method: "POST", url, headers, body: JSON.parse(goJsonMarshal(body)) as JsonValue });
  }

  client(caBundle: string): HttpProvider {
    if (caBundle !== "" && !/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(caBundle)) {
      throw new ProviderError("failed to parse PEM CA bundle for APICall");
    }
    return this;
  }
}

/** The value Kyverno's CLI returns for an `apiCallResponses[]` mock: `{body, statusCode}` (status default 200). */
export function kyvernoCliHttpMock(body: JsonValue, statusCode = 200): JsonValue {
  return { body, statusCode };
}

/** The value the live library returns for a response: an object body gets `statusCode`; anything else is `{body, statusCode}`. */
export function liveHttpResult(body: JsonValue, statusCode: number): JsonValue {
  if (body !== null && typeof body === "object" && !Array.isArray(body)) return { ...body, statusCode };
  return { body, statusCode };
}

// ---------------------------------------------------------------------------
// Global context

export interface GlobalContextEntryData {
  readonly name: string;
  /** The entry's data (after its JMESPath `fieldPath`, if the caller applied one). */
  readonly data: JsonValue;
  /** Projection name → value (after its JMESPath path). */
  readonly projections?: Readonly<Record<string, JsonValue>>;
}

export interface OfflineGlobalContextOptions {
  readonly entries?: readonly GlobalContextEntryData[];
  /** Default `"null"` (as Kyverno: a missing entry is null). */
  readonly missing?: "null" | "error" | "pending";
  readonly hint?: string;
}

/**
 * Global context entries from memory. As the controller: a missing entry is
 * `null`; a missing projection is an error (`projection "p" not found in global
 * context entry "e"`). Data that looks like a Kubernetes object (`apiVersion`
 * and `kind`) is unstructured (integers `int`), other data Go-decoded JSON
 * (numbers `double`) — see {@link globalContextValue}.
 */
export class OfflineGlobalContextProvider implements GlobalContextProvider {
  private readonly entries = new Map<string, GlobalContextEntryData>();
  constructor(private readonly options: OfflineGlobalContextOptions = {}) {
    for (const e of options.entries ?? []) this.setEntry(e);
  }

  setEntry(entry: GlobalContextEntryData): void {
    this.entries.set(entry.name, entry);
  }

  getGlobalReference(name: string, projection: string): CelValue {
    const e = this.entries.get(name);
    if (e === undefined) {
      const mode = this.options.missing ?? "null";
      if (mode === "null") return null;
      return missing({ kind: "globalContext", name, projection }, this.options.hint, mode, "no such global context entry in the offline data");
    }
    if (projection === "") return globalContextValue(e.data);
    const projections = e.projections ?? (isJsonObject(e.data) ? e.data : undefined);
    if (projections === undefined) throw new ProviderError(`projection ${JSON.stringify(projection)} not found in global context entry ${JSON.stringify(name)}: stored value is not an object`);
    if (!Object.prototype.hasOwnProperty.call(projections, projection)) {
      throw new ProviderError(`projection ${JSON.stringify(projection)} not found in global context entry ${JSON.stringify(name)}`);
    }
    return globalContextValue(projections[projection]!);
  }
}

function isJsonObject(v: JsonValue): v is { [k: string]: JsonValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Kyverno's conversion of an entry's data: Kubernetes-object-like maps as unstructured data, the rest as decoded JSON. */
export function globalContextValue(data: JsonValue): CelValue {
  if (isJsonObject(data) && "apiVersion" in data && "kind" in data) return fromJson(data);
  return fromGoJson(data);
}

// ---------------------------------------------------------------------------
// Image data

export interface OfflineImageDataOptions {
  /** Image descriptors: `image` is the exact reference string looked up. */
  readonly images?: readonly JsonObject[];
  readonly missing?: "error" | "pending";
  readonly hint?: string;
}

/**
 * Image metadata from memory, keyed by the **exact** reference string (as
 * Kyverno's CLI context file `spec.images[].image`). A missing image is the
 * CLI's error `image data for <ref> not found in the context`.
 */
export class OfflineImageDataProvider implements ImageDataProvider {
  private readonly images = new Map<string, JsonObject>();
  constructor(private readonly options: OfflineImageDataOptions = {}) {
    for (const i of options.images ?? []) this.setImage(i);
  }

  setImage(data: JsonObject): void {
    if (typeof data.image !== "string") throw new Error("image data needs an `image` string");
    this.images.set(data.image, data);
  }

  getImageData(image: string): JsonObject {
    const d = this.images.get(image);
    if (d !== undefined) return d;
    if (this.options.missing === "pending") throw new DataPendingError([{ kind: "imagedata", image }]);
    const hint = this.options.hint;
    throw new ProviderError(`image data for ${image} not found in the context${hint === undefined || hint === "" ? "" : ` (${hint})`}`);
  }
}

