/**
 * What kube-apiserver does with a custom resource after admission, before storing it, from its
 * CustomResourceDefinition (apiextensions.k8s.io/v1): prune unknown fields, drop nulls of
 * non-nullable fields without a default, apply schema defaults, then validate (the custom
 * resource strategy's order, v0.36.3): kind and apiVersion; metadata; the OpenAPI schema;
 * `x-kubernetes-list-type` set/map uniqueness; the CEL rules (skipped, with one error saying so,
 * when a blocking error came before).
 */
import { invalid, type FieldError } from "../../diag/field-error.js";
import { FieldPath } from "../../diag/field-path.js";
import { deepClone, deepEqual, hasKey, isJsonObject, setKey, type JsonObject, type JsonValue } from "../../admission/json.js";
import { nameIsDNSSubdomain, validateObjectMetaGenericCR, validateObjectMetaUpdate } from "../builtin/meta.js";
import { validateSchema, validateListTypes } from "./schema-validate.js";
import { validateCelRules } from "./rules.js";
import { applyDefaults } from "../../admission/defaulting.js";

export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema: JsonObject | undefined;
}

export interface CrdInfo {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly versions: readonly CrdVersion[];
  /** `spec.conversion.strategy` (None when unset). */
  readonly conversion: "None" | "Webhook";
}

/** Reads the parts of a CRD this module needs (the CRD is assumed valid). */
export function crdInfo(crd: JsonObject): CrdInfo {
  const spec = isJsonObject(crd.spec) ? crd.spec : {};
  const names = isJsonObject(spec.names) ? spec.names : {};
  const versions: CrdVersion[] = [];
  for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
    if (!isJsonObject(v) || typeof v.name !== "string") continue;
    const schema = isJsonObject(v.schema) && isJsonObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined;
    versions.push({ name: v.name, served: v.served !== false, storage: v.storage === true, schema });
  }
  const conv = isJsonObject(spec.conversion) ? spec.conversion.strategy : undefined;
  return {
    group: typeof spec.group === "string" ? spec.group : "",
    kind: typeof names.kind === "string" ? names.kind : "",
    plural: typeof names.plural === "string" ? names.plural : "",
    namespaced: spec.scope !== "Cluster",
    versions,
    conversion: conv === "Webhook" ? "Webhook" : "None",
  };
}

function versionOf(info: CrdInfo, apiVersion: JsonValue | undefined): CrdVersion | undefined {
  const v = typeof apiVersion === "string" && apiVersion.startsWith(`${info.group}/`) ? apiVersion.slice(info.group.length + 1) : undefined;
  return info.versions.find((x) => x.name === v);
}

// ---------------------------------------------------------------------------------------------
// Pruning, null dropping, defaulting

const META_KEYS = new Set(["apiVersion", "kind", "metadata"]);

/** Structural pruning (`pruning.Prune`): fields the schema does not declare are dropped, outside preserve-unknown-fields. */
function prune(v: JsonValue, s: JsonObject, root: boolean): JsonValue {
  if (isJsonObject(v)) {
    const props = isJsonObject(s.properties) ? s.properties : {};
    const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
    const ap = s.additionalProperties;
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      const ps = props[k];
      if (root && META_KEYS.has(k)) setKey(out, k, v[k] as JsonValue);
      else if (isJsonObject(ps)) setKey(out, k, prune(v[k] as JsonValue, ps, false));
      else if (isJsonObject(ap)) setKey(out, k, prune(v[k] as JsonValue, ap, false));
      else if (preserve || ap === true) setKey(out, k, v[k] as JsonValue);
    }
    return out;
  }
  if (Array.isArray(v) && isJsonObject(s.items)) return v.map((e) => prune(e as JsonValue, s.items as JsonObject, false));
  return v;
}

/** `PruneNonNullableNullsWithoutDefaults`: a null where the schema is not nullable and has no default is dropped. */
function dropNulls(v: JsonValue, s: JsonObject): JsonValue {
  if (isJsonObject(v)) {
    const props = isJsonObject(s.properties) ? s.properties : {};
    const ap = isJsonObject(s.additionalProperties) ? s.additionalProperties : undefined;
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      const ps = isJsonObject(props[k]) ? (props[k] as JsonObject) : ap;
      const x = v[k] as JsonValue;
      if (x === null && ps !== undefined && ps.nullable !== true && !hasKey(ps, "default")) continue;
      setKey(out, k, ps === undefined ? x : dropNulls(x, ps));
    }
    return out;
  }
  if (Array.isArray(v) && isJsonObject(s.items)) return v.map((e) => dropNulls(e as JsonValue, s.items as JsonObject));
  return v;
}

/**
 * What the apiserver's custom resource codec does to an object it decodes or converts
 * (`unstructuredSchemaCoercer.apply`, apiextensions-apiserver v0.36
 * pkg/apiserver/customresource_handler.go:1406-1439): unknown fields pruned, nulls of non-nullable
 * fields without a default dropped. It runs when a request body is decoded, when a webhook's
 * patched object is decoded, and when the object is encoded for storage; not after a MAP mutation.
 */
export function coerceCustomResource(info: CrdInfo, obj: JsonObject): JsonObject {
  const version = versionOf(info, obj.apiVersion);
  if (version?.schema === undefined) return obj;
  return dropNulls(prune(obj, version.schema, true), version.schema) as JsonObject;
}

/**
 * The custom resource as storage gives it back: encoded at the CRD's storage version (converted,
 * with the None strategy only its apiVersion changes, and coerced by that version's schema) and
 * decoded again at the request's version (coerced by its schema). A field only the request's
 * version declares is gone when the storage version does not declare it. Dry-run requests take the
 * same round trip (the dry-run storage copies the object through the codec).
 */
export function storeCustomResource(info: CrdInfo, obj: JsonObject): JsonObject {
  const own = versionOf(info, obj.apiVersion);
  const storage = info.versions.find((v) => v.storage) ?? own;
  let out: JsonValue = obj;
  if (storage !== undefined && storage !== own && storage.schema !== undefined) out = dropNulls(prune(out, storage.schema, true), storage.schema);
  if (own?.schema !== undefined) out = dropNulls(prune(out, own.schema, true), own.schema);
  return out as JsonObject;
}

/**
 * The custom resource after defaulting. `decode` (a request body decoded): coerced
 * ({@link coerceCustomResource}) then defaulted; `mutation` (after a MAP mutation, the
 * `unstructuredDefaulter` of customresource_handler.go:1240): defaulted only, so a field the schema
 * does not declare or a null a policy wrote is still there for validation to see.
 */
export function defaultCustomResource(info: CrdInfo, obj: JsonObject, mode: "decode" | "mutation" = "decode"): JsonObject {
  const version = versionOf(info, obj.apiVersion);
  if (version?.schema === undefined) return obj;
  const coerced = mode === "decode" ? coerceCustomResource(info, obj) : deepClone(obj);
  return applyDefaults(coerced, version.schema) as JsonObject;
}

// ---------------------------------------------------------------------------------------------
// Validation

const SCHEMA_BLOCKING = new Set(["FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany", "FieldValueTypeInvalid"]);

/** The stored object's validation errors (CREATE when `old` is undefined), in the apiserver's order. */
export function validateCustomResource(info: CrdInfo, obj: JsonObject, old: JsonObject | undefined): FieldError[] {
  const version = versionOf(info, obj.apiVersion);
  const errs: FieldError[] = [];
  // ValidateTypeMeta
  if (obj.kind !== info.kind) errs.push(invalid(FieldPath.root("kind"), String(obj.kind ?? ""), `must be ${info.kind}`));
  if (version === undefined) errs.push(invalid(FieldPath.root("apiVersion"), String(obj.apiVersion ?? ""), `must be ${info.group}/${info.versions[0]?.name ?? ""}`));
  if (errs.length > 0 || version === undefined) return errs;
  const md = isJsonObject(obj.metadata) ? obj.metadata : {};
  if (old === undefined) errs.push(...validateObjectMetaGenericCR(md, info.namespaced, nameIsDNSSubdomain));
  else errs.push(...validateObjectMetaUpdate(md, isJsonObject(old.metadata) ? old.metadata : {}, FieldPath.root("metadata"), false));
  const schema = version.schema;
  if (schema === undefined) return errs;
  const body: JsonObject = {};
  for (const k of Object.keys(obj)) if (k !== "metadata") setKey(body, k, obj[k] as JsonValue);
  const schemaForBody: JsonObject = { ...schema, properties: { ...(isJsonObject(schema.properties) ? schema.properties : {}) } };
  delete (schemaForBody.properties as JsonObject).metadata;
  let schemaErrs = validateSchema(body, schemaForBody);
  if (old !== undefined) schemaErrs = ratchet(schemaErrs, obj, old);
  errs.push(...schemaErrs);
  const listErrs = validateListTypes(obj, schema, FieldPath.empty);
  if (old === undefined || validateListTypes(old, schema, FieldPath.empty).length === 0) errs.push(...listErrs);
  if (errs.some((e) => SCHEMA_BLOCKING.has(e.type))) {
    if (hasRules(schema)) errs.push(invalid(FieldPath.root("<nil>"), null, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"));
  } else errs.push(...validateCelRules(obj, old, schema));
  return errs;
}

function hasRules(s: JsonValue): boolean {
  if (Array.isArray(s)) return s.some(hasRules);
  if (!isJsonObject(s)) return false;
  if (Array.isArray(s["x-kubernetes-validations"]) && s["x-kubernetes-validations"].length > 0) return true;
  return Object.entries(s).some(([k, v]) => k !== "default" && k !== "enum" && k !== "example" && hasRules(v as JsonValue));
}

/**
 * CRD validation ratcheting (GA): a schema error at a value that is unchanged from the old
 * object (same path) is dropped.
 */
function ratchet(errs: FieldError[], obj: JsonObject, old: JsonObject): FieldError[] {
  return errs.filter((e) => {
    const name = e.path.toString();
    const a = valueAt(obj, name);
    const b = valueAt(old, name);
    return a === undefined || b === undefined || !deepEqual(a, b);
  });
}

/** The value at a kube-openapi name (`spec.tags[1].name`). */
function valueAt(root: JsonValue, name: string): JsonValue | undefined {
  let cur: JsonValue | undefined = root;
  for (const part of name.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (part.startsWith("[")) {
      const i = Number(part.slice(1, -1));
      cur = Array.isArray(cur) ? cur[i] : undefined;
    } else cur = isJsonObject(cur) ? cur[part] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}
