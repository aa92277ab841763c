/**
 * Go's formatting of values, for error texts that must read exactly as kube-apiserver's.
 *
 * The apiserver's patch errors embed Go-formatted values: `strconv.Quote` (`%q`), `%v`, `%#v`
 * and `%T` of unstructured JSON data (`map[string]interface {}`, `[]interface {}`, `int64`,
 * `float64`, `string`, `bool`, nil). These helpers render plain JSON values the same way; an
 * integral JavaScript number stands for an int64, any other number for a float64.
 */
import { goFloatV, goQuote } from "../diag/go-format.js";
import { isJsonObject, type JsonValue } from "./json.js";

/**
 * CEL's `null` inside an ApplyConfiguration reaches structured-merge-diff (1.36) as a protobuf
 * `NullValue` enum, not as a JSON null; it is formatted as `NULL_VALUE` (`%v`), `0` (`%#v`) and
 * `structpb.NullValue` (`%T`).
 */
export const CEL_NULL: unique symbol = Symbol("CEL null (structpb.NullValue)");
export type GoValue = JsonValue | typeof CEL_NULL;

/** `strconv.Quote`: Go-escaped, double-quoted (one implementation for every error text). */
export { goQuote };

/** `strconv.FormatFloat(f, 'g', -1, 64)`, which `%v` uses for float64 (`src/diag`'s `goFloatV`). */
export const goFloat = goFloatV;

/** A number as Go prints it with `%v` (int64 or float64). */
export function goNumber(n: number | bigint): string {
  if (typeof n === "bigint") return n.toString();
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  return goFloat(n);
}

function sortedKeys(o: Record<string, unknown>): string[] {
  // fmt prints maps with sorted keys (byte-wise for strings).
  return Object.keys(o).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `%v` of an unstructured value. */
export function goV(v: GoValue): string {
  if (v === CEL_NULL) return "NULL_VALUE";
  if (v === null) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number" || typeof v === "bigint") return goNumber(v);
  if (Array.isArray(v)) return `[${v.map((e) => goV(e)).join(" ")}]`;
  return `map[${sortedKeys(v)
    .map((k) => `${k}:${goV(v[k] as JsonValue)}`)
    .join(" ")}]`;
}

/** `%#v` of an unstructured value held in an `interface{}`. */
export function goSharpV(v: GoValue): string {
  if (v === CEL_NULL) return "0";
  if (v === null) return "interface {}(nil)";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number" || typeof v === "bigint") return goNumber(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((e) => goSharpV(e)).join(", ")}}`;
  return `map[string]interface {}{${sortedKeys(v)
    .map((k) => `${goQuote(k)}:${goSharpV(v[k] as JsonValue)}`)
    .join(", ")}}`;
}

/** `%T` of an unstructured value. */
export function goType(v: GoValue): string {
  if (v === CEL_NULL) return "structpb.NullValue";
  if (v === null) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int64";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (Array.isArray(v)) return "[]interface {}";
  if (isJsonObject(v)) return "map[string]interface {}";
  return "<nil>";
}
