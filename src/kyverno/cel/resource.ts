/**
 * Kyverno's resource library (`kyverno.resource`, kyverno/sdk
 * `extensions/cel/libs/resource`): the variable `resource` of type
 * `resource.Context` with member functions, in PascalCase and (since 1.18)
 * camelCase:
 *
 * | cluster policy (namespace "")                        | namespaced policy (namespace pinned)    |
 * |------------------------------------------------------|-----------------------------------------|
 * | `List(apiVersion, resource, namespace)`              | `List(apiVersion, resource)`            |
 * | `List(apiVersion, resource, namespace, labels)`      | `List(apiVersion, resource, labels)`    |
 * | `List(gvr, namespace)`, `List(gvr, namespace, labels)` | `List(gvr)`, `List(gvr, labels)`      |
 * | `Get(apiVersion, resource, namespace, name)`         | `Get(apiVersion, resource, name)`       |
 * | `Get(gvr, namespace, name)`                          | `Get(gvr, name)`                        |
 * | `Post(apiVersion, resource, namespace, data)`, `Post(apiVersion, resource, data)` | `Post(apiVersion, resource, data)` |
 * | `ToGVR(apiVersion, kind)` → `schema.GroupVersionResource` | same                               |
 *
 * All results are `map(string, any)` (Kubernetes unstructured data: integers are
 * `int`). Semantics (impl.go): `Get` of a missing object is `null`, not an
 * error; a forbidden/unauthorized call is `failed to <verb> resource: permission
 * denied: <err>`; other errors `failed to list resource: <err>`, `failed to get
 * resource: <err>`, `failed to create resource: <err>`, `failed to map kind to
 * resource: <err>`. `Post(apiVersion, resource, data)` on a cluster policy posts
 * to namespace "".
 */
import { func, memberOverload, type Library, type OverloadDecl } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { toJson } from "../../cel/runtime/json.js";
import { ANY, STRING, mapType, opaqueType, type CelType } from "../../cel/types.js";
import { CelObject, type CelMapKey, type CelValue } from "../../cel/values.js";
import { ProviderError, fromJson, stringMap, type JsonObject } from "./common.js";

export const RESOURCE_CONTEXT_TYPE = opaqueType("resource.Context");
export const GVR_TYPE = opaqueType("schema.GroupVersionResource");

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * Cluster access for `resource.*` (Kyverno's `resource.ContextInterface`).
 * Synchronous: CEL evaluation cannot wait (see `providers.ts` for how webhook
 * mode backs it with a cache). Throw {@link ProviderError} for a failed call
 * (`reason: "NotFound"` from `getResource` reads as `null`, like returning null).
 */
export interface ResourceProvider {
  /** GET; null when the object does not exist. `resource` may name a subresource (`pods/status`). */
  getResource(apiVersion: string, resource: string, namespace: string, name: string): JsonObject | null;
  /** LIST as the dynamic client returns it (an object with `items`); namespace "" lists all namespaces. */
  listResources(apiVersion: string, resource: string, namespace: string, labels: Readonly<Record<string, string>> | undefined): JsonObject;
  /** CREATE (e.g. a SubjectAccessReview); returns the created object. */
  postResource(apiVersion: string, resource: string, namespace: string, data: JsonObject): JsonObject;
  /** REST mapping of a kind. */
  toGVR(apiVersion: string, kind: string): GroupVersionResource;
}

/** The run-time value of the `resource` variable. */
export class ResourceContext extends CelObject {
  readonly celType = RESOURCE_CONTEXT_TYPE;
  constructor(readonly provider: ResourceProvider) {
    super();
  }
}

/** A `schema.GroupVersionResource` value (from `ToGVR`). */
export class GvrValue extends CelObject {
  readonly celType = GVR_TYPE;
  constructor(readonly gvr: GroupVersionResource) {
    super();
  }
  /** `GroupVersion().String()`: `v1` for the core group, else `group/version`. */
  get apiVersion(): string {
    return this.gvr.group === "" ? this.gvr.version : `${this.gvr.group}/${this.gvr.version}`;
  }
  override equals(other: CelValue): boolean {
    if (!(other instanceof GvrValue)) throw new CelEvalError("no such overload");
    return other.gvr.group === this.gvr.group && other.gvr.version === this.gvr.version && other.gvr.resource === this.gvr.resource;
  }
  toJSON(): GroupVersionResource {
    return { ...this.gvr };
  }
}

const MAP_STRING_ANY = mapType(STRING, ANY);
const MAP_STRING_STRING = mapType(STRING, STRING);
const CTX = RESOURCE_CONTEXT_TYPE;

function ctx(v: CelValue): ResourceProvider {
  if (!(v instanceof ResourceContext)) throw new CelEvalError("no such overload");
  return v.provider;
}

function failure(verb: "list" | "get" | "create", e: unknown): never {
  if (e instanceof ProviderError) {
    if (e.reason === "Forbidden" || e.reason === "Unauthorized") throw new CelEvalError(`failed to ${verb} resource: permission denied: ${e.message}`);
    throw new CelEvalError(`failed to ${verb} resource: ${e.message}`);
  }
  throw e;
}

function list(c: CelValue, apiVersion: string, resource: string, namespace: string, labels?: ReadonlyMap<CelMapKey, CelValue>): CelValue {
  const p = ctx(c);
  let out: JsonObject;
  try {
    out = p.listResources(apiVersion, resource, namespace, labels === undefined ? undefined : stringMap(labels));
  } catch (e) {
    failure("list", e);
  }
  return fromJson(out);
}

function get(c: CelValue, apiVersion: string, resource: string, namespace: string, name: string): CelValue {
  const p = ctx(c);
  let out: JsonObject | null;
  try {
    out = p.getResource(apiVersion, resource, namespace, name);
  } catch (e) {
    if (e instanceof ProviderError && e.reason === "NotFound") return null;
    failure("get", e);
  }
  return out === null ? null : fromJson(out);
}

function post(c: CelValue, apiVersion: string, resource: string, namespace: string, data: ReadonlyMap<CelMapKey, CelValue>): CelValue {
  const p = ctx(c);
  let out: JsonObject;
  try {
    // structpb.Struct: a JSON object.
    out = p.postResource(apiVersion, resource, namespace, toJson(data) as JsonObject);
  } catch (e) {
    failure("create", e);
  }
  return fromJson(out);
}

function toGVR(c: CelValue, apiVersion: string, kind: string): CelValue {
  const p = ctx(c);
  try {
    return new GvrValue(p.toGVR(apiVersion, kind));
  } catch (e) {
    if (e instanceof ProviderError) throw new CelEvalError(`failed to map kind to resource: ${e.message}`);
    throw e;
  }
}

const gv = (g: GvrValue): string => g.apiVersion;

function clusterOverloads(suffix: string): Record<string, OverloadDecl[]> {
  const o = (id: string, params: CelType[], result: CelType, impl: (...a: never[]) => CelValue): OverloadDecl =>
    memberOverload(`${id}_${suffix}`, params, result, impl as never);
  return {
    List: [
      o("resource_list_string_string_string", [CTX, STRING, STRING, STRING], MAP_STRING_ANY, (c: CelValue, a: string, r: string, ns: string) => list(c, a, r, ns)),
      o("resource_list_string_string_string_map", [CTX, STRING, STRING, STRING, MAP_STRING_STRING], MAP_STRING_ANY, (c: CelValue, a: string, r: string, ns: string, l: ReadonlyMap<CelMapKey, CelValue>) => list(c, a, r, ns, l)),
      o("list_resources_gvr_string", [CTX, GVR_TYPE, STRING], MAP_STRING_ANY, (c: CelValue, g: GvrValue, ns: string) => list(c, gv(g), g.gvr.resource, ns)),
      o("list_resources_gvr_string_map", [CTX, GVR_TYPE, STRING, MAP_STRING_STRING], MAP_STRING_ANY, (c: CelValue, g: GvrValue, ns: string, l: ReadonlyMap<CelMapKey, CelValue>) => list(c, gv(g), g.gvr.resource, ns, l)),
    ],
    Get: [
      o("resource_get_string_string_string_string", [CTX, STRING, STRING, STRING, STRING], MAP_STRING_ANY, (c: CelValue, a: string, r: string, ns: string, n: string) => get(c, a, r, ns, n)),
      o("resource_get_gvr_string_string", [CTX, GVR_TYPE, STRING, STRING], MAP_STRING_ANY, (c: CelValue, g: GvrValue, ns: string, n: string) => get(c, gv(g), g.gvr.resource, ns, n)),
    ],
    Post: [
      o("resource_post_string_string_string_map", [CTX, STRING, STRING, STRING, MAP_STRING_ANY], MAP_STRING_ANY, (c: CelValue, a: string, r: string, ns: string, d: ReadonlyMap<CelMapKey, CelValue>) => post(c, a, r, ns, d)),
      o("resource_post_string_string_map", [CTX, STRING, STRING, MAP_STRING_ANY], MAP_STRING_ANY, (c: CelValue, a: string, r: string, d: ReadonlyMap<CelMapKey, CelValue>) => post(c, a, r, "", d)),
    ],
    ToGVR: [o("convert_to_gvr_string_string", [CTX, STRING, STRING], GVR_TYPE, (c: CelValue, a: string, k: string) => toGVR(c, a, k))],
  };
}

function namespacedOverloads(suffix: string, ns: string): Record<string, OverloadDecl[]> {
  const o = (id: string, params: CelType[], result: CelType, impl: (...a: never[]) => CelValue): OverloadDecl =>
    memberOverload(`${id}_${suffix}`, params, result, impl as never);
  return {
    List: [
      o("resource_list_string_string", [CTX, STRING, STRING], MAP_STRING_ANY, (c: CelValue, a: string, r: string) => list(c, a, r, ns)),
      o("resource_list_string_string_map", [CTX, STRING, STRING, MAP_STRING_STRING], MAP_STRING_ANY, (c: CelValue, a: string, r: string, l: ReadonlyMap<CelMapKey, CelValue>) => list(c, a, r, ns, l)),
      o("list_resources_gvr", [CTX, GVR_TYPE], MAP_STRING_ANY, (c: CelValue, g: GvrValue) => list(c, gv(g), g.gvr.resource, ns)),
      o("list_resources_gvr_map", [CTX, GVR_TYPE, MAP_STRING_STRING], MAP_STRING_ANY, (c: CelValue, g: GvrValue, l: ReadonlyMap<CelMapKey, CelValue>) => list(c, gv(g), g.gvr.resource, ns, l)),
    ],
    Get: [
      o("resource_get_string_string_string", [CTX, STRING, STRING, STRING], MAP_STRING_ANY, (c: CelValue, a: string, r: string, n: string) => get(c, a, r, ns, n)),
      o("resource_get_gvr_string", [CTX, GVR_TYPE, STRING], MAP_STRING_ANY, (c: CelValue, g: GvrValue, n: string) => get(c, gv(g), g.gvr.resource, ns, n)),
    ],
    Post: [
      o("resource_post_string_string_map", [CTX, STRING, STRING, MAP_STRING_ANY], MAP_STRING_ANY, (c: CelValue, a: string, r: string, d: ReadonlyMap<CelMapKey, CelValue>) => post(c, a, r, ns, d)),
    ],
    ToGVR: [o("convert_to_gvr_string_string", [CTX, STRING, STRING], GVR_TYPE, (c: CelValue, a: string, k: string) => toGVR(c, a, k))],
  };
}

/**
 * The library for a cluster-scoped policy (`namespace` "" or absent) or a
 * namespaced one (`namespace` set: the overloads without a namespace argument,
 * pinned to it). Declares the variable `resource`; bind it to
 * `new ResourceContext(provider)` at evaluation (`kyvernoEnv` does).
 */
export function resourceLibrary(namespace = ""): Library {
  const pascal = namespace === "" ? clusterOverloads("pascal") : namespacedOverloads("pascal", namespace);
  const camel = namespace === "" ? clusterOverloads("camel") : namespacedOverloads("camel", namespace);
  const functions = [
    ...Object.entries(pascal).map(([name, ovs]) => func(name, ...ovs)),
    ...Object.entries(camel).map(([name, ovs]) => func(name[0]!.toLowerCase() + name.slice(1), ...ovs)),
  ];
  return {
    name: "kyverno.resource",
    variables: [{ name: "resource", type: RESOURCE_CONTEXT_TYPE }],
    functions,
  };
}

export const RESOURCE_LIBRARY: Library = resourceLibrary();
