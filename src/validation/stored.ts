/**
 * The object the apiserver would store, after admission: {@link defaultObject} (built-in
 * defaulting, or a custom resource's pruning and schema defaults) and {@link validateStored}
 * (the registry strategy's validation, with the apiserver's 422 Invalid status), plus
 * {@link crdConverter} for `matchPolicy: Equivalent` across the versions of a CRD.
 *
 *     const ctx = validationContext([crdDoc]);
 *     const stored = defaultObject(admitted, ctx);
 *     const r = validateStored(stored, oldObject, ctx);
 *     // r.ok, or r.status: {code: 422, reason: "Invalid", message: 'Widget.example.com "w1" is invalid: spec.tags[1]: Duplicate value: "a"', details}
 *
 * Pure: no files, no network. Kinds celmap has no rules for are accepted as they are
 * (`validateStored` says so in `unchecked`).
 */
import { errorBody, invalidObjectMessage, type FieldError } from "../diag/field-error.js";
import { deepEqual, isJsonObject, type JsonObject } from "../admission/json.js";
import type { ConversionResult, Converter } from "../admission/dispatch.js";
import { DefaultMemo, defaultBuiltin } from "./defaults.js";
import { kindValidation, validateBuiltin } from "./builtin/kinds.js";
import { validateObjectMetaGeneric, validateObjectMetaUpdate } from "./builtin/meta.js";
import { coerceCustomResource, crdInfo, defaultCustomResource, storeCustomResource, validateCustomResource, type CrdInfo } from "./crd/crd.js";

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface ValidationContext {
  /** CustomResourceDefinitions by `group/Kind`. */
  readonly crds: ReadonlyMap<string, CrdInfo>;
}

/** A context from apiextensions.k8s.io/v1 CustomResourceDefinition documents. */
export function validationContext(crds: readonly JsonObject[] = []): ValidationContext {
  const m = new Map<string, CrdInfo>();
  for (const c of crds) {
    const info = crdInfo(c);
    m.set(`${info.group}/${info.kind}`, info);
  }
  return { crds: m };
}

export function gvkOf(o: JsonObject): GroupVersionKind {
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const slash = apiVersion.indexOf("/");
  return {
    group: slash < 0 ? "" : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    kind: typeof o.kind === "string" ? o.kind : "",
  };
}

/**
 * The object as defaulting leaves it: the input itself when nothing applies, else a new object
 * that shares every subtree defaulting did not change (the input is never modified). `memo`
 * (from {@link requestDefaulter}) remembers what one request's defaulter has already defaulted.
 */
export function defaultObject(object: JsonObject, context: ValidationContext, memo?: DefaultMemo, mode: "decode" | "mutation" = "decode"): JsonObject {
  const gvk = gvkOf(object);
  const crd = context.crds.get(`${gvk.group}/${gvk.kind}`);
  const out = crd !== undefined ? defaultCustomResource(crd, object, mode) : defaultBuiltin(object, gvk, memo);
  // Nothing to default: the same object, so that what the pipeline shares or caches by identity
  // (unchanged subtrees, converted CEL values) survives the defaulter that runs after every mutation.
  return out !== object && deepEqual(out, object) ? object : out;
}

/**
 * {@link defaultObject} for the calls of one admission request (the defaulter runs after every
 * mutation): pod specs and containers it has returned are not defaulted again when a later
 * version of the object still holds them. Use one per request; admission never modifies a value
 * in place, which is what makes remembering by identity sound.
 */
export function requestDefaulter(context: ValidationContext): (object: JsonObject) => JsonObject {
  const memo = new DefaultMemo();
  // After a mutation: a custom resource is defaulted, not pruned (see coerceObject).
  return (object) => defaultObject(object, context, memo, "mutation");
}

/**
 * `f` applied to `object` when it is a custom resource of `context`, the object itself otherwise or
 * when `f` changed nothing (so that what is shared or cached by identity survives).
 */
function onCustomResource(object: JsonObject, context: ValidationContext, f: (crd: CrdInfo, object: JsonObject) => JsonObject): JsonObject {
  const gvk = gvkOf(object);
  const crd = context.crds.get(`${gvk.group}/${gvk.kind}`);
  if (crd === undefined) return object;
  const out = f(crd, object);
  return deepEqual(out, object) ? object : out;
}

/** The object as storage gives it back (a custom resource: `storeCustomResource`); others as they are. */
export function storedObject(object: JsonObject, context: ValidationContext): JsonObject {
  return onCustomResource(object, context, storeCustomResource);
}

/**
 * What the apiserver's decoding does to a custom resource beyond defaulting (unknown fields pruned,
 * nulls of non-nullable fields dropped: `coerceCustomResource`): on a request body, on a webhook's
 * patched object and when the object is encoded for storage. Other objects are returned as they are.
 */
export function coerceObject(object: JsonObject, context: ValidationContext): JsonObject {
  return onCustomResource(object, context, coerceCustomResource);
}

export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field: string;
}

/** A Kubernetes Status as `apierrors.NewInvalid` builds it. */
export interface InvalidStatus {
  readonly code: 422;
  readonly reason: "Invalid";
  readonly message: string;
  readonly details: { readonly name: string; readonly group: string; readonly kind: string; readonly causes: readonly StatusCause[] };
}

export type StoredResult =
  | { readonly ok: true; /** Why nothing was checked, when celmap has no rules for the kind. */ readonly unchecked?: string }
  | { readonly ok: false; readonly status: InvalidStatus; readonly errors: readonly FieldError[] };

/** `GroupKind.String()`: `Deployment.apps`, `Pod`. */
function qualifiedKind(gvk: GroupVersionKind): string {
  return gvk.group === "" ? gvk.kind : `${gvk.kind}.${gvk.group}`;
}

/** `apierrors.NewInvalid(groupKind, name, errs)`. */
export function invalidStatus(gvk: GroupVersionKind, name: string, errors: readonly FieldError[]): InvalidStatus {
  return {
    code: 422,
    reason: "Invalid",
    message: invalidObjectMessage(qualifiedKind(gvk), name, errors),
    details: {
      name,
      group: gvk.group,
      kind: gvk.kind,
      causes: errors.map((e) => ({ reason: e.type, message: errorBody(e), field: e.path.toString() })),
    },
  };
}

function metadata(o: JsonObject | null | undefined): JsonObject {
  return o !== null && o !== undefined && isJsonObject(o.metadata) ? o.metadata : {};
}

/**
 * What the create handler and `rest.BeforeCreate` / `BeforeUpdate` do to the metadata before the
 * strategy validates: a generated name (generateName + 5 characters), and on UPDATE generation,
 * uid, creationTimestamp and deletion fields carried over from the old object.
 */
function prepareMeta(object: JsonObject, old: JsonObject | null | undefined): JsonObject {
  const md = { ...metadata(object) };
  if (old === null || old === undefined) {
    if ((typeof md.name !== "string" || md.name === "") && typeof md.generateName === "string" && md.generateName !== "") md.name = `${md.generateName}x2x4x`;
    return { ...object, metadata: md };
  }
  const omd = metadata(old);
  if (omd.generation !== undefined) md.generation = omd.generation;
  else delete md.generation;
  if ((md.uid === undefined || md.uid === "") && omd.uid !== undefined) md.uid = omd.uid;
  if (omd.creationTimestamp !== undefined && omd.creationTimestamp !== null) md.creationTimestamp = omd.creationTimestamp;
  if (omd.deletionTimestamp !== undefined && omd.deletionTimestamp !== null) md.deletionTimestamp = omd.deletionTimestamp;
  if (omd.deletionGracePeriodSeconds !== undefined && (md.deletionGracePeriodSeconds === undefined || md.deletionGracePeriodSeconds === null)) md.deletionGracePeriodSeconds = omd.deletionGracePeriodSeconds;
  return { ...object, metadata: md };
}

/**
 * Validates the object the apiserver would store (already defaulted: {@link defaultObject}),
 * as CREATE when `oldObject` is null/undefined, else as UPDATE of `oldObject`.
 */
export function validateStored(object: JsonObject, oldObject: JsonObject | null | undefined, context: ValidationContext): StoredResult {
  const gvk = gvkOf(object);
  const prepared = prepareMeta(object, oldObject);
  const old = oldObject === null || oldObject === undefined ? undefined : oldObject;
  const name = typeof metadata(prepared).name === "string" ? (metadata(prepared).name as string) : "";
  const crd = context.crds.get(`${gvk.group}/${gvk.kind}`);
  let errors: FieldError[];
  if (crd !== undefined) {
    errors = validateCustomResource(crd, prepared, old);
  } else {
    const v = gvk.version === "v1" ? kindValidation(gvk.group, gvk.kind) : undefined;
    if (v === undefined) return { ok: true, unchecked: `celmap has no validation rules for ${qualifiedKind(gvk)} ${gvk.version}` };
    if (old === undefined) {
      errors = validateBuiltin(v, prepared, undefined);
      // rest.BeforeCreate: the generic metadata check, only when the strategy found nothing.
      if (errors.length === 0) errors = validateObjectMetaGeneric(metadata(prepared), v.namespaced).filter((e) => e.path.toString() !== "metadata.name" || e.type !== "FieldValueRequired");
    } else {
      // rest.BeforeUpdate: the generic metadata checks (new object, then update), then the strategy.
      const generic = [...validateObjectMetaGeneric(metadata(prepared), v.namespaced), ...validateObjectMetaUpdate(metadata(prepared), metadata(old), undefined, false)];
      errors = [...generic, ...validateBuiltin(v, prepared, old)];
    }
  }
  if (errors.length === 0) return { ok: true };
  return { ok: false, status: invalidStatus(gvk, name, errors), errors };
}

/**
 * Version conversion between the versions of the given CRDs (strategy None: only apiVersion
 * changes). A CRD with a Webhook strategy cannot be converted offline: the conversion fails with
 * a message saying so. Kinds that are not among the CRDs are returned unchanged.
 */
export function crdConverter(context: ValidationContext): Converter {
  return (object: JsonObject, to): ConversionResult => {
    const from = gvkOf(object);
    const crd = context.crds.get(`${from.group}/${from.kind}`);
    if (crd === undefined || from.group !== to.group || from.kind !== to.kind) return { ok: true, object };
    if (crd.conversion === "Webhook") {
      return {
        ok: false,
        error: `conversion webhook for ${from.group}/${from.version}, Kind=${from.kind} failed: celmap cannot call the CustomResourceDefinition's conversion webhook offline (strategy Webhook); convert the object to ${to.group}/${to.version} yourself or match the request's version (matchPolicy: Exact)`,
      };
    }
    return { ok: true, object: { ...object, apiVersion: `${to.group}/${to.version}` } };
  };
}
