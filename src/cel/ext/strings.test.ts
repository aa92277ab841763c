import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { BOOL, INT, STRING, TIMESTAMP } from "../types.js";
import { CelUint, type CelValue } from "../values.js";
import { stringToDuration, stringToTimestamp } from "../std/time.js";
import { formatV1, formatV2 } from "./format.js";
import { stringsLibrary } from "./strings.js";

function impl(lib: Library, id: string): (...args: any[]) => unknown {
  for (const f of lib.functions ?? []) for (const o of f.overloads) if (o.id === id) return o.impl!;
  throw new Error(`no overload ${id}`);
}
const latest = stringsLibrary();
const call = (id: string, ...args: unknown[]) => impl(latest, id)(...args);
const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof CelEvalError) return e.message;
    throw e;
  }
  throw new Error("expected a CelEvalError");
};

describe("versions", () => {
  const names = (v: number) => (stringsLibrary(v).functions ?? []).map((f) => f.name).sort();
  it("adds functions by version", () => {
    expect(names(0)).not.toContain("format");
    expect(names(0)).toContain("join");
    expect(names(1)).toEqual(expect.arrayContaining(["format", "strings.quote"]));
    expect(names(2)).not.toContain("reverse");
    expect(names(3)).toContain("reverse");
  });
});

describe("string functions", () => {
  it.each<[string, unknown[], unknown]>([
    ["string_char_at_int", ["tacocat", 3n], "o"],
    ["string_char_at_int", ["tacocat", 7n], ""],
    ["string_char_at_int", ["©αT", 1n], "α"],
    ["string_char_at_int", ["😀x", 1n], "x"],
    ["string_index_of_string", ["tacocat", ""], 0n],
    ["string_index_of_string", ["tacocat", "ac"], 1n],
    ["string_index_of_string", ["tacocat", "none"], -1n],
    ["string_index_of_string_int", ["tacocat", "", 3n], 3n],
    ["string_index_of_string_int", ["tacocat", "a", 3n], 5n],
    ["string_index_of_string_int", ["ta©o©αT", "©", 3n], 4n],
    ["string_index_of_string_int", ["ta©o©αT", "©α", 5n], -1n],
    ["string_index_of_string_int", ["tacocat", "a", 30n], -1n],
    ["string_index_of_string", ["😀a😀b", "b"], 3n],
    ["string_index_of_string", ["hello wello", "hello wello"], 0n],
    ["string_last_index_of_string", ["", "@@"], -1n],
    ["string_last_index_of_string", ["tacocat", ""], 7n],
    ["string_last_index_of_string", ["tacocat", "at"], 5n],
    ["string_last_index_of_string_int", ["tacocat", "", 3n], 3n],
    ["string_last_index_of_string_int", ["tacocat", "a", 3n], 1n],
    ["string_last_index_of_string_int", ["ta©o©αT", "©α", 4n], 4n],
    ["string_last_index_of_string_int", ["bananananana", "nana", 7n], 6n],
    ["string_last_index_of_string_int", ["tacocat", "a", 30n], -1n],
    ["string_last_index_of_string", ["hello wello", "hello wello"], 0n],
    ["string_lower_ascii", ["TacoCÆt Xii"], "tacocÆt xii"],
    ["string_upper_ascii", ["tacoCαt"], "TACOCαT"],
    ["string_replace_string_string", ["{0} days {0} hours", "{0}", "2"], "2 days 2 hours"],
    ["string_replace_string_string_int", ["{0} days {0} hours", "{0}", "2", 1n], "2 days {0} hours"],
    ["string_replace_string_string_int", ["hello hello", "he", "we", 0n], "hello hello"],
    ["string_replace_string_string_int", ["hello hello", "he", "we", -1n], "wello wello"],
    ["string_replace_string_string", ["hello", "", "_"], "_h_e_l_l_o_"],
    ["string_replace_string_string", ["😀😀", "", "_"], "_😀_😀_"],
    ["string_replace_string_string_int", ["hello", "", "_", 2n], "_h_ello"],
    ["string_replace_string_string", ["1 ©αT taco", "αT", "o©α"], "1 ©o©α taco"],
    ["string_split_string", ["hello world", " "], ["hello", "world"]],
    ["string_split_string_int", ["hello world events!", " ", 0n], []],
    ["string_split_string_int", ["hello world events!", " ", 1n], ["hello world events!"]],
    ["string_split_string_int", ["hello hello hello", " ", 2n], ["hello", "hello hello"]],
    ["string_split_string_int", ["a/b/c", "/", 2n], ["a", "b/c"]],
    ["string_split_string_int", ["o©o©o©o", "©", -1n], ["o", "o", "o", "o"]],
    ["string_split_string", ["", ","], [""]],
    ["string_split_string", ["a😀b", ""], ["a", "😀", "b"]],
    ["string_split_string_int", ["a😀b", "", 2n], ["a", "😀b"]],
    ["string_split_string", ["", ""], []],
    ["string_substring_int", ["tacocat", 4n], "cat"],
    ["string_substring_int", ["tacocat", 7n], ""],
    ["string_substring_int_int", ["tacocat", 0n, 4n], "taco"],
    ["string_substring_int_int", ["ta©o©αT", 2n, 6n], "©o©α"],
    ["string_substring_int_int", ["ta©o©αT", 7n, 7n], ""],
    ["string_trim", [" \f\n\r\t\vtext  "], "text"],
    ["string_trim", ["\u0085\u00a0\u1680text"], "text"],
    ["string_trim", ["text\u2000\u2001\u2002\u2003\u2004\u2004\u2006\u2007\u2008\u2009"], "text"],
    ["string_trim", ["\u200atext\u2028\u2029\u202F\u205F\u3000"], "text"],
    ["string_trim", ["\u180etext\u200b\u200c\u200d\u2060\ufeff"], "\u180etext\u200b\u200c\u200d\u2060\ufeff"],
    ["string_reverse", ["gums"], "smug"],
    ["string_reverse", ["a😀b"], "b😀a"],
    ["list_join", [["x", "y"]], "xy"],
    ["list_join_string", [["x", "y"], "-"], "x-y"],
    ["list_join", [[]], ""],
    ["strings_quote", ["first\nsecond"], '"first\\nsecond"'],
    ["strings_quote", ["bell\x07"], '"bell\\a"'],
    ["strings_quote", ['mid string " quote'], '"mid string \\" quote"'],
    ["strings_quote", ["double \\\\ slash"], '"double \\\\\\\\ slash"'],
    ["strings_quote", ["\u{1F431}\u{1F600}"], '"\u{1F431}\u{1F600}"'],
    ["strings_quote", [""], '""'],
  ])("%s %#", (id, args, want) => {
    expect(call(id, ...args)).toEqual(want);
  });

  it.each<[string, unknown[], string]>([
    ["string_char_at_int", ["tacocat", 30n], "index out of range: 30"],
    ["string_char_at_int", ["tacocat", -1n], "index out of range: -1"],
    ["string_index_of_string_int", ["tacocat", "a", -1n], "index out of range: -1"],
    ["string_last_index_of_string_int", ["tacocat", "a", -1n], "index out of range: -1"],
    ["string_substring_int", ["tacocat", 40n], "index out of range: 40"],
    ["string_substring_int", ["tacocat", -1n], "index out of range: -1"],
    ["string_substring_int_int", ["tacocat", 1n, 50n], "index out of range: 50"],
    ["string_substring_int_int", ["tacocat", 49n, 50n], "index out of range: 49"],
    ["string_substring_int_int", ["tacocat", 4n, 3n], "invalid substring range. start: 4, end: 3"],
    ["list_join", [["a", 1n]], "join: invalid input: 1"],
  ])("%s error %#", (id, args, want) => {
    expect(err(() => call(id, ...args))).toBe(want);
  });
});

const ts = stringToTimestamp;
const dur = stringToDuration;
const NAN = Number.NaN;

describe("format (versions 4+)", () => {
  it.each<[string, CelValue[], string]>([
    ["no substitution", [], "no substitution"],
    ["str is %s and some more", ["filler"], "str is filler and some more"],
    ["%% and also %%", [], "% and also %"],
    ["%%%s%%", ["text"], "%text%"],
    ["%d %d %d, %s %s %s", [1n, 2n, 3n, "A", "B", "C"], "1 2 3, A B C"],
    ["%.3f", [1.2345], "1.234"],
    ["this is 5 in binary: %b", [5n], "this is 5 in binary: 101"],
    ["%b", [new CelUint(64n)], "1000000"],
    ["%b", [true], "1"],
    ["%o", [11n], "13"],
    ["%o", [new CelUint(65535n)], "177777"],
    ["%x", [30n], "1e"],
    ["%X", [30n], "1E"],
    ["%x", [-30n], "-1e"],
    ["%X", [new CelUint(6000n)], "1770"],
    ["%x", ["Hello world!"], "48656c6c6f20776f726c6421"],
    ["%X", [new Uint8Array([0, 0, 98, 255])], "000062FF"],
    ["%.6e", [1052.032911275], "1.052033e+03"],
    ["%f", [2.71828], "2.718280"],
    ["%e", [2.71828], "2.718280e+00"],
    ["%e", [NAN], "NaN"],
    ["%e", [Infinity], "Infinity"],
    ["%d", [-Infinity], "-Infinity"],
    ["%f", [NAN], "NaN"],
    ["%d", [new CelUint(64n)], "64"],
    ["%d", [1.5], "1.5"],
    ["%f", [3n], "3.000000"],
    ["%e", [new CelUint(1500n)], "1.500000e+03"],
    ["%s", [null], "null"],
    ["%s", [999999999999n], "999999999999"],
    ["%s", [new Uint8Array([120, 121, 122])], "xyz"],
    ["%s", [STRING], "string"],
    ["%s", [TIMESTAMP], "google.protobuf.Timestamp"],
    ["%s", [ts("2023-02-03T23:31:20+00:00")], "2023-02-03T23:31:20Z"],
    ["%s", [ts("2023-02-03T23:31:20+02:00")], "2023-02-03T21:31:20Z"],
    ["%s", [dur("1h45m47s")], "6347s"],
    ["%s", [["abc", 3.14, null, [9n, 8n, 7n, 6n], ts("2023-02-03T23:31:20Z")]], "[abc, 3.14, null, [9, 8, 7, 6], 2023-02-03T23:31:20Z]"],
    [
      "%s",
      [new Map<any, CelValue>([["key1", new Uint8Array([120, 121, 122])], ["key5", null], ["key2", dur("2h")], ["key4", true], ["key3", 2.71828]])],
      "{key1: xyz, key2: 7200s, key3: 2.71828, key4: true, key5: null}",
    ],
    ["%s", [new Map<any, CelValue>([[1n, "value1"], [new CelUint(2n), "value2"], [true, NAN]])], "{1: value1, 2: value2, true: NaN}"],
    ["%s", [new Map<any, CelValue>([["strKey", "x"], [6n, dur("422s")], [true, 42n]])], "{6: 422s, strKey: x, true: 42}"],
    ["%s, %s", [true, false], "true, false"],
    ["%s, %s", [32n, 56.8], "32, 56.8"],
    ["%s", [[NAN, Infinity, -Infinity]], "[NaN, Infinity, -Infinity]"],
    ["%s", [1e21], "1000000000000000000000"],
    ["%s", [2e-9], "0.000000002"],
    ["%.0f", [123.0], "123"],
    ["%.0f", [3.5001], "4"],
    ["%.0f", [3.4999], "3"],
    ["%.0f", [1.5], "2"],
    ["%.0f", [2.5], "2"],
    ["%.3f", [123.4999], "123.500"],
    ["%.3f", [123.4994], "123.499"],
    ["%.3f", [-123.4999], "-123.500"],
    ["%.5f", [-1.2], "-1.20000"],
    ["%.2f", [1.005], "1.00"],
    ["%.1f", [0.25], "0.2"],
    ["%.1f", [0.35], "0.3"],
    ["%.3e", [0.0], "0.000e+00"],
    ["%.2e", [9.999], "1.00e+01"],
    ["%e", [1e-300], "1.000000e-300"],
    ["%.20f", [0.1], "0.10000000000000000555"],
  ])("%s %#", (format, args, want) => {
    expect(formatV2(format, args)).toBe(want);
  });

  it.each<[string, CelValue[], string]>([
    ["%a", [1n], 'could not parse formatting clause: unrecognized formatting clause "a"'],
    ["%d %d %d", [0n, 1n], "index 2 out of range"],
    ["string is %b", ["abc"], "error during formatting: only ints, uints, and bools can be formatted as binary, was given string"],
    ["%d", [dur("30m2s")], "error during formatting: decimal clause can only be used on ints, uints, and doubles, was given google.protobuf.Duration"],
    ["octal: %o", ["a string"], "error during formatting: octal clause can only be used on ints and uints, was given string"],
    ["%x", [0.5], "error during formatting: only ints, uints, bytes, and strings can be formatted as hex, was given double"],
    ["%E", [0.5], 'could not parse formatting clause: unrecognized formatting clause "E"'],
    ["%f", [null], "error during formatting: fixed-point clause can only be used on ints, uints, and doubles, was given null_type"],
    ["%e", [BOOL], "error during formatting: scientific clause can only be used on ints, uints, and doubles, was given type"],
    ["filler %", [1n], "unexpected end of string"],
    ["filler %", [], "index 0 out of range"],
    ["%.34", [5.0], "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"],
    ["%.f", [5.0], 'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax'],
    ["%é", [5.0], 'could not parse formatting clause: unrecognized formatting clause "Ã"'],
  ])("error %s %#", (format, args, want) => {
    expect(err(() => formatV2(format, args))).toBe(want);
  });

  it("caps the precision from version 5", () => {
    expect(err(() => formatV2("%.101f", [1.0], 100))).toBe(
      "could not parse formatting clause: error while parsing precision: precision 101 exceeds maximum allowed precision 100",
    );
    expect(impl(stringsLibrary(4), "string_format")("%.101f", [1.0])).toMatch(/^1\.0{101}$/);
  });
});

describe("format (versions 1-3, Kubernetes)", () => {
  it.each<[string, CelValue[], string]>([
    ["%.3f", [1.2345], "1.234"],
    ["%b", [-5n], "-101"],
    ["%o", [-11n], "-13"],
    ["%x", [-30n], "-1e"],
    ["%x", [new Uint8Array([0, 0, 98, 121, 116, 101, 0])], "00006279746500"],
    ["%.6e", [1052.032911275], "1.052033\u202f\u00d7\u202f10\u2070\u00b3"],
    ["%e", [2.71828], "2.718280\u202f\u00d7\u202f10\u2070\u2070"],
    ["%e", [0.00012], "1.200000\u202f\u00d7\u202f10\u207b\u2070\u2074"],
    ["%f", [2.71828], "2.718280"],
    ["%f", [1234567.5], "1,234,567.500000"],
    ["%.0f", [-1234.5], "-1,234"],
    ["%f", ["NaN"], "NaN"],
    ["%f", ["Infinity"], "∞"],
    ["%f", ["-Infinity"], "-∞"],
    ["%f", [-Infinity], "-∞"],
    ["%s", [2.71], "2.71"],
    ["%s", [[2.71]], "[2.710000]"],
    ["%s", [0.000000002], "2e-09"],
    ["%s", [1234567.0], "1.234567e+06"],
    ["%s", [100000.0], "100000"],
    ["%s", [[0.000000002]], "[0.000000]"],
    ["%s", [NAN], "NaN"],
    ["%s", [Infinity], "+Inf"],
    ["%s", [-Infinity], "-Inf"],
    ["%s", [[NAN, Infinity, -Infinity]], '["NaN", "+Inf", "-Inf"]'],
    ["%d", [new CelUint(64n)], "64"],
    ["null: %s", [null], "null: null"],
    ["some bytes: %s", [new Uint8Array([120, 121, 122])], "some bytes: xyz"],
    ["type is %s", [STRING], "type is string"],
    ["%s", [ts("2023-02-03T23:31:20+00:00")], "2023-02-03T23:31:20Z"],
    ["%s", [ts("2023-02-03T23:31:20+02:00")], "2023-02-03T23:31:20+02:00"],
    ["%s", [dur("1h45m47s")], "6347s"],
    ["%s", [dur("2ns")], "0.000000002s"],
    ["%s", [["abc", 3.14, null, [9n, 8n, 7n, 6n], ts("2023-02-03T23:31:20Z")]], '["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]'],
    [
      "%s",
      [new Map<any, CelValue>([["key1", new Uint8Array([120, 121, 122])], ["key5", null], ["key2", dur("2h")], ["key4", true], ["key3", 2.71828]])],
      '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}',
    ],
    ["%s", [new Map<any, CelValue>([[1n, "value1"], [new CelUint(2n), "value2"], [true, NAN]])], '{1:"value1", 2:"value2", true:"NaN"}'],
    ["%s", [new Map<any, CelValue>([["strKey", "x"], [6n, dur("422s")], [true, 42n]])], '{"strKey":"x", 6:duration("422s"), true:42}'],
    ["%s", [[6n, 4.2, "a string"]], '[6, 4.200000, "a string"]'],
    ["%s", [[INT, "tab\there", new Uint8Array([0xc3, 0xa9])]], '[int, "tab\\there", b"é"]'],
    ["%s %s", [true, false], "true false"],
    ["%.1f", [1.0], "1.0"],
    // golang.org/x/text/message's own expectations.
    ["%f", [1234.5678e3], "1,234,567.800000"],
    ["%f", [1234.5678e-8], "0.000012"],
    ["%f", [-1e-9], "-0.000000"],
    ["%f", [12345678901.23456789], "12,345,678,901.234568"],
    ["%e", [1234.5678e3], "1.234568\u202f×\u202f10⁰⁶"],
    ["%e", [1234.5678e-8], "1.234568\u202f×\u202f10⁻⁰⁵"],
    ["%.3e", [0.0], "0.000\u202f×\u202f10⁰⁰"],
    ["%e", [-7.0], "-7.000000\u202f×\u202f10⁰⁰"],
  ])("%s %#", (format, args, want) => {
    expect(formatV1(format, args)).toBe(want);
  });

  it.each<[string, CelValue[], string]>([
    ["%a", [1n], 'could not parse formatting clause: unrecognized formatting clause "a"'],
    ["string is %b", ["abc"], "error during formatting: only integers and bools can be formatted as binary, was given string"],
    ["%d", [dur("30m2s")], "error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration"],
    ["%d", [1.5], "error during formatting: decimal clause can only be used on integers, was given double"],
    ["octal: %o", ["a string"], "error during formatting: octal clause can only be used on integers, was given string"],
    ["double is %x", [0.5], "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double"],
    ["null: %e", [null], "error during formatting: scientific clause can only be used on doubles, was given null_type"],
    ["null: %f", [null], "error during formatting: fixed-point clause can only be used on doubles, was given null_type"],
    ["%f", [1n], "error during formatting: fixed-point clause can only be used on doubles, was given int"],
    ["%s", [new Uint8Array([0xff])], 'error during formatting: could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string'],
  ])("error %s %#", (format, args, want) => {
    expect(err(() => formatV1(format, args))).toBe(want);
  });

  it("is the formatter of versions 1-3", () => {
    expect(impl(stringsLibrary(2), "string_format")("%s", [[1.5]])).toBe("[1.500000]");
    expect(impl(stringsLibrary(4), "string_format")("%s", [[1.5]])).toBe("[1.5]");
  });
});

describe("rune indices: the UTF-16 fast path agrees with Go's []rune semantics", () => {
  // The reference: Go's rune-slice definitions written directly over Array.from.
  const runesOf = (s: string) => Array.from(s);
  const refIndexOf = (s: string, sub: string, off: number): bigint | string => {
    if (sub === "") return BigInt(off);
    if (off < 0) return `index out of range: ${off}`;
    const r = runesOf(s);
    const q = runesOf(sub);
    if (off >= r.length) return -1n;
    for (let i = off; i + q.length <= r.length; i++) if (q.every((c, j) => r[i + j] === c)) return BigInt(i);
    return -1n;
  };
  const refLastIndexOf = (s: string, sub: string, off: number): bigint | string => {
    if (sub === "") return BigInt(off);
    if (off < 0) return `index out of range: ${off}`;
    const r = runesOf(s);
    const q = runesOf(sub);
    if (off >= r.length) return -1n;
    for (let i = Math.min(off, r.length - q.length); i >= 0; i--) if (q.every((c, j) => r[i + j] === c)) return BigInt(i);
    return -1n;
  };
  const refSubstring = (s: string, a: number, b: number): string => {
    const r = runesOf(s);
    if (a > b) return `invalid substring range. start: ${a}, end: ${b}`;
    if (a < 0 || a > r.length) return `index out of range: ${a}`;
    if (b < 0 || b > r.length) return `index out of range: ${b}`;
    return r.slice(a, b).join("");
  };
  const run = (f: () => unknown) => {
    try {
      return f();
    } catch (e) {
      if (e instanceof CelEvalError) return e.message;
      throw e;
    }
  };
  // Mostly ASCII, sometimes astral characters (surrogate pairs) and lone surrogates.
  const ch = fc.oneof(fc.constantFrom("a", "b", "/", ":", "."), fc.constantFrom("é", "😀", "\uD800", "\uDC00"));
  const str = fc.array(ch, { maxLength: 8 }).map((a) => a.join(""));
  const off = fc.integer({ min: -2, max: 10 });

  it.each([
    ["string_index_of_string_int", refIndexOf],
    ["string_last_index_of_string_int", refLastIndexOf],
  ] as const)("%s", (id, ref) => {
    fc.assert(
      fc.property(str, str, off, (s, sub, o) => {
        expect(run(() => call(id, s, sub, BigInt(o)))).toEqual(ref(s, sub, o));
      }),
      { numRuns: 2000 },
    );
  });
  it("substring, charAt", () => {
    fc.assert(
      fc.property(str, off, off, (s, a, b) => {
        expect(run(() => call("string_substring_int_int", s, BigInt(a), BigInt(b)))).toEqual(refSubstring(s, a, b));
        const r = runesOf(s);
        expect(run(() => call("string_char_at_int", s, BigInt(a)))).toEqual(a < 0 || a > r.length ? `index out of range: ${a}` : (r[a] ?? ""));
      }),
      { numRuns: 2000 },
    );
  });
});
