/**
 * ApplyConfiguration mutations as kube-apiserver 1.36 applies them
 * (`ApplyStructuredMergeDiff` in the MAP patch package, with structured-merge-diff v6.3):
 *
 * 1. The patch gets the object's `apiVersion` and `kind` and is converted to a typed value:
 *    unknown fields, wrong scalar types, duplicate keys and keyless elements of keyed lists fail
 *    with `failed to convert patch object to typed object: ...`.
 * 2. The patch may not contain any atomic list, map or struct, anywhere a struct field leads
 *    (list elements included): `invalid ApplyConfiguration: may not mutate atomic arrays, maps or
 *    structs: <paths>`, paths in walk order joined by ", ".
 * 3. The live object is converted too, duplicates in keyed lists allowed.
 * 4. `live.Merge(patch)` without field ownership (see merge.ts).
 *
 * Every error message is prefixed `error applying patch: `, as the policy error shows it. Defaulting
 * and the conversion back to a typed Go object happen afterwards in the apiserver and are not done
 * here (quantities are not normalised, a null map value is not turned into "", and so on).
 *
 * Kinds without a schema: the apiserver has no type converter for them and fails the request with
 * 503 ServiceUnavailable, whatever the failure policy (for JSONPatch mutations too); this returns
 * that error (`kind: "no-schema"`).
 */
import { SchemaRegistry, type SchemaNode } from "../../kube/schema.js";
import { isJsonObject, setKey, type JsonObject, type JsonValue } from "../json.js";
import { mergeValues } from "./merge.js";
import { atomOf, formatErrors, typeContext, validate, type FieldError, type TypeContext } from "./typed.js";
import type { IdentityTable } from "../memo.js";

export type ApplyConfigurationError =
  /** The patch does not fit the schema. A policy error (the failure policy applies). */
  | { readonly kind: "conversion"; readonly message: string; readonly errors: readonly FieldError[] }
  /** The patch sets atomic lists, maps or structs. A policy error. */
  | { readonly kind: "atomic"; readonly message: string; readonly paths: readonly string[] }
  /** The live object does not fit the schema. A policy error. */
  | { readonly kind: "live-conversion"; readonly message: string; readonly errors: readonly FieldError[] }
  /** No schema for the kind: HTTP 503, which aborts the request whatever the failure policy. */
  | { readonly kind: "no-schema"; readonly message: string; readonly status: 503 };

export type ApplyConfigurationResult =
  | { readonly ok: true; readonly object: JsonObject }
  | { readonly ok: false; readonly error: ApplyConfigurationError };

export interface ApplyConfigurationOptions {
  /**
   * Whether required key fields default to their zero value (true for built-in kinds, whose
   * OpenAPI v3 carries such defaults; false for CRDs, whose key defaults are their schema's
   * `default`s in `ListNode.keyDefaults`). Default: whether the object's apiVersion and kind
   * are a built-in kind.
   */
  readonly zeroDefaultsForRequiredKeys?: boolean;
  /**
   * What a JSON null in the patch stands for. "cel" (default): CEL's null, which kube-apiserver
   * 1.36 hands to structured-merge-diff as a protobuf NullValue that every type rejects
   * (`expected map, got &{NULL_VALUE}`). "json": a real null, valid for every type (the behaviour
   * of the SMD library itself, and of a converter that maps CEL null to JSON null).
   */
  readonly patchNull?: "cel" | "json";
  /**
   * Skip the "may not mutate atomic arrays, maps or structs" guard: atomic values in the patch
   * replace the live ones whole (Kyverno MutatingPolicy `evaluation.useServerSideApply: true`).
   */
  readonly allowAtomic?: boolean;
  /** Live values already validated in this request (see `ValidateOptions.valid`). */
  readonly validLive?: IdentityTable<SchemaNode>;
}

const ERROR_PREFIX = "error applying patch: ";

let builtins: SchemaRegistry | undefined;

function isBuiltinKind(apiVersion: unknown, kind: unknown): boolean {
  if (typeof apiVersion !== "string" || typeof kind !== "string") return false;
  builtins ??= SchemaRegistry.builtin();
  return builtins.forKind(apiVersion, kind) !== undefined;
}

/**
 * The 503 message the MAP dispatcher returns, before evaluating any mutation (ApplyConfiguration or
 * JSONPatch), when it has no type converter for the object's kind.
 */
export function missingSchemaMessage(apiVersion: unknown, kind: unknown): string {
  return `Resource kind ${gvkString(apiVersion, kind)} not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.`;
}

/** `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === "string" ? apiVersion : "";
  const slash = av.indexOf("/");
  const group = slash < 0 ? "" : av.slice(0, slash);
  const version = slash < 0 ? av : av.slice(slash + 1);
  return `${group}/${version}, Kind=${typeof kind === "string" ? kind : ""}`;
}

/**
 * Merges an apply configuration (the JSON the CEL `Object{...}` value converts to; a JSON null in
 * it stands for CEL's null, which 1.36 rejects) into the live object. `schema` is the kind's
 * schema (`registry.forKind(apiVersion, kind)`), undefined when the kind has none. Inputs are not
 * modified; the result is a new object.
 */
export function applyConfiguration(
  live: JsonObject,
  patch: JsonObject,
  schema: SchemaNode | undefined,
  registry: SchemaRegistry,
  options: ApplyConfigurationOptions = {},
): ApplyConfigurationResult {
  if (schema === undefined) {
    return {
      ok: false,
      error: {
        kind: "no-schema",
        status: 503,
        message: missingSchemaMessage(live.apiVersion, live.kind),
      },
    };
  }
  const ctx = typeContext(registry, options.zeroDefaultsForRequiredKeys ?? isBuiltinKind(live.apiVersion, live.kind));

  // The apiserver sets the patch's GVK to the object's: apiVersion/kind in the patch are ignored.
  // Built key by key: spreading the patch and then overwriting two keys is a slow path on V8.
  const p: JsonObject = {};
  for (const k of Object.keys(patch)) setKey(p, k, k === "apiVersion" || k === "kind" ? (typeof live[k] === "string" ? live[k] : (patch[k] as JsonValue)) : (patch[k] as JsonValue));
  for (const k of ["apiVersion", "kind"] as const) if (typeof live[k] === "string" && !Object.prototype.hasOwnProperty.call(p, k)) setKey(p, k, live[k]);

  const patchErrs = validate(ctx, schema, p, { allowDuplicates: false, nullIsCelNull: options.patchNull !== "json" });
  if (patchErrs.length > 0) {
    return {
      ok: false,
      error: { kind: "conversion", errors: patchErrs, message: `${ERROR_PREFIX}failed to convert patch object to typed object: ${formatErrors(patchErrs)}` },
    };
  }

  const atomics = options.allowAtomic === true ? [] : findAtomics(ctx, schema, p, "");
  if (atomics.length > 0) {
    return {
      ok: false,
      error: { kind: "atomic", paths: atomics, message: `${ERROR_PREFIX}invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(", ")}` },
    };
  }

  const liveErrs = validate(ctx, schema, live, {
    allowDuplicates: true,
    nullIsCelNull: false,
    ...(options.validLive !== undefined ? { valid: options.validLive } : {}),
  });
  if (liveErrs.length > 0) {
    return {
      ok: false,
      error: { kind: "live-conversion", errors: liveErrs, message: `${ERROR_PREFIX}failed to convert original object to typed object: ${formatErrors(liveErrs)}` },
    };
  }

  const merged = mergeValues(ctx, schema, live, p, options.validLive);
  return { ok: true, object: isJsonObject(merged) ? merged : {} };
}

/**
 * `findAtomics`: paths of the atomic lists, maps and structs the patch contains. It follows struct
 * fields and list elements only (never the values of maps, so nothing inside a preserve-unknown
 * region is visited); an atomic value's own contents are visited too.
 */
export function findAtomics(ctx: TypeContext, node: SchemaNode, v: JsonValue, path: string): string[] {
  const a = atomOf(ctx, node);
  const out: string[] = [];
  if (isJsonObject(v) && a.map !== undefined) {
    if (a.map.atomic) out.push(path);
    for (const key of Object.keys(v)) {
      const f = a.map.field(key);
      if (f !== undefined) out.push(...findAtomics(ctx, f, v[key] as JsonValue, `${path}.${key}`));
    }
  }
  if (Array.isArray(v) && a.list !== undefined) {
    if (a.list.atomic) out.push(path);
    for (let i = 0; i < v.length; i++) out.push(...findAtomics(ctx, a.list.element, v[i] as JsonValue, `${path}[${i}]`));
  }
  return out;
}
