import { describe, expect, test } from "vitest";
import { CelType, INT } from "../types.js";
import { CelDuration, CelOptional, CelTimestamp, CelUint, type CelValue } from "../values.js";
import fc from "fast-check";
import { celEquals } from "./equality.js";
import { fromJson, fromJsonLazy, JsonObjectMap, toJson } from "./json.js";

describe("fromJson", () => {
  const cases: readonly [name: string, input: unknown, want: CelValue][] = [
    ["integral number → int", 3, 3n],
    ["integral double literal → int", 3.0, 3n],
    ["fraction → double", 0.5, 0.5],
    ["beyond int64 → double", 1e19, 1e19],
    ["bigint in range → int", 12345678901234567890n - 10000000000000000000n, 2345678901234567890n],
    ["string", "a", "a"],
    ["null", null, null],
    ["bool", true, true],
  ];
  for (const [name, input, want] of cases) {
    test(name, () => expect(fromJson(input)).toStrictEqual(want));
  }

  test("objects become maps, arrays lists, recursively", () => {
    const v = fromJson({ a: [1, { b: 2.5 }], c: null });
    expect(v).toStrictEqual(new Map<string, CelValue>([["a", [1n, new Map([["b", 2.5]])]], ["c", null]]));
  });
});

describe("toJson", () => {
  const cases: readonly [name: string, input: CelValue, want: unknown][] = [
    ["small int → number", 42n, 42],
    ["int beyond 2^53 → string", 9007199254740993n, "9007199254740993"],
    ["uint → number", new CelUint(7n), 7],
    ["big uint → string", new CelUint(18446744073709551615n), "18446744073709551615"],
    ["double", 1.5, 1.5],
    ["NaN", Number.NaN, "NaN"],
    ["Infinity", -Infinity, "-Infinity"],
    ["bytes → base64", new Uint8Array([104, 105, 255]), "aGn/"],
    ["timestamp", new CelTimestamp(1_700_000_000_123_000_000n), "2023-11-14T22:13:20.123Z"],
    ["timestamp with nanos", new CelTimestamp(1n), "1970-01-01T00:00:00.000000001Z"],
    ["timestamp before the epoch", new CelTimestamp(-1_000_000_000n), "1969-12-31T23:59:59Z"],
    ["timestamp year 1", new CelTimestamp(-62135596800n * 1_000_000_000n), "0001-01-01T00:00:00Z"],
    ["duration", new CelDuration(1_500_000_000n), "1.5s"],
    ["negative duration", new CelDuration(-1_000n), "-0.000001s"],
    ["optional with a value", CelOptional.of(1n), 1],
    ["optional none", CelOptional.NONE, null],
    ["type", INT, "int"],
    ["parameterised type", new CelType("list", "list", [INT]), "list(int)"],
    ["map with non-string keys", new Map<bigint | boolean, CelValue>([[1n, "a"], [true, [2n]]]), { "1": "a", true: [2] }],
  ];
  for (const [name, input, want] of cases) {
    test(name, () => expect(toJson(input)).toStrictEqual(want));
  }
});

describe("fromJsonLazy and JsonObjectMap", () => {
  // A JSON document as fromJson reads it; the lazy map must answer every read the same way.
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true }), fc.string(), tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "a")), tie("value"), { maxKeys: 4 }),
  })).value;

  /** Reads a CEL value deeply through the Map interface only (what the evaluator uses). */
  const read = (v: CelValue): unknown => {
    if (v instanceof Map) return { size: v.size, entries: [...v].map(([k, e]) => [k, read(e)]), keys: [...v.keys()], has: [...v.keys()].every((k) => v.has(k) && v.get(k) !== undefined) };
    if (Array.isArray(v)) return v.map(read);
    return v;
  };

  test("reads exactly as fromJson's maps, at any depth", () => {
    fc.assert(
      fc.property(json, (doc) => {
        expect(read(fromJsonLazy(doc))).toStrictEqual(read(fromJson(doc)));
      }),
      { numRuns: 300 },
    );
  });

  test("a field read before the map is filled, then iteration", () => {
    const m = fromJsonLazy({ a: { b: 1 }, c: "x" }) as Map<string, CelValue>;
    expect(m).toBeInstanceOf(JsonObjectMap);
    expect(m.has("a")).toBe(true);
    expect(m.has("zz")).toBe(false);
    expect(m.get(1n as unknown as string)).toBeUndefined();
    expect((m.get("a") as Map<string, CelValue>).get("b")).toBe(1n);
    expect([...m.keys()]).toEqual(["a", "c"]);
    expect(toJson(m)).toEqual({ a: { b: 1 }, c: "x" });
  });

  test("an overlay replaces entries in place and adds the others after the object's own", () => {
    const m = new JsonObjectMap({ a: 1, metadata: { name: "n" } }, undefined, new Map<string, CelValue>([["metadata", "over"], ["status", "added"]]));
    expect(m.get("metadata")).toBe("over");
    expect(m.has("status")).toBe(true);
    expect([...m]).toEqual([["a", 1n], ["metadata", "over"], ["status", "added"]]);
    expect(m.size).toBe(3);
  });

  test("with a cache, one conversion per JSON object: unchanged subtrees of a new version are shared", () => {
    const cache = new Map<object, CelValue>();
    const shared = { deep: { x: [1, 2] } };
    const v1 = fromJsonLazy({ keep: shared, n: 1 }, cache) as Map<string, CelValue>;
    const v2 = fromJsonLazy({ keep: shared, n: 2 }, cache) as Map<string, CelValue>;
    expect(v1.get("keep")).toBe(v2.get("keep"));
    expect(fromJson(shared, cache)).toBe(v1.get("keep"));
    expect(celEquals(v1.get("keep")!, fromJson(shared))).toBe(true);
  });
});
