/**
 * Number representations of loaded values: YAML/JSON integers as `bigint` (what CEL reads as
 * int) or as `number` (plain JSON). Pure: no files, usable by the engine and in browsers.
 */

/**
 * The reverse for values made in code (translated policies): every safe integral `number` becomes a
 * `bigint`, deeply, as the loader's `numbers: "cel"` mode would have read them from YAML.
 */
export function toCelNumbers(v: unknown): unknown {
  if (typeof v === "number") return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCelNumbers);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toCelNumbers(x);
    return out;
  }
  return v;
}

/** Turns every `bigint` into a `number` (plain JSON), deeply. Precision is lost beyond 2^53. */
export function toJsonNumbers(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(toJsonNumbers);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toJsonNumbers(x);
    return out;
  }
  return v;
}
