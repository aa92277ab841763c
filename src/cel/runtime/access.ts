/**
 * Field selection, indexing, presence tests and membership with cel-go's
 * semantics and error wording. Shared by the planner and the `_[_]` / `@in`
 * overload tables.
 */
import { CelEvalError } from "../errors.js";
import { CelObject, CelOptional, CelUint, type CelMapKey, type CelValue } from "../values.js";
import { celEquals, celEqualsOrFalse } from "./equality.js";
import { mapGet } from "./map.js";

/** `%v` rendering of a key or index as cel-go prints it in "no such key: …" messages. */
export function formatKey(v: CelValue): string {
  if (typeof v === "string") return v;
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v instanceof CelUint) return String(v.value);
  if (typeof v === "number") return formatDoubleG(v);
  if (v === null) return "null_type";
  return String(v);
}

/**
 * Go's `%g` formatting of a float64 (shortest round-trip digits; exponent form
 * when the decimal exponent is < -4 or >= 6), used by `string(double)`:
 * 1.0 → "1", 123456.0 → "123456", 1e6 → "1e+06", 1e-5 → "1e-05", 1e100 → "1e+100".
 */
export function formatDoubleG(d: number): string {
  if (Number.isNaN(d)) return "NaN";
  if (d === Infinity) return "+Inf";
  if (d === -Infinity) return "-Inf";
  if (d === 0) return Object.is(d, -0) ? "-0" : "0";
  const exp = d.toExponential(); // shortest round-trip digits: "-1.2345e+2"
  const e = exp.indexOf("e");
  const x = Number(exp.slice(e + 1));
  if (x < -4 || x >= 6) {
    const sign = x < 0 ? "-" : "+";
    const ax = Math.abs(x);
    return `${exp.slice(0, e)}e${sign}${ax < 10 ? "0" : ""}${ax}`;
  }
  return String(d);
}

export function noSuchKey(key: CelValue): CelEvalError {
  return new CelEvalError(`no such key: ${formatKey(key)}`);
}

/** The list position for an index value: int, or uint/double with an integral value. */
export function listIndex(index: CelValue): number {
  if (typeof index === "bigint") return index >= -0x20000000000000n && index <= 0x20000000000000n ? Number(index) : -1;
  if (index instanceof CelUint) return index.value <= 0x20000000000000n ? Number(index.value) : -1;
  if (typeof index === "number") {
    // cel-go accepts a double index only when it converts to an int64 losslessly.
    if (Number.isInteger(index) && index > -9223372036854775808 && index < 9223372036854775808) return index;
    throw new CelEvalError(`unsupported index value ${formatDoubleG(index)} in list`);
  }
  throw new CelEvalError(`unsupported index type '${typeName(index)}' in list`);
}

function typeName(v: CelValue): string {
  if (v === null) return "null_type";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "list";
  if (v instanceof Map) return "map";
  if (v instanceof Uint8Array) return "bytes";
  if (v instanceof CelObject) return v.celType.name;
  return "dyn";
}

/** `a[i]`: list element or map entry; errors as cel-go ("index out of bounds: 3", "no such key: k"). */
export function indexValue(obj: CelValue, index: CelValue): CelValue {
  if (Array.isArray(obj)) {
    const i = listIndex(index);
    if (i >= 0 && i < obj.length) return obj[i] as CelValue;
    throw new CelEvalError(`index out of bounds: ${formatKey(index)}`);
  }
  if (obj instanceof Map) {
    const v = mapGet(obj as ReadonlyMap<CelMapKey, CelValue>, index);
    if (v !== undefined) return v;
    throw noSuchKey(index);
  }
  if (obj instanceof CelOptional) return optIndex(obj, index);
  if (obj instanceof CelObject && typeof index === "string") return selectField(obj, index);
  throw noSuchKey(index);
}

/** `a.f` (not a presence test). */
export function selectField(obj: CelValue, field: string): CelValue {
  if (obj instanceof Map) {
    const v = (obj as ReadonlyMap<CelMapKey, CelValue>).get(field);
    if (v !== undefined) return v;
    throw new CelEvalError(`no such key: ${field}`);
  }
  if (obj instanceof CelObject) {
    const v = obj.getField?.(field);
    if (v !== undefined) return v;
    throw new CelEvalError(`no such field '${field}'`);
  }
  if (obj instanceof CelOptional) return optSelect(obj, field);
  throw new CelEvalError(`no such key: ${field}`);
}

/** `has(a.f)`. */
export function hasField(obj: CelValue, field: string): boolean {
  if (obj instanceof Map) return (obj as ReadonlyMap<CelMapKey, CelValue>).has(field);
  if (obj instanceof CelObject) {
    const has = obj.hasField?.(field);
    if (has === undefined) throw new CelEvalError(`no such field '${field}'`);
    return has;
  }
  if (obj instanceof CelOptional) return obj.value === undefined ? false : hasField(obj.value, field);
  // cel-go (without errorOnBadPresenceTest): presence on a value without fields is false.
  return false;
}

/** `a.?f`: optional of the field when present, else `optional.none()`. */
export function optSelect(obj: CelValue, field: string): CelOptional {
  if (obj instanceof CelOptional) {
    if (obj.value === undefined) return obj;
    obj = obj.value;
  }
  if (obj instanceof Map) {
    const v = (obj as ReadonlyMap<CelMapKey, CelValue>).get(field);
    return v === undefined ? CelOptional.NONE : CelOptional.of(v);
  }
  if (obj instanceof CelObject) {
    const has = obj.hasField?.(field);
    if (has === undefined) throw new CelEvalError(`no such field '${field}'`);
    return has ? CelOptional.of(obj.getField!(field)!) : CelOptional.NONE;
  }
  if (Array.isArray(obj)) throw new CelEvalError(`no such key: ${field}`);
  // A value without fields: absent (cel-go interpreter/attributes.go refQualify, default case of a
  // presence test without errorOnBadPresenceTest, which the Kubernetes environment leaves off).
  return CelOptional.NONE;
}

/** `a[?i]`: optional of the element or entry when present, else `optional.none()`. */
export function optIndex(obj: CelValue, index: CelValue): CelOptional {
  if (obj instanceof CelOptional) {
    if (obj.value === undefined) return obj;
    obj = obj.value;
  }
  if (Array.isArray(obj)) {
    const i = listIndex(index);
    return i >= 0 && i < obj.length ? CelOptional.of(obj[i] as CelValue) : CelOptional.NONE;
  }
  if (obj instanceof Map) {
    const v = mapGet(obj as ReadonlyMap<CelMapKey, CelValue>, index);
    return v === undefined ? CelOptional.NONE : CelOptional.of(v);
  }
  if (obj instanceof CelObject) {
    if (typeof index === "string") return optSelect(obj, index);
    throw noSuchKey(index);
  }
  // A value that is neither a list, a map nor a message: absent (see optSelect).
  return CelOptional.NONE;
}

/** `x in list`: heterogeneous equality, as `==`. */
export function inList(x: CelValue, list: readonly CelValue[]): boolean {
  if (typeof x === "string" || typeof x === "boolean") return list.includes(x);
  if (typeof x === "bigint") {
    if (list.includes(x)) return true;
    // Only a uint or double can still be equal to an int.
    for (let i = 0; i < list.length; i++) {
      const y = list[i]!;
      if (typeof y !== "bigint" && celEquals(x, y)) return true;
    }
    return false;
  }
  // cel-go `Contains`: the searched value's `Equal`; an error is "not this one".
  for (let i = 0; i < list.length; i++) if (celEqualsOrFalse(x, list[i]!)) return true;
  return false;
}

/** `k in map`: key presence with numeric cross-type lookup. */
export function inMap(k: CelValue, m: ReadonlyMap<CelMapKey, CelValue>): boolean {
  return mapGet(m, k) !== undefined;
}
