/**
 * Live providers for Kyverno's CEL libraries in webhook mode with the cluster source
 * (`--kubeconfig`, `--in-cluster`). The admission pipeline is synchronous, so every provider
 * answers synchronously:
 *
 * - `resource.Get/List/ToGVR` from **informer caches** (list + watch, client-node) of the
 *   GroupVersionResources the loaded MutatingPolicies name as literals
 *   (`providers-scan.ts`). When a policy set loads, the new GVRs are checked against discovery
 *   (served? plural, kind, scope) and their informers started; the set is handed to the store once
 *   their first lists are in (at most `dataSyncTimeoutMs`). A call whose GVR is not known
 *   statically, not served, not listed yet or not readable fails with a CEL error naming the call
 *   and why, never a silent null. Kyverno's own provider does a live GET/LIST per call (kyverno
 *   v1.19 `pkg/cel/libs/context.go` `GetResource`/`ListResources` through the dynamic client);
 *   a cache answers the same, up to the watch lag. `resource.Post` is not supported (an error).
 * - `http.Get/Post` through {@link SyncHttpProvider} (a worker thread, `Atomics.wait`), each call
 *   bounded by the admission request's deadline ({@link LiveKyvernoProviders.during}).
 * - `globalContext.Get` from Kyverno `GlobalContextEntry` objects (kyverno.io/v2beta1, the
 *   version Kyverno 1.19's controller watches; v2 and v2alpha1 are served too) of the
 *   `kubernetesResource` kind: the entry's data is the list of its resource's objects (in its
 *   `namespace`, or all), as Kyverno's `k8sresource` entry returns it, from an informer. A missing
 *   entry is `null` (as Kyverno). `apiCall` entries and projections (JMESPath) are errors.
 * - `image.GetMetadata`: not fetched from registries (an error naming the image).
 */
import { makeInformer, type Informer, type KubeConfig, type KubernetesObject, type ObjectCache } from "@kubernetes/client-node";
import { fromJson } from "../cel/runtime/json.js";
import type { CelValue } from "../cel/values.js";
import { type KyvernoProviders, ProviderError, describeRequest, type DataRequest, type JsonObject, type ProviderErrorReason, type GlobalContextProvider, type GroupVersionResource, type ResourceProvider, OfflineImageDataProvider, parseGroupVersion, policyExpressions, scanResourceCalls, type ResourceScan } from "../kyverno/index.js";
import { SyncHttpProvider, type SyncHttpOptions } from "./kyverno-http.js";

/** What an informer list or discovery GET failed with. */
export interface FetchError {
  readonly status?: number;
  readonly message: string;
}

export interface LiveProviderOptions {
  /** HTTP calls: blocklist, allowlist, per-call timeout, response cap (the deadline is the request's). */
  readonly http?: Omit<SyncHttpOptions, "remainingMs">;
  /** How long a policy load waits for the first lists of newly used resources. Default 10 s. */
  readonly dataSyncTimeoutMs?: number;
  /** Watch GlobalContextEntries (kyverno.io/v2beta1) when served. Default true. */
  readonly globalContext?: boolean;
}

/** GET of a JSON document (raw), rejecting with `{status}` on an HTTP error. */
export type GetJson = (path: string) => Promise<unknown>;

interface ApiResource {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

type Cache = Informer<KubernetesObject> & ObjectCache<KubernetesObject>;

type CacheState =
  | { readonly state: "syncing" }
  | { readonly state: "synced" }
  | { readonly state: "failed"; readonly message: string; readonly reason: ProviderErrorReason }
  | { readonly state: "not-served"; readonly message: string };

/** One watched resource type (cluster-wide). */
class DataCache {
  state: CacheState = { state: "syncing" };
  inf: Cache | undefined;
  firstList: Promise<void> = Promise.resolve();
  constructor(
    readonly group: string,
    readonly version: string,
    readonly resource: string,
    public kind: string,
    public namespaced: boolean,
  ) {}
  get apiVersion(): string {
    return this.group === "" ? this.version : `${this.group}/${this.version}`;
  }
  get path(): string {
    return this.group === "" ? `/api/${this.version}/${this.resource}` : `/apis/${this.group}/${this.version}/${this.resource}`;
  }
  /** The cached objects (with apiVersion and kind, as the dynamic client returns them), sorted by namespace and name. */
  objects(namespace: string): JsonObject[] {
    const out: JsonObject[] = [];
    for (const o of this.inf?.list() ?? []) {
      const ns = o.metadata?.namespace ?? "";
      if (namespace !== "" && ns !== namespace) continue;
      out.push(this.#typed(o));
    }
    return out.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  }
  get(namespace: string, name: string): JsonObject | null {
    for (const o of this.inf?.list() ?? []) {
      if ((o.metadata?.namespace ?? "") === namespace && o.metadata?.name === name) return this.#typed(o);
    }
    return null;
  }
  #typed(o: KubernetesObject): JsonObject {
    const j = o as unknown as JsonObject;
    if (typeof j.apiVersion === "string" && typeof j.kind === "string") return j;
    return { ...j, apiVersion: this.apiVersion, kind: this.kind };
  }
}

function keyOf(o: JsonObject): string {
  const m = (o.metadata ?? {}) as JsonObject;
  return `${typeof m.namespace === "string" ? m.namespace : ""}\0${typeof m.name === "string" ? m.name : ""}`;
}

const reasonOf = (status: number | undefined): ProviderErrorReason => (status === 403 ? "Forbidden" : status === 401 ? "Unauthorized" : status === 404 ? "NotFound" : "Other");

const GCE = { group: "kyverno.io", version: "v2beta1", resource: "globalcontextentries", kind: "GlobalContextEntry" };

/**
 * The live providers of one cluster source (one object for its lifetime: compiled programs are
 * cached per providers object, see `compileMutatingPolicy`).
 */
export class LiveKyvernoProviders {
  readonly providers: KyvernoProviders;
  readonly #kc: KubeConfig;
  readonly #getJson: GetJson;
  readonly #syncTimeoutMs: number;
  readonly #caches = new Map<string, DataCache>();
  /** group/version → its resources (undefined: not served), one discovery GET each. */
  readonly #discovery = new Map<string, Promise<readonly ApiResource[] | undefined>>();
  /** "apiVersion kind" → plural, from discovery, for `ToGVR`. */
  readonly #kinds = new Map<string, { resource: string } | { error: string }>();
  #gce: DataCache | undefined;
  #gceEnabled: boolean;
  #closed = false;
  readonly #http: SyncHttpProvider;
  /** The current admission request's deadline (performance.now() ms) and clock, while `during` runs. */
  #deadline: { at: number; now: () => number } | undefined;
  /** The last scan (for errors about calls whose GVR was not found statically). */
  #dynamicCalls: readonly string[] = [];

  constructor(kc: KubeConfig, getJson: GetJson, options: LiveProviderOptions = {}) {
    this.#kc = kc;
    this.#getJson = getJson;
    this.#syncTimeoutMs = options.dataSyncTimeoutMs ?? 10_000;
    this.#gceEnabled = options.globalContext !== false;
    this.#http = new SyncHttpProvider({
      ...(options.http ?? {}),
      remainingMs: () => (this.#deadline === undefined ? undefined : this.#deadline.at - this.#deadline.now()),
    });
    const resource: ResourceProvider = {
      getResource: (apiVersion, res, namespace, name) => this.#get(apiVersion, res, namespace, name),
      listResources: (apiVersion, res, namespace, labels) => this.#list(apiVersion, res, namespace, labels),
      postResource: (apiVersion, res, namespace) => {
        throw new ProviderError(`${describeRequest({ kind: "resource.post", apiVersion, resource: res, namespace, data: null })}: not supported by celmap's webhook (it reads the cluster from informer caches and creates nothing)`);
      },
      toGVR: (apiVersion, kind) => this.#toGVR(apiVersion, kind),
    };
    const globalContext: GlobalContextProvider = { getGlobalReference: (name, projection) => this.#globalReference(name, projection) };
    this.providers = {
      resource,
      http: this.#http,
      globalContext,
      imageData: new OfflineImageDataProvider({ hint: "celmap's webhook does not fetch image metadata from registries" }),
    };
  }

  /** Runs one admission evaluation with its deadline visible to `http.*` calls. */
  during<T>(deadline: number, now: () => number, f: () => T): T {
    const outer = this.#deadline;
    this.#deadline = { at: deadline, now };
    try {
      return f();
    } finally {
      this.#deadline = outer;
    }
  }

  /** What the policies read (exported for tests and logs). */
  static scan(policies: readonly unknown[]): ResourceScan {
    const exprs: string[] = [];
    for (const p of policies) policyExpressions((p as { spec?: unknown }).spec, exprs);
    return scanResourceCalls(exprs);
  }

  /**
   * Starts informers for the resources `policies` read (statically) and, the first time, for
   * GlobalContextEntries; resolves once their first lists are in, or after the sync timeout
   * (calls then fail with "not listed yet" until they are). Never rejects.
   */
  async prepare(policies: readonly unknown[]): Promise<{ notes: string[] }> {
    const scan = LiveKyvernoProviders.scan(policies);
    this.#dynamicCalls = scan.dynamic;
    const waits: Promise<void>[] = [];
    const notes: string[] = [];
    if (this.#gceEnabled && this.#gce === undefined) waits.push(this.#startGce());
    for (const k of scan.kinds) waits.push(this.#mapKind(k.apiVersion, k.kind).then((r) => (r === undefined ? undefined : this.#ensure(parseGroupVersion(k.apiVersion), r))));
    for (const r of scan.resources) {
      let gv: { group: string; version: string };
      try {
        gv = parseGroupVersion(r.apiVersion);
      } catch {
        continue;
      }
      waits.push(this.#ensure(gv, r.resource));
    }
    await Promise.race([Promise.all(waits), new Promise<void>((r) => setTimeout(r, this.#syncTimeoutMs).unref())]);
    for (const c of this.#caches.values()) {
      if (c.state.state === "not-served" || c.state.state === "failed") notes.push(`kyverno resource.* data ${c.apiVersion} ${c.resource}: ${c.state.message}`);
      else if (c.state.state === "syncing") notes.push(`kyverno resource.* data ${c.apiVersion} ${c.resource}: not listed yet`);
    }
    if (scan.dynamic.length > 0) notes.push(`kyverno resource.* calls whose resource is not a literal (answered only for resources other calls name): ${scan.dynamic.join("; ")}`);
    return { notes };
  }

  /** The resource types watched for policy data: `apiVersion resource` → state (for tests and logs). */
  watched(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const c of this.#caches.values()) out[`${c.apiVersion} ${c.resource}`] = c.state.state;
    return out;
  }

  close(): void {
    this.#closed = true;
    for (const c of this.#caches.values()) void c.inf?.stop();
    void this.#gce?.inf?.stop();
    this.#http.close();
  }

  // -------------------------------------------------------------------------------------------
  // Discovery and informers

  #resourcesOf(gv: { group: string; version: string }): Promise<readonly ApiResource[] | undefined> {
    const k = `${gv.group}/${gv.version}`;
    let p = this.#discovery.get(k);
    if (p === undefined) {
      const path = gv.group === "" ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
      p = this.#getJson(path).then(
        (doc) =>
          ((doc as { resources?: { name?: string; kind?: string; namespaced?: boolean }[] }).resources ?? [])
            .filter((r) => typeof r.name === "string")
            .map((r) => ({ name: r.name!, kind: r.kind ?? "", namespaced: r.namespaced === true })),
        (e: unknown) => {
          // Not served: undefined (final). Any other failure: retried on the next load.
          this.#discovery.delete(k);
          if ((e as FetchError)?.status === 404) {
            this.#discovery.set(k, Promise.resolve(undefined));
            return undefined;
          }
          throw e;
        },
      );
      this.#discovery.set(k, p);
    }
    return p;
  }

  async #mapKind(apiVersion: string, kind: string): Promise<string | undefined> {
    const key = `${apiVersion} ${kind}`;
    try {
      const list = await this.#resourcesOf(parseGroupVersion(apiVersion));
      const r = list?.find((x) => x.kind === kind && !x.name.includes("/"));
      if (r === undefined) {
        this.#kinds.set(key, { error: list === undefined ? `the API server does not serve ${apiVersion}` : `no resource of kind ${kind} in ${apiVersion}` });
        return undefined;
      }
      this.#kinds.set(key, { resource: r.name });
      return r.name;
    } catch (e) {
      this.#kinds.set(key, { error: `discovery of ${apiVersion} failed: ${errorText(e)}` });
      return undefined;
    }
  }

  /** Ensures an informer for a GVR (discovery first); resolves once it has listed (or failed). */
  #ensure(gv: { group: string; version: string }, resource: string): Promise<void> {
    const k = `${gv.group}/${gv.version}/${resource}`;
    const existing = this.#caches.get(k);
    if (existing !== undefined && existing.state.state !== "not-served") return existing.firstList;
    const c = existing ?? new DataCache(gv.group, gv.version, resource, "", true);
    this.#caches.set(k, c);
    c.state = { state: "syncing" };
    c.firstList = this.#resourcesOf(gv).then(
      (list) => {
        const r = list?.find((x) => x.name === resource);
        if (r === undefined) {
          c.state = { state: "not-served", message: list === undefined ? `the API server does not serve ${c.apiVersion}` : `the API server does not serve ${resource} in ${c.apiVersion}` };
          return;
        }
        c.kind = r.kind;
        c.namespaced = r.namespaced;
        return this.#startInformer(c);
      },
      (e: unknown) => {
        // Discovery failed (not a 404): watch anyway; the informer reports what is wrong.
        return this.#startInformer(c).catch(() => {
          c.state = { state: "failed", message: `discovery failed: ${errorText(e)}`, reason: "Other" };
        });
      },
    );
    return c.firstList;
  }

  #startInformer(c: DataCache): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const path = c.path;
    const inf = makeInformer(this.#kc, path, () =>
      (this.#getJson(path) as Promise<never>).then(
        (l) => {
          c.state = { state: "synced" };
          return l;
        },
        (e: unknown) => {
          const status = (e as FetchError)?.status;
          c.state = { state: "failed", message: `list ${path}: ${errorText(e)}`, reason: reasonOf(status) };
          throw e;
        },
      ),
    ) as Cache;
    c.inf = inf;
    inf.on("error", () => {
      // The informer stops on errors: restart it after a pause (the cache keeps its objects meanwhile).
      if (this.#closed) return;
      setTimeout(() => {
        if (!this.#closed) void inf.start().catch(() => undefined);
      }, 1000).unref();
    });
    return inf.start().then(
      () => undefined,
      () => undefined,
    );
  }

  async #startGce(): Promise<void> {
    const list = await this.#resourcesOf(GCE).catch(() => undefined);
    if (list?.some((r) => r.name === GCE.resource) !== true) {
      this.#gceEnabled = false;
      return;
    }
    const c = new DataCache(GCE.group, GCE.version, GCE.resource, GCE.kind, false);
    this.#gce = c;
    const wait = this.#startInformer(c);
    const follow = (o: KubernetesObject): void => {
      const kr = ((o as unknown as { spec?: { kubernetesResource?: { group?: string; version?: string; resource?: string } } }).spec ?? {}).kubernetesResource;
      if (kr?.version !== undefined && kr.resource !== undefined) void this.#ensure({ group: kr.group ?? "", version: kr.version }, kr.resource);
    };
    c.inf!.on("add", follow);
    c.inf!.on("update", follow);
    await wait;
    // The entries' resources before the first set loads.
    await Promise.all(
      (c.inf!.list() ?? []).map((o) => {
        const kr = ((o as unknown as { spec?: { kubernetesResource?: { group?: string; version?: string; resource?: string } } }).spec ?? {}).kubernetesResource;
        return kr?.version !== undefined && kr.resource !== undefined ? this.#ensure({ group: kr.group ?? "", version: kr.version }, kr.resource) : Promise.resolve();
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // The providers

  /** The cache for a call, or a ProviderError naming the call and why it cannot be answered. */
  #cacheFor(request: DataRequest & { apiVersion: string; resource: string }): DataCache {
    let gv: { group: string; version: string };
    try {
      gv = parseGroupVersion(request.apiVersion);
    } catch (e) {
      throw e;
    }
    const base = request.resource.split("/")[0]!;
    const c = this.#caches.get(`${gv.group}/${gv.version}/${base}`);
    const call = describeRequest(request);
    if (c === undefined) {
      const dyn = this.#dynamicCalls.length > 0 ? "; calls with computed arguments are answered only for resources that other calls name as literals" : "";
      throw new ProviderError(
        `${call}: celmap's webhook answers resource.* from informer caches of the resources its MutatingPolicies name as string literals, and ${request.apiVersion} ${base} is not among them${dyn}`,
      );
    }
    switch (c.state.state) {
      case "synced":
        return c;
      case "syncing":
        throw new ProviderError(`${call}: ${c.apiVersion} ${base} has not been listed yet (its informer is starting)`);
      case "not-served":
        throw new ProviderError(`${call}: ${c.state.message}`);
      case "failed":
        throw new ProviderError(`${call}: ${c.state.message}`, c.state.reason === "NotFound" ? "Other" : c.state.reason);
    }
  }

  #get(apiVersion: string, resource: string, namespace: string, name: string): JsonObject | null {
    const request = { kind: "resource.get" as const, apiVersion, resource, namespace, name };
    const sub = resource.split("/").slice(1);
    const c = this.#cacheFor(request);
    if (sub.length > 0 && sub[0] !== "status") throw new ProviderError(`${describeRequest(request)}: the subresource ${sub.join("/")} is not cached (only the object and its status are)`);
    // A cluster-scoped object is never found under a namespace (the API server answers 404).
    return c.get(c.namespaced ? namespace : namespace === "" ? "" : "\0", name);
  }

  #list(apiVersion: string, resource: string, namespace: string, labels: Readonly<Record<string, string>> | undefined): JsonObject {
    const request = { kind: "resource.list" as const, apiVersion, resource, namespace, ...(labels === undefined ? {} : { labels }) };
    const c = this.#cacheFor(request);
    let items = c.objects(c.namespaced ? namespace : namespace === "" ? "" : "\0");
    if (labels !== undefined && Object.keys(labels).length > 0) {
      items = items.filter((o) => {
        const l = ((o.metadata ?? {}) as JsonObject).labels as JsonObject | undefined;
        return Object.entries(labels).every(([k, v]) => l?.[k] === v);
      });
    }
    return { apiVersion: c.apiVersion, kind: `${c.kind}List`, metadata: {}, items };
  }

  #toGVR(apiVersion: string, kind: string): GroupVersionResource {
    const { group, version } = parseGroupVersion(apiVersion);
    const m = this.#kinds.get(`${apiVersion} ${kind}`);
    if (m === undefined) throw new ProviderError(`no REST mapping for ${apiVersion} ${kind}: celmap's webhook maps the kinds its MutatingPolicies give resource.ToGVR as string literals, and this is not one of them`);
    if ("error" in m) throw new ProviderError(`no REST mapping for ${apiVersion} ${kind}: ${m.error}`);
    return { group, version, resource: m.resource };
  }

  #globalReference(name: string, projection: string): CelValue {
    const g = this.#gce;
    const call = `globalContext.Get(${JSON.stringify(name)}${projection === "" ? "" : `, ${JSON.stringify(projection)}`})`;
    if (g === undefined) {
      // Not served (Kyverno not installed) or turned off: no entries, as Kyverno with none.
      return null;
    }
    if (g.state.state !== "synced") throw new ProviderError(`${call}: GlobalContextEntries have not been listed yet${g.state.state === "failed" ? ` (${g.state.message})` : ""}`);
    const entry = g.get("", name) as { spec?: { kubernetesResource?: { group?: string; version?: string; resource?: string; namespace?: string }; apiCall?: unknown; projections?: unknown[] } } | null;
    // Kyverno: an entry not in the store is null.
    if (entry === null) return null;
    const spec = entry.spec ?? {};
    if (spec.apiCall !== undefined) throw new ProviderError(`${call}: entry ${JSON.stringify(name)} is an apiCall entry, which celmap's webhook does not support (only kubernetesResource entries)`);
    if (projection !== "") {
      throw new ProviderError(`${call}: projections (JMESPath) are not supported by celmap's webhook; read the entry without a projection`);
    }
    const kr = spec.kubernetesResource;
    if (kr?.version === undefined || kr.resource === undefined) throw new ProviderError(`${call}: entry ${JSON.stringify(name)} has neither kubernetesResource nor apiCall`);
    const c = this.#caches.get(`${kr.group ?? ""}/${kr.version}/${kr.resource}`);
    if (c === undefined || c.state.state === "syncing") throw new ProviderError(`${call}: the objects of entry ${JSON.stringify(name)} have not been listed yet`);
    if (c.state.state !== "synced") throw new ProviderError(`${call}: entry ${JSON.stringify(name)}: ${c.state.message}`);
    // k8sresource entry.Get(""): every object of the resource (in the namespace, if set), unstructured.
    return fromJson(c.objects(kr.namespace ?? ""));
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : typeof e === "object" && e !== null && "message" in e ? String((e as FetchError).message) : String(e);
}
