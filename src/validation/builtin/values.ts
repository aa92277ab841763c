/**
 * Reading a decoded object the way Go reads its typed struct: an absent field is the zero value
 * (`""`, `0`, `false`, nil), a present one of the right JSON type is its value. Strict decoding
 * (src/admission/typed-decode.ts) has already rejected wrong JSON types before validation runs.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../admission/json.js";

export type { JsonObject, JsonValue };

export function str(o: JsonObject | undefined, key: string): string {
  const v = o?.[key];
  return typeof v === "string" ? v : "";
}

/** An integer field (0 when absent). */
export function int(o: JsonObject | undefined, key: string): number {
  const v = o?.[key];
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : 0;
}

/** An integer field as decoded (a bigint beyond 2^53, for bad values printed exactly). */
export function rawInt(o: JsonObject | undefined, key: string): number | bigint | undefined {
  const v = o?.[key];
  return typeof v === "number" || typeof v === "bigint" ? v : undefined;
}

/** A pointer to an integer: undefined when absent or null. */
export function intPtr(o: JsonObject | undefined, key: string): number | undefined {
  const v = o?.[key];
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : undefined;
}

export function has(o: JsonObject | undefined, key: string): boolean {
  return o !== undefined && o[key] !== undefined && o[key] !== null;
}

export function obj(o: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = o?.[key];
  return isJsonObject(v) ? v : undefined;
}

export function list(o: JsonObject | undefined, key: string): JsonValue[] {
  const v = o?.[key];
  return Array.isArray(v) ? v : [];
}

export function objects(o: JsonObject | undefined, key: string): JsonObject[] {
  return list(o, key).map((e) => (isJsonObject(e) ? e : {}));
}

/** A `map[string]string` (values that are not strings read as ""). */
export function stringMap(o: JsonObject | undefined, key: string): Record<string, string> | undefined {
  const v = o?.[key];
  if (!isJsonObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) out[k] = typeof x === "string" ? x : "";
  return out;
}

/** An `intstr.IntOrString`. */
export type IntOrString = { readonly type: "int"; readonly value: number } | { readonly type: "string"; readonly value: string };

export function intOrString(o: JsonObject | undefined, key: string): IntOrString | undefined {
  const v = o?.[key];
  if (typeof v === "string") return { type: "string", value: v };
  if (typeof v === "number" || typeof v === "bigint") return { type: "int", value: Number(v) };
  return undefined;
}

/** How `field.Error` prints an IntOrString bad value (its JSON form). */
export function intOrStringValue(v: IntOrString): string | number {
  return v.value;
}

/** The UTF-8 length of a string (Go's `len`), without encoding it. */
export function byteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 2; // a surrogate pair: 2 UTF-16 units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

export const sortedKeys = (m: Readonly<Record<string, unknown>>): string[] => Object.keys(m).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
