/**
 * CEL literals as a person writes them: `{"name": "x", "value": "y"}`, not
 * `{"name": dyn("x"), "value": dyn("y")}`. The Kubernetes CEL environments check aggregate
 * literals for homogeneous types (`dyn` does not join with another type there), so where the
 * elements of one list or map differ in type, each of them is written as `dyn(…)`.
 */
import { celString } from "./cel.js";

/** The static CEL type of a literal of JSON value `v` (as the homogeneity check compares them). */
function typeOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "double";
  const elems = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
  const ts = new Set(elems.map(typeOf));
  const e = ts.size === 1 ? [...ts][0]! : "dyn";
  return Array.isArray(v) ? `list(${e})` : `map(string, ${e})`;
}

/** A JSON value as a CEL literal, `dyn(…)` only where the homogeneity check needs it. */
export function plainLiteral(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return celString(v);
  if (typeof v === "number") {
    if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) return String(v);
    if (!Number.isFinite(v)) throw new Error(`not a JSON number: ${v}`);
    const s = String(v);
    return /[.eE]/.test(s) ? s : `${s}.0`;
  }
  const elems = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
  const mixed = new Set(elems.map(typeOf)).size > 1;
  const lit = (x: unknown) => (mixed ? `dyn(${plainLiteral(x)})` : plainLiteral(x));
  if (Array.isArray(v)) return `[${v.map(lit).join(", ")}]`;
  return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${celString(k)}: ${lit(x)}`).join(", ")}}`;
}
