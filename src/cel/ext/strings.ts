/**
 * cel-go's strings extension (`ext.Strings`), by version, with cel-go v0.26
 * behaviour (the Kubernetes 1.36 engine; Kubernetes uses version 2):
 *
 * | version | adds |
 * |---|---|
 * | 0 | charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join |
 * | 1 | format (pre-v4 formatter), strings.quote |
 * | 2 | join accepts any list of strings (element errors at run time) |
 * | 3 | reverse |
 * | 4 | format follows the cel-spec text ({@link formatV2}) |
 * | 5 | format precision capped at 100 |
 *
 * Indices count code points, as Go's `[]rune`.
 */
import { func, memberOverload, overload, type FunctionDecl, type Library } from "../decls.js";
import { codePoints } from "../cost-runtime.js";
import { CelEvalError } from "../errors.js";
import { typeOf } from "../runtime/type-of.js";
import { DYN, INT, STRING, listType } from "../types.js";
import type { CelValue } from "../values.js";
import { formatV1, formatV2 } from "./format.js";
import { formatG } from "./go-format.js";

/** The newest version cel-go defines (the conformance suite uses the latest). */
export const STRINGS_LATEST_VERSION = 5;


/** Code points of a string (Go `[]rune(s)`). */
function runes(s: string): string[] {
  return Array.from(s);
}

/**
 * A string without UTF-16 surrogates: its code points are its code units, so rune indices are
 * JavaScript string indices (the common case; the rune-array paths below are for the rest).
 */
const SURROGATE = /[\uD800-\uDFFF]/;
function unitsAreRunes(s: string): boolean {
  return !SURROGATE.test(s);
}


function outOfRange(i: bigint | number): CelEvalError {
  return new CelEvalError(`index out of range: ${i}`);
}

export function charAt(s: string, i: bigint): string {
  if (unitsAreRunes(s)) {
    if (i < 0n || i > BigInt(s.length)) throw outOfRange(i);
    return i === BigInt(s.length) ? "" : s[Number(i)]!;
  }
  const r = runes(s);
  if (i < 0n || i > BigInt(r.length)) throw outOfRange(i);
  return i === BigInt(r.length) ? "" : r[Number(i)]!;
}

function matchAt(r: readonly string[], sub: readonly string[], i: number): boolean {
  for (let j = 0; j < sub.length; j++) if (r[i + j] !== sub[j]) return false;
  return true;
}

export function indexOf(s: string, sub: string, offset = 0n): bigint {
  if (sub === "") return offset;
  if (offset < 0n) throw outOfRange(offset);
  if (unitsAreRunes(s) && unitsAreRunes(sub)) {
    if (offset >= BigInt(s.length)) return -1n;
    return BigInt(s.indexOf(sub, Number(offset)));
  }
  const r = runes(s);
  if (offset >= BigInt(r.length)) return -1n;
  const subr = runes(sub);
  for (let i = Number(offset); i < r.length - (subr.length - 1); i++) if (matchAt(r, subr, i)) return BigInt(i);
  return -1n;
}

export function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  if (offset === undefined) {
    if (sub === "") return BigInt(codePoints(s));
    if (s.length === 0) return -1n;
    offset = BigInt(codePoints(s) - 1);
  }
  if (sub === "") return offset;
  if (offset < 0n) throw outOfRange(offset);
  if (unitsAreRunes(s) && unitsAreRunes(sub)) {
    if (offset >= BigInt(s.length)) return -1n;
    const off = Math.min(Number(offset), s.length - sub.length);
    return off < 0 ? -1n : BigInt(s.lastIndexOf(sub, off));
  }
  const r = runes(s);
  if (offset >= BigInt(r.length)) return -1n;
  const subr = runes(sub);
  let off = Number(offset);
  if (off > r.length - subr.length) off = r.length - subr.length;
  for (let i = off; i >= 0; i--) if (matchAt(r, subr, i)) return BigInt(i);
  return -1n;
}

export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function upperAscii(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** Go `strings.Replace(s, old, new, n)`; n < 0 replaces all. */
export function replace(s: string, old: string, repl: string, n = -1n): string {
  if (n === 0n || old === repl) return s;
  if (old !== "") {
    if (n < 0n) return s.split(old).join(repl);
    let out = "";
    let start = 0;
    for (let k = 0n; k < n; k++) {
      const j = s.indexOf(old, start);
      if (j === -1) break;
      out += s.slice(start, j) + repl;
      start = j + old.length;
    }
    return out + s.slice(start);
  }
  // Empty `old` matches at the start and after each code point.
  const r = runes(s);
  const m = BigInt(r.length + 1);
  const count = n < 0n || m < n ? m : n;
  let out = "";
  let i = 0;
  for (let k = 0n; k < count; k++) {
    if (k > 0n) out += r[i++] ?? "";
    out += repl;
  }
  return out + r.slice(i).join("");
}

/** Go `strings.SplitN(s, sep, n)`; n < 0 splits everywhere, n == 0 yields no strings. */
export function split(s: string, sep: string, n = -1n): string[] {
  if (n === 0n) return [];
  if (sep === "") {
    const r = runes(s);
    if (n < 0n || n >= BigInt(r.length)) return r;
    const k = Number(n);
    return [...r.slice(0, k - 1), r.slice(k - 1).join("")];
  }
  if (n < 0n) return s.split(sep);
  const out: string[] = [];
  let start = 0;
  while (BigInt(out.length) < n - 1n) {
    const j = s.indexOf(sep, start);
    if (j === -1) break;
    out.push(s.slice(start, j));
    start = j + sep.length;
  }
  out.push(s.slice(start));
  return out;
}

export function substring(s: string, start: bigint, end?: bigint): string {
  if (unitsAreRunes(s)) {
    const n = BigInt(s.length);
    if (end === undefined) {
      if (start < 0n || start > n) throw outOfRange(start);
      return s.slice(Number(start));
    }
    if (start > end) throw new CelEvalError(`invalid substring range. start: ${start}, end: ${end}`);
    if (start < 0n || start > n) throw outOfRange(start);
    if (end < 0n || end > n) throw outOfRange(end);
    return s.slice(Number(start), Number(end));
  }
  const r = runes(s);
  const len = BigInt(r.length);
  if (end === undefined) {
    if (start < 0n || start > len) throw outOfRange(start);
    return r.slice(Number(start)).join("");
  }
  if (start > end) throw new CelEvalError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > len) throw outOfRange(start);
  if (end < 0n || end > len) throw outOfRange(end);
  return r.slice(Number(start), Number(end)).join("");
}

/** Go `unicode.IsSpace`. */
const SPACE = "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

/** Go `strings.TrimSpace`. */
export function trim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && SPACE.includes(s[a]!)) a++;
  while (b > a && SPACE.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

export function reverse(s: string): string {
  return runes(s).reverse().join("");
}

/** `strings.quote`: wraps in double quotes, escaping CEL escape sequences; invalid code units become U+FFFD. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case "\x07":
        out += "\\a";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\f":
        out += "\\f";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\v":
        out += "\\v";
        break;
      case "\\":
        out += "\\\\";
        break;
      case '"':
        out += '\\"';
        break;
      default: {
        const cp = ch.codePointAt(0)!;
        out += cp >= 0xd800 && cp <= 0xdfff ? "\ufffd" : ch;
      }
    }
  }
  return out + '"';
}

/** Go's `%v` of a CEL value, for join's error text. */
function goValueText(v: CelValue): string {
  if (typeof v === "number") return formatG(v);
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v === null) return "NULL_VALUE";
  return typeOf(v).name;
}

export function join(list: readonly CelValue[], sep = "", version = STRINGS_LATEST_VERSION): string {
  for (const e of list) {
    if (typeof e !== "string") {
      if (version >= 2) throw new CelEvalError(`join: invalid input: ${goValueText(e)}`);
      throw new CelEvalError(`unsupported type conversion from '${typeOf(e).name}' to string`);
    }
  }
  return (list as readonly string[]).join(sep);
}

/** The strings extension at `version` (Kubernetes: 2; latest: {@link STRINGS_LATEST_VERSION}). */
export function stringsLibrary(version: number = STRINGS_LATEST_VERSION): Library {
  const LIST_STRING = listType(STRING);
  const functions: FunctionDecl[] = [
    func("charAt", memberOverload("string_char_at_int", [STRING, INT], STRING, charAt)),
    func(
      "indexOf",
      memberOverload("string_index_of_string", [STRING, STRING], INT, (s: string, sub: string) => indexOf(s, sub)),
      memberOverload("string_index_of_string_int", [STRING, STRING, INT], INT, indexOf),
    ),
    func(
      "lastIndexOf",
      memberOverload("string_last_index_of_string", [STRING, STRING], INT, (s: string, sub: string) => lastIndexOf(s, sub)),
      memberOverload("string_last_index_of_string_int", [STRING, STRING, INT], INT, lastIndexOf),
    ),
    func("lowerAscii", memberOverload("string_lower_ascii", [STRING], STRING, lowerAscii)),
    func(
      "replace",
      memberOverload("string_replace_string_string", [STRING, STRING, STRING], STRING, (s: string, o: string, n: string) =>
        replace(s, o, n),
      ),
      memberOverload("string_replace_string_string_int", [STRING, STRING, STRING, INT], STRING, replace),
    ),
    func(
      "split",
      memberOverload("string_split_string", [STRING, STRING], LIST_STRING, (s: string, sep: string) => split(s, sep)),
      memberOverload("string_split_string_int", [STRING, STRING, INT], LIST_STRING, split),
    ),
    func(
      "substring",
      memberOverload("string_substring_int", [STRING, INT], STRING, (s: string, start: bigint) => substring(s, start)),
      memberOverload("string_substring_int_int", [STRING, INT, INT], STRING, substring),
    ),
    func("trim", memberOverload("string_trim", [STRING], STRING, trim)),
    func("upperAscii", memberOverload("string_upper_ascii", [STRING], STRING, upperAscii)),
    func(
      "join",
      memberOverload("list_join", [LIST_STRING], STRING, (l: readonly CelValue[]) => join(l, "", version)),
      memberOverload("list_join_string", [LIST_STRING, STRING], STRING, (l: readonly CelValue[], sep: string) =>
        join(l, sep, version),
      ),
    ),
  ];
  if (version >= 1) {
    const maxPrecision = version >= 5 ? 100 : 0;
    const format =
      version >= 4
        ? (s: string, args: readonly CelValue[]) => formatV2(s, args, maxPrecision)
        : (s: string, args: readonly CelValue[]) => formatV1(s, args);
    functions.push(
      func("format", memberOverload("string_format", [STRING, listType(DYN)], STRING, format)),
      func("strings.quote", overload("strings_quote", [STRING], STRING, quote)),
    );
  }
  if (version >= 3) functions.push(func("reverse", memberOverload("string_reverse", [STRING], STRING, reverse)));
  // `version` rides along for the checker's format validation (versions 1-3 and 4+ check differently).
  const lib = { name: "cel.lib.ext.strings", functions, version };
  return lib;
}

/** Kubernetes' strings extension (version 2). */
export const KUBERNETES_STRINGS_LIBRARY: Library = stringsLibrary(2);
