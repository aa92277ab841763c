/**
 * Test data of the CEL conformance suite → celmap values and types:
 *
 * - `cel.expr.Value` (expected results and bindings) → {@link CelValue}, from the
 *   message form `getConformanceSuite()` gives or from its proto JSON form
 *   (`{int64Value: "0"}`, `{doubleValue: "NaN"}`, `{bytesValue: "<base64>"}`,
 *   `{objectValue: {"@type": ...}}`, ...).
 * - `cel.expr.Type` → {@link CelType}, and `cel.expr.Decl` lists → Env variables
 *   and function declarations.
 * - Comparison of a result with an expected value: CEL equality plus type
 *   identity (int, uint and double never match each other), NaN matching NaN,
 *   lists and maps compared deeply (maps regardless of order).
 */
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/cel-spec/cel/expr/value_pb.js";
import { Type_PrimitiveType, Type_WellKnownType, type Decl, type Type } from "@bufbuild/cel-spec/cel/expr/checked_pb.js";
import type { ExprValue } from "@bufbuild/cel-spec/cel/expr/eval_pb.js";
import type { FunctionDecl, OverloadDecl } from "../../src/cel/decls.js";
import {
  ANY,
  BOOL,
  BUILTIN_TYPE_NAMES,
  BYTES,
  CelType,
  DOUBLE,
  DURATION,
  DYN,
  ERROR,
  INT,
  NULL_TYPE,
  OPTIONAL_NAME,
  STRING,
  TIMESTAMP,
  TYPE,
  UINT,
  listType,
  mapType,
  messageType,
  opaqueType,
  optionalType,
  typeEquals,
  typeParam,
  typeType,
  wrapperType,
} from "../../src/cel/types.js";
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelUint, type CelMapKey, type CelValue } from "../../src/cel/values.js";
import type { ProtoTypeProvider } from "./proto-types.js";

// ---------------------------------------------------------------- values

/** `cel.expr.Value` (message form) → CEL value. */
export function valueFromProto(v: Value, provider: ProtoTypeProvider): CelValue {
  const k = v.kind;
  switch (k.case) {
    case "nullValue":
      return null;
    case "boolValue":
      return k.value;
    case "int64Value":
      return k.value;
    case "uint64Value":
      return new CelUint(k.value);
    case "doubleValue":
      return k.value;
    case "stringValue":
      return k.value;
    case "bytesValue":
      return k.value;
    case "enumValue":
      // Legacy enum semantics: enum values are ints.
      return BigInt(k.value.value);
    case "objectValue":
      return provider.anyToCel(k.value);
    case "listValue":
      return k.value.values.map((x) => valueFromProto(x, provider));
    case "mapValue": {
      const m = new Map<CelMapKey, CelValue>();
      for (const e of k.value.entries) {
        const key = e.key === undefined ? null : valueFromProto(e.key, provider);
        if (!(typeof key === "string" || typeof key === "bigint" || typeof key === "boolean" || key instanceof CelUint)) {
          throw new Error(`unsupported map key in expected value: ${String(key)}`);
        }
        m.set(key, e.value === undefined ? null : valueFromProto(e.value, provider));
      }
      return m;
    }
    case "typeValue":
      return typeFromName(k.value, provider);
    case undefined:
      throw new Error("cel.expr.Value with no kind");
  }
}

/** `cel.expr.Value` in proto JSON form (`{int64Value: "1"}`) → CEL value. */
export function valueFromJson(json: JsonValue, provider: ProtoTypeProvider): CelValue {
  return valueFromProto(fromJson(ValueSchema, json, { registry: provider.registry }), provider);
}

/** A binding (`cel.expr.ExprValue`); only plain values are supported (no error or unknown bindings). */
export function bindingFromProto(v: ExprValue, provider: ProtoTypeProvider): CelValue {
  if (v.kind.case !== "value") throw new Error(`unsupported binding kind: ${v.kind.case ?? "none"}`);
  return valueFromProto(v.kind.value, provider);
}

/** A type value named as in `typeValue` (`int`, `list`, `cel.expr.conformance.proto3.TestAllTypes`). */
export function typeFromName(name: string, provider: ProtoTypeProvider): CelType {
  const builtin = BUILTIN_TYPE_NAMES.get(name);
  if (builtin !== undefined) return builtin;
  if (name === OPTIONAL_NAME) return optionalType(DYN);
  return provider.findType(name) ?? messageType(name);
}

// ---------------------------------------------------------------- types

const PRIMITIVES: ReadonlyMap<Type_PrimitiveType, CelType> = new Map([
  [Type_PrimitiveType.BOOL, BOOL],
  [Type_PrimitiveType.INT64, INT],
  [Type_PrimitiveType.UINT64, UINT],
  [Type_PrimitiveType.DOUBLE, DOUBLE],
  [Type_PrimitiveType.STRING, STRING],
  [Type_PrimitiveType.BYTES, BYTES],
]);

/** `cel.expr.Type` → CelType. Message types go through the provider so well-known types map as in cel-go. */
export function typeFromProto(t: Type | undefined, provider: ProtoTypeProvider): CelType {
  if (t === undefined) return DYN;
  const k = t.typeKind;
  switch (k.case) {
    case "dyn":
      return DYN;
    case "null":
      return NULL_TYPE;
    case "primitive":
      return primitive(k.value);
    case "wrapper":
      return wrapperType(primitive(k.value));
    case "wellKnown":
      switch (k.value) {
        case Type_WellKnownType.ANY:
          return ANY;
        case Type_WellKnownType.TIMESTAMP:
          return TIMESTAMP;
        case Type_WellKnownType.DURATION:
          return DURATION;
        default:
          throw new Error(`unknown well-known type ${k.value}`);
      }
    case "listType":
      return listType(typeFromProto(k.value.elemType, provider));
    case "mapType":
      return mapType(typeFromProto(k.value.keyType, provider), typeFromProto(k.value.valueType, provider));
    case "function":
      // No CelType for function types; these do not occur as variable types in the suite.
      return DYN;
    case "messageType":
      return provider.findType(k.value) ?? messageType(k.value);
    case "typeParam":
      return typeParam(k.value);
    case "type":
      return k.value.typeKind.case === undefined ? TYPE : typeType(typeFromProto(k.value, provider));
    case "error":
      return ERROR;
    case "abstractType": {
      const params = k.value.parameterTypes.map((p) => typeFromProto(p, provider));
      if (k.value.name === OPTIONAL_NAME && params.length === 1) return optionalType(params[0]!);
      return opaqueType(k.value.name, ...params);
    }
    case undefined:
      return DYN;
  }
}

function primitive(p: Type_PrimitiveType): CelType {
  const t = PRIMITIVES.get(p);
  if (t === undefined) throw new Error(`unknown primitive type ${p}`);
  return t;
}

export interface Declarations {
  readonly variables: Record<string, CelType>;
  readonly functions: FunctionDecl[];
}

/** A test's `typeEnv` → variables and (implementation-less) function declarations. */
export function declsFromProto(decls: readonly Decl[], provider: ProtoTypeProvider): Declarations {
  const variables: Record<string, CelType> = {};
  const functions: FunctionDecl[] = [];
  for (const d of decls) {
    const k = d.declKind;
    if (k.case === "ident") {
      variables[d.name] = typeFromProto(k.value.type, provider);
    } else if (k.case === "function") {
      const overloads: OverloadDecl[] = k.value.overloads.map((o) => {
        const params = o.params.map((p) => typeFromProto(p, provider));
        const result = typeFromProto(o.resultType, provider);
        const names = new Set<string>(o.typeParams);
        for (const t of [...params, result]) collectTypeParams(t, names);
        const decl: OverloadDecl = { id: o.overloadId, params, result, member: o.isInstanceFunction };
        return names.size > 0 ? { ...decl, typeParams: [...names] } : decl;
      });
      functions.push({ name: d.name, overloads });
    }
  }
  return { variables, functions };
}

function collectTypeParams(t: CelType, into: Set<string>): void {
  if (t.kind === "typeParam") into.add(t.name);
  for (const p of t.params) collectTypeParams(p, into);
}

// ---------------------------------------------------------------- comparison

/**
 * Whether `actual` matches `expected` for the conformance suite: equal with
 * identical types (`1` does not match `1u` or `1.0`), NaN matching NaN, deep
 * on lists, maps (any order), optionals and messages (protobuf equality).
 */
export function valuesMatch(actual: CelValue, expected: CelValue): boolean {
  if (expected === null || typeof expected === "boolean" || typeof expected === "string" || typeof expected === "bigint") {
    return actual === expected;
  }
  if (typeof expected === "number") {
    if (typeof actual !== "number") return false;
    if (Number.isNaN(expected)) return Number.isNaN(actual);
    return actual === expected;
  }
  if (expected instanceof CelUint) return actual instanceof CelUint && actual.value === expected.value;
  if (expected instanceof Uint8Array) {
    if (!(actual instanceof Uint8Array) || actual.length !== expected.length) return false;
    return actual.every((b, i) => b === expected[i]);
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    const a = actual as readonly CelValue[];
    return (expected as readonly CelValue[]).every((e, i) => valuesMatch(a[i]!, e));
  }
  if (expected instanceof Map) {
    if (!(actual instanceof Map) || actual.size !== expected.size) return false;
    const am = actual as ReadonlyMap<CelMapKey, CelValue>;
    for (const [k, ev] of expected as ReadonlyMap<CelMapKey, CelValue>) {
      const av = lookupExactKey(am, k);
      if (av === undefined || !valuesMatch(av, ev)) return false;
    }
    return true;
  }
  if (expected instanceof CelTimestamp) return actual instanceof CelTimestamp && actual.nanos === expected.nanos;
  if (expected instanceof CelDuration) return actual instanceof CelDuration && actual.nanos === expected.nanos;
  if (expected instanceof CelType) return actual instanceof CelType && actual.name === expected.name;
  if (expected instanceof CelOptional) {
    if (!(actual instanceof CelOptional)) return false;
    if (!expected.hasValue() || !actual.hasValue()) return expected.hasValue() === actual.hasValue();
    return valuesMatch(actual.value, expected.value);
  }
  if (expected instanceof CelObject) {
    return actual instanceof CelObject && actual.celType.name === expected.celType.name && expected.equals(actual);
  }
  return false;
}

/** Map lookup by key with identical type (no cross-numeric matching). */
function lookupExactKey(m: ReadonlyMap<CelMapKey, CelValue>, k: CelMapKey): CelValue | undefined {
  if (!(k instanceof CelUint)) return m.get(k);
  for (const [ak, av] of m) if (ak instanceof CelUint && ak.value === k.value) return av;
  return undefined;
}

/** Whether a checked type matches the expected one (structurally, as cel-go prints them). */
export function typesMatch(actual: CelType, expected: CelType): boolean {
  return typeEquals(actual, expected) || actual.toString() === expected.toString();
}

// ---------------------------------------------------------------- display

/** A short, unambiguous rendering of a value for failure messages (`1`, `1u`, `1.0`, `b"..."`). */
export function formatValue(v: CelValue | undefined): string {
  if (v === undefined) return "<undefined>";
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return String(v);
    case "bigint":
      return v.toString();
    case "number":
      return Number.isInteger(v) && Math.abs(v) < 1e21 ? (Object.is(v, -0) ? "-0.0" : `${v}.0`) : String(v);
    case "string":
      return JSON.stringify(v);
  }
  if (v instanceof CelUint) return `${v.value}u`;
  if (v instanceof Uint8Array) return `b${JSON.stringify(Buffer.from(v).toString("latin1"))}`;
  if (Array.isArray(v)) return `[${(v as readonly CelValue[]).map(formatValue).join(", ")}]`;
  if (v instanceof Map) {
    const entries = [...(v as ReadonlyMap<CelMapKey, CelValue>)].map(([k, x]) => `${formatValue(k)}: ${formatValue(x)}`);
    return `{${entries.join(", ")}}`;
  }
  if (v instanceof CelTimestamp) return `timestamp(${v.nanos}ns)`;
  if (v instanceof CelDuration) return `duration(${v.nanos}ns)`;
  if (v instanceof CelType) return `type(${v.toString()})`;
  if (v instanceof CelOptional) return v.hasValue() ? `optional.of(${formatValue(v.value)})` : "optional.none()";
  if (v instanceof CelObject) return String(v);
  return String(v);
}
