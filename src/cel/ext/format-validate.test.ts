import { describe, expect, it } from "vitest";
import { Env } from "../env.js";
import { CelCompileError } from "../errors.js";
import { DYN, messageType } from "../types.js";
import { validateFormatCalls } from "./format-validate.js";
import { stringsLibrary } from "./strings.js";

/** The issues of `expr`: the environment's checker runs the validator, so they arrive as a compile error. */
function issues(expr: string, version = 2): string[] {
  const env = new Env({ libraries: [stringsLibrary(version)], variables: { x: DYN, m: messageType("google.protobuf.Any") } });
  try {
    return validateFormatCalls(env.compile(expr), version).map((i) => i.message);
  } catch (e) {
    if (e instanceof CelCompileError) return e.issues.map((i) => i.message);
    throw e;
  }
}

describe("string.format compile-time validation", () => {
  it.each<[string, number, string[]]>([
    ['"%s %d".format(["a", 1])', 2, []],
    ['"%d".format([x])', 2, []],
    ['"%s".format([[1, 2.0, "a", {1: b"x"}, null, type(1), duration("1s"), timestamp("2020-01-01T00:00:00Z")]])', 2, []],
    ['"%s %s".format(["abc"])', 2, ["index 1 out of range"]],
    ['"%s %s".format(["abc", "def", "ghi"])', 2, ["too many arguments supplied to string.format (expected 2, got 3)"]],
    // At run time the missing argument is reported first; the checker sees the truncated clause first.
    ['"filler %".format([])', 2, ["unexpected end of string"]],
    ['"filler %".format([1])', 2, ["unexpected end of string"]],
    ['"%j".format([123])', 2, ['could not parse formatting clause: unrecognized formatting clause "j"']],
    ['"int is %d".format([5.2])', 2, ["error during formatting: decimal clause can only be used on integers, was given double"]],
    ['"int is %d".format([5.2])', 4, []],
    ['"int is %d".format([5.2])', 3, ["error during formatting: decimal clause can only be used on integers, was given double"]],
    ['"double is %f".format([true])', 2, ["error during formatting: fixed-point clause can only be used on doubles, was given bool"]],
    ['"double is %f".format(["NaN"])', 2, []],
    ['"double is %f".format(["NaN"])', 4, ["error during formatting: fixed-point clause can only be used on ints, uints, and doubles, was given string"]],
    ['"double is %.34".format([5.0])', 2, ["could not parse formatting clause: error while parsing precision: could not find end of precision specifier"]],
    ['"%x is a double".format([2.5])', 2, ["error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double"]],
    ['"%o".format([3.14])', 2, ["error during formatting: octal clause can only be used on integers, was given double"]],
    ['"%b".format(["a"])', 2, ["error during formatting: only integers and bools can be formatted as binary, was given string"]],
    ['"%s".format([[1, m]])', 2, ["error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given google.protobuf.Any"]],
    ['x.format([1, 2])', 2, []],
    ['"%d".format(x)', 2, []],
    ['["%d".format([1.5]), "%s".format([])]', 2, ["error during formatting: decimal clause can only be used on integers, was given double", "index 0 out of range"]],
  ])("%s (v%d)", (expr, version, want) => {
    expect(issues(expr, version)).toEqual(want);
  });
});
