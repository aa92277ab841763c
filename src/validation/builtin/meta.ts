/**
 * Object metadata as kube-apiserver validates it for built-in kinds (core `ValidateObjectMeta` =
 * apimachinery's `ValidateObjectMetaAccessor` plus the Kubernetes finalizer-name check), and on
 * UPDATE (`ValidateObjectMetaUpdate`). Messages are apimachinery's (v0.36.3).
 */
import { forbidden, invalid, required, tooLong, type FieldError } from "../../diag/field-error.js";
import { FieldPath } from "../../diag/field-path.js";
import { isQualifiedName } from "../../policy/names.js";
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from "./dns.js";
import { validateLabels } from "../../policy/label-selector.js";
import { deepEqual, type JsonObject, type JsonValue } from "../../admission/json.js";
import { byteLength, has, int, list, objects, sortedKeys, str, stringMap } from "./values.js";

/** A `ValidateNameFunc`: the problems with a name (`prefix` for generateName). */
export type NameFn = (name: string, prefix: boolean) => string[];

function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? name.slice(0, name.length - 2) + "a" : name;
}

export const nameIsDNSSubdomain: NameFn = (n, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(n) : n);
export const nameIsDNSLabel: NameFn = (n, prefix) => isDNS1123Label(prefix ? maskTrailingDash(n) : n);
export const nameIsDNS1035Label: NameFn = (n, prefix) => isDNS1035Label(prefix ? maskTrailingDash(n) : n);

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** `ValidateAnnotations`: key syntax (checked lower-cased) and the 256 KiB total. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (annotations === undefined) return errs;
  let size = 0;
  for (const k of sortedKeys(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, m));
    size += byteLength(k) + byteLength(annotations[k]!);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** `ValidateNamespaceName` = DNS-1123 label. */
export function namespaceNameProblems(ns: string): string[] {
  return isDNS1123Label(ns);
}

function validateOwnerReferences(md: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = "";
  const refs = objects(md, "ownerReferences");
  for (const ref of refs) {
    const apiVersion = str(ref, "apiVersion");
    const version = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
    if (version === "") errs.push(invalid(path.child("apiVersion"), apiVersion, "version must not be empty"));
    if (str(ref, "kind") === "") errs.push(invalid(path.child("kind"), str(ref, "kind"), "must not be empty"));
    if (str(ref, "name") === "") errs.push(invalid(path.child("name"), str(ref, "name"), "must not be empty"));
    if (str(ref, "uid") === "") errs.push(invalid(path.child("uid"), str(ref, "uid"), "must not be empty"));
    if (ref.controller === true) {
      const cur = `${str(ref, "kind")}/${str(ref, "name")}`;
      if (firstController !== "") {
        errs.push(invalid(path, md.ownerReferences as JsonValue, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`));
      } else firstController = cur;
    }
  }
  return errs;
}

function validateFinalizers(finalizers: string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers) for (const m of isQualifiedName(f)) errs.push(invalid(path, f, m));
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    errs.push(invalid(path, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return errs;
}

function kubeFinalizerNames(finalizers: string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  finalizers.forEach((f, i) => {
    if (!f.includes("/") && !STANDARD_FINALIZERS.has(f)) errs.push(invalid(path.index(i), f, "name is neither a standard finalizer name nor is it fully qualified"));
  });
  return errs;
}

function finalizersOf(md: JsonObject): string[] {
  return list(md, "finalizers").map((f) => (typeof f === "string" ? f : ""));
}

/** What create and update share after the name (`validateObjectMetaAccessorWithOptsCommon`). */
function metaCommon(md: JsonObject, namespaced: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ns = str(md, "namespace");
  if (namespaced) {
    if (ns === "") errs.push(required(path.child("namespace")));
    else for (const m of namespaceNameProblems(ns)) errs.push(invalid(path.child("namespace"), ns, m));
  } else if (ns !== "") errs.push(forbidden(path.child("namespace"), "not allowed on this type"));
  const generation = int(md, "generation");
  if (generation < 0) errs.push(invalid(path.child("generation"), generation, "must be greater than or equal to 0"));
  errs.push(...validateLabels(stringMap(md, "labels"), path.child("labels")));
  errs.push(...validateAnnotations(stringMap(md, "annotations"), path.child("annotations")));
  errs.push(...validateOwnerReferences(md, path.child("ownerReferences")));
  errs.push(...validateFinalizers(finalizersOf(md), path.child("finalizers")));
  return errs;
}

/** Core `ValidateObjectMeta(meta, namespaced, nameFn, "metadata")` on CREATE. */
export function validateObjectMeta(md: JsonObject, namespaced: boolean, nameFn: NameFn, path = FieldPath.root("metadata")): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = str(md, "generateName");
  if (generateName !== "") for (const m of nameFn(generateName, true)) errs.push(invalid(path.child("generateName"), generateName, m));
  const name = str(md, "name");
  if (name === "") errs.push(required(path.child("name"), "name or generateName is required"));
  else for (const m of nameFn(name, false)) errs.push(invalid(path.child("name"), name, m));
  errs.push(...metaCommon(md, namespaced, path));
  errs.push(...kubeFinalizerNames(finalizersOf(md), path.child("finalizers")));
  return errs;
}

/**
 * Core `ValidateObjectMetaUpdate`: name, namespace, uid, creationTimestamp, deletionTimestamp and
 * deletionGracePeriodSeconds immutable, generation not decremented, labels, annotations, owners and
 * finalizers well formed. (The apiserver copies uid and creationTimestamp from the old object and
 * fills resourceVersion for an unconditional update before it validates; so does the caller.)
 */
export function validateObjectMetaUpdate(md: JsonObject, old: JsonObject, path = FieldPath.root("metadata"), kubeFinalizers = true): FieldError[] {
  const errs: FieldError[] = [];
  if (has(old, "deletionTimestamp")) {
    const before = new Set(finalizersOf(old));
    const extra = [...new Set(finalizersOf(md).filter((f) => !before.has(f)))].sort();
    if (extra.length > 0) errs.push(forbidden(path.child("finalizers"), `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(", ")}}`));
  }
  if (int(md, "generation") < int(old, "generation")) errs.push(invalid(path.child("generation"), int(md, "generation"), "must not be decremented"));
  for (const f of ["name", "namespace", "uid"]) if (str(md, f) !== str(old, f)) errs.push(invalid(path.child(f), str(md, f), "field is immutable"));
  for (const f of ["creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"]) {
    const a = md[f] ?? null;
    const b = old[f] ?? null;
    if (!deepEqual(a, b)) errs.push(invalid(path.child(f), a, "field is immutable"));
  }
  errs.push(...validateLabels(stringMap(md, "labels"), path.child("labels")));
  errs.push(...validateAnnotations(stringMap(md, "annotations"), path.child("annotations")));
  errs.push(...validateOwnerReferences(md, path.child("ownerReferences")));
  if (kubeFinalizers) errs.push(...kubeFinalizerNames(finalizersOf(md), path.child("finalizers")));
  return errs;
}

/** apimachinery's `ValidateObjectMetaAccessor` (custom resources: no Kubernetes finalizer-name check). */
export function validateObjectMetaGenericCR(md: JsonObject, namespaced: boolean, nameFn: NameFn, path = FieldPath.root("metadata")): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = str(md, "generateName");
  if (generateName !== "") for (const m of nameFn(generateName, true)) errs.push(invalid(path.child("generateName"), generateName, m));
  const name = str(md, "name");
  if (name === "") errs.push(required(path.child("name"), "name or generateName is required"));
  else for (const m of nameFn(name, false)) errs.push(invalid(path.child("name"), name, m));
  errs.push(...metaCommon(md, namespaced, path));
  return errs;
}

/** The generic check `rest.BeforeUpdate` runs before the kind's own (`ValidateObjectMetaAccessor` on the new object). */
export function validateObjectMetaGeneric(md: JsonObject, namespaced: boolean, path = FieldPath.root("metadata")): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(md, "name");
  if (name === "") errs.push(required(path.child("name"), "name or generateName is required"));
  else for (const m of pathSegmentNameProblems(name)) errs.push(invalid(path.child("name"), name, m));
  errs.push(...metaCommon(md, namespaced, path));
  return errs;
}

/** `path.IsValidPathSegmentName`. */
function pathSegmentNameProblems(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ["/", "%"]) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}
