/**
 * Reading a live cluster: a kubeconfig (file and context, in-cluster, or the default loading rules)
 * and plain GETs of raw JSON through @kubernetes/client-node's authentication (no client-side
 * typing: objects stay exactly as the API server sent them). Used by `celmap webhook --kubeconfig`
 * (informers' lists), `celmap eval --kubeconfig` and `celmap audit` (one-shot and paged lists).
 *
 * Failures are {@link ClusterError}s that say what was asked and, for an HTTP error, carry the API
 * server's own Status (its `message` names the user and the verb of a 403).
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { KubeConfig, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";

export interface KubeConfigOptions {
  /** A kubeconfig file; else `inCluster`; else the default loading rules ($KUBECONFIG, ~/.kube/config). */
  readonly kubeconfig?: string;
  /** The context to use (default: the file's current-context). */
  readonly context?: string;
  readonly inCluster?: boolean;
}

/** Loads the kubeconfig; a missing file, a context that is not in it, or no cluster throw a one-line Error. */
export function loadKubeConfig(options: KubeConfigOptions): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (options.kubeconfig !== undefined) kc.loadFromFile(options.kubeconfig);
    else if (options.inCluster === true) kc.loadFromCluster();
    else kc.loadFromDefault();
  } catch (e) {
    throw new Error(`${options.kubeconfig ?? "kubeconfig"}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (options.context !== undefined) {
    if (kc.getContextObject(options.context) === null) {
      const names = kc.getContexts().map((c) => c.name);
      throw new Error(`${options.kubeconfig ?? "kubeconfig"}: context ${JSON.stringify(options.context)} not found (contexts: ${names.length > 0 ? names.join(", ") : "none"})`);
    }
    kc.setCurrentContext(options.context);
  }
  if (kc.getCurrentCluster() === null) throw new Error(`${options.kubeconfig ?? "kubeconfig"}: no cluster for context ${JSON.stringify(kc.getCurrentContext())}`);
  return kc;
}

/** The API server's Status object, as much as the messages use. */
export interface KubeStatus {
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
}

/**
 * A request that failed: `status` is the HTTP status (0: the server was not reached), `kubeStatus`
 * the API server's Status body when it sent one. The message names the method and path.
 */
export class ClusterError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly path: string,
    readonly kubeStatus?: KubeStatus,
  ) {
    super(message);
  }
}

export function serverOf(kc: KubeConfig): string {
  return kc.getCurrentCluster()?.server ?? "?";
}

/** GET a path as raw JSON; rejects with a {@link ClusterError} on any failure. */
export async function getJson<T = KubernetesListObject<KubernetesObject>>(kc: KubeConfig, path: string): Promise<T> {
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new ClusterError(0, "kubeconfig: no current cluster", path);
  const url = new URL(cluster.server.replace(/\/$/, "") + path);
  const opts: RequestOptions = { method: "GET", headers: { accept: "application/json" } };
  await kc.applyToHTTPSOptions(opts);
  const send = url.protocol === "http:" ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== 200) {
          let st: KubeStatus | undefined;
          try {
            const j = JSON.parse(text) as { kind?: string; message?: string; reason?: string; code?: number };
            if (j.kind === "Status") st = { ...(j.message !== undefined ? { message: j.message } : {}), ...(j.reason !== undefined ? { reason: j.reason } : {}), ...(j.code !== undefined ? { code: j.code } : {}) };
          } catch {
            // not a Status: the text is the message
          }
          const what = st?.message ?? text.slice(0, 200);
          return reject(new ClusterError(res.statusCode ?? 0, `GET ${path}: HTTP ${res.statusCode}: ${what}`, path, st));
        }
        try {
          resolve(JSON.parse(text) as T);
        } catch (e) {
          reject(new ClusterError(200, `GET ${path}: the answer is not JSON: ${e instanceof Error ? e.message : String(e)}`, path));
        }
      });
      res.on("error", (e) => reject(new ClusterError(0, `GET ${path}: ${e.message}`, path)));
    });
    req.setTimeout(60_000, () => req.destroy(new Error("no answer in 60 s")));
    req.on("error", (e) => reject(new ClusterError(0, `cannot reach the cluster at ${cluster.server} (GET ${path}): ${e.message}`, path)));
    req.end();
  });
}

/** GET any JSON; `undefined` on 404. */
export async function getJsonOr404(kc: KubeConfig, path: string): Promise<unknown> {
  try {
    return await getJson<unknown>(kc, path);
  } catch (e) {
    if (e instanceof ClusterError && e.status === 404) return undefined;
    throw e;
  }
}

export interface ListOptions {
  /** Items per page (`limit`); default 500, as kubectl's chunk size. */
  readonly limit?: number;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface ListPage {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly items: readonly KubernetesObject[];
  /** Set when more pages follow (after this one). */
  readonly continue?: string;
  readonly resourceVersion?: string;
}

/**
 * A collection, page by page (`limit` and `continue`, as kubectl's chunked lists). A `410 Gone`
 * (the continue token expired) is a {@link ClusterError} like any other failure: the pages already
 * yielded stay yielded.
 */
export async function* listPages(kc: KubeConfig, path: string, options: ListOptions = {}): AsyncGenerator<ListPage> {
  let token: string | undefined;
  do {
    const q = new URLSearchParams({ limit: String(options.limit ?? 500) });
    if (options.labelSelector !== undefined && options.labelSelector !== "") q.set("labelSelector", options.labelSelector);
    if (options.fieldSelector !== undefined && options.fieldSelector !== "") q.set("fieldSelector", options.fieldSelector);
    if (token !== undefined) q.set("continue", token);
    const page = await getJson<{ apiVersion?: string; kind?: string; items?: KubernetesObject[]; metadata?: { continue?: string; resourceVersion?: string } }>(kc, `${path}?${q.toString()}`);
    token = page.metadata?.continue !== undefined && page.metadata.continue !== "" ? page.metadata.continue : undefined;
    yield {
      ...(page.apiVersion !== undefined ? { apiVersion: page.apiVersion } : {}),
      ...(page.kind !== undefined ? { kind: page.kind } : {}),
      items: page.items ?? [],
      ...(token !== undefined ? { continue: token } : {}),
      ...(page.metadata?.resourceVersion !== undefined ? { resourceVersion: page.metadata.resourceVersion } : {}),
    };
  } while (token !== undefined);
}

/** Every item of a collection (all pages). */
export async function listAll(kc: KubeConfig, path: string, options: ListOptions = {}): Promise<KubernetesObject[]> {
  const out: KubernetesObject[] = [];
  for await (const p of listPages(kc, path, options)) out.push(...p.items);
  return out;
}
