/**
 * Plain JSON values as the admission patchers see them, with the few helpers they share.
 *
 * Numbers are JavaScript numbers; a `bigint` is accepted wherever a number is, for integers
 * beyond 2^53 that must keep their exact value (Go decodes JSON integers as int64). An integral
 * number stands for a Go int64, any other number for a float64: the patchers only need that
 * distinction for error texts, and render both the way Go does.
 *
 * Every helper here is pure: inputs are never modified.
 */

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isNumber(v: unknown): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

/** Whether a number stands for a Go integer (int64) rather than a float64. */
export function isIntegral(v: number | bigint): boolean {
  return typeof v === "bigint" || Number.isInteger(v);
}

/** Numeric equality across number and bigint (`1n` equals `1`), as Go compares int64 and float64 values in JSON. */
export function numbersEqual(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === typeof b) return a === b;
  // eslint-disable-next-line eqeqeq -- loose equality compares bigint and number by value
  return a == b;
}

/** A deep copy; scalars are returned as they are. */
export function deepClone<T extends JsonValue>(v: T): T {
  if (Array.isArray(v)) return v.map((e) => deepClone(e)) as T;
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setKey(out, k, deepClone(v[k] as JsonValue));
    return out as T;
  }
  return v;
}

/**
 * Structural equality of JSON values: objects key-wise (order ignored), arrays element-wise,
 * numbers by value (so `1`, `1.0` and `1n` are equal), everything else strictly.
 */
export function deepEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (isNumber(a) && isNumber(b)) return numbersEqual(a, b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i] as JsonValue, b[i] as JsonValue)) return false;
    return true;
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) {
      if (!hasKey(b, k)) return false;
      if (!deepEqual(a[k] as JsonValue, b[k] as JsonValue)) return false;
    }
    return true;
  }
  return false;
}

/** Whether `obj` has `key` as an own property (never consults the prototype). */
export function hasKey(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The value at an own key, or undefined. */
export function getKey(obj: JsonObject, key: string): JsonValue | undefined {
  return hasKey(obj, key) ? obj[key] : undefined;
}

/** Sets an own key; safe for keys such as `__proto__`, which plain assignment would not store. */
export function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
