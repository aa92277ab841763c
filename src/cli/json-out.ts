/**
 * CEL value → JSON text, for printing results.
 *
 * `JSON.stringify` cannot do this: it throws on `bigint` and would round int64
 * values beyond 2^53. This serializer writes integers as their exact digits and
 * maps every CEL value to JSON as follows (also in the README and `celmap cel --help`):
 *
 * | CEL value            | JSON                                                       |
 * |----------------------|------------------------------------------------------------|
 * | null, bool, string   | the same                                                   |
 * | int, uint            | the exact integer (`9223372036854775807`, `18446744073709551615`) |
 * | double               | a number that always has a `.` or exponent (`3.0`, `0.5`, `1e+21`); NaN and ±infinity as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` |
 * | bytes                | base64 string (as protobuf's JSON mapping)                 |
 * | list                 | array                                                      |
 * | map                  | object; int/uint/bool keys become strings (`"1"`, `"true"`) |
 * | timestamp            | RFC 3339 string in UTC, nanoseconds without trailing zeros (`"2024-01-01T00:00:00.5Z"`) |
 * | duration             | seconds with an `s` suffix, as `string(duration)` (`"90s"`, `"1.5s"`) |
 * | type                 | its name as a string, without parameters as cel-go prints run-time types (`"int"`, `"list"`, `"google.protobuf.Timestamp"`) |
 * | optional             | `optional.of(v)` prints as `v`, `optional.none()` as `null` |
 * | other objects        | their `toJSON()` if they have one, else their CEL type name as a string |
 */
import {
  CelDuration,
  CelObject,
  CelOptional,
  CelTimestamp,
  CelUint,
  type CelMapKey,
  type CelValue,
} from "../cel/values.js";
import { CelType } from "../cel/types.js";

export interface JsonOptions {
  /** Spaces per indentation level; 0 (the default) prints one line. */
  readonly indent?: number;
}

export function toJsonText(value: CelValue, options: JsonOptions = {}): string {
  const indent = options.indent ?? 0;
  return write(value, indent, "");
}

function write(v: CelValue, indent: number, pad: string): string {
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      return v.toString();
    case "number":
      return formatDouble(v);
    case "string":
      return JSON.stringify(v);
  }
  if (v === null) return "null";
  if (Array.isArray(v)) {
    const items = (v as readonly CelValue[]).map((x) => write(x, indent, pad + " ".repeat(indent)));
    return bracket("[", "]", items, indent, pad);
  }
  if (v instanceof Map) {
    const inner = pad + " ".repeat(indent);
    const sep = indent > 0 ? ": " : ":";
    const items: string[] = [];
    for (const [k, x] of v as ReadonlyMap<CelMapKey, CelValue>) {
      items.push(`${JSON.stringify(keyString(k))}${sep}${write(x, indent, inner)}`);
    }
    return bracket("{", "}", items, indent, pad);
  }
  if (v instanceof CelUint) return v.value.toString();
  if (v instanceof Uint8Array) return JSON.stringify(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64"));
  if (v instanceof CelTimestamp) return JSON.stringify(formatTimestamp(v.nanos));
  if (v instanceof CelDuration) return JSON.stringify(formatDuration(v.nanos));
  if (v instanceof CelType) return JSON.stringify(v.name); // run-time types are parameter-erased: `list`, not `list(dyn)`
  if (v instanceof CelOptional) return v.hasValue() ? write(v.value, indent, pad) : "null";
  if (v instanceof CelObject) {
    const toJSON = (v as unknown as { toJSON?: () => unknown }).toJSON;
    if (typeof toJSON === "function") return writeJs(toJSON.call(v), indent, pad);
    return JSON.stringify(v.celType.toString());
  }
  return JSON.stringify(String(v));
}

/** Plain JavaScript data (from a `toJSON()`): like JSON.stringify, but bigints exact. */
function writeJs(v: unknown, indent: number, pad: string): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(String(v));
  if (typeof v === "boolean" || typeof v === "string") return JSON.stringify(v);
  const inner = pad + " ".repeat(indent);
  if (Array.isArray(v)) return bracket("[", "]", v.map((x) => writeJs(x, indent, inner)), indent, pad);
  if (v instanceof Map) return write(v as CelValue, indent, pad);
  if (typeof v === "object") {
    const sep = indent > 0 ? ": " : ":";
    const items = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${JSON.stringify(k)}${sep}${writeJs(x, indent, inner)}`);
    return bracket("{", "}", items, indent, pad);
  }
  return JSON.stringify(String(v));
}

function bracket(open: string, close: string, items: readonly string[], indent: number, pad: string): string {
  if (items.length === 0) return open + close;
  if (indent === 0) return open + items.join(",") + close;
  const inner = pad + " ".repeat(indent);
  return `${open}\n${inner}${items.join(`,\n${inner}`)}\n${pad}${close}`;
}

function keyString(k: CelMapKey): string {
  if (typeof k === "string") return k;
  if (typeof k === "boolean") return k ? "true" : "false";
  if (typeof k === "bigint") return k.toString();
  return k.value.toString();
}

/** A double always shows it is one: `3.0`, not `3`. */
export function formatDouble(n: number): string {
  if (Number.isNaN(n)) return '"NaN"';
  if (n === Infinity) return '"Infinity"';
  if (n === -Infinity) return '"-Infinity"';
  if (Object.is(n, -0)) return "-0.0";
  const s = JSON.stringify(n);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

const NANOS_PER_SECOND = 1_000_000_000n;

function floorDivMod(a: bigint, b: bigint): [bigint, bigint] {
  let q = a / b;
  let r = a % b;
  if (r < 0n) {
    q -= 1n;
    r += b;
  }
  return [q, r];
}

/** RFC 3339 in UTC with as many fractional digits as needed (Go's `time.RFC3339Nano`). */
export function formatTimestamp(nanos: bigint): string {
  const [secs, frac] = floorDivMod(nanos, NANOS_PER_SECOND);
  const iso = new Date(Number(secs) * 1000).toISOString(); // 0001-01-01T00:00:00.000Z .. 9999-…
  const base = iso.slice(0, 19);
  return `${base}${fraction(frac)}Z`;
}

/** Seconds with an `s` suffix, as cel-go's `string(duration)`: `90s`, `1.5s`, `-0.000000001s`. */
export function formatDuration(nanos: bigint): string {
  const negative = nanos < 0n;
  const abs = negative ? -nanos : nanos;
  const secs = abs / NANOS_PER_SECOND;
  const frac = abs % NANOS_PER_SECOND;
  return `${negative ? "-" : ""}${secs}${fraction(frac)}s`;
}

function fraction(frac: bigint): string {
  if (frac === 0n) return "";
  return `.${frac.toString().padStart(9, "0").replace(/0+$/, "")}`;
}
