/**
 * CEL equality and ordering with heterogeneous numeric semantics: `1 == 1.0`,
 * `1u == 1`, and `[1] == [1.0]` are true; values of different kinds are simply
 * unequal. NaN is unequal to everything, itself included.
 *
 * Host objects ({@link CelObject}) on the left of `==` decide it themselves, as
 * cel-go's `lhs.Equal(rhs)` does: also for the same instance and for a right-hand
 * side of another type, so Kubernetes types can raise "no such overload"
 * (`authorizer == authorizer`, `dyn(ip('1.2.3.4')) == '1.2.3.4'`). `null` on
 * either side is handled first (cel-go `types.Equal`): never an error. Inside
 * list and map equality such an error counts as "not unequal", as in cel-go,
 * where only an element comparison that returns `false` makes containers unequal.
 */
import { CelType } from "../types.js";
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelUint, listSemantics, type CelMapKey, type CelValue } from "../values.js";
import { CelEvalError } from "../errors.js";
import { typeOf } from "./type-of.js";
import { mapGet } from "./map.js";

export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) {
    if (typeof a === "number") return !Number.isNaN(a);
    return a instanceof CelObject ? a.equals(a) : true;
  }
  switch (typeof a) {
    case "string":
    case "boolean":
      return false;
    case "bigint":
      if (typeof b === "number") return compareIntDouble(a, b) === 0;
      if (b instanceof CelUint) return a === b.value;
      return false;
    case "number":
      if (typeof b === "number") return false; // a !== b already
      if (typeof b === "bigint") return compareIntDouble(b, a) === 0;
      if (b instanceof CelUint) return compareUintDouble(b.value, a) === 0;
      return false;
  }
  if (a === null || b === null) return false;
  if (a instanceof CelUint) {
    if (b instanceof CelUint) return a.value === b.value;
    if (typeof b === "bigint") return a.value === b;
    if (typeof b === "number") return compareUintDouble(a.value, b) === 0;
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false;
    const own = listSemantics(a);
    if (own !== undefined) return own.equals(a, b);
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!elementEquals(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a as ReadonlyMap<CelMapKey, CelValue>) {
      const other = mapGet(b as ReadonlyMap<CelMapKey, CelValue>, k);
      if (other === undefined || !elementEquals(v, other)) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp && a.nanos === b.nanos;
  if (a instanceof CelDuration) return b instanceof CelDuration && a.nanos === b.nanos;
  if (a instanceof CelType) return b instanceof CelType && a.name === b.name;
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional)) return false;
    if (a.value === undefined || b.value === undefined) return a.value === b.value;
    return celEquals(a.value, b.value);
  }
  if (a instanceof CelObject) return a.equals(b);
  return false;
}

/**
 * cel-go's `x.Equal(y) == types.True`, as membership tests use it (`in`, `sets.*`,
 * `distinct`): an error (only host objects raise one) counts as not equal.
 */
export function celEqualsOrFalse(a: CelValue, b: CelValue): boolean {
  if (!(a instanceof CelObject)) return celEquals(a, b);
  try {
    return celEquals(a, b);
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
}

/** Equality of container elements: an error (only host objects raise one) counts as equal, as in cel-go. */
function elementEquals(a: CelValue, b: CelValue): boolean {
  if (!(a instanceof CelObject)) return celEquals(a, b);
  try {
    return celEquals(a, b);
  } catch (e) {
    if (e instanceof CelEvalError) return true;
    throw e;
  }
}

/**
 * Ordering for `<`, `<=`, `>`, `>=`: -1, 0 or 1. Numbers compare across int,
 * uint and double. Throws "no such overload" for values that have no order
 * (CEL checks this at compile time for typed operands; dyn operands land here).
 * A comparison involving NaN returns NaN-ish `undefined` semantics through `compareNumbers`.
 */
export function celCompare(a: CelValue, b: CelValue): number {
  const ta = typeof a;
  if (ta === "string" && typeof b === "string") return compareStrings(a as string, b);
  if ((ta === "bigint" || ta === "number" || a instanceof CelUint) && (typeof b === "bigint" || typeof b === "number" || b instanceof CelUint)) {
    return compareNumbers(a as bigint | number | CelUint, b as bigint | number | CelUint);
  }
  if (ta === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof CelTimestamp && b instanceof CelTimestamp) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  if (a instanceof CelDuration && b instanceof CelDuration) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  throw new CelEvalError(`no such overload: ${typeOf(a).toString()} < ${typeOf(b).toString()}`);
}

/** NaN compares as unordered: returns NaN so every relational operator yields false. */
export function compareNumbers(a: bigint | number | CelUint, b: bigint | number | CelUint): number {
  const x = a instanceof CelUint ? a.value : a;
  const y = b instanceof CelUint ? b.value : b;
  if (typeof x === "bigint") {
    if (typeof y === "bigint") return x < y ? -1 : x > y ? 1 : 0;
    return a instanceof CelUint ? compareUintDouble(x, y) : compareIntDouble(x, y);
  }
  if (typeof y === "bigint") return b instanceof CelUint ? -compareUintDouble(y, x) : -compareIntDouble(y, x);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * An int64 compared with a double as cel-go does (`compareIntDouble`): doubles
 * beyond the int64 range order outside it, otherwise the int is converted to a
 * double (so `9223372036854775807 == 9223372036854775808.0`, as in cel-go). NaN → NaN.
 */
export function compareIntDouble(i: bigint, d: number): number {
  if (Number.isNaN(d)) return Number.NaN;
  if (d < -9223372036854775808) return 1;
  if (d > 9223372036854775807) return -1;
  const x = Number(i);
  return x < d ? -1 : x > d ? 1 : 0;
}

/** A uint64 compared with a double as cel-go does (`compareUintDouble`). NaN → NaN. */
export function compareUintDouble(u: bigint, d: number): number {
  if (Number.isNaN(d)) return Number.NaN;
  if (d < 0) return 1;
  if (d > 18446744073709551615) return -1;
  const x = Number(u);
  return x < d ? -1 : x > d ? 1 : 0;
}

/** Code-point order (Go compares UTF-8 bytes, which orders the same), not UTF-16 unit order. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      // A surrogate encodes a code point above U+FFFF, so it sorts after any BMP unit.
      if (xs !== ys) return xs ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}
