/**
 * Kubernetes value semantics for schema-typed objects. Expected values follow
 * k8s.io/apiserver pkg/cel/common/values_test.go (TestToValue: the unstructured
 * half) and escaping_test.go.
 */
import { describe, expect, it } from "vitest";
import { DYN } from "../types.js";
import { CelDuration, CelTimestamp, type CelValue } from "../values.js";
import { kubernetesBaseEnv } from "./base-env.js";
import { outcome } from "./test-harness.js";
import { escapeName, kubernetesValue, unescapeName, type CelSchemaNode } from "./values.js";

// A tiny schema builder standing in for the schema index.
const scalar = (s: "string" | "integer" | "number" | "boolean", format?: string): CelSchemaNode => ({
  kind: "scalar",
  scalar: s,
  ...(format === undefined ? {} : { format }),
  child: () => undefined,
  element: () => undefined,
});
const struct = (props: Record<string, CelSchemaNode>): CelSchemaNode => ({
  kind: "struct",
  child: (n) => (Object.prototype.hasOwnProperty.call(props, n) ? props[n] : undefined),
  element: () => undefined,
});
const map = (v: CelSchemaNode): CelSchemaNode => ({ kind: "map", child: () => v, element: () => undefined });
const list = (e: CelSchemaNode, listType?: "set" | "map", keys?: string[]): CelSchemaNode => ({
  kind: "list",
  ...(listType === undefined ? {} : { listType }),
  ...(keys === undefined ? {} : { listMapKeys: keys }),
  child: () => undefined,
  element: () => e,
});

const structSchema = struct({ s: scalar("string"), i: scalar("integer"), b: scalar("boolean"), f: scalar("number") });
const mapListEntry = struct({ key1: scalar("string"), key2: scalar("string"), value: scalar("integer") });
const complexSchema = struct({
  apiVersion: scalar("string"),
  kind: scalar("string"),
  metadata: struct({ name: scalar("string"), namespace: scalar("string") }),
  id: scalar("string"),
  tags: list(scalar("string")),
  labels: map(scalar("string")),
  nestedObj: struct({ name: scalar("string"), info: structSchema }),
  childPtr: structSchema,
  nilPtr: structSchema,
  emptySlice: list(scalar("integer")),
  emptyMap: map(scalar("integer")),
  intOrString: scalar("string", "int-or-string"),
  quantity: scalar("string", "quantity"),
  time: scalar("string", "date-time"),
  timeout: scalar("string", "duration"),
  rawBytes: scalar("string", "byte"),
  f32: scalar("number"),
  mapList: list(mapListEntry, "map", ["key1", "key2"]),
  setList: list(scalar("integer"), "set"),
  "x-dashed": scalar("string"),
  "a.b/c": scalar("string"),
  namespace: scalar("string"),
  "__x": scalar("string"),
  "1bad": scalar("string"),
});

const complex1 = {
  apiVersion: "v1",
  kind: "Complex",
  metadata: { name: "complex1" },
  id: "c1",
  tags: ["a", "b", "c"],
  labels: { key1: "val1", key2: "val2" },
  nestedObj: { name: "nested1", info: { s: "hello", i: 10n, b: true, f: 1.5 } },
  childPtr: { s: "world", i: 20n, b: false, f: 2.5 },
  nilPtr: null,
  emptySlice: [],
  emptyMap: {},
  intOrString: 5n,
  quantity: "100m",
  time: "2000-01-01T12:00:00Z",
  timeout: "5s",
  rawBytes: "Ynl0ZXMx", // "bytes1"
  f32: 32n, // an integral JSON number under a number schema is a double
  mapList: [
    { key1: "k1v1", key2: "k2v1", value: 1n },
    { key1: "k1v2", key2: "k2v2", value: 2n },
  ],
  setList: [1n, 2n, 3n],
  "x-dashed": "dash",
  "a.b/c": "dotslash",
  namespace: "ns",
  __x: "under",
  "1bad": "hidden",
  undeclared: "hidden",
};
const complex2 = {
  mapList: [
    { key1: "k1v2", key2: "k2v2", value: 2n },
    { key1: "k1v1", key2: "k2v1", value: 1n },
  ],
  setList: [3n, 2n, 1n],
};
const complex3 = {
  mapList: [
    { key1: "k1v3", key2: "k2v3", value: 3n },
    { key1: "k1v1", key2: "k2v1", value: 1n },
  ],
  setList: [4n, 1n],
};
const complex4 = {
  mapList: [
    { key1: "k1v3", key2: "k2v3", value: 3n },
    { key1: "k1v2", key2: "k2v2", value: 2n },
    { key1: "k1v1", key2: "k2v1", value: 1n },
  ],
  setList: [4n, 3n, 2n, 1n],
};

const env = kubernetesBaseEnv().extend({ variables: { c: DYN, c1: DYN, c2: DYN, c3: DYN, c4: DYN, s2: DYN } });
const vars: Record<string, CelValue> = {
  c: kubernetesValue(complex1, complexSchema),
  c1: kubernetesValue(complex1, complexSchema),
  c2: kubernetesValue(complex2, complexSchema),
  c3: kubernetesValue(complex3, complexSchema),
  c4: kubernetesValue(complex4, complexSchema),
  s2: kubernetesValue({ s: "world", i: 20n, b: false, f: 2.5 }, structSchema),
};

describe("values_test.go (unstructured)", () => {
  it.each<[string, object?]>([
    ["c.apiVersion == 'v1' && c.kind == 'Complex'"],
    ["c.metadata.name == 'complex1'"],
    ["c.nestedObj.info.s == 'hello'"],
    ["c.tags[1] == 'b'"],
    ["size(c.tags) == 3 && 'b' in c.tags && !('d' in c.tags)"],
    ["c.tags['a']", { evalError: "unsupported index type 'string' in list" }],
    ["c.tags[5]", { evalError: "index out of bounds: 5" }],
    ["size(c.emptySlice) == 0 && c.emptySlice.all(x, false)"],
    ["c.labels['key1'] == 'val1' && size(c.labels) == 2 && 'key1' in c.labels"],
    ["has(c.labels.key1) && !has(c.labels.key3)"],
    ["c.labels['key3']", { evalError: "no such key: key3" }],
    ["c.labels.all(name, name.startsWith('key'))"],
    ["size(c.emptyMap) == 0"],
    ["c.childPtr.s == 'world' && c.childPtr == s2"],
    // null-valued properties are absent
    ["c.nilPtr.s", { evalError: "no such key: nilPtr" }],
    ["!has(c.nilPtr)"],
    ["!has(c.nonExistent)"],
    ["c.nonExistent", { evalError: "no such key: nonExistent" }],
    ["type(c.tags) == list && type(c.labels) == map"],
    ["type(c.time) == google.protobuf.Timestamp && c.time == timestamp('2000-01-01T12:00:00Z')"],
    ["type(c.timeout) == google.protobuf.Duration && c.timeout == duration('5s') && c.timeout > duration('1s')"],
    ["type(c.rawBytes) == bytes && c.rawBytes == b'bytes1' && size(c.rawBytes) == 6"],
    ["type(c.f32) == double && c.f32 == 32.0"],
    ["c.intOrString == 5"],
    ["quantity(c.quantity) == quantity('100m')"],
    // listType=map
    ["c1.mapList == c2.mapList"],
    ["c1.mapList != c3.mapList"],
    ["c1.mapList + c2.mapList == c1.mapList"],
    ["c1.mapList + c3.mapList == c4.mapList"],
    ["(c1.mapList + c3.mapList).map(e, e.value) == [1, 2, 3]"],
    // listType=set
    ["c1.setList == c2.setList"],
    ["c1.setList != c3.setList"],
    ["c1.setList + c2.setList == c1.setList"],
    ["c1.setList + c3.setList == c4.setList"],
    ["c1.setList + c3.setList == [1, 2, 3, 4]"],
    // Only the set list's own == is order-insensitive (cel-go asks the left operand).
    ["[3, 2, 1] != c1.setList && c1.setList == [3, 2, 1]"],
    // Atomic lists keep CEL's ordered semantics.
    ["c1.tags != ['c', 'b', 'a'] && c1.tags + ['a'] == ['a', 'b', 'c', 'a']"],
  ])("%s", (expr, want = { value: true }) => {
    expect(outcome(env, expr, vars)).toEqual(want);
  });
});

describe("escaped property names", () => {
  it.each<[string, object?]>([
    ["c.x__dash__dashed == 'dash'"],
    ["c['x-dashed'] == 'dash' && c['x__dash__dashed'] == 'dash'"],
    ["has(c.x__dash__dashed)"],
    ["c.a__dot__b__slash__c == 'dotslash'"],
    ["c.__namespace__ == 'ns'"],
    ["c.__underscores__x == 'under'"],
    ["!has(c.undeclared)"],
    ["c.all(k, k != '1bad' && k != 'undeclared')"],
    ["c.exists(k, k == 'x__dash__dashed') && !c.exists(k, k == 'x-dashed')"],
    ["c.labels.all(k, k.startsWith('key'))"],
  ])("%s", (expr, want = { value: true }) => {
    expect(outcome(env, expr, vars)).toEqual(want);
  });

  // escaping_test.go
  it.each<[string, string | undefined]>([
    ["foo", "foo"],
    ["FOO", "FOO"],
    ["foo1", "foo1"],
    ["_foo", "_foo"],
    ["foo_bar", "foo_bar"],
    ["foo-bar", "foo__dash__bar"],
    ["foo.bar", "foo__dot__bar"],
    ["foo/bar", "foo__slash__bar"],
    ["foo__bar", "foo__underscores__bar"],
    ["foo___bar", "foo__underscores___bar"],
    ["true", "__true__"],
    ["namespace", "__namespace__"],
    ["in", "__in__"],
    ["1foo", undefined],
    ["", undefined],
    ["foo bar", undefined],
    ["foo:bar", undefined],
    ["a.b-c/d__e", "a__dot__b__dash__c__slash__d__underscores__e"],
  ])("escape %j → %j (and back)", (raw, escaped) => {
    expect(escapeName(raw)).toBe(escaped);
    if (escaped !== undefined) expect(unescapeName(escaped)).toBe(raw);
  });

  it.each<[string, string | undefined]>([
    ["__bogus__", undefined],
    ["x__true__", undefined], // a reserved word only escapes the whole name
    ["__if__", "if"],
  ])("unescape %j → %j", (escaped, raw) => {
    expect(unescapeName(escaped)).toBe(raw);
  });
});

describe("conversion", () => {
  it("drops null properties of structs, keeps nulls in maps and lists", () => {
    const v = kubernetesValue({ s: null, m: { a: null }, l: [null] }, struct({ s: scalar("string"), m: map(scalar("string")), l: list(scalar("string")) }));
    expect([...(v as Map<string, CelValue>).entries()]).toEqual([
      ["m", new Map([["a", null]])],
      ["l", [null]],
    ]);
  });
  it("converts formats and numbers", () => {
    expect(kubernetesValue("2000-01-01T00:00:00Z", scalar("string", "date-time"))).toBeInstanceOf(CelTimestamp);
    expect(kubernetesValue("2000-01-02", scalar("string", "date"))).toEqual(new CelTimestamp(946_771_200_000_000_000n));
    expect(kubernetesValue("1m", scalar("string", "duration"))).toEqual(new CelDuration(60_000_000_000n));
    expect(kubernetesValue(3n, scalar("number"))).toBe(3);
    expect(kubernetesValue(3, scalar("integer"))).toBe(3n);
    expect(kubernetesValue("x", scalar("string", "int-or-string"))).toBe("x");
  });
  it("without a schema is plain fromJson (MAP's dyn objects)", () => {
    expect(kubernetesValue({ "a-b": null }, undefined)).toEqual(new Map([["a-b", null]]));
  });
});
