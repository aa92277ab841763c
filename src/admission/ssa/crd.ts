/**
 * A CRD version's structural schema (`openAPIV3Schema`) as the {@link SchemaNode} tree the merge
 * needs, following what the apiserver does: the CRD's published OpenAPI gains `apiVersion`, `kind`
 * and `metadata` (ObjectMeta) at the root and in `x-kubernetes-embedded-resource` objects, and
 * kube-openapi's `schemaconv` turns it into structured-merge-diff types:
 *
 * - `type: object` with properties: a struct, atomic under `x-kubernetes-map-type: atomic`; with
 *   `x-kubernetes-preserve-unknown-fields` (here or on an ancestor) undeclared fields are allowed;
 * - `type: object` with `additionalProperties`: a map of that schema (`true`: untyped values);
 *   without properties and additionalProperties: a map of untyped values;
 * - `type: array`: `x-kubernetes-list-type` map (keyed by `x-kubernetes-list-map-keys`, whose
 *   `default`s key items that omit them), set, or atomic (also when unset);
 * - strings without a format (or `byte`) are strings; any other format, and
 *   `x-kubernetes-int-or-string`, accept any scalar; integer and number are numeric;
 * - no type (`x-kubernetes-preserve-unknown-fields` alone): untyped.
 *
 * Register the result with `registry.addKind(apiVersion, kind, node)`.
 */
import type { ListNode, SchemaNode, SchemaRef, StructNode } from "../../kube/schema.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json.js";

const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const STRING: SchemaNode = { t: "scalar", s: "string" };

/** The schema node of a custom resource, from its CRD version's `openAPIV3Schema`. */
export function crdSchemaNode(openAPIV3Schema: JsonObject): SchemaNode {
  // The published root always has properties (apiVersion, kind, metadata), so it is a struct even
  // when the CRD declares none (a preserve-unknown-fields root then allows any other field).
  const props = isJsonObject(openAPIV3Schema.properties) ? openAPIV3Schema.properties : {};
  const root = convert({ ...openAPIV3Schema, type: "object", properties: { ...props, apiVersion: { type: "string" }, kind: { type: "string" } } }, false);
  if (root.t !== "struct") return root;
  return { ...root, f: { ...root.f, ...resourceFields() } };
}

function resourceFields(): Record<string, SchemaRef> {
  return { apiVersion: STRING, kind: STRING, metadata: OBJECT_META };
}

function str(v: JsonValue | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function convert(s: JsonObject, inheritedPreserve: boolean): SchemaNode {
  const preserve = inheritedPreserve || s["x-kubernetes-preserve-unknown-fields"] === true;
  if (s["x-kubernetes-int-or-string"] === true) return { t: "scalar", s: "string", fmt: "int-or-string" };
  const type = str(s.type);
  switch (type) {
    case "object":
      return convertObject(s, preserve);
    case "array":
      return convertArray(s, preserve);
    case "string": {
      const fmt = str(s.format);
      return fmt === undefined || fmt === "" ? { t: "scalar", s: "string" } : { t: "scalar", s: "string", fmt };
    }
    case "integer":
    case "number":
    case "boolean":
      return { t: "scalar", s: type };
    default:
      return { t: "untyped", ...(preserve && { preserveUnknown: true }) };
  }
}

function convertObject(s: JsonObject, preserve: boolean): SchemaNode {
  const atomic = s["x-kubernetes-map-type"] === "atomic";
  const props = isJsonObject(s.properties) ? s.properties : {};
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  if (Object.keys(props).length > 0 || embedded) {
    const f: Record<string, SchemaRef> = {};
    for (const [name, p] of Object.entries(props)) if (isJsonObject(p)) f[name] = convert(p, preserve);
    // Embedded resources gain apiVersion, kind and metadata where the schema does not declare them.
    if (embedded) for (const [name, ref] of Object.entries(resourceFields())) if (f[name] === undefined) f[name] = ref;
    const node: StructNode = {
      t: "struct",
      f,
      ...(Array.isArray(s.required) && { required: s.required.filter((r): r is string => typeof r === "string") }),
      ...(atomic && { atomic: true }),
      ...(preserve && { preserveUnknown: true }),
    };
    return node;
  }
  const ap = s.additionalProperties;
  const v: SchemaNode = isJsonObject(ap) ? convert(ap, preserve) : { t: "untyped" };
  return { t: "map", v, ...(atomic && { atomic: true }) };
}

function convertArray(s: JsonObject, preserve: boolean): ListNode {
  const items = isJsonObject(s.items) ? s.items : undefined;
  const e: SchemaNode = items === undefined ? { t: "untyped" } : convert(items, preserve);
  const lt = str(s["x-kubernetes-list-type"]);
  if (lt === "set") return { t: "list", lt: "set", e };
  if (lt !== "map") return { t: "list", lt: "atomic", e };
  const keys = Array.isArray(s["x-kubernetes-list-map-keys"]) ? s["x-kubernetes-list-map-keys"].filter((k): k is string => typeof k === "string") : [];
  const keyDefaults: Record<string, JsonValue> = {};
  const itemProps = items !== undefined && isJsonObject(items.properties) ? items.properties : {};
  for (const k of keys) {
    const p = itemProps[k];
    if (isJsonObject(p) && p.default !== undefined) keyDefaults[k] = p.default;
  }
  return { t: "list", lt: "map", keys, e, ...(Object.keys(keyDefaults).length > 0 && { keyDefaults }) };
}
