/**
 * Variable bindings from the command line: `--vars <file.json|yaml>` and
 * `--var name=<json>`, read into CEL values.
 *
 * Values go through the engine's `fromJson`, the conversion every celmap
 * input takes: integral numbers are CEL `int`s, other numbers `double`s, an
 * integer beyond int64 a `double`. Integers are read exactly (as `bigint`, by
 * `parseExactJson` or YAML's `intAsBigInt`), so int64 values beyond 2^53 keep
 * every digit. YAML follows YAML 1.2 (core schema): `yes` is a string.
 */
import { parse as parseYaml } from "yaml";
import { fromJson, type CelValue } from "../cel/index.js";
import { parseExactJson } from "./exact-json.js";
import { UsageError } from "./options.js";

/** CEL reserved words: not usable as variable names. */
const RESERVED = new Set([
  "true", "false", "null", "in",
  "as", "break", "const", "continue", "else", "for", "function", "if", "import",
  "let", "loop", "package", "namespace", "return", "var", "void", "while",
]);

export function checkVariableName(name: string, where: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new UsageError(`${where}: '${name}' is not a valid CEL variable name (letters, digits and '_', not starting with a digit)`);
  }
  if (RESERVED.has(name)) throw new UsageError(`${where}: '${name}' is a CEL reserved word and cannot be a variable name`);
}

/** `name=<json>` → [name, value]. */
export function parseVarOption(arg: string): [string, CelValue] {
  const eq = arg.indexOf("=");
  if (eq <= 0) throw new UsageError(`--var ${arg}: expected name=<json>, e.g. --var replicas=3 or --var name='"web"'`);
  const name = arg.slice(0, eq);
  const text = arg.slice(eq + 1);
  checkVariableName(name, `--var ${name}`);
  let data: unknown;
  try {
    data = parseExactJson(text);
  } catch (e) {
    const hint = /^[A-Za-z]/.test(text.trim()) && !/^(true|false|null)$/.test(text.trim())
      ? ` (a string needs JSON quotes: --var ${name}='"${text}"')`
      : "";
    throw new UsageError(`--var ${name}: the value is not valid JSON: ${message(e)}${hint}`);
  }
  return [name, toCel(data)];
}

/**
 * Reads a bindings file: a JSON or YAML mapping from variable names to values.
 * `.json` files are read as strict JSON; anything else as YAML (which also accepts JSON).
 */
export function readVarsFile(path: string, readFile: (path: string) => string): Map<string, CelValue> {
  let text: string;
  try {
    text = readFile(path);
  } catch (e) {
    throw new UsageError(`--vars ${path}: cannot read the file: ${message(e)}`);
  }
  let data: unknown;
  try {
    data = /\.json$/i.test(path) ? parseExactJson(text) : parseYaml(text, { intAsBigInt: true, prettyErrors: true });
  } catch (e) {
    const kind = /\.json$/i.test(path) ? "JSON" : "YAML";
    throw new UsageError(`--vars ${path}: not valid ${kind}: ${message(e)}`);
  }
  if (data === null || data === undefined || typeof data !== "object" || Array.isArray(data)) {
    throw new UsageError(
      `--vars ${path}: expected a mapping from variable names to values (e.g. 'object: {...}'), got ${describe(data)}`,
    );
  }
  const out = new Map<string, CelValue>();
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    checkVariableName(name, `--vars ${path}`);
    out.set(name, toCel(value));
  }
  return out;
}

/**
 * Plain data (exact JSON or YAML) → CEL value, by the engine's `fromJson`:
 * objects become maps with string keys, integers (`bigint`, or integral
 * numbers) ints — doubles beyond int64 — and other numbers doubles.
 */
export function toCel(v: unknown): CelValue {
  return fromJson(v);
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return "an empty document";
  if (Array.isArray(v)) return "a list";
  return `a ${typeof v === "bigint" ? "number" : typeof v}`;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
