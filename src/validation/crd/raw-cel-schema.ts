/**
 * A CRD's raw OpenAPI schema as the CEL engine's schema interface (`CelSchemaNode`), so that CEL
 * rules see values with the schema's semantics (set and map lists, int-or-string, formats).
 * Adapted lazily and cached per schema object.
 */
import type { CelSchemaNode } from "../../cel/k8s/values.js";
import { isJsonObject, type JsonObject } from "../../admission/json.js";

const cache = new WeakMap<JsonObject, CelSchemaNode>();
const UNTYPED: CelSchemaNode = { kind: "untyped", child: () => UNTYPED, element: () => undefined };

export function rawCelSchema(s: JsonObject): CelSchemaNode {
  let c = cache.get(s);
  if (c === undefined) {
    c = build(s);
    cache.set(s, c);
  }
  return c;
}

function build(s: JsonObject): CelSchemaNode {
  if (s["x-kubernetes-int-or-string"] === true) return { kind: "scalar", scalar: "string", format: "int-or-string", child: () => undefined, element: () => undefined };
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  switch (s.type) {
    case "object": {
      const props = isJsonObject(s.properties) ? s.properties : undefined;
      if (props !== undefined && Object.keys(props).length > 0) {
        return {
          kind: "struct",
          child: (name) => (isJsonObject(props[name]) ? rawCelSchema(props[name]) : preserve ? UNTYPED : undefined),
          element: () => undefined,
        };
      }
      if (isJsonObject(s.additionalProperties)) {
        const ap = s.additionalProperties;
        return { kind: "map", child: () => rawCelSchema(ap), element: () => undefined };
      }
      return UNTYPED;
    }
    case "array": {
      const items = isJsonObject(s.items) ? s.items : undefined;
      const lt = s["x-kubernetes-list-type"];
      const keys = Array.isArray(s["x-kubernetes-list-map-keys"]) ? s["x-kubernetes-list-map-keys"].filter((k): k is string => typeof k === "string") : undefined;
      return {
        kind: "list",
        listType: lt === "set" ? "set" : lt === "map" ? "map" : "atomic",
        ...(lt === "map" && keys !== undefined ? { listMapKeys: keys } : {}),
        child: () => undefined,
        element: () => (items === undefined ? undefined : rawCelSchema(items)),
      };
    }
    case "string":
    case "integer":
    case "number":
    case "boolean":
      return { kind: "scalar", scalar: s.type, ...(typeof s.format === "string" ? { format: s.format } : {}), child: () => undefined, element: () => undefined };
    default:
      return UNTYPED;
  }
}
