/**
 * The in-cluster policy source: @kubernetes/client-node informers (list + watch) on
 * MutatingAdmissionPolicies, their bindings, namespaces and the configured param kinds, delivering
 * complete {@link PolicyContent}s to the {@link PolicyStore} through the {@link PolicySource}
 * interface, with the file source's semantics: every change (debounced) rebuilds the whole set,
 * which is decoded and validated as the apiserver would (CEL compiled) and swapped in atomically;
 * a set that fails keeps the last good one and is reported.
 *
 * Kyverno MutatingPolicies, NamespacedMutatingPolicies and PolicyExceptions (policies.kyverno.io)
 * and Gatekeeper mutators (mutations.gatekeeper.sh Assign, AssignMetadata, ModifySet, AssignImage)
 * are watched when their API group-version is served (probed once at start: a cluster without
 * Kyverno or Gatekeeper is not an error); they go through the same contentFromDocuments as files
 * (Kyverno policies compiled, mutators translated into MAPs).
 *
 * Custom resources get their structural schemas from the cluster's OpenAPI v3, read the way
 * kube-apiserver's MAP plugin reads it (`openapi.ts`: `/openapi/v3` polled every 5 s, a group-version's
 * document re-fetched when its hash changes): every snapshot carries its own ResourceCatalog and
 * SchemaRegistry, the built-ins plus the served custom types, rebuilt when the OpenAPI changes (a
 * CRD created, updated or deleted) and swapped in with the policies; an OpenAPI that cannot be read
 * or converted keeps the last good snapshot and is reported.
 *
 * Kyverno's CEL libraries get live providers (`live.ts`): `resource.*` from informers on the
 * resources the MutatingPolicies name, started (and first listed, bounded) before a set that needs
 * them is delivered; `http.*` through a worker thread; `globalContext.*` from GlobalContextEntries.
 *
 * Not yet: picking up Kyverno or Gatekeeper when their CRDs are installed after the start.
 */
import { createHash } from "node:crypto";
import { KubeConfig, makeInformer, type Informer, type KubernetesObject, type ObjectCache } from "@kubernetes/client-node";
import type { LoadedDocument } from "../io/load.js";
import { getJson, getJsonOr404, loadKubeConfig } from "../cluster/rest.js";
import { GATEKEEPER_RESOURCES, KYVERNO_RESOURCES, MAP_RESOURCES, objectKey as key, probeServed, resourcePath, withTypeMeta, type WatchedResource } from "../cluster/resources.js";
import { LiveKyvernoProviders, type LiveProviderOptions } from "./live.js";
import { OpenApiTypes } from "../cluster/openapi.js";
import { splitList } from "./kyverno-http.js";
import { contentFromDocuments, type PolicySource, type SourceUpdate } from "./policies.js";

export { GATEKEEPER_RESOURCES, KYVERNO_RESOURCES, MAP_RESOURCES, type WatchedResource };

export interface ClusterSourceOptions {
  /** A kubeconfig file; else `inCluster`; else the default loading rules ($KUBECONFIG, ~/.kube/config). */
  readonly kubeconfig?: string;
  /** The kubeconfig context (default: its current-context). */
  readonly context?: string;
  readonly inCluster?: boolean;
  /** Param kinds (get/list/watch, cluster-wide). */
  readonly paramResources?: readonly WatchedResource[];
  /** Watch Kyverno MutatingPolicies when served (default true). */
  readonly kyverno?: boolean;
  /** Watch Gatekeeper mutators when served (default true). */
  readonly gatekeeper?: boolean;
  /** Quiet time after the last event before rebuilding. Default 200 ms. */
  readonly debounceMs?: number;
  /** How long `start` waits for the first list of every resource. Default 30 s. */
  readonly syncTimeoutMs?: number;
  /** Read custom resource schemas from the cluster's OpenAPI v3 (default true; false: custom kinds have no schema, their mutations answer 503). */
  readonly openapi?: boolean;
  /** How often `/openapi/v3` is polled for changed documents. Default 5 s (kube-apiserver's MAP plugin polls every 5 s). */
  readonly openapiPollMs?: number;
  /**
   * Live data for Kyverno's CEL libraries (`live.ts`): `resource.*` from informers on the resources
   * the MutatingPolicies read, `http.*` through a worker thread, `globalContext.*` from
   * GlobalContextEntries. Default on (with Kyverno); `false`: the offline providers (every call an error).
   * The HTTP blocklist and allowlist default to `$FLAG_HTTP_BLOCKLIST` / `$FLAG_HTTP_ALLOWLIST`
   * (Kyverno's variables, comma-separated), else Kyverno 1.19's default blocklist.
   */
  readonly kyvernoData?: LiveProviderOptions | false;
}

type Cache = Informer<KubernetesObject> & ObjectCache<KubernetesObject>;

export class ClusterPolicySource implements PolicySource {
  readonly description: string;
  readonly #kc: KubeConfig;
  #resources: readonly WatchedResource[];
  /** Optional resources not served by the API server (not watched). */
  readonly #absent: string[] = [];
  readonly #debounceMs: number;
  readonly #syncTimeoutMs: number;
  readonly #informers: { r: WatchedResource; inf: Cache; synced: boolean }[] = [];
  #listener: ((u: SourceUpdate) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #lastError = "";
  /** The cluster's custom resource types (undefined: `openapi: false`). */
  readonly #types: OpenApiTypes | undefined;
  readonly #openapiPollMs: number;
  #poll: NodeJS.Timeout | undefined;
  #polling = false;
  /** Live providers for Kyverno's libraries (undefined: Kyverno off or `kyvernoData: false`). */
  readonly #live: LiveKyvernoProviders | undefined;
  #delivering: Promise<void> = Promise.resolve();

  constructor(options: ClusterSourceOptions = {}, kubeConfig?: KubeConfig) {
    const kc =
      kubeConfig ??
      loadKubeConfig({ ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}), ...(options.context !== undefined ? { context: options.context } : {}), ...(options.inCluster === true ? { inCluster: true } : {}) });
    this.#kc = kc;
    this.#resources = [
      ...MAP_RESOURCES,
      ...(options.paramResources ?? []),
      ...(options.kyverno === false ? [] : KYVERNO_RESOURCES),
      ...(options.gatekeeper === false ? [] : GATEKEEPER_RESOURCES),
    ];
    this.#debounceMs = options.debounceMs ?? 200;
    this.#syncTimeoutMs = options.syncTimeoutMs ?? 30_000;
    this.#types = options.openapi === false ? undefined : new OpenApiTypes((path) => getJsonOr404(kc, path));
    this.#openapiPollMs = options.openapiPollMs ?? 5_000;
    this.description = `cluster ${kc.getCurrentCluster()?.server ?? "?"}`;
    if (options.kyverno !== false && options.kyvernoData !== false) {
      const data = options.kyvernoData ?? {};
      const env = (name: string): string[] | undefined => (process.env[name] === undefined ? undefined : splitList(process.env[name]!));
      const blocklist = data.http?.blocklist ?? env("FLAG_HTTP_BLOCKLIST");
      const allowlist = data.http?.allowlist ?? env("FLAG_HTTP_ALLOWLIST");
      this.#live = new LiveKyvernoProviders(kc, (path) => getJson<unknown>(kc, path), {
        ...data,
        http: { ...(data.http ?? {}), ...(blocklist !== undefined ? { blocklist } : {}), ...(allowlist !== undefined ? { allowlist } : {}) },
      });
    }
  }

  /** The live Kyverno providers (for tests and diagnostics). */
  get kyvernoLive(): LiveKyvernoProviders | undefined {
    return this.#live;
  }

  /**
   * Builds the set and hands it to the listener; with live Kyverno data, first starts the informers
   * of the resources its policies read and waits (bounded) for their first lists. Serialized.
   */
  #deliver(): Promise<void> {
    this.#delivering = this.#delivering.then(async () => {
      if (this.#closed) return;
      let update = this.#build();
      const live = this.#live;
      if (update.ok && live !== undefined) {
        const { notes } = await live.prepare(update.content.policySet.kyverno.policies);
        if (this.#closed) return;
        const all = [...(update.content.notes ?? []), ...notes];
        update = { ok: true, content: { ...update.content, kyvernoLive: live, ...(all.length > 0 ? { notes: all } : {}) } };
      }
      this.#listener?.(update);
    });
    return this.#delivering;
  }

  /** Keeps the optional resources whose group-version the API server serves (404: not installed). */
  #probeOptional(): Promise<{ keep: WatchedResource[]; absent: string[] }> {
    // Anything but a 404 (network, 5xx): assume served; the informer retries.
    return probeServed(this.#kc, this.#resources, true);
  }

  async start(listener: (update: SourceUpdate) => void): Promise<void> {
    this.#listener = listener;
    // Bounded by the sync timeout: a hanging discovery watches everything (the informers retry).
    const probed = await Promise.race([
      this.#probeOptional(),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), this.#syncTimeoutMs / 2).unref()),
    ]);
    if (probed !== undefined) {
      this.#resources = probed.keep;
      this.#absent.push(...probed.absent);
    }
    const firstLists: Promise<void>[] = [];
    for (const r of this.#resources) {
      const path = resourcePath(r);
      const entry = { r, inf: undefined as unknown as Cache, synced: false };
      // Synced once a list has succeeded; a set is only ever built when every resource is.
      const inf = makeInformer(this.#kc, path, () =>
        getJson(this.#kc, path).then((l) => {
          entry.synced = true;
          return l;
        }),
      ) as Cache;
      entry.inf = inf;
      this.#informers.push(entry);
      for (const ev of ["add", "update", "delete"] as const) inf.on(ev, () => this.#schedule());
      inf.on("error", (err: unknown) => {
        this.#lastError = `${path}: ${err instanceof Error ? err.message : String(err)}`;
        // The informer stops on errors: restart it after a pause (the last good set stays meanwhile).
        if (this.#closed) return;
        setTimeout(() => {
          if (!this.#closed) void inf.start().catch(() => undefined);
        }, 1000).unref();
      });
      firstLists.push(inf.start().then(() => undefined));
    }
    const types = this.#types;
    if (types !== undefined) {
      // The first read of the OpenAPI goes with the first lists; a failure is reported by the build
      // (nothing is loaded) and retried by the poll.
      firstLists.push(types.refresh().then(() => undefined));
      this.#poll = setInterval(() => void this.#pollOpenApi(), this.#openapiPollMs);
      this.#poll.unref();
    }
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no initial list within ${this.#syncTimeoutMs} ms`)), this.#syncTimeoutMs).unref());
    try {
      await Promise.race([Promise.all(firstLists), timeout]);
      await this.#deliver();
    } catch (e) {
      listener({ ok: false, origin: this.description, errors: [e instanceof Error ? e.message : String(e)] });
    }
  }

  /** One poll of `/openapi/v3` (never two at once): a change of the custom types rebuilds the set. */
  async #pollOpenApi(): Promise<void> {
    const types = this.#types;
    if (types === undefined || this.#polling || this.#closed) return;
    this.#polling = true;
    try {
      if (await types.refresh()) this.#schedule();
    } finally {
      this.#polling = false;
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#poll !== undefined) clearInterval(this.#poll);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    for (const { inf } of this.#informers) void inf.stop();
    this.#live?.close();
  }

  #schedule(): void {
    if (this.#closed || this.#listener === undefined) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // Before every resource has been listed once (and the OpenAPI read), `start` reports (it waits for them):
      // a partial set is neither loaded nor reported as an error here.
      if (this.#closed || this.#informers.some((i) => !i.synced) || this.#types?.refreshed === false) return;
      void this.#deliver();
    }, this.#debounceMs);
    this.#timer.unref();
  }

  /** The whole set from the informers' caches, validated as files are. */
  #build(): SourceUpdate {
    const unsynced = this.#informers.filter((i) => !i.synced).map((i) => resourcePath(i.r));
    if (unsynced.length > 0) {
      return { ok: false, origin: this.description, errors: [`not listed yet: ${unsynced.join(", ")}${this.#lastError !== "" ? ` (last error: ${this.#lastError})` : ""}`] };
    }
    let types: ReturnType<OpenApiTypes["types"]> | undefined;
    if (this.#types !== undefined) {
      if (!this.#types.refreshed) return { ok: false, origin: this.description, errors: ["the cluster's OpenAPI (/openapi/v3) has not been read yet"] };
      types = this.#types.types();
      if (!types.ok) return { ok: false, origin: this.description, errors: types.errors };
    }
    const hash = createHash("sha256");
    if (types?.ok === true) hash.update(`openapi ${types.types.digest}\0`);
    const docs: LoadedDocument[] = [];
    for (const { r, inf } of this.#informers) {
      const objs = [...inf.list()].sort((a, b) => key(a).localeCompare(key(b)));
      for (const o of objs) {
        hash.update(`${r.resource}/${key(o)}@${o.metadata?.resourceVersion ?? ""}\0`);
        const value = withTypeMeta(o, r);
        docs.push({ value, source: { file: `${this.description} ${r.resource}/${key(o)}`, docIndex: 0 }, locate: () => undefined } as unknown as LoadedDocument);
      }
    }
    // The cluster's custom resources (OpenAPI) are what the policy set starts from (no CRD documents come from the informers, so load adds none to them).
    const update = contentFromDocuments(docs, this.description, hash.digest("hex"), types?.ok === true ? { catalog: types.types.catalog, schemas: types.types.schemas } : {});
    if (!update.ok) return update;
    const notes = [...(update.content.notes ?? [])];
    if (this.#absent.length > 0) notes.push(`not watched (the API server does not serve them): ${this.#absent.join(", ")}`);
    const note = this.#types?.note;
    if (note !== undefined) notes.push(note);
    return {
      ok: true,
      content: {
        ...update.content,
        ...(notes.length > 0 ? { notes } : {}),
      },
    };
  }
}
