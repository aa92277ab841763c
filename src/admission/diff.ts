/**
 * An RFC 6902 JSON Patch from one JSON document to another, for reporting what admission changed
 * (the patch a mutating webhook would return). Objects are compared key by key (removals first,
 * then replacements and additions, keys in the order of the new document); arrays of the same
 * length element by element, other arrays replaced whole. Applying the result to `from` with any
 * RFC 6902 implementation gives a document `deepEqual` to `to`.
 */
import { deepEqual, hasKey, isJsonObject, type JsonValue } from "./json.js";

export interface PatchOperation {
  readonly op: "add" | "remove" | "replace";
  readonly path: string;
  readonly value?: JsonValue;
}

/** `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(t: string): string {
  if (t.indexOf("~") < 0 && t.indexOf("/") < 0) return t;
  return t.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function jsonDiff(from: JsonValue, to: JsonValue): PatchOperation[] {
  const out: PatchOperation[] = [];
  diffInto(from, to, "", out);
  return out;
}

function diffInto(a: JsonValue, b: JsonValue, path: string, out: PatchOperation[]): void {
  // Identity first: the pipeline shares unchanged subtrees between versions of an object, and a
  // deepEqual at every level would make the walk quadratic in the depth.
  if (a === b) return;
  if (isJsonObject(a) && isJsonObject(b)) {
    for (const k of Object.keys(a)) if (!hasKey(b, k)) out.push({ op: "remove", path: `${path}/${escapePointerToken(k)}` });
    for (const k of Object.keys(b)) {
      const p = `${path}/${escapePointerToken(k)}`;
      if (!hasKey(a, k)) out.push({ op: "add", path: p, value: b[k] as JsonValue });
      else diffInto(a[k] as JsonValue, b[k] as JsonValue, p, out);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) diffInto(a[i] as JsonValue, b[i] as JsonValue, `${path}/${i}`, out);
    return;
  }
  if (deepEqual(a, b)) return;
  out.push({ op: "replace", path, value: b });
}
