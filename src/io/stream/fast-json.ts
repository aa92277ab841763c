/**
 * The fast path for JSON documents: `JSON.parse`, then integers as `bigint` (what the `yaml`
 * package's YAML 1.2 reading of JSON gives with `intAsBigInt`, and what CEL needs). It bails
 * (`undefined`) where `JSON.parse` alone cannot tell what `yaml` would give: a number with a
 * fraction or exponent or 16+ digits (int vs double, exact digits), duplicate keys (an error for
 * `yaml`), a root that is not an object or array, tabs or characters YAML treats specially.
 */
export function fastJson(text: string): { readonly value: unknown } | undefined {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return undefined;
  if (/[\t\u007f-\u009f\u2028\u2029\ufeff]/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const structure = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  if (/[0-9][.eE]|[0-9]{16}/.test(structure)) return undefined;
  let keys = 0;
  for (const _ of structure.matchAll(/""\s*:/g)) keys++;
  if (countAndConvert(value) !== keys) return undefined;
  return { value };
}

/** Integers to `bigint` in place; returns the number of object keys. */
function countAndConvert(v: unknown): number {
  let keys = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === "number") v[i] = BigInt(x);
      else if (typeof x === "object" && x !== null) keys += countAndConvert(x);
    }
  } else if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      keys++;
      const x = o[k];
      if (typeof x === "number") o[k] = BigInt(x);
      else if (typeof x === "object" && x !== null) keys += countAndConvert(x);
    }
  }
  return keys;
}
