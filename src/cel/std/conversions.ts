/**
 * Type conversions of the standard library: `int`, `uint`, `double`, `string`,
 * `bytes`, `bool`, `dyn`, `type` (timestamp and duration overloads live in
 * `time.ts`). Semantics and messages follow cel-go:
 *
 * - `int(double)` truncates toward zero; out of int64 range (or NaN/±Inf) is
 *   "integer overflow" (cel-go wraps `errIntOverflow`; the CEL spec calls it a
 *   range error). `uint(-1)` is "unsigned integer overflow".
 * - `int('…')`, `uint('…')`, `double('…')`, `bool('…')` parse like Go's strconv;
 *   failures are "type conversion error from 'string' to 'int'" and so on.
 * - `string(double)` formats like Go's `%g`: `string(1.0)` = "1",
 *   `string(1e100)` = "1e+100", `string(123456789.0)` = "1.23456789e+08".
 * - `string(bytes)` requires valid UTF-8.
 */
import { func, overload, type FunctionDecl } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { formatDoubleG } from "../runtime/access.js";
import { typeOf } from "../runtime/type-of.js";
import { BOOL, BYTES, DOUBLE, DYN, INT, STRING, UINT, typeParam, typeType } from "../types.js";
import { CelUint, INT64_MAX, INT64_MIN, UINT64_MAX, type CelValue } from "../values.js";
import { intOverflow, uintOverflow } from "./operators.js";

const A = typeParam("A");

function conversionError(from: string, to: string): CelEvalError {
  return new CelEvalError(`type conversion error from '${from}' to '${to}'`);
}

const TWO_63 = 9223372036854775808; // 2^63 as a double
const TWO_64 = 18446744073709551616;

export function doubleToInt(d: number): bigint {
  // cel-go: NaN, ±Inf and values at or beyond ±2^63 overflow.
  if (Number.isNaN(d) || d <= -TWO_63 || d >= TWO_63) throw intOverflow();
  return BigInt(Math.trunc(d));
}

export function doubleToUint(d: number): CelUint {
  if (Number.isNaN(d) || d < 0 || d >= TWO_64) throw uintOverflow();
  return new CelUint(BigInt(Math.trunc(d)));
}

const DECIMAL = /^[+-]?[0-9]+$/;
const UDECIMAL = /^\+?[0-9]+$/;

/** Go's `strconv.ParseInt(s, 10, 64)`. */
export function parseInt64(s: string): bigint | undefined {
  if (!DECIMAL.test(s)) return undefined;
  const v = BigInt(s);
  return v > INT64_MAX || v < INT64_MIN ? undefined : v;
}

/** Go's `strconv.ParseUint(s, 10, 64)` (no sign allowed). */
function parseUint64(s: string): bigint | undefined {
  if (!UDECIMAL.test(s) || s.startsWith("+")) return undefined;
  const v = BigInt(s);
  return v > UINT64_MAX ? undefined : v;
}

const FLOAT_DEC = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const FLOAT_SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/** Go's `strconv.ParseFloat(s, 64)`: decimal and special forms; out of range is an error. */
export function parseFloat64(s: string): number | undefined {
  if (FLOAT_SPECIAL.test(s)) {
    const lower = s.toLowerCase();
    if (lower.endsWith("nan")) return lower === "nan" ? Number.NaN : undefined;
    return lower.startsWith("-") ? -Infinity : Infinity;
  }
  if (/^[+-]?0[xX]/.test(s)) return parseHexFloat(s);
  if (!FLOAT_DEC.test(s)) return undefined;
  const v = Number(s);
  if (!Number.isFinite(v)) return undefined; // ErrRange
  return v;
}

function parseHexFloat(s: string): number | undefined {
  const m = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(s);
  if (m === null || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  const digits = (m[2] ?? "") + (m[3] ?? "");
  let v = 0;
  for (const c of digits) v = v * 16 + Number.parseInt(c, 16);
  v *= 2 ** (Number(m[4]) - 4 * (m[3] ?? "").length);
  if (!Number.isFinite(v)) return undefined;
  return m[1] === "-" ? -v : v;
}

/** Go's `strconv.ParseBool`. */
function parseBool(s: string): boolean | undefined {
  switch (s) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
  }
  return undefined;
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();

export function bytesToString(b: Uint8Array): string {
  try {
    return utf8Decoder.decode(b);
  } catch {
    throw new CelEvalError("invalid UTF-8 in bytes, cannot convert to string");
  }
}

export function stringToBytes(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}

export const CONVERSION_FUNCTIONS: readonly FunctionDecl[] = [
  func(
    "int",
    overload("int64_to_int64", [INT], INT, (i: bigint) => i),
    overload("uint64_to_int64", [UINT], INT, (u: CelUint) => {
      if (u.value > INT64_MAX) throw intOverflow();
      return u.value;
    }),
    overload("double_to_int64", [DOUBLE], INT, doubleToInt),
    overload("string_to_int64", [STRING], INT, (s: string) => {
      const v = parseInt64(s);
      if (v === undefined) throw conversionError("string", "int");
      return v;
    }),
  ),
  func(
    "uint",
    overload("uint64_to_uint64", [UINT], UINT, (u: CelUint) => u),
    overload("int64_to_uint64", [INT], UINT, (i: bigint) => {
      if (i < 0n) throw uintOverflow();
      return new CelUint(i);
    }),
    overload("double_to_uint64", [DOUBLE], UINT, doubleToUint),
    overload("string_to_uint64", [STRING], UINT, (s: string) => {
      const v = parseUint64(s);
      if (v === undefined) throw conversionError("string", "uint");
      return new CelUint(v);
    }),
  ),
  func(
    "double",
    overload("double_to_double", [DOUBLE], DOUBLE, (d: number) => d),
    overload("int64_to_double", [INT], DOUBLE, (i: bigint) => Number(i)),
    overload("uint64_to_double", [UINT], DOUBLE, (u: CelUint) => Number(u.value)),
    overload("string_to_double", [STRING], DOUBLE, (s: string) => {
      const v = parseFloat64(s);
      if (v === undefined) throw conversionError("string", "double");
      return v;
    }),
  ),
  func(
    "string",
    overload("string_to_string", [STRING], STRING, (s: string) => s),
    overload("bool_to_string", [BOOL], STRING, (b: boolean) => (b ? "true" : "false")),
    overload("int64_to_string", [INT], STRING, (i: bigint) => i.toString()),
    overload("uint64_to_string", [UINT], STRING, (u: CelUint) => u.value.toString()),
    overload("double_to_string", [DOUBLE], STRING, formatDoubleG),
    overload("bytes_to_string", [BYTES], STRING, bytesToString),
  ),
  func(
    "bytes",
    overload("bytes_to_bytes", [BYTES], BYTES, (b: Uint8Array) => b),
    overload("string_to_bytes", [STRING], BYTES, stringToBytes),
  ),
  func(
    "bool",
    overload("bool_to_bool", [BOOL], BOOL, (b: boolean) => b),
    overload("string_to_bool", [STRING], BOOL, (s: string) => {
      const v = parseBool(s);
      if (v === undefined) throw conversionError("string", "bool");
      return v;
    }),
  ),
  func("dyn", overload("to_dyn", [A], DYN, (v: CelValue) => v)),
  func("type", overload("type", [A], typeType(A), (v: CelValue) => typeOf(v))),
];

