/**
 * A fake Kubernetes API server on loopback (HTTPS, bearer token `test-token`) for the cluster
 * source's tests: enough of the real protocol for @kubernetes/client-node's informers and for the
 * OpenAPI reader, nothing mocked on the client side.
 *
 * - lists (`GET <collection>`) and watches (`?watch=true`, newline-delimited `{type, object}` events);
 * - discovery of group-versions (`GET /apis/<group>/<version>`: APIResourceList, 404 when not served);
 * - OpenAPI v3: `GET /openapi/v3` (`paths` → `serverRelativeURL` with the document's hash, as
 *   kube-apiserver's `/openapi/v3` discovery) and `GET /openapi/v3/apis/<group>/<version>` (the
 *   document; a stale hash is still served, as the apiserver serves any hash).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pki } from "./support.js";

interface Collection {
  items: Map<string, Record<string, unknown>>;
  watchers: Set<ServerResponse>;
}

/** A discovery entry: a plural (cluster-scoped, no kind) or a full APIResource. */
export type DiscoveryResource = string | { name: string; kind?: string; namespaced?: boolean };

export class FakeApiServer {
  readonly server: Server;
  rv = 100;
  readonly collections = new Map<string, Collection>();
  /** Served group-versions (`/apis/<group>/<version>` discovery) and their resources: the CRDs "installed". */
  readonly discovery = new Map<string, DiscoveryResource[]>();
  /** OpenAPI v3 documents by path (`apis/<group>/<version>`, `api/v1`). */
  readonly openapi = new Map<string, Record<string, unknown>>();
  /** Answer `/openapi/v3` with this status instead (e.g. 503, 404). */
  openapiStatus = 200;
  /** Collection paths answered 403 Forbidden (list and watch), as without RBAC. */
  readonly forbidden = new Set<string>();
  /** Every request path (with query), in order. */
  readonly requests: string[] = [];
  port = 0;

  constructor(pki: Pki) {
    this.server = createServer({ cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey) }, (req, res) => {
      this.requests.push(req.url ?? "/");
      if (req.headers.authorization !== "Bearer test-token") {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 401, reason: "Unauthorized" }));
        return;
      }
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/openapi/v3" || url.pathname.startsWith("/openapi/v3/")) {
        this.#openapi(url, res);
        return;
      }
      const gv = url.pathname === "/api/v1" ? "v1" : /^\/apis\/([^/]+\/[^/]+)$/.exec(url.pathname)?.[1];
      if (gv === "v1" && !this.discovery.has("v1")) this.discovery.set("v1", CORE_V1);
      if (this.forbidden.has(url.pathname)) {
        res.writeHead(403, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 403, reason: "Forbidden", message: `forbidden: cannot list ${url.pathname}` }));
        return;
      }
      if (gv !== undefined) {
        const names = this.discovery.get(gv);
        res.writeHead(names === undefined ? 404 : 200, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            names === undefined
              ? notFound()
              : {
                  kind: "APIResourceList",
                  apiVersion: "v1",
                  groupVersion: gv,
                  resources: names.map((r) => (typeof r === "string" ? { name: r, namespaced: false, verbs: ["get", "list", "watch"] } : { namespaced: false, verbs: ["get", "list", "watch"], ...r })),
                },
          ),
        );
        return;
      }
      const col = this.collection(url.pathname);
      if (url.searchParams.get("watch") === "true") {
        res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
        res.flushHeaders();
        col.watchers.add(res);
        req.on("close", () => col.watchers.delete(res));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "List", apiVersion: "v1", metadata: { resourceVersion: String(this.rv) }, items: [...col.items.values()] }));
    });
  }

  #openapi(url: URL, res: ServerResponse): void {
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/openapi/v3") {
      if (this.openapiStatus !== 200) return json(this.openapiStatus, { kind: "Status", apiVersion: "v1", status: "Failure", code: this.openapiStatus });
      const paths: Record<string, unknown> = {};
      for (const [path, doc] of this.openapi) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hashOf(doc)}` };
      return json(200, { paths });
    }
    const doc = this.openapi.get(url.pathname.slice("/openapi/v3/".length));
    if (doc === undefined) return json(404, notFound());
    json(200, doc);
  }

  collection(path: string): Collection {
    let c = this.collections.get(path);
    if (c === undefined) this.collections.set(path, (c = { items: new Map(), watchers: new Set() }));
    return c;
  }

  async listen(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    const a = this.server.address();
    this.port = typeof a === "object" && a !== null ? a.port : 0;
  }

  /** Creates or replaces an object (list items carry no apiVersion/kind, as the API server sends them). */
  put(path: string, obj: Record<string, unknown>): void {
    const col = this.collection(path);
    const meta = obj["metadata"] as Record<string, unknown>;
    const name = String(meta["name"]);
    const type = col.items.has(name) ? "MODIFIED" : "ADDED";
    const stored = { ...obj, metadata: { ...meta, resourceVersion: String(++this.rv), uid: `uid-${name}` } };
    col.items.set(name, stored);
    for (const w of col.watchers) w.write(JSON.stringify({ type, object: stored }) + "\n");
  }

  remove(path: string, name: string): void {
    const col = this.collection(path);
    const obj = col.items.get(name);
    if (obj === undefined) return;
    col.items.delete(name);
    ++this.rv;
    for (const w of col.watchers) w.write(JSON.stringify({ type: "DELETED", object: obj }) + "\n");
  }

  /**
   * "Installs" a CRD version as the apiserver serves it: discovery of its group-version and the
   * OpenAPI v3 document apiextensions-apiserver publishes for it (see {@link crdOpenApiDocument}).
   */
  installCrd(crd: CrdVersion): void {
    const gv = `${crd.group}/${crd.version}`;
    this.discovery.set(gv, [
      { name: crd.plural, kind: crd.kind, namespaced: crd.namespaced ?? true },
      ...(crd.status === true ? [{ name: `${crd.plural}/status`, kind: crd.kind, namespaced: crd.namespaced ?? true }] : []),
    ]);
    this.openapi.set(`apis/${gv}`, crdOpenApiDocument(crd));
  }

  uninstallCrd(group: string, version: string): void {
    this.discovery.delete(`${group}/${version}`);
    this.openapi.delete(`apis/${group}/${version}`);
  }

  close(): Promise<void> {
    for (const c of this.collections.values()) for (const w of c.watchers) w.end();
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** `/api/v1` discovery unless a test sets `discovery.get("v1")`: the core resources the tests use. */
const CORE_V1: DiscoveryResource[] = [
  { name: "configmaps", kind: "ConfigMap", namespaced: true },
  { name: "secrets", kind: "Secret", namespaced: true },
  { name: "pods", kind: "Pod", namespaced: true },
  { name: "pods/status", kind: "Pod", namespaced: true },
  { name: "services", kind: "Service", namespaced: true },
  { name: "namespaces", kind: "Namespace", namespaced: false },
  { name: "nodes", kind: "Node", namespaced: false },
];

function notFound(): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", status: "Failure", code: 404, reason: "NotFound" };
}

function hashOf(doc: unknown): string {
  return createHash("sha512").update(JSON.stringify(doc)).digest("hex").slice(0, 64).toUpperCase();
}

export interface CrdVersion {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced?: boolean;
  readonly status?: boolean;
  /** The version's `schema.openAPIV3Schema` as written in the CRD. */
  readonly schema: Record<string, unknown>;
}

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";

/**
 * The OpenAPI v3 document of a CRD group-version, shaped as apiextensions-apiserver's builder
 * publishes it (`pkg/controller/openapi/builder`): the kind's schema under the reversed-group name
 * (`com.example.v1.Widget`) with `apiVersion`, `kind`, `metadata` (`allOf: [{$ref: ObjectMeta}]`)
 * and `x-kubernetes-group-version-kind`, the List kind, and the meta/v1 definitions they use.
 */
export function crdOpenApiDocument(crd: CrdVersion): Record<string, unknown> {
  const prefix = `${crd.group.split(".").reverse().join(".")}.${crd.version}`;
  const props = (crd.schema["properties"] ?? {}) as Record<string, unknown>;
  const gvk = (kind: string): unknown => [{ group: crd.group, kind, version: crd.version }];
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes CRD Swagger", version: "v0.1.0" },
    paths: {},
    components: {
      schemas: {
        [`${prefix}.${crd.kind}`]: {
          ...crd.schema,
          type: "object",
          properties: {
            apiVersion: { type: "string", description: "APIVersion defines the versioned schema of this representation of an object." },
            kind: { type: "string", description: "Kind is a string value representing the REST resource this object represents." },
            metadata: { description: "Standard object's metadata.", allOf: [{ $ref: `#/components/schemas/${META}.ObjectMeta` }] },
            ...props,
          },
          "x-kubernetes-group-version-kind": gvk(crd.kind),
        },
        [`${prefix}.${crd.kind}List`]: {
          type: "object",
          required: ["items"],
          properties: {
            apiVersion: { type: "string" },
            items: { type: "array", items: { $ref: `#/components/schemas/${prefix}.${crd.kind}` } },
            kind: { type: "string" },
            metadata: { allOf: [{ $ref: `#/components/schemas/${META}.ListMeta` }] },
          },
          "x-kubernetes-group-version-kind": gvk(`${crd.kind}List`),
        },
        [`${META}.ObjectMeta`]: {
          type: "object",
          properties: {
            annotations: { type: "object", additionalProperties: { type: "string", default: "" } },
            labels: { type: "object", additionalProperties: { type: "string", default: "" } },
            name: { type: "string" },
            namespace: { type: "string" },
            ownerReferences: {
              type: "array",
              items: { default: {}, allOf: [{ $ref: `#/components/schemas/${META}.OwnerReference` }] },
              "x-kubernetes-list-map-keys": ["uid"],
              "x-kubernetes-list-type": "map",
              "x-kubernetes-patch-merge-key": "uid",
              "x-kubernetes-patch-strategy": "merge",
            },
            resourceVersion: { type: "string" },
            uid: { type: "string" },
          },
        },
        [`${META}.OwnerReference`]: {
          type: "object",
          required: ["apiVersion", "kind", "name", "uid"],
          properties: { apiVersion: { type: "string" }, kind: { type: "string" }, name: { type: "string" }, uid: { type: "string" }, controller: { type: "boolean" } },
          "x-kubernetes-map-type": "atomic",
        },
        [`${META}.ListMeta`]: { type: "object", properties: { continue: { type: "string" }, resourceVersion: { type: "string" } } },
      },
    },
  };
}

/** A kubeconfig for the fake server (CA from the PKI, bearer token). */
export function kubeconfigFor(api: FakeApiServer, pki: Pki): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: https://127.0.0.1:${api.port}
    certificate-authority: ${pki.caCert}
users:
- name: u
  user:
    token: test-token
contexts:
- name: fake
  context: {cluster: fake, user: u}
current-context: fake
`;
}

/** A fake API server on loopback and a kubeconfig file for it: the common setup of the cluster-source tests. */
export interface FakeCluster {
  readonly api: FakeApiServer;
  readonly dir: string;
  readonly kubeconfig: string;
  /** Stops the server and removes the directory. */
  close(): Promise<void>;
}

export async function startFakeCluster(pki: Pki, prefix: string): Promise<FakeCluster> {
  const api = new FakeApiServer(pki);
  await api.listen();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kubeconfigFor(api, pki));
  return {
    api,
    dir,
    kubeconfig,
    close: async () => {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
