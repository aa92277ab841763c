/**
 * Defaulters for the `defaulter` hook of `evaluate` (the apiserver defaults an object after every
 * mutation). celmap does not carry Kubernetes' built-in defaulting functions; what it can do
 * exactly is the structural-schema defaulting of custom resources: {@link crdDefaulter}.
 */
import type { Defaulter } from "./dispatch.js";
import { deepClone, hasKey, isJsonObject, setKey, type JsonObject, type JsonValue } from "./json.js";

/**
 * Structural-schema defaulting (apiextensions `structuraldefaulting.Default`): wherever an object
 * exists, each property with a `default` that is absent gets a copy of it; then present properties,
 * array items and `additionalProperties` values are defaulted in turn. Objects of other kinds are
 * returned unchanged. `crd` is an apiextensions.k8s.io/v1 CustomResourceDefinition.
 */
export function crdDefaulter(crd: JsonObject): Defaulter {
  const spec = isJsonObject(crd.spec) ? crd.spec : {};
  const group = typeof spec.group === "string" ? spec.group : "";
  const names = isJsonObject(spec.names) ? spec.names : {};
  const kind = typeof names.kind === "string" ? names.kind : "";
  const schemas = new Map<string, JsonObject>();
  for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
    if (!isJsonObject(v) || typeof v.name !== "string") continue;
    const s = isJsonObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (isJsonObject(s)) schemas.set(v.name, s);
  }
  return (object, gvk) => {
    if (gvk.group !== group || gvk.kind !== kind) return object;
    const schema = schemas.get(gvk.version);
    if (schema === undefined) return object;
    const out = applyDefaults(deepClone(object), schema);
    return isJsonObject(out) ? out : object;
  };
}

/** A structural schema's defaults applied in place where fields are missing (`structuraldefaulting.Default`); also used by src/validation. */
export function applyDefaults(v: JsonValue, s: JsonObject): JsonValue {
  if (isJsonObject(v)) {
    const props = isJsonObject(s.properties) ? s.properties : undefined;
    if (props !== undefined) {
      for (const [k, ps] of Object.entries(props)) {
        if (!isJsonObject(ps)) continue;
        if (!hasKey(v, k) && hasKey(ps, "default")) setKey(v, k, deepClone(ps.default as JsonValue));
        if (hasKey(v, k)) setKey(v, k, applyDefaults(v[k] as JsonValue, ps));
      }
    }
    if (isJsonObject(s.additionalProperties)) {
      for (const k of Object.keys(v)) if (props === undefined || !hasKey(props, k)) setKey(v, k, applyDefaults(v[k] as JsonValue, s.additionalProperties));
    }
    return v;
  }
  if (Array.isArray(v) && isJsonObject(s.items)) return v.map((e) => applyDefaults(e as JsonValue, s.items as JsonObject));
  return v;
}

// ---------------------------------------------------------------------------------------------
// A subset of the built-in defaulters

const POD_TEMPLATE_PATHS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  "/Pod": [["spec"]],
  "/PodTemplate": [["template", "spec"]],
  "/ReplicationController": [["spec", "template", "spec"]],
  "apps/Deployment": [["spec", "template", "spec"]],
  "apps/ReplicaSet": [["spec", "template", "spec"]],
  "apps/StatefulSet": [["spec", "template", "spec"]],
  "apps/DaemonSet": [["spec", "template", "spec"]],
  "batch/Job": [["spec", "template", "spec"]],
  "batch/CronJob": [["spec", "jobTemplate", "spec", "template", "spec"]],
};

const REPLICATED = new Set(["apps/Deployment", "apps/ReplicaSet", "apps/StatefulSet", "/ReplicationController"]);
const MODE_VOLUMES = ["configMap", "secret", "downwardAPI", "projected"];

function at(o: JsonObject, path: readonly string[]): JsonObject | undefined {
  let cur: JsonValue | undefined = o;
  for (const p of path) {
    if (!isJsonObject(cur)) return undefined;
    cur = cur[p];
  }
  return isJsonObject(cur) ? cur : undefined;
}

/**
 * A small, documented subset of kube-apiserver's built-in defaulting (`pkg/apis/*\/v1/defaults.go`)
 * for what mutations commonly remove or add; everything else a real apiserver would default is
 * left alone (the objects MAP sees were defaulted when the request was decoded, so only fields a
 * mutation touched are concerned):
 * - `SetDefaults_Pod` (Pods only, not templates): a container's (and init container's) resource
 *   limits are copied into its requests where the request is unset;
 * - `SetDefaults_{ConfigMap,Secret,DownwardAPI,Projected}VolumeSource` (every pod spec, templates
 *   included): `defaultMode` 420 (0644);
 * - `SetDefaults_{Deployment,ReplicaSet,StatefulSet,ReplicationController}`: `spec.replicas` 1;
 * - `SetDefaults_Namespace`: label `kubernetes.io/metadata.name` = the name (when named);
 *   `SetDefaults_NamespaceStatus`: `status.phase` Active.
 */
export const builtinDefaulter: Defaulter = (object, kind) => {
  const key = `${kind.group}/${kind.kind}`;
  if (key === "/Namespace" && kind.version === "v1") return defaultNamespace(object);
  const specs = POD_TEMPLATE_PATHS[key];
  if (specs === undefined && !REPLICATED.has(key)) return object;
  // Most objects need nothing: return them as they are instead of copying them.
  if (!needsDefaults(object, key, kind.version, specs)) return object;
  // Copy on write: only the containers on the paths that change are new; the rest is shared.
  let out = object;
  if (REPLICATED.has(key) && kind.version === "v1") {
    out = updateAt(out, ["spec"], (spec) => (spec.replicas === undefined || spec.replicas === null ? withKey(spec, "replicas", 1) : spec));
  }
  for (const path of specs ?? []) out = updateAt(out, path, (podSpec) => defaultPodSpec(podSpec, key === "/Pod"));
  return out;
};

/** `object` with the object at `path` replaced by `fn` of it (the same object when `fn` changes nothing or the path is missing). */
function updateAt(object: JsonObject, path: readonly string[], fn: (o: JsonObject) => JsonObject): JsonObject {
  if (path.length === 0) return fn(object);
  const [head, ...rest] = path as [string, ...string[]];
  const child = hasKey(object, head) ? object[head] : undefined;
  if (!isJsonObject(child)) return object;
  const next = updateAt(child, rest, fn);
  return next === child ? object : withKey(object, head, next);
}

function withKey(o: JsonObject, key: string, value: JsonValue): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(o)) setKey(out, k, o[k] as JsonValue);
  setKey(out, key, value);
  return out;
}

/** `map` that returns `list` itself when `fn` changes no element. */
function mapShared(list: JsonValue[], fn: (v: JsonValue) => JsonValue): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const v = list[i] as JsonValue;
    const w = fn(v);
    if (w !== v && out === undefined) out = list.slice(0, i);
    if (out !== undefined) out.push(w);
  }
  return out ?? list;
}

function defaultPodSpec(podSpec: JsonObject, isPod: boolean): JsonObject {
  let out = podSpec;
  if (Array.isArray(podSpec.volumes)) {
    const volumes = mapShared(podSpec.volumes, (v) => {
      if (!isJsonObject(v)) return v;
      let vol = v;
      for (const src of MODE_VOLUMES) {
        const s = vol[src];
        if (isJsonObject(s) && (s.defaultMode === undefined || s.defaultMode === null)) vol = withKey(vol, src, withKey(s, "defaultMode", 420));
      }
      return vol;
    });
    if (volumes !== podSpec.volumes) out = withKey(out, "volumes", volumes);
  }
  if (!isPod) return out;
  for (const list of ["containers", "initContainers"]) {
    const cs = out[list];
    if (!Array.isArray(cs)) continue;
    const next = mapShared(cs, (c) => {
      const res = isJsonObject(c) ? c.resources : undefined;
      if (!isJsonObject(c) || !isJsonObject(res) || !isJsonObject(res.limits)) return c;
      const requests0 = isJsonObject(res.requests) ? res.requests : undefined;
      let requests = requests0 ?? {};
      for (const [k, v] of Object.entries(res.limits)) if (!hasKey(requests, k)) requests = withKey(requests, k, deepClone(v as JsonValue));
      if (requests === requests0 || Object.keys(requests).length === 0) return c;
      return withKey(c, "resources", withKey(res, "requests", requests));
    });
    if (next !== cs) out = withKey(out, list, next);
  }
  return out;
}

/** Whether {@link builtinDefaulter} would change `object` (the same conditions, without copying). */
function needsDefaults(object: JsonObject, key: string, version: string, specs: readonly (readonly string[])[] | undefined): boolean {
  if (REPLICATED.has(key) && version === "v1") {
    const spec = at(object, ["spec"]);
    if (spec !== undefined && (spec.replicas === undefined || spec.replicas === null)) return true;
  }
  for (const path of specs ?? []) {
    const podSpec = at(object, path);
    if (podSpec === undefined) continue;
    if (Array.isArray(podSpec.volumes)) {
      for (const v of podSpec.volumes) {
        if (!isJsonObject(v)) continue;
        for (const src of MODE_VOLUMES) {
          const s = v[src];
          if (isJsonObject(s) && (s.defaultMode === undefined || s.defaultMode === null)) return true;
        }
      }
    }
    if (key !== "/Pod") continue;
    for (const list of ["containers", "initContainers"]) {
      const cs = podSpec[list];
      if (!Array.isArray(cs)) continue;
      for (const c of cs) {
        const res = isJsonObject(c) ? c.resources : undefined;
        if (!isJsonObject(res) || !isJsonObject(res.limits)) continue;
        const requests = isJsonObject(res.requests) ? res.requests : undefined;
        for (const k of Object.keys(res.limits)) if (requests === undefined || !hasKey(requests, k)) return true;
      }
    }
  }
  return false;
}

/** Applies defaulters in order. */
export function composeDefaulters(...defaulters: readonly Defaulter[]): Defaulter {
  return (object, kind) => defaulters.reduce((o, d) => d(o, kind), object);
}

function defaultNamespace(object: JsonObject): JsonObject {
  const md0 = isJsonObject(object.metadata) ? object.metadata : undefined;
  const name0 = md0 !== undefined && typeof md0.name === "string" && md0.name !== "" ? md0.name : undefined;
  const labels0 = md0 !== undefined && isJsonObject(md0.labels) ? md0.labels : undefined;
  const phase0 = isJsonObject(object.status) ? object.status.phase : undefined;
  const labelled = name0 === undefined || (labels0 !== undefined && hasKey(labels0, "kubernetes.io/metadata.name") && labels0["kubernetes.io/metadata.name"] === name0);
  if (labelled && phase0 !== undefined && phase0 !== null && phase0 !== "") return object;
  const out = deepClone(object);
  const md = isJsonObject(out.metadata) ? out.metadata : undefined;
  if (md !== undefined && typeof md.name === "string" && md.name !== "") {
    const labels = isJsonObject(md.labels) ? md.labels : {};
    setKey(labels, "kubernetes.io/metadata.name", md.name);
    md.labels = labels;
  }
  const status = isJsonObject(out.status) ? out.status : {};
  if (status.phase === undefined || status.phase === null || status.phase === "") status.phase = "Active";
  out.status = status;
  return out;
}
