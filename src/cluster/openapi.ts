/**
 * The cluster's custom resource types from its OpenAPI v3, as kube-apiserver's
 * MutatingAdmissionPolicy plugin gets them: the plugin's `TypeConverterManager`
 * (`staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/typeconverter.go`,
 * built with `patch.NewTypeConverterManager(nil, client.Discovery().OpenAPIV3())`) polls
 * `/openapi/v3` every 5 s, whose `paths` give each group-version's document URL with a content
 * hash (`serverRelativeURL`, `/openapi/v3/apis/<group>/<version>?hash=…`), fetches a group-version's
 * document again only when that URL changed, and builds the type converter from the document's
 * `components.schemas`. A kind whose group-version has no document yet has no type converter: the
 * plugin answers 503 (`Resource kind … not found. There can be a delay …`), as `evaluate` does for a
 * kind without a schema.
 *
 * Here: the group-versions that are not built in (CRDs, aggregated APIs) are fetched; each schema
 * tagged with `x-kubernetes-group-version-kind` of a resource the group-version serves becomes
 * that kind's {@link SchemaRegistry} node through `crdSchemaNode` (list types and map keys with
 * their key defaults, map types, atomic structs, preserve-unknown-fields, embedded resources), with
 * `$ref`s resolved from the same document. The group-version's discovery (`/apis/<group>/<version>`,
 * fetched with its document) gives the {@link ResourceCatalog} entries: plural, scope, `status`
 * and `scale` subresources (the served versions of one resource are equivalent, as for CRDs).
 * Built-in kinds keep celmap's generated 1.36 schemas.
 *
 * No dependency on @kubernetes/client-node: requests go through the caller's `get`.
 */
import { createHash } from "node:crypto";
import { crdSchemaNode, ResourceCatalog, type JsonObject } from "../admission/index.js";
import { compareKubeVersions } from "../admission/match/catalog.js";
import { SchemaRegistry } from "../kube/schema.js";

/** GET a path as JSON; `undefined` when the API server answers 404. Rejects on any other failure. */
export type JsonGetter = (path: string) => Promise<unknown>;

/** The catalog and schemas a snapshot evaluates with: the built-ins plus the cluster's served custom types. */
export interface ClusterTypes {
  readonly catalog: ResourceCatalog;
  readonly schemas: SchemaRegistry;
  /** Identifies the OpenAPI state they were built from (group-versions and document hashes). */
  readonly digest: string;
  /** `group/version Kind` of every custom kind registered, sorted. */
  readonly kinds: readonly string[];
}

export type TypesResult = { readonly ok: true; readonly types: ClusterTypes } | { readonly ok: false; readonly errors: readonly string[] };

export interface GroupVersionEntry {
  readonly group: string;
  readonly version: string;
  /** `serverRelativeURL`: changes whenever the document does. */
  readonly url: string;
  readonly document: JsonObject;
  /** The discovery resource list's `resources` (undefined: discovery answered 404). */
  readonly resources: readonly JsonObject[];
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function text(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The built-in group-versions (their kinds keep the generated schemas; their documents are not fetched). */
function builtinGroupVersions(): Set<string> {
  const out = new Set<string>();
  for (const r of ResourceCatalog.builtin({ enable: "all" }).all()) out.add(r.gvr.group === "" ? r.gvr.version : `${r.gvr.group}/${r.gvr.version}`);
  return out;
}

/**
 * Polls the cluster's OpenAPI v3 and holds the current custom types. `refresh` fetches what changed;
 * `types` builds (once per OpenAPI state) the catalog and schemas, or says which schema is bad.
 */
export class OpenApiTypes {
  readonly #get: JsonGetter;
  readonly #builtin = builtinGroupVersions();
  /** Group-version (`group/version`) → its last fetched document. */
  #entries = new Map<string, GroupVersionEntry>();
  /** Set when the last refresh failed: the types are not current. */
  #error: string | undefined;
  /** Whether the API server serves /openapi/v3 at all (false: 404). */
  #served = true;
  #refreshed = false;
  #built: { digest: string; result: TypesResult } | undefined;

  constructor(get: JsonGetter) {
    this.#get = get;
  }

  /** Whether a refresh has completed (successfully or not). */
  get refreshed(): boolean {
    return this.#refreshed;
  }

  /** Why the last refresh failed, if it did. */
  get error(): string | undefined {
    return this.#error;
  }

  /** A note for the load (not an error), e.g. that the API server has no /openapi/v3. */
  get note(): string | undefined {
    return this.#served ? undefined : "the API server does not serve /openapi/v3: custom resources have no schemas (their mutations answer 503, as the apiserver's would)";
  }

  /** Identifies the current OpenAPI state (or the failure). */
  get digest(): string {
    const h = createHash("sha256");
    for (const [gv, e] of [...this.#entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) h.update(`${gv}\0${e.url}\0`);
    if (this.#error !== undefined) h.update(`error\0${this.#error}`);
    return h.digest("hex");
  }

  /**
   * Reads `/openapi/v3` and the documents (and discovery) of the custom group-versions whose URL
   * changed. Returns whether anything changed (documents, or the error state). Never throws: a
   * failure keeps the previous documents and sets {@link error}.
   */
  async refresh(): Promise<boolean> {
    const before = this.digest;
    const wasServed = this.#served;
    try {
      const root = await this.#get("/openapi/v3");
      if (root === undefined) {
        this.#served = false;
        this.#entries = new Map();
      } else {
        this.#served = true;
        this.#entries = await this.#fetchChanged(root);
      }
      this.#error = undefined;
    } catch (e) {
      this.#error = `/openapi/v3: ${text(e)}`;
    }
    const first = !this.#refreshed;
    this.#refreshed = true;
    return first || this.digest !== before || this.#served !== wasServed;
  }

  async #fetchChanged(root: unknown): Promise<Map<string, GroupVersionEntry>> {
    const paths = isObject(root) && isObject(root.paths) ? root.paths : undefined;
    if (paths === undefined) throw new Error("the discovery document has no paths");
    const next = new Map<string, GroupVersionEntry>();
    const pending: Promise<void>[] = [];
    for (const [path, entry] of Object.entries(paths)) {
      // `apis/<group>/<version>`; the core group (`api/v1`) and non-resource paths are built in.
      const m = /^apis\/([^/]+)\/([^/]+)$/.exec(path);
      if (m === null || !isObject(entry) || typeof entry.serverRelativeURL !== "string") continue;
      const [group, version] = [m[1]!, m[2]!];
      const gv = `${group}/${version}`;
      if (this.#builtin.has(gv)) continue;
      const url = entry.serverRelativeURL;
      const old = this.#entries.get(gv);
      if (old !== undefined && old.url === url) {
        next.set(gv, old);
        continue;
      }
      pending.push(
        (async () => {
          const [document, discovery] = await Promise.all([this.#get(url), this.#get(`/apis/${gv}`)]);
          // Gone between the discovery and this fetch (a CRD deleted): leave it out.
          if (document === undefined) return;
          if (!isObject(document)) throw new Error(`${url}: not a JSON object`);
          const resources = isObject(discovery) && Array.isArray(discovery.resources) ? discovery.resources.filter(isObject) : [];
          next.set(gv, { group, version, url, document, resources });
        })().catch((e: unknown) => {
          throw new Error(`${gv}: ${text(e)}`);
        }),
      );
    }
    await Promise.all(pending);
    return next;
  }

  /** The catalog and schemas for the current state (built once per state), or the errors. */
  types(): TypesResult {
    if (this.#error !== undefined) return { ok: false, errors: [`cluster OpenAPI (CRD schemas) not read: ${this.#error}`] };
    const digest = this.digest;
    if (this.#built?.digest === digest) return this.#built.result;
    const result = buildTypes([...this.#entries.values()], digest);
    this.#built = { digest, result };
    return result;
  }
}

/** Catalog and schemas from the fetched group-versions. Exported for tests. */
export function buildTypes(entries: readonly GroupVersionEntry[], digest: string): TypesResult {
  const catalog = ResourceCatalog.builtin();
  const schemas = SchemaRegistry.builtin();
  const errors: string[] = [];
  const kinds: string[] = [];
  // Resources by group/plural, to register the served versions of one resource together (equivalent).
  const byResource = new Map<string, { group: string; plural: string; kind: string; scope: string; versions: { name: string; subresources: { status?: object; scale?: object } }[] }>();
  const sorted = [...entries].sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : compareKubeVersions(a.version, b.version)));
  for (const e of sorted) {
    const gv = `${e.group}/${e.version}`;
    const components = isObject(e.document.components) && isObject(e.document.components.schemas) ? e.document.components.schemas : undefined;
    if (components === undefined) {
      errors.push(`${e.url}: the document has no components.schemas`);
      continue;
    }
    // Top-level resources (`widgets`), and their subresources (`widgets/status`).
    const served = new Map<string, { kind: string; namespaced: boolean; subresources: { status?: object; scale?: object } }>();
    for (const r of e.resources) {
      const name = typeof r.name === "string" ? r.name : "";
      const [plural, sub] = name.split("/", 2) as [string, string | undefined];
      if (sub === undefined && typeof r.kind === "string" && r.kind !== "") {
        served.set(plural, { kind: r.kind, namespaced: r.namespaced === true, subresources: served.get(plural)?.subresources ?? {} });
      }
    }
    for (const r of e.resources) {
      const [plural, sub] = String(r.name ?? "").split("/", 2) as [string, string | undefined];
      const res = served.get(plural);
      if (res === undefined) continue;
      if (sub === "status") res.subresources.status = {};
      if (sub === "scale") res.subresources.scale = {};
    }
    const servedKinds = new Set([...served.values()].map((r) => r.kind));
    for (const [plural, r] of served) {
      const key = `${e.group}/${plural}`;
      const cur = byResource.get(key) ?? { group: e.group, plural, kind: r.kind, scope: r.namespaced ? "Namespaced" : "Cluster", versions: [] };
      cur.versions.push({ name: e.version, subresources: r.subresources });
      byResource.set(key, cur);
    }
    for (const [name, schema] of Object.entries(components)) {
      if (!isObject(schema)) continue;
      const gvks = Array.isArray(schema["x-kubernetes-group-version-kind"]) ? schema["x-kubernetes-group-version-kind"].filter(isObject) : [];
      for (const k of gvks) {
        if (k.group !== e.group || k.version !== e.version || typeof k.kind !== "string" || !servedKinds.has(k.kind)) continue;
        try {
          schemas.addKind(gv, k.kind, crdSchemaNode(resolveRefs(schema, components)));
          kinds.push(`${gv} ${k.kind}`);
        } catch (err) {
          errors.push(`${e.url}: components.schemas.${name}: ${text(err)}`);
        }
      }
    }
  }
  for (const r of byResource.values()) {
    const err = catalog.addCustomResourceDefinition({
      spec: { group: r.group, scope: r.scope, names: { plural: r.plural, kind: r.kind }, versions: r.versions.map((v) => ({ name: v.name, served: true, subresources: v.subresources })) },
    });
    if (err !== undefined) errors.push(`${r.group}/${r.plural}: ${err}`);
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, types: { catalog, schemas, digest, kinds: kinds.sort() } };
}

const REF_PREFIX = "#/components/schemas/";
/** Resolution depth beyond which a (recursive) reference becomes an untyped value. */
const MAX_REF_DEPTH = 32;

/**
 * The schema with every `$ref` (bare, or the published form `allOf: [{$ref}]` with siblings such as
 * `description` and `default`) replaced by the referenced component. A reference that recurses
 * (or nests too deep) becomes `x-kubernetes-preserve-unknown-fields` (untyped). A reference to a
 * missing component is an error.
 */
export function resolveRefs(schema: JsonObject, components: JsonObject): JsonObject {
  const walk = (s: JsonObject, stack: readonly string[]): JsonObject => {
    let node = s;
    const allOf = Array.isArray(node.allOf) ? node.allOf : undefined;
    const single = allOf !== undefined && allOf.length === 1 && isObject(allOf[0]) && typeof allOf[0].$ref === "string" ? allOf[0] : undefined;
    const ref = typeof node.$ref === "string" ? node.$ref : single !== undefined ? (single.$ref as string) : undefined;
    if (ref !== undefined) {
      if (!ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${JSON.stringify(ref)}`);
      const name = ref.slice(REF_PREFIX.length);
      const target = components[name];
      if (!isObject(target)) throw new Error(`$ref to a missing schema ${JSON.stringify(name)}`);
      const { $ref: _r, allOf: _a, ...siblings } = node;
      if (stack.includes(name) || stack.length >= MAX_REF_DEPTH) return { ...siblings, "x-kubernetes-preserve-unknown-fields": true };
      node = { ...walk(target, [...stack, name]), ...siblings };
      return node;
    }
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) {
      if ((k === "properties" || k === "patternProperties") && isObject(v)) {
        const props: JsonObject = {};
        for (const [p, ps] of Object.entries(v)) props[p] = isObject(ps) ? walk(ps, stack) : ps;
        out[k] = props;
      } else if ((k === "items" || k === "additionalProperties") && isObject(v)) {
        out[k] = walk(v, stack);
      } else {
        out[k] = v;
      }
    }
    return out;
  };
  return walk(schema, []);
}
