/** Path-element identities (`peId`): equal exactly when structured-merge-diff's PathElement.Equals says so. */
import { describe, expect, it } from "vitest";
import { peId, peKey, peString, type PathElement } from "./typed.js";

const key = (...fields: [string, unknown][]): PathElement => ({ kind: "key", fields: fields as never });
const value = (v: unknown): PathElement => ({ kind: "value", value: v as never });

describe("peId", () => {
  const equal: [string, PathElement, PathElement][] = [
    ["int number and bigint", key(["containerPort", 80]), key(["containerPort", 80n])],
    ["integral double and int", key(["port", 80.0]), key(["port", 80n])],
    ["two keys", key(["containerPort", 80], ["protocol", "TCP"]), key(["containerPort", 80n], ["protocol", "TCP"])],
    ["set values", value("a"), value("a")],
    ["null", value(null), value(null)],
  ];
  for (const [name, a, b] of equal) it(`equal: ${name}`, () => expect(peId(a)).toBe(peId(b)));

  const different: [string, PathElement, PathElement][] = [
    ["string and number", key(["port", "80"]), key(["port", 80])],
    ["string and bool", value("true"), value(true)],
    ["string 'null' and null", value("null"), value(null)],
    ["different fields", key(["name", "a"]), key(["image", "a"])],
    ["a key and a value", key(["", "a"]), value("a")],
    ["separators inside values", key(["a", "x\u0000b\u0001sy"]), key(["a", "x"], ["b", "y"])],
    ["fraction", key(["w", 1.5]), key(["w", 1])],
  ];
  for (const [name, a, b] of different) it(`different: ${name}`, () => expect(peId(a)).not.toBe(peId(b)));

  it("agrees with the printed form on a sample of scalars", () => {
    const scalars: unknown[] = ["", "a", "80", 80, 80n, 1.5, -0, 0, true, false, null, "a\"b", "ü"];
    for (const x of scalars) for (const y of scalars) {
      const same = peString(value(x as never)) === peString(value(y as never)) && typeof x === typeof y;
      const sameNumber = (typeof x === "number" || typeof x === "bigint") && (typeof y === "number" || typeof y === "bigint") && peString(value(x as never)) === peString(value(y as never));
      expect(peId(value(x as never)) === peId(value(y as never))).toBe(same || sameNumber);
    }
  });
});

describe("peKey", () => {
  const one = { atomic: false, keys: ["name"], element: { t: "untyped" }, keyDefault: () => undefined } as never;
  const two = { atomic: false, keys: ["containerPort", "protocol"], element: { t: "untyped" }, keyDefault: () => undefined } as never;
  const set = { atomic: false, keys: [], element: { t: "untyped" }, keyDefault: () => undefined } as never;
  it("single-key lists and sets: the value, numbers canonical", () => {
    expect(peKey(one, key(["name", "a"]))).toBe("a");
    expect(peKey(one, key(["name", 80n]))).toBe(peKey(one, key(["name", 80])));
    expect(peKey(one, key(["name", 80.0]))).toBe(80);
    expect(peKey(one, key(["name", "80"]))).not.toBe(peKey(one, key(["name", 80])));
    expect(peKey(set, value(true))).toBe(true);
    expect(peKey(set, value(2n ** 60n))).toBe(peKey(set, value(2 ** 60)));
  });
  it("multi-key lists: field names are part of the key even when only one field is present", () => {
    expect(peKey(two, key(["containerPort", 1]))).not.toBe(peKey(two, key(["protocol", 1])));
    expect(peKey(two, key(["containerPort", 80], ["protocol", "TCP"]))).toBe(peKey(two, key(["containerPort", 80n], ["protocol", "TCP"])));
  });
});
