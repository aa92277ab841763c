/**
 * `string.format(list)` of cel-go's strings extension, in both generations:
 *
 * - {@link formatV1} — versions 1-3 (`ext/formatting.go`; Kubernetes uses
 *   version 2). `%f`/`%e` go through golang.org/x/text/message with locale
 *   en-US (digit grouping, `∞`, `1.5 × 10⁰⁰`); lists and maps print CEL-ish
 *   literals (`["a", 3.140000, timestamp("...")]`, `{"k":1}`).
 * - {@link formatV2} — versions 4+ (`ext/formatting_v2.go`, the cel-spec text):
 *   plain Go formatting, `[a, 3.14]`, `{k: 1}`.
 *
 * The format string is read as Go reads it (bytes); error texts are cel-go's.
 */
import { CelEvalError } from "../errors.js";
import { compareStrings } from "../runtime/equality.js";
import { typeOf } from "../runtime/type-of.js";
import { CelType } from "../types.js";
import { CelDuration, CelTimestamp, CelUint, type CelMapKey, type CelValue } from "../values.js";
import { durationToString, formatRfc3339, timestampToString } from "../std/time.js";
import { formatFixed, formatExponent, formatG, formatShortestFixed, goQuote, localizedFixed, localizedScientific } from "./go-format.js";

/** A clause error, reported as "error during formatting: <msg>". */
export class ClauseError extends Error {}

/** Larger precisions would build gigantic strings; cel-go v5+ caps at 100. */
const PRECISION_LIMIT = 100_000;

/** The clause implementations of one formatter generation (the receiver of each verb). */
export interface Formatter {
  s(v: CelValue): string;
  d(v: CelValue): string;
  f(v: CelValue, prec: number | undefined): string;
  e(v: CelValue, prec: number | undefined): string;
  b(v: CelValue): string;
  x(v: CelValue, upper: boolean): string;
  o(v: CelValue): string;
}

function typeName(v: CelValue): string {
  return typeOf(v).name;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: false });
const utf8Strict = new TextDecoder("utf-8", { fatal: true });

function hex(v: CelValue, upper: boolean, err: (t: string) => string): string {
  let out: string;
  if (typeof v === "bigint") out = v.toString(16);
  else if (v instanceof CelUint) out = v.value.toString(16);
  else if (typeof v === "string" || v instanceof Uint8Array) {
    const bytes = typeof v === "string" ? utf8.encode(v) : v;
    out = "";
    for (const b of bytes) out += b.toString(16).padStart(2, "0");
  } else throw new ClauseError(err(typeName(v)));
  return upper ? out.toUpperCase() : out;
}

function sortedEntries(m: ReadonlyMap<CelMapKey, CelValue>, key: (k: CelValue) => string, val: (v: CelValue) => string): [string, string][] {
  const entries: [string, string][] = [];
  for (const [k, v] of m) entries.push([key(k), val(v)]);
  // Go compares the formatted keys as byte strings (stable sort).
  return entries.sort((a, b) => (a[0] === b[0] ? 0 : compareStrings(a[0], b[0])));
}

// ---------------------------------------------------------------------------
// Versions 1-3

const V1_STRING_ERR = (t: string) =>
  `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${t}`;

function v1Scalar(v: CelValue): string {
  // ConvertToType(StringType) of the scalar.
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  if (typeof v === "number") return formatG(v);
  if (v instanceof CelTimestamp) return timestampToString(v);
  if (v instanceof CelDuration) return durationToString(v);
  if (v instanceof CelType) return v.name;
  if (v instanceof Uint8Array) {
    try {
      return utf8Strict.decode(v);
    } catch {
      throw new ClauseError(`could not convert argument ${goQuote("invalid UTF-8 in bytes, cannot convert to string")} to string`);
    }
  }
  throw new ClauseError(V1_STRING_ERR(typeName(v)));
}

function v1String(v: CelValue): string {
  if (Array.isArray(v)) return v1List(v);
  if (v instanceof Map) return v1Map(v as ReadonlyMap<CelMapKey, CelValue>);
  if (v === null) return "null";
  return v1Scalar(v);
}

function v1Decimal(v: CelValue): string {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  throw new ClauseError(`decimal clause can only be used on integers, was given ${typeName(v)}`);
}

/** How an element of a list or a map value prints (cel-go's `clauseForType` then `quoteForCEL`). */
function v1Element(v: CelValue): string {
  if (typeof v === "bigint" || v instanceof CelUint) return v1Decimal(v);
  if (typeof v === "string") return goQuote(v);
  if (v instanceof Uint8Array) return "b" + goQuote(v1Scalar(v));
  if (typeof v === "boolean" || v === null || v instanceof CelType) return v1String(v);
  if (v instanceof CelTimestamp) return `timestamp(${goQuote(timestampToString(v))})`;
  if (v instanceof CelDuration) return `duration(${goQuote(durationToString(v))})`;
  if (Array.isArray(v)) return v1List(v);
  if (v instanceof Map) return v1Map(v as ReadonlyMap<CelMapKey, CelValue>);
  if (typeof v === "number") {
    const s = formatFixed(v, 6);
    return Number.isFinite(v) ? s : goQuote(s);
  }
  throw new ClauseError(`no formatting function for ${typeName(v)}`);
}

function v1List(l: readonly CelValue[]): string {
  return "[" + l.map(v1Element).join(", ") + "]";
}

function v1Map(m: ReadonlyMap<CelMapKey, CelValue>): string {
  const key = (k: CelValue): string => {
    if (typeof k === "string") return goQuote(k);
    if (typeof k === "boolean") return k ? "true" : "false";
    if (typeof k === "bigint" || k instanceof CelUint) return v1Decimal(k);
    throw new ClauseError(`no formatting function for map key of type ${typeName(k)}`);
  };
  return "{" + sortedEntries(m, key, v1Element).map(([k, v]) => `${k}:${v}`).join(", ") + "}";
}

function v1Double(v: CelValue, clause: string): number {
  if (typeof v === "number") return v;
  if (v === "NaN") return Number.NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  throw new ClauseError(`${clause} clause can only be used on doubles, was given ${typeName(v)}`);
}

const V1: Formatter = {
  s: v1String,
  d: v1Decimal,
  f: (v, prec) => localizedFixed(v1Double(v, "fixed-point"), prec ?? 6),
  e: (v, prec) => localizedScientific(v1Double(v, "scientific"), prec ?? 6),
  b(v) {
    if (typeof v === "bigint") return v.toString(2);
    if (v instanceof CelUint) return v.value.toString(2);
    if (typeof v === "boolean") return v ? "1" : "0";
    throw new ClauseError(`only integers and bools can be formatted as binary, was given ${typeName(v)}`);
  },
  x: (v, upper) => hex(v, upper, (t) => `only integers, byte buffers, and strings can be formatted as hex, was given ${t}`),
  o(v) {
    if (typeof v === "bigint") return v.toString(8);
    if (v instanceof CelUint) return v.value.toString(8);
    throw new ClauseError(`octal clause can only be used on integers, was given ${typeName(v)}`);
  },
};

// ---------------------------------------------------------------------------
// Versions 4+

function v2Double(x: number): string | undefined {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  return undefined;
}

function v2String(v: CelValue): string {
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  if (typeof v === "number") return v2Double(v) ?? formatShortestFixed(v);
  if (v === null) return "null";
  if (v instanceof Uint8Array) return utf8Decoder.decode(v);
  if (v instanceof CelDuration) return durationToString(v);
  if (v instanceof CelTimestamp) return formatRfc3339(v.nanos);
  if (v instanceof CelType) return v.name;
  if (Array.isArray(v)) return "[" + v.map(v2String).join(", ") + "]";
  if (v instanceof Map) {
    const entries = sortedEntries(v as ReadonlyMap<CelMapKey, CelValue>, v2String, v2String);
    return "{" + entries.map(([k, x]) => `${k}: ${x}`).join(", ") + "}";
  }
  throw new ClauseError(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeName(v)}`,
  );
}

function v2Number(v: CelValue, clause: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof CelUint) return Number(v.value);
  throw new ClauseError(`${clause} clause can only be used on ints, uints, and doubles, was given ${typeName(v)}`);
}

const V2: Formatter = {
  s: v2String,
  d(v) {
    if (typeof v === "bigint") return v.toString();
    if (v instanceof CelUint) return v.value.toString();
    if (typeof v === "number") return v2Double(v) ?? formatShortestFixed(v);
    throw new ClauseError(`decimal clause can only be used on ints, uints, and doubles, was given ${typeName(v)}`);
  },
  f(v, prec) {
    const x = v2Number(v, "fixed-point");
    return (typeof v === "number" ? v2Double(x) : undefined) ?? formatFixed(x, prec ?? 6);
  },
  e(v, prec) {
    const x = v2Number(v, "scientific");
    return (typeof v === "number" ? v2Double(x) : undefined) ?? formatExponent(x, prec ?? 6);
  },
  b(v) {
    if (typeof v === "boolean") return v ? "1" : "0";
    if (typeof v === "bigint") return v.toString(2);
    if (v instanceof CelUint) return v.value.toString(2);
    throw new ClauseError(`only ints, uints, and bools can be formatted as binary, was given ${typeName(v)}`);
  },
  x: (v, upper) => hex(v, upper, (t) => `only ints, uints, bytes, and strings can be formatted as hex, was given ${t}`),
  o(v) {
    if (typeof v === "bigint") return v.toString(8);
    if (v instanceof CelUint) return v.value.toString(8);
    throw new ClauseError(`octal clause can only be used on ints and uints, was given ${typeName(v)}`);
  },
};

// ---------------------------------------------------------------------------

/** The character Go's `rune(formatStr[i])` sees: the first UTF-8 byte, as Latin-1. */
function byteChar(s: string, i: number): string {
  const cp = s.codePointAt(i)!;
  if (cp < 0x80) return s[i]!;
  return String.fromCharCode(utf8.encode(String.fromCodePoint(cp))[0]!);
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/**
 * Runs the format-string parser of cel-go over `args` with the given clause
 * implementations (`defaultPrecision` undefined: versions 1-3 pass no precision).
 */
export function interpolate(
  format: string,
  args: readonly CelValue[],
  fmt: Formatter,
  defaultPrecision: number | undefined,
  maxPrecision: number,
  /** The compile-time checker's argument list never fails a lookup, so "unexpected end of string" comes first. */
  lenientArgs = false,
): string {
  let out = "";
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== "%") {
      out += c;
      i++;
      continue;
    }
    if (format[i + 1] === "%") {
      out += "%";
      i += 2;
      continue;
    }
    if (!lenientArgs && argIndex >= args.length) throw new CelEvalError(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw new CelEvalError("unexpected end of string");
    if (argIndex >= args.length) throw new CelEvalError(`index ${argIndex} out of range`);
    const arg = args[argIndex]!;
    // Precision.
    let j = i + 1;
    let precision = defaultPrecision;
    if (format[j] === ".") {
      j++;
      const start = j;
      for (;;) {
        if (j >= format.length) {
          throw new CelEvalError(
            "could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
          );
        }
        if (!isDigit(format[j])) break;
        j++;
      }
      const digits = format.slice(start, j);
      const p = digits === "" ? Number.NaN : Number(digits);
      if (Number.isNaN(p) || !Number.isSafeInteger(p) || BigInt(digits) > 9223372036854775807n) {
        const why = digits === "" ? "invalid syntax" : "value out of range";
        throw new CelEvalError(
          `could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing ${goQuote(digits)}: ${why}`,
        );
      }
      if (maxPrecision > 0 && p > maxPrecision) {
        throw new CelEvalError(
          `could not parse formatting clause: error while parsing precision: precision ${p} exceeds maximum allowed precision ${maxPrecision}`,
        );
      }
      if (p > PRECISION_LIMIT) {
        throw new CelEvalError(`could not parse formatting clause: error while parsing precision: precision ${p} is too large`);
      }
      precision = p;
    }
    const verb = format[j]!;
    let text: string;
    try {
      switch (verb) {
        case "s":
          text = fmt.s(arg);
          break;
        case "d":
          text = fmt.d(arg);
          break;
        case "f":
          text = fmt.f(arg, precision);
          break;
        case "e":
          text = fmt.e(arg, precision);
          break;
        case "b":
          text = fmt.b(arg);
          break;
        case "x":
        case "X":
          text = fmt.x(arg, verb === "X");
          break;
        case "o":
          text = fmt.o(arg);
          break;
        default:
          throw new CelEvalError(`could not parse formatting clause: unrecognized formatting clause "${byteChar(format, j)}"`);
      }
    } catch (e) {
      if (e instanceof ClauseError) throw new CelEvalError(`error during formatting: ${e.message}`);
      throw e;
    }
    out += text;
    i = j + 1;
    argIndex++;
  }
  return out;
}

/** `string.format` of strings extension versions 1-3. */
export function formatV1(format: string, args: readonly CelValue[]): string {
  return interpolate(format, args, V1, undefined, 0);
}

/** `string.format` of strings extension versions 4+ (`maxPrecision` 0 = unlimited; version 5+ uses 100). */
export function formatV2(format: string, args: readonly CelValue[], maxPrecision = 0): string {
  return interpolate(format, args, V2, 6, maxPrecision);
}
