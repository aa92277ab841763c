/**
 * JSON ⇄ CEL values, as the CLI and the Kubernetes adapters need them.
 *
 * {@link fromJson} (JSON → CEL), following how the apiserver presents
 * unstructured objects to CEL:
 *
 * | JSON                         | CEL                                  |
 * |------------------------------|--------------------------------------|
 * | `null`, boolean, string      | the same                             |
 * | integral number (`3`, `3.0`) | `int` (`bigint`); must fit in int64   |
 * | other number (`0.5`, `1e400`)| `double` (`number`)                  |
 * | array                        | list (a new array)                   |
 * | object                       | map with string keys (a `Map`)       |
 *
 * An integral number outside int64 becomes a double. `bigint` inputs (from an
 * exact JSON reader) are taken as ints when they fit in int64.
 *
 * {@link toJson} (CEL → JSON-compatible JavaScript):
 *
 * | CEL                  | JSON                                                     |
 * |----------------------|----------------------------------------------------------|
 * | int, uint            | number when |n| ≤ 2^53 - 1, else a decimal string (as cel-go's JSON conversion) |
 * | double               | number; NaN and ±Infinity become the strings "NaN", "Infinity", "-Infinity" (proto3 JSON) |
 * | bytes                | base64 string                                            |
 * | timestamp            | RFC 3339 string in UTC, fraction without trailing zeros (Go's RFC3339Nano): "2023-11-14T22:13:20.123Z" |
 * | duration             | exact seconds with an "s" suffix, fraction without trailing zeros: "1.5s", "-0.000001s" |
 * | list, map            | array, object (map keys rendered as strings)             |
 * | optional             | its value, or null when none                             |
 * | type                 | its name, e.g. "int"                                     |
 * | other objects        | `toJSON()` when the object has one, else its type name   |
 *
 * Neither function throws for well-formed input; `toJson` never mutates its argument.
 */
import { CelType } from "../types.js";
import {
  CelDuration,
  CelObject,
  CelOptional,
  CelTimestamp,
  CelUint,
  INT64_MAX,
  INT64_MIN,
  type CelMapKey,
  type CelValue,
} from "../values.js";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * `cache` memoises the conversion of arrays and objects by identity, for callers that convert many
 * versions of one document which share unchanged subtrees (the admission pipeline converts the
 * object after every mutation). Only valid while the cached JSON values are not modified in place.
 */
/** A table of conversions by JSON value identity: a `Map` or a `WeakMap`. */
export interface ValueCache {
  get(key: object): CelValue | undefined;
  set(key: object, value: CelValue): unknown;
}

export function fromJson(value: unknown, cache?: ValueCache): CelValue {
  switch (typeof value) {
    case "boolean":
    case "string":
      return value;
    case "number":
      if (Number.isInteger(value) && Number.isSafeInteger(value)) return BigInt(value);
      if (Number.isInteger(value)) {
        const b = BigInt(value);
        return b >= INT64_MIN && b <= INT64_MAX ? b : value;
      }
      return value;
    case "bigint":
      return value >= INT64_MIN && value <= INT64_MAX ? value : Number(value);
    case "object":
      return value === null ? null : fromJsonContainer(value, cache, false);
    default:
      return null;
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function intToJson(n: bigint): JsonValue {
  return n <= MAX_SAFE && n >= -MAX_SAFE ? Number(n) : n.toString();
}

export function toJson(v: CelValue): JsonValue {
  switch (typeof v) {
    case "boolean":
    case "string":
      return v;
    case "bigint":
      return intToJson(v);
    case "number":
      if (Number.isNaN(v)) return "NaN";
      if (v === Infinity) return "Infinity";
      if (v === -Infinity) return "-Infinity";
      return v;
  }
  if (v === null) return null;
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Map) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, x] of v as ReadonlyMap<CelMapKey, CelValue>) {
      out[k instanceof CelUint ? k.value.toString() : String(k)] = toJson(x);
    }
    return out;
  }
  if (v instanceof CelUint) return intToJson(v.value);
  if (v instanceof Uint8Array) return base64(v);
  if (v instanceof CelTimestamp) return timestampJson(v.nanos);
  if (v instanceof CelDuration) return durationJson(v.nanos);
  if (v instanceof CelOptional) return v.value === undefined ? null : toJson(v.value);
  if (v instanceof CelType) return v.toString();
  if (v instanceof CelObject) {
    const j = (v as CelObject & { toJSON?: () => unknown }).toJSON;
    if (typeof j === "function") return j.call(v) as JsonValue;
    return v.celType.name;
  }
  return null;
}

function base64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i++) s += String.fromCharCode(b[i]!);
  return btoa(s);
}

/** Lists made from a JSON array (read from a document), not built by an expression. */
const JSON_LISTS = new WeakSet<readonly CelValue[]>();

/**
 * Whether `v` is a list or map read from a JSON document by `fromJsonLazy` (a JSON array's list,
 * a {@link JsonObjectMap}) rather than built by an expression. cel-go tells them apart by their
 * `Value()`: a document's are native (`[]any`, `map[string]any`), an expression's hold CEL values
 * (`[]ref.Val`, `map[ref.Val]ref.Val`), which the apiserver's ApplyConfiguration conversion treats
 * differently (`src/cel/k8s/object.ts` `applyConfigurationJson`).
 */
export function isDocumentValue(v: CelValue): boolean {
  return v instanceof JsonObjectMap || (Array.isArray(v) && JSON_LISTS.has(v));
}

/**
 * {@link fromJson} that converts objects on demand: an object becomes a {@link JsonObjectMap}, a
 * CEL map whose entries are converted when it is first read (then all of that level at once;
 * nested objects stay lazy). Arrays are converted at once, their object elements lazily. For large
 * documents of which an expression reads a few fields (admission objects). `cache` as for
 * `fromJson`; the same sharing rules apply: the JSON must not be modified in place afterwards.
 */
export function fromJsonLazy(value: unknown, cache?: ValueCache): CelValue {
  return typeof value !== "object" || value === null ? fromJson(value) : fromJsonContainer(value, cache, true);
}

/** An array or object, eagerly (`fromJson`) or lazily (`fromJsonLazy`), through the cache. */
function fromJsonContainer(value: object, cache: ValueCache | undefined, lazy: boolean): CelValue {
  if (cache !== undefined) {
    const hit = cache.get(value);
    if (hit !== undefined) return hit;
  }
  let out: CelValue;
  if (Array.isArray(value)) {
    const list = new Array<CelValue>(value.length);
    for (let i = 0; i < value.length; i++) list[i] = lazy ? fromJsonLazy(value[i], cache) : fromJson(value[i], cache);
    JSON_LISTS.add(list);
    out = list;
  } else if (lazy) out = new JsonObjectMap(value as Record<string, unknown>, cache);
  else {
    const m = new Map<CelMapKey, CelValue>();
    for (const k of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) m.set(k, fromJson(v, cache));
    }
    out = m;
  }
  cache?.set(value, out);
  return out;
}

/**
 * A CEL map (a `Map`, as every CEL map is) over a JSON object, filled from it on first use. Every
 * read goes through an overridden method, so it behaves as the map `fromJson` would build.
 */
export class JsonObjectMap extends Map<CelMapKey, CelValue> {
  #json: Record<string, unknown> | undefined;
  readonly #cache: ValueCache | undefined;
  readonly #overlay: ReadonlyMap<string, CelValue> | undefined;

  /**
   * `overlay`: entries that replace the object's own (in place) or are added after them, as if the
   * JSON had them; lets a caller present a variant of a document without copying it.
   */
  constructor(json: Record<string, unknown>, cache?: ValueCache, overlay?: ReadonlyMap<string, CelValue>) {
    super();
    this.#json = json;
    this.#cache = cache;
    this.#overlay = overlay !== undefined && overlay.size > 0 ? overlay : undefined;
  }

  #fill(): void {
    const json = this.#json;
    if (json === undefined) return;
    this.#json = undefined;
    const overlay = this.#overlay;
    for (const k of Object.keys(json)) {
      const o = overlay?.get(k);
      if (o !== undefined) super.set(k, o);
      else {
        const v = json[k];
        if (v !== undefined) super.set(k, fromJsonLazy(v, this.#cache));
      }
    }
    if (overlay !== undefined) for (const [k, v] of overlay) if (!super.has(k)) super.set(k, v);
  }

  override get(key: CelMapKey): CelValue | undefined {
    const json = this.#json;
    // A single field read before the level is filled needs no fill.
    if (json !== undefined && typeof key === "string") {
      const o = this.#overlay?.get(key);
      if (o !== undefined) return o;
      if (!Object.prototype.hasOwnProperty.call(json, key)) return undefined;
      const v = json[key];
      return v === undefined ? undefined : fromJsonLazy(v, this.#cache);
    }
    this.#fill();
    return super.get(key);
  }
  override has(key: CelMapKey): boolean {
    const json = this.#json;
    if (json !== undefined && typeof key === "string") {
      if (this.#overlay?.has(key) === true) return true;
      return Object.prototype.hasOwnProperty.call(json, key) && json[key] !== undefined;
    }
    this.#fill();
    return super.has(key);
  }
  override get size(): number {
    this.#fill();
    return super.size;
  }
  override keys(): MapIterator<CelMapKey> {
    this.#fill();
    return super.keys();
  }
  override values(): MapIterator<CelValue> {
    this.#fill();
    return super.values();
  }
  override entries(): MapIterator<[CelMapKey, CelValue]> {
    this.#fill();
    return super.entries();
  }
  override [Symbol.iterator](): MapIterator<[CelMapKey, CelValue]> {
    this.#fill();
    return super[Symbol.iterator]();
  }
  override forEach(fn: (value: CelValue, key: CelMapKey, map: Map<CelMapKey, CelValue>) => void, thisArg?: unknown): void {
    this.#fill();
    super.forEach(fn, thisArg);
  }
  override set(key: CelMapKey, value: CelValue): this {
    this.#fill();
    return super.set(key, value);
  }
  override delete(key: CelMapKey): boolean {
    this.#fill();
    return super.delete(key);
  }
  override clear(): void {
    this.#json = undefined;
    super.clear();
  }
}

/** Fraction digits without trailing zeros, as Go's RFC3339Nano and cel-go's `string(duration)` print them. */
function fraction(nanos: bigint): string {
  if (nanos === 0n) return "";
  return `.${nanos.toString().padStart(9, "0").replace(/0+$/, "")}`;
}

function timestampJson(nanos: bigint): string {
  const NS = 1_000_000_000n;
  let secs = nanos / NS;
  let frac = nanos % NS;
  if (frac < 0n) {
    frac += NS;
    secs -= 1n;
  }
  const d = new Date(Number(secs) * 1000);
  const y = d.getUTCFullYear();
  const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
  return (
    `${pad(y, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction(frac)}Z`
  );
}

function durationJson(nanos: bigint): string {
  const neg = nanos < 0n;
  const a = neg ? -nanos : nanos;
  const NS = 1_000_000_000n;
  return `${neg ? "-" : ""}${a / NS}${fraction(a % NS)}s`;
}
