/** In-process tests of the CLI's value plumbing: exact JSON input and the JSON output serializer. */
import { describe, expect, it } from "vitest";
import { parseExactJson } from "../src/cli/exact-json.js";
import { toCel } from "../src/cli/inputs.js";
import { formatDuration, formatTimestamp, toJsonText } from "../src/cli/json-out.js";
import { INT, listType } from "../src/cel/types.js";
import { CelDuration, CelOptional, CelTimestamp, CelUint, type CelValue } from "../src/cel/values.js";

describe("parseExactJson", () => {
  it("integers become bigint exactly; fractions and exponents numbers", () => {
    expect(parseExactJson("9223372036854775807")).toBe(9223372036854775807n);
    expect(parseExactJson("-0")).toBe(0n);
    expect(parseExactJson("3.0")).toBe(3);
    expect(parseExactJson("1e3")).toBe(1000);
    expect(parseExactJson('{"a": [1, 2.5, "x\\"y", true, false, null], "b": {}}')).toEqual({
      a: [1n, 2.5, 'x"y', true, false, null],
      b: {},
    });
  });

  it("keys such as __proto__ are ordinary keys", () => {
    const v = parseExactJson('{"__proto__": 1}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
  });

  it("rejects invalid JSON with JSON.parse's message", () => {
    expect(() => parseExactJson("{a: 1}")).toThrow(SyntaxError);
    expect(() => parseExactJson("1 2")).toThrow(SyntaxError);
  });
});

describe("toCel", () => {
  it("objects become Maps, ints beyond int64 doubles", () => {
    const v = toCel({ a: [1n, 2.5], big: 2n ** 64n }) as ReadonlyMap<string, CelValue>;
    expect(v).toBeInstanceOf(Map);
    expect(v.get("a")).toEqual([1n, 2.5]);
    expect(v.get("big")).toBe(18446744073709551616);
  });
});

describe("toJsonText", () => {
  it("exact integers and uints", () => {
    expect(toJsonText(-9223372036854775808n)).toBe("-9223372036854775808");
    expect(toJsonText(new CelUint(18446744073709551615n))).toBe("18446744073709551615");
  });

  it("doubles always look like doubles", () => {
    expect(toJsonText(3)).toBe("3.0");
    expect(toJsonText(0.5)).toBe("0.5");
    expect(toJsonText(-0)).toBe("-0.0");
    expect(toJsonText(1e21)).toBe("1e+21");
    expect(toJsonText(NaN)).toBe('"NaN"');
    expect(toJsonText(-Infinity)).toBe('"-Infinity"');
  });

  it("strings, bytes, lists, maps with non-string keys", () => {
    expect(toJsonText("a\"\n")).toBe('"a\\"\\n"');
    expect(toJsonText(new TextEncoder().encode("abc"))).toBe('"YWJj"');
    const m = new Map<string | bigint | boolean | CelUint, CelValue>([
      [1n, "a"],
      [true, [1n, null]],
      [new CelUint(7n), new Map()],
      ["k", []],
    ]);
    expect(toJsonText(m)).toBe('{"1":"a","true":[1,null],"7":{},"k":[]}');
  });

  it("timestamps as RFC 3339 with nanoseconds, durations as seconds", () => {
    expect(formatTimestamp(0n)).toBe("1970-01-01T00:00:00Z");
    expect(formatTimestamp(1n)).toBe("1970-01-01T00:00:00.000000001Z");
    expect(formatTimestamp(-1n)).toBe("1969-12-31T23:59:59.999999999Z");
    expect(formatTimestamp(-62135596800n * 1_000_000_000n)).toBe("0001-01-01T00:00:00Z");
    expect(formatTimestamp(253402300799n * 1_000_000_000n + 500_000_000n)).toBe("9999-12-31T23:59:59.5Z");
    expect(toJsonText(new CelTimestamp(1704067200n * 1_000_000_000n))).toBe('"2024-01-01T00:00:00Z"');
    expect(formatDuration(90n * 1_000_000_000n)).toBe("90s");
    expect(formatDuration(1_500_000_000n)).toBe("1.5s");
    expect(formatDuration(-1n)).toBe("-0.000000001s");
    expect(toJsonText(new CelDuration(0n))).toBe('"0s"');
  });

  it("types by name, optionals unwrapped", () => {
    expect(toJsonText(INT)).toBe('"int"');
    expect(toJsonText(listType(INT))).toBe('"list"');
    expect(toJsonText(CelOptional.of(5n))).toBe("5");
    expect(toJsonText(CelOptional.NONE)).toBe("null");
  });

  it("indents on request", () => {
    expect(toJsonText(new Map([["a", [1n]]]), { indent: 2 })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(toJsonText([], { indent: 2 })).toBe("[]");
  });
});
