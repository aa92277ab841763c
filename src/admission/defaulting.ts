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

function applyDefaults(v: JsonValue, s: JsonObject): JsonValue {
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
