/**
 * Map access with CEL key semantics. JavaScript `Map` compares `bigint`,
 * `string` and `boolean` keys by value, so those hit directly; uint keys are
 * objects and doubles never are keys, so those fall back to numeric matching
 * (`{1: 'a'}[1u]`, `{1u: 'a'}[1]` and `{1: 'a'}[1.0]` all find the entry).
 */
import { CelUint, type CelMapKey, type CelValue } from "../values.js";

export function mapGet(m: ReadonlyMap<CelMapKey, CelValue>, key: CelValue): CelValue | undefined {
  if (typeof key === "string" || typeof key === "boolean") return m.get(key);
  if (typeof key === "bigint") {
    const v = m.get(key);
    if (v !== undefined || m.size === 0) return v;
    return numericScan(m, key);
  }
  if (key instanceof CelUint) {
    const v = m.get(key.value);
    if (v !== undefined) return v;
    return numericScan(m, key.value);
  }
  if (typeof key === "number") {
    if (!Number.isInteger(key)) return undefined;
    const i = BigInt(key);
    const v = m.get(i);
    if (v !== undefined) return v;
    return numericScan(m, i);
  }
  return undefined;
}

export function mapHas(m: ReadonlyMap<CelMapKey, CelValue>, key: CelValue): boolean {
  return mapGet(m, key) !== undefined;
}

function numericScan(m: ReadonlyMap<CelMapKey, CelValue>, n: bigint): CelValue | undefined {
  for (const [k, v] of m) if (k instanceof CelUint && k.value === n) return v;
  return undefined;
}

/** Whether a value may be a map key (int, uint, bool, string). */
export function isMapKey(v: CelValue): v is CelMapKey {
  return typeof v === "string" || typeof v === "bigint" || typeof v === "boolean" || v instanceof CelUint;
}
