/**
 * JSON values as Gatekeeper's Go code sees them (`map[string]interface{}`, `[]interface{}`,
 * `string`, `int64`, `float64`, `bool`, `nil`).
 *
 * A JS `number` that is an integer stands for an `int64` (what the Kubernetes unstructured
 * decoder makes of a whole JSON number), a non-integer `number` for a `float64`. A `float64`
 * holding a whole number (every number in an Assign `value`, which Gatekeeper decodes with
 * `encoding/json`) is a {@link GoFloat}. Equality is Go's: `int64(80) != float64(80)`.
 */
import { goFloatV } from "../diag/index.js";

/** A whole-number `float64` (non-integers are plain JS numbers already). */
export class GoFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/** An External-data placeholder left at a location during the passes (`ExternalDataPlaceholder`). */
export class ExternalDataPlaceholder {
  constructor(
    readonly provider: string,
    readonly dataSource: string,
    readonly failurePolicy: string,
    readonly defaultValue: string,
    public valueAtLocation: string,
  ) {}
  copy(): ExternalDataPlaceholder {
    return new ExternalDataPlaceholder(this.provider, this.dataSource, this.failurePolicy, this.defaultValue, this.valueAtLocation);
  }
}

export type GoValue =
  | null
  | boolean
  | string
  | number
  | GoFloat
  | ExternalDataPlaceholder
  | GoValue[]
  | { [key: string]: GoValue };

export type GoMap = { [key: string]: GoValue };

const nilLists = new WeakSet<GoValue[]>();

/**
 * Go's nil `[]interface{}` (ModifySet merging an absent `fromList` into a missing field): a
 * list everywhere, but serialised as `null` and unequal to an empty list under `cmp.Equal`.
 */
export const NIL_LIST = {
  make(): GoValue[] {
    const a: GoValue[] = [];
    nilLists.add(a);
    return a;
  },
  has(v: unknown): boolean {
    return Array.isArray(v) && nilLists.has(v);
  },
};

/**
 * Sets a map entry; `__proto__` is stored as an own property like any other key (JSON keys
 * are data, never a prototype).
 */
export function setKey<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

export function isMap(v: unknown): v is GoMap {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof GoFloat) && !(v instanceof ExternalDataPlaceholder);
}

/** A float64 number: whole numbers become {@link GoFloat}. */
export function float64(n: number): number | GoFloat {
  return Number.isInteger(n) ? new GoFloat(n) : n;
}

/** Plain JSON → Go value, every number decoded as by `encoding/json` into `interface{}` (float64). */
export function fromJSONFloat(v: unknown): GoValue {
  if (typeof v === "number") return float64(v);
  if (Array.isArray(v)) return v.map(fromJSONFloat);
  if (isPlainObject(v)) {
    const out: GoMap = {};
    for (const [k, x] of Object.entries(v)) setKey(out, k, fromJSONFloat(x));
    return out;
  }
  return fromJSON(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Plain JSON → Go value as the Kubernetes decoder makes it (whole numbers int64). */
export function fromJSON(v: unknown): GoValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "boolean" || typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof GoFloat || v instanceof ExternalDataPlaceholder) return v;
  if (Array.isArray(v)) return v.map(fromJSON);
  if (isPlainObject(v)) {
    const out: GoMap = {};
    for (const [k, x] of Object.entries(v)) {
      if (x !== undefined) setKey(out, k, fromJSON(x));
    }
    return out;
  }
  throw new TypeError(`not a JSON value: ${String(v)}`);
}

/** Go value → plain JSON (what the webhook serialises). Placeholders print as their current key. */
export function toJSON(v: GoValue): unknown {
  if (v instanceof GoFloat) return v.value;
  if (v instanceof ExternalDataPlaceholder) return v.valueAtLocation;
  if (Array.isArray(v)) return NIL_LIST.has(v) && v.length === 0 ? null : v.map(toJSON);
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setKey(out, k, toJSON(x));
    return out;
  }
  return v;
}

/** `runtime.DeepCopyJSONValue` (placeholders copied as well). */
export function deepCopy(v: GoValue): GoValue {
  if (Array.isArray(v)) return NIL_LIST.has(v) && v.length === 0 ? NIL_LIST.make() : v.map(deepCopy);
  if (v instanceof ExternalDataPlaceholder) return v.copy();
  if (isMap(v)) {
    const out: GoMap = {};
    for (const [k, x] of Object.entries(v)) setKey(out, k, deepCopy(x));
    return out;
  }
  return v;
}

/** Go `==` on two `interface{}` values holding comparable scalars (strings, int64, float64, bool, nil). */
export function scalarEqual(a: GoValue | undefined, b: GoValue | undefined): boolean {
  if (a instanceof GoFloat) return b instanceof GoFloat && a.value === b.value;
  if (b instanceof GoFloat) return false;
  if (typeof a === "object" || typeof b === "object") return a === null && b === null;
  return a === b;
}

/** `cmp.Equal` on decoded JSON: type-sensitive, recursive. */
export function deepEqual(a: GoValue, b: GoValue): boolean {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    if (a.length === 0 && NIL_LIST.has(a) !== NIL_LIST.has(b)) return false;
    return a.every((x, i) => deepEqual(x, b[i]!));
  }
  if (a instanceof ExternalDataPlaceholder) {
    return (
      b instanceof ExternalDataPlaceholder &&
      a.provider === b.provider &&
      a.dataSource === b.dataSource &&
      a.failurePolicy === b.failurePolicy &&
      a.defaultValue === b.defaultValue &&
      a.valueAtLocation === b.valueAtLocation
    );
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k]!, b[k]!));
  }
  if (Array.isArray(b) || isMap(b) || b instanceof ExternalDataPlaceholder) return false;
  return scalarEqual(a, b);
}

/** Go's `%T` of a decoded JSON value. */
export function goTypeName(v: GoValue | undefined): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (v instanceof GoFloat) return "float64";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (v instanceof ExternalDataPlaceholder) return "*unversioned.ExternalDataPlaceholder";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/** Go's `%v` of a float64 (`'g'`, shortest digits, exponent form when exp < -4 or >= 6): `src/diag`'s `goFloatV`. */
export const goFloatString = goFloatV;

/** Go's `%v` / `%+v` of a decoded JSON value (maps print with sorted keys). */
export function goFormatValue(v: GoValue | undefined): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (v instanceof GoFloat) return goFloatString(v.value);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : goFloatString(v);
  if (v instanceof ExternalDataPlaceholder) {
    return `&{Ref:&{Provider:${v.provider} DataSource:${v.dataSource} FailurePolicy:${v.failurePolicy} Default:${v.defaultValue}} ValueAtLocation:${v.valueAtLocation}}`;
  }
  if (Array.isArray(v)) return "[" + v.map(goFormatValue).join(" ") + "]";
  const keys = Object.keys(v).sort(byteCompare);
  return "map[" + keys.map((k) => `${k}:${goFormatValue(v[k])}`).join(" ") + "]";
}

const utf8 = new TextEncoder();

/** Go string ordering (byte-wise over UTF-8). */
export function byteCompare(a: string, b: string): number {
  if (a === b) return 0;
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
