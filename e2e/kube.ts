/**
 * A small client for the test apiserver: plain HTTPS (node:https) with the admin bearer token and
 * the cluster CA, JSON in and out. Enough for the e2e suite and the oracle case generator, and
 * nothing hidden: every call is one REST request.
 */
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import type { ClusterInfo } from "./launch.js";

export type Obj = Record<string, unknown>;

export interface KubeResponse {
  readonly status: number;
  readonly body: Obj;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The `Warning` headers' texts (RFC 7234 `299 - "text"`). */
  readonly warnings: string[];
}

export interface RequestOptions {
  readonly dryRun?: boolean;
  readonly contentType?: string;
  readonly query?: Record<string, string>;
}

const plural: Record<string, string> = {
  Pod: "pods", ConfigMap: "configmaps", Deployment: "deployments", Namespace: "namespaces", Service: "services",
  MutatingAdmissionPolicy: "mutatingadmissionpolicies", MutatingAdmissionPolicyBinding: "mutatingadmissionpolicybindings",
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations", CustomResourceDefinition: "customresourcedefinitions",
  Job: "jobs", Secret: "secrets", Widget: "widgets",
};

/** The REST collection path of an object (namespaced when it has metadata.namespace). */
export function collectionPath(o: Obj): string {
  const apiVersion = String(o.apiVersion);
  const kind = String(o.kind);
  const ns = (o.metadata as Obj | undefined)?.namespace as string | undefined;
  const res = plural[kind] ?? `${kind.toLowerCase()}s`;
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return ns === undefined ? `${base}/${res}` : `${base}/namespaces/${ns}/${res}`;
}

export function objectPath(o: Obj): string {
  return `${collectionPath(o)}/${String((o.metadata as Obj).name)}`;
}

export class Kube {
  private readonly agent: Agent;

  constructor(readonly info: ClusterInfo) {
    this.agent = new Agent({ ca: readFileSync(info.caFile), keepAlive: true, maxSockets: 8 });
  }

  close(): void {
    this.agent.destroy();
  }

  request(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<KubeResponse> {
    const q = new URLSearchParams(opts.query ?? {});
    if (opts.dryRun) q.set("dryRun", "All");
    const qs = q.toString();
    const url = new URL(path + (qs === "" ? "" : (path.includes("?") ? "&" : "?") + qs), this.info.server);
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((res, rej) => {
      const req = request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.info.token}`,
            accept: "application/json",
            ...(data === undefined ? {} : { "content-type": opts.contentType ?? "application/json", "content-length": Buffer.byteLength(data) }),
          },
          timeout: 60_000,
        },
        (resp) => {
          let text = "";
          resp.setEncoding("utf8");
          resp.on("data", (d: string) => (text += d));
          resp.on("end", () => {
            let parsed: Obj = {};
            try {
              parsed = text === "" ? {} : (JSON.parse(text) as Obj);
            } catch {
              parsed = { raw: text };
            }
            const w = resp.headers.warning;
            const warnings = (w === undefined ? [] : Array.isArray(w) ? w : [w]).map((x) => x.replace(/^299 - "(.*)"$/, "$1"));
            res({ status: resp.statusCode ?? 0, body: parsed, headers: resp.headers, warnings });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
      req.on("error", rej);
      if (data !== undefined) req.write(data);
      req.end();
    });
  }

  /** POST the object to its collection; throws unless 2xx. */
  async create(o: Obj, opts: RequestOptions = {}): Promise<Obj> {
    return ok(await this.request("POST", collectionPath(o), o, opts), `create ${describe(o)}`);
  }

  async get(o: Obj): Promise<KubeResponse> {
    return this.request("GET", objectPath(o));
  }

  /** Create, or replace the existing object (PUT with its resourceVersion). */
  async apply(o: Obj): Promise<Obj> {
    const got = await this.get(o);
    if (got.status === 404) return this.create(o);
    const rv = (got.body.metadata as Obj).resourceVersion;
    const next = { ...o, metadata: { ...(o.metadata as Obj), resourceVersion: rv } };
    return ok(await this.request("PUT", objectPath(o), next), `replace ${describe(o)}`);
  }

  /** DELETE; 404 is fine. */
  async remove(o: Obj): Promise<void> {
    const r = await this.request("DELETE", objectPath(o), { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0 });
    if (r.status >= 300 && r.status !== 404) throw new Error(`delete ${describe(o)}: HTTP ${r.status} ${message(r)}`);
  }

  /** Create a namespace (labels as given) and wait until it is Active. */
  async namespace(name: string, labels: Record<string, string> = {}): Promise<Obj> {
    return this.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels } });
  }
}

export function describe(o: Obj): string {
  const m = (o.metadata ?? {}) as Obj;
  return `${String(o.kind)} ${m.namespace === undefined ? "" : `${String(m.namespace)}/`}${String(m.name)}`;
}

export function message(r: KubeResponse): string {
  return String((r.body as { message?: unknown }).message ?? JSON.stringify(r.body).slice(0, 500));
}

export function ok(r: KubeResponse, what: string): Obj {
  if (r.status < 200 || r.status >= 300) throw new Error(`${what}: HTTP ${r.status} ${message(r)}`);
  return r.body;
}

/** The object as the oracle cases record it: without server-set metadata and without status. */
export function strip(o: Obj, opts: { keepStatus?: boolean; keepNamespace?: boolean } = {}): Obj {
  const out: Obj = { ...o };
  const m: Obj = { ...((o.metadata ?? {}) as Obj) };
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"]) delete m[k];
  if (!opts.keepNamespace) delete m.namespace;
  out.metadata = m;
  if (!opts.keepStatus) delete out.status;
  return out;
}

/** Retry `probe` until it returns true (every 100 ms, up to `timeoutMs`); no fixed sleeps. */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not true within ${timeoutMs} ms${last === undefined ? "" : ` (last error: ${String(last)})`}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
