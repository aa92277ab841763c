import { describe, expect, it } from "vitest";
import { Type_PrimitiveType } from "@bufbuild/cel-spec/cel/expr/checked_pb.js";
import { INT, STRING, listType, mapType, messageType, wrapperType, typeEquals, DYN } from "../../src/cel/types.js";
import { CelDuration, CelTimestamp, CelUint, type CelValue } from "../../src/cel/values.js";
import { CelEvalError } from "../../src/cel/errors.js";
import { classify, findKnownFailure, unusedLedgerEntries, type KnownFailure } from "../suite.js";
import { ProtoObject, ProtoTypeProvider } from "./proto-types.js";
import { typeFromProto, valueFromJson, valuesMatch } from "./values.js";
import { create } from "@bufbuild/protobuf";
import { TypeSchema } from "@bufbuild/cel-spec/cel/expr/checked_pb.js";
import { getConformanceSuite, type IncrementalTest } from "@bufbuild/cel-spec/testdata/tests.js";
import { runConformanceCase } from "./runner.js";

const provider = new ProtoTypeProvider();
const P3 = "cel.expr.conformance.proto3.TestAllTypes";
const P2 = "cel.expr.conformance.proto2.TestAllTypes";

describe("expected values from proto JSON", () => {
  it("converts scalars with exact CEL types", () => {
    expect(valueFromJson({ int64Value: "-7" }, provider)).toBe(-7n);
    expect(valueFromJson({ uint64Value: "18446744073709551615" }, provider)).toEqual(new CelUint(2n ** 64n - 1n));
    expect(valueFromJson({ doubleValue: "NaN" }, provider)).toBeNaN();
    expect(valueFromJson({ doubleValue: "-Infinity" }, provider)).toBe(-Infinity);
    expect(valueFromJson({ stringValue: "é" }, provider)).toBe("é");
    expect(valueFromJson({ bytesValue: "AP8=" }, provider)).toEqual(new Uint8Array([0, 255]));
    expect(valueFromJson({ boolValue: true }, provider)).toBe(true);
    expect(valueFromJson({ nullValue: null }, provider)).toBe(null);
  });

  it("converts lists, maps and types", () => {
    const m = valueFromJson({ mapValue: { entries: [{ key: { uint64Value: "1" }, value: { listValue: { values: [{ int64Value: "2" }] } } }] } }, provider);
    expect(m).toBeInstanceOf(Map);
    const [[k, v]] = [...(m as Map<unknown, CelValue>)];
    expect(k).toEqual(new CelUint(1n));
    expect(v).toEqual([2n]);
    const t = valueFromJson({ typeValue: "google.protobuf.Duration" }, provider);
    expect(String(t)).toBe("google.protobuf.Duration");
  });

  it("unpacks objectValue, unwrapping well-known types", () => {
    expect(valueFromJson({ objectValue: { "@type": "type.googleapis.com/google.protobuf.Int32Value", value: 5 } }, provider)).toBe(5n);
    expect(valueFromJson({ objectValue: { "@type": "type.googleapis.com/google.protobuf.Duration", value: "1.5s" } }, provider)).toEqual(
      new CelDuration(1_500_000_000n),
    );
    expect(valueFromJson({ objectValue: { "@type": "type.googleapis.com/google.protobuf.Timestamp", value: "1970-01-01T00:00:01Z" } }, provider)).toEqual(
      new CelTimestamp(1_000_000_000n),
    );
    const msg = valueFromJson({ objectValue: { "@type": `type.googleapis.com/${P3}`, singleInt32: 3 } }, provider);
    expect(msg).toBeInstanceOf(ProtoObject);
    expect((msg as ProtoObject).getField("single_int32")).toBe(3n);
  });
});

describe("value matching", () => {
  it("requires identical numeric types", () => {
    expect(valuesMatch(1n, 1n)).toBe(true);
    expect(valuesMatch(1n, new CelUint(1n))).toBe(false);
    expect(valuesMatch(1, 1n)).toBe(false);
    expect(valuesMatch([1n, NaN], [1n, NaN])).toBe(true);
    expect(valuesMatch(new Map([["a", 1n]]), new Map([["a", 1]]))).toBe(false);
    expect(valuesMatch(new Map([[new CelUint(1n), 1n]]), new Map([[1n, 1n]]))).toBe(false);
    expect(
      valuesMatch(
        new Map<string, CelValue>([
          ["b", 2n],
          ["a", 1n],
        ]),
        new Map<string, CelValue>([
          ["a", 1n],
          ["b", 2n],
        ]),
      ),
    ).toBe(true);
  });
});

describe("proto type provider", () => {
  it("types fields as cel-go does", () => {
    expect(typeEquals(provider.findFieldType(P3, "single_int32")!, INT)).toBe(true);
    expect(typeEquals(provider.findFieldType(P3, "single_int64_wrapper")!, wrapperType(INT))).toBe(true);
    expect(typeEquals(provider.findFieldType(P3, "repeated_string")!, listType(STRING))).toBe(true);
    expect(typeEquals(provider.findFieldType(P3, "map_string_int64")!, mapType(STRING, INT))).toBe(true);
    expect(typeEquals(provider.findFieldType(P3, "single_value")!, DYN)).toBe(true);
    expect(provider.findFieldType(P3, "nope")).toBeUndefined();
    expect(provider.findIdent(`${P3}.NestedEnum.BAR`)?.value).toBe(1n);
    expect(typeEquals(provider.findType(P3)!, messageType(P3))).toBe(true);
  });

  it("builds and reads messages with CEL conversions", () => {
    const m = provider.newValue(P3, new Map<string, CelValue>([["single_uint32", new CelUint(7n)], ["single_float", 1.333]])) as ProtoObject;
    expect(m.getField("single_uint32")).toEqual(new CelUint(7n));
    expect(m.getField("single_float")).toBe(Math.fround(1.333));
    expect(m.getField("single_int64_wrapper")).toBe(null);
    expect(m.getField("single_nested_message")).toBeInstanceOf(ProtoObject);
    expect(m.hasField("single_nested_message")).toBe(false);
    expect(m.hasField("single_uint32")).toBe(true);
    expect(m.hasField("single_int32")).toBe(false);
    expect(() => provider.newValue(P3, new Map([["single_int32", 2n ** 40n]]))).toThrow(/range/);
    expect(() => provider.newValue(P3, new Map([["single_bool", null]]))).toThrow(CelEvalError);
    expect(provider.newValue("google.protobuf.Int32Value", new Map([["value", 1n]]))).toBe(1n);
    expect(() => provider.newValue("google.protobuf.Any", new Map())).toThrow(/conversion/);
  });

  it("uses proto2 presence and proto equality", () => {
    const a = provider.newValue(P2, new Map([["single_int32", 0n]])) as ProtoObject;
    const b = provider.newValue(P2, new Map()) as ProtoObject;
    expect(a.hasField("single_int32")).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(a.equals(provider.newValue(P2, new Map([["single_int32", 0n]])) as ProtoObject)).toBe(true);
    expect(a.isZeroValue()).toBe(false);
    expect(b.isZeroValue()).toBe(true);
  });

  it("reads and writes proto2 extensions by qualified name", () => {
    const ext = "cel.expr.conformance.proto2.int32_ext";
    const m = valueFromJson({ objectValue: { "@type": `type.googleapis.com/${P2}`, [`[${ext}]`]: 42 } }, provider) as ProtoObject;
    expect(m.hasField(ext)).toBe(true);
    expect(m.getField(ext)).toBe(42n);
    expect(typeEquals(provider.findFieldType(P2, ext)!, INT)).toBe(true);
    expect((provider.newValue(P2, new Map([[ext, 7n]])) as ProtoObject).getField(ext)).toBe(7n);
  });

  it("types and reads google.protobuf.NullValue fields as int, as cel-go does", () => {
    expect(typeEquals(provider.findFieldType("google.protobuf.Value", "null_value")!, INT)).toBe(true);
    expect(provider.newValue("google.protobuf.Value", new Map([["null_value", 0n]]))).toBe(null);
    expect((provider.newValue(P3, new Map()) as ProtoObject).getField("null_value")).toBe(0n);
  });

  it("converts cel.expr.Type", () => {
    const t = create(TypeSchema, { typeKind: { case: "wrapper", value: Type_PrimitiveType.INT64 } });
    expect(typeEquals(typeFromProto(t, provider), wrapperType(INT))).toBe(true);
  });
});

describe("ledger", () => {
  const ledger: KnownFailure[] = [
    { path: "proto2_ext/", reason: "extensions" },
    { path: "string_ext/format/x", reason: "one case" },
  ];
  it("matches exact paths and prefixes at segment boundaries", () => {
    expect(findKnownFailure(ledger, "proto2_ext/has_ext/a")?.reason).toBe("extensions");
    expect(findKnownFailure(ledger, "proto2_extra/a")).toBeUndefined();
    expect(findKnownFailure(ledger, "string_ext/format/x")?.reason).toBe("one case");
    expect(findKnownFailure(ledger, "string_ext/format/xy")).toBeUndefined();
  });
  it("classifies outcomes", () => {
    const c = (path: string) => ({ path, section: path.split("/")[0]! });
    expect(classify("cel", c("a/b/c"), { ok: true }, ledger).status).toBe("pass");
    expect(classify("cel", c("a/b/c"), { ok: false, message: "m" }, ledger).status).toBe("fail");
    expect(classify("cel", c("string_ext/format/x"), { ok: false, message: "m" }, ledger).status).toBe("known");
    expect(classify("cel", c("string_ext/format/x"), { ok: true }, ledger).status).toBe("fixed");
  });
  it("finds entries that match nothing", () => {
    expect(unusedLedgerEntries(ledger, ["proto2_ext/a/b"]).map((k) => k.path)).toEqual(["string_ext/format/x"]);
  });
});

describe("conformance cases end to end", () => {
  function find(path: string): IncrementalTest {
    const [section, suite, name] = path.split("/");
    const t = getConformanceSuite()
      .suites.find((s) => s.name === section)
      ?.suites.find((s) => s.name === suite)
      ?.tests.find((x) => x.name === name);
    if (t === undefined) throw new Error(`no case ${path}`);
    return t;
  }
  const ctx = { provider, libraries: [] };
  it.each([
    "basic/self_eval_zeroish/self_eval_int_zero",
    "dynamic/int32/field_assign_proto2_range",
    "proto3/empty_field/nested_message",
    "dynamic/any/field_read_proto3",
  ])("%s", (path) => {
    expect(runConformanceCase(find(path), ctx)).toMatchObject({ ok: true });
  });
  it("reports a wrong result as a failure, not a throw", () => {
    const t = find("basic/self_eval_zeroish/self_eval_int_zero");
    const wrong = { ...t, original: { ...t.original, expr: "1" } } as IncrementalTest;
    expect(runConformanceCase(wrong, ctx)).toEqual({ ok: false, message: "expected 0, got 1" });
  });
});
