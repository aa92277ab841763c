import { describe, expect, test } from "vitest";
import { CEL_NULL, goFloat, goNumber, goQuote, goSharpV, goType, goV } from "./gofmt.js";

describe("Go formatting", () => {
  test.each([
    ["plain", "plain"],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["\n\t\r\x07\b\f\v", '"\\n\\t\\r\\a\\b\\f\\v"'],
    ["\x01\x7f", '"\\x01\\x7f"'],
    ["é ✓ 😀", '"é ✓ 😀"'],
    ["\u00ad\u2028\u00a0", '"\\u00ad\\u2028\\u00a0"'],
  ])("strconv.Quote(%j)", (s, want) => {
    expect(goQuote(s)).toBe(s === "plain" ? '"plain"' : want);
  });

  test.each([
    [1.5, "1.5"],
    [3.14159, "3.14159"],
    [123456.5, "123456.5"],
    [1e6 + 0.5, "1.0000005e+06"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1e21, "1e+21"],
    [-2.5e-7, "-2.5e-07"],
    [1e100, "1e+100"],
  ])("%%v of float64 %d", (f, want) => {
    expect(goFloat(f)).toBe(want);
  });

  test("integral numbers print as int64", () => {
    expect(goNumber(1000000)).toBe("1000000");
    expect(goNumber(-3)).toBe("-3");
    expect(goNumber(2n ** 63n - 1n)).toBe("9223372036854775807");
  });

  test("%v, %#v and %T of unstructured values", () => {
    const v = { b: 1, a: ["x", 2.5, true, null] };
    expect(goV(v)).toBe("map[a:[x 2.5 true <nil>] b:1]");
    expect(goSharpV(v)).toBe('map[string]interface {}{"a":[]interface {}{"x", 2.5, true, interface {}(nil)}, "b":1}');
    expect(goType(v)).toBe("map[string]interface {}");
    expect([goType([]), goType("s"), goType(1), goType(1.5), goType(true), goType(CEL_NULL)]).toEqual([
      "[]interface {}",
      "string",
      "int64",
      "float64",
      "bool",
      "structpb.NullValue",
    ]);
    expect([goV(CEL_NULL), goSharpV(CEL_NULL)]).toEqual(["NULL_VALUE", "0"]);
  });
});
