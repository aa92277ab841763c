/**
 * CEL values as tagged JSON, the same encoding reference/internal/celjson writes for cel-go
 * values, so results of the two engines compare as data. Maps are canonicalised here (entries
 * sorted by their encoded key) for both sides.
 */
import {
  CelDuration,
  CelObject,
  CelOptional,
  CelTimestamp,
  CelType,
  CelUint,
  type CelMapKey,
  type CelValue,
} from "../../src/cel/index.js";

export type Tagged = { readonly [tag: string]: unknown };

function double(n: number): number | string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  if (n === 0 && Object.is(n, -0)) return "-0";
  return n;
}

const NS = 1_000_000_000n;

export function encode(v: CelValue): Tagged {
  switch (typeof v) {
    case "boolean":
      return { bool: v };
    case "bigint":
      return { int: v.toString() };
    case "number":
      return { double: double(v) };
    case "string":
      return { string: v };
  }
  if (v === null) return { null: null };
  if (Array.isArray(v)) return { list: (v as readonly CelValue[]).map(encode) };
  if (v instanceof Map) {
    return canonical({ map: [...(v as ReadonlyMap<CelMapKey, CelValue>)].map(([k, x]) => [encode(k), encode(x)]) });
  }
  if (v instanceof CelUint) return { uint: v.value.toString() };
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString("base64") };
  if (v instanceof CelTimestamp) {
    let s = v.nanos / NS;
    let n = v.nanos % NS;
    if (n < 0n) {
      n += NS;
      s -= 1n;
    }
    return { timestamp: `${s}.${n}` };
  }
  if (v instanceof CelDuration) return { duration: v.nanos.toString() };
  if (v instanceof CelOptional) return { optional: v.value === undefined ? null : encode(v.value) };
  if (v instanceof CelType) return { type: v.name };
  if (v instanceof CelObject) return { opaque: v.celType.name };
  return { unknown: String(v) };
}

/** Sorts map entries (recursively) by their encoded key, so two engines' iteration orders do not matter. */
export function canonical(t: Tagged): Tagged {
  if (Array.isArray(t.list)) return { list: (t.list as Tagged[]).map(canonical) };
  if (Array.isArray(t.map)) {
    const entries = (t.map as [Tagged, Tagged][]).map(([k, v]) => [JSON.stringify(canonical(k)), canonical(k), canonical(v)] as const);
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { map: entries.map(([, k, v]) => [k, v]) };
  }
  if (t.optional !== undefined && t.optional !== null) return { optional: canonical(t.optional as Tagged) };
  return t;
}
