/**
 * Strict decoding of parsed documents into typed MutatingAdmissionPolicy /
 * MutatingAdmissionPolicyBinding objects, the first step the apiserver takes (before
 * defaulting and validation).
 *
 * Outcomes, as the apiserver (with kubectl's default `fieldValidation=Strict`) would have them:
 * - a value of the wrong JSON type → one `json: cannot unmarshal ...` issue (the first in
 *   document order), which the apiserver reports alone;
 * - unknown fields → every one of them, in document order (`unknown field "spec.foo"`);
 * - otherwise the typed object, with `null` fields removed (Go decodes them as absent).
 *
 * Never throws.
 */
import type { z } from "zod";
import { decodeErrorMessage, type DecodeIssue } from "../diag/decode-error.js";
import { FieldPath } from "../diag/field-path.js";
import type { SourceRef } from "../diag/source.js";
import { GROUP, VERSIONS, type ApiVersionName } from "./schemas/common.js";
import { MutatingAdmissionPolicyBinding } from "./schemas/map-binding.js";
import { MutatingAdmissionPolicy } from "./schemas/map.js";
import { MutatingAdmissionPolicyBindingGo, MutatingAdmissionPolicyGo, fillNulls, unmarshalTypeError, type GoType } from "./go-types.js";

export const MAP_KIND = "MutatingAdmissionPolicy";
export const BINDING_KIND = "MutatingAdmissionPolicyBinding";
export type PolicyKind = typeof MAP_KIND | typeof BINDING_KIND;

export type DecodeResult<T> =
  | { readonly ok: true; readonly value: T; readonly version: ApiVersionName }
  | {
      readonly ok: false;
      readonly issues: readonly DecodeIssue[];
      /** The apiserver's 400 message (`... cannot be handled as a ...: strict decoding error: ...`). */
      readonly message: string;
    };

/** `admissionregistration.k8s.io/v1` → `v1` when it is a version serving MAP; else undefined. */
export function mapApiVersion(apiVersion: unknown): ApiVersionName | undefined {
  if (typeof apiVersion !== "string") return undefined;
  const slash = apiVersion.indexOf("/");
  if (slash < 0 || apiVersion.slice(0, slash) !== GROUP) return undefined;
  const v = apiVersion.slice(slash + 1);
  return (VERSIONS as readonly string[]).includes(v) ? (v as ApiVersionName) : undefined;
}

/** True when the document claims to be a MAP or MAP binding (any served version). */
export function isPolicyDocument(doc: unknown): doc is { apiVersion: string; kind: PolicyKind } {
  if (typeof doc !== "object" || doc === null) return false;
  const o = doc as Record<string, unknown>;
  return (o["kind"] === MAP_KIND || o["kind"] === BINDING_KIND) && mapApiVersion(o["apiVersion"]) !== undefined;
}

export function decodeMutatingAdmissionPolicy(
  doc: unknown,
  source?: SourceRef,
): DecodeResult<z.infer<typeof MutatingAdmissionPolicy>> {
  return decode(doc, MAP_KIND, MutatingAdmissionPolicy, MutatingAdmissionPolicyGo, source);
}

export function decodeMutatingAdmissionPolicyBinding(
  doc: unknown,
  source?: SourceRef,
): DecodeResult<z.infer<typeof MutatingAdmissionPolicyBinding>> {
  return decode(doc, BINDING_KIND, MutatingAdmissionPolicyBinding, MutatingAdmissionPolicyBindingGo, source);
}

function jsonKind(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "bool";
    case "object":
      return "object";
    default:
      return typeof v;
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function toFieldPath(path: readonly PropertyKey[]): FieldPath {
  let p = FieldPath.empty;
  for (const k of path) p = typeof k === "number" ? p.index(k) : p.child(String(k));
  return p;
}

/** Ordinal of every path in the input, in document (insertion) order. */
function documentOrder(root: unknown): Map<string, number> {
  const order = new Map<string, number>();
  const walk = (v: unknown, path: PropertyKey[]) => {
    order.set(JSON.stringify(path), order.size);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(root, []);
  return order;
}

/** Deep copy without `undefined` properties (what `null` fields decode to). */
function clean<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clean) as T;
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = clean(x);
    return out as T;
  }
  return v;
}

function decode<S extends z.ZodType>(
  doc: unknown,
  kind: PolicyKind,
  schema: S,
  goType: GoType,
  source: SourceRef | undefined,
): DecodeResult<z.infer<S>> {
  const src = source !== undefined ? { source } : {};
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    const issue: DecodeIssue = {
      kind: "unsupportedKind",
      message: `couldn't get version/kind; json parse error: cannot unmarshal ${jsonKind(doc)} into Go value of type struct`,
      ...src,
    };
    return { ok: false, issues: [issue], message: issue.message };
  }
  const o = doc as Record<string, unknown>;
  const version = mapApiVersion(o["apiVersion"]);
  if (o["kind"] !== kind || version === undefined) {
    const issue: DecodeIssue = {
      kind: "unsupportedKind",
      message: `no kind ${JSON.stringify(String(o["kind"] ?? ""))} is registered for version ${JSON.stringify(String(o["apiVersion"] ?? ""))}; expected ${kind} in ${VERSIONS.map((v) => `${GROUP}/${v}`).join(", ")}`,
      ...src,
    };
    return { ok: false, issues: [issue], message: issue.message };
  }
  // Go decodes `null` list elements and map values as zero values ("" for a string).
  const input = fillNulls(doc, goType);
  const r = schema.safeParse(input);
  if (r.success) return { ok: true, value: clean(r.data), version };

  const order = documentOrder(input);
  const ordered: { ord: number; issue: DecodeIssue }[] = [];
  for (const zi of r.error.issues) {
    if (zi.code === "unrecognized_keys") {
      for (const key of zi.keys) {
        const p = [...zi.path, key];
        ordered.push({
          ord: order.get(JSON.stringify(p)) ?? Number.MAX_SAFE_INTEGER,
          issue: { kind: "unknownField", path: toFieldPath(p), ...src },
        });
      }
    } else {
      const value = valueAt(input, zi.path);
      const go = unmarshalTypeError(goType, zi.path, value, version);
      ordered.push({
        ord: order.get(JSON.stringify(zi.path)) ?? Number.MAX_SAFE_INTEGER,
        issue: {
          kind: "wrongType",
          path: toFieldPath(zi.path),
          got: go?.value ?? jsonKind(value),
          expected: go?.type ?? (zi.code === "invalid_type" ? String(zi.expected) : "value"),
          ...(go !== undefined ? { goStruct: go.struct, goField: go.field } : {}),
          ...src,
        },
      });
    }
  }
  ordered.sort((a, b) => a.ord - b.ord);
  const issues = ordered.map((x) => x.issue);
  // A type error stops Go's decoder: report only the first one.
  const firstType = issues.find((i) => i.kind === "wrongType");
  const reported = firstType !== undefined ? [firstType] : issues;
  return { ok: false, issues: reported, message: decodeErrorMessage(kind, version, reported) };
}
