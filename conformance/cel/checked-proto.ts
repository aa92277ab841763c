/**
 * Our {@link CheckedExpr} → the CEL spec's `cel.expr.CheckedExpr` protobuf, with
 * `type_map` and `reference_map`, so checked trees can be printed with the
 * official `toDebugString(expr, new SemanticAdorner(checked))` and compared with
 * the `checkedAst` strings of the spec's test data.
 */
import { create } from "@bufbuild/protobuf";
import {
  type CheckedExpr as CheckedExprProto,
  CheckedExprSchema,
  type Reference as ReferenceProto,
  ReferenceSchema,
  type Type as TypeProto,
  Type_AbstractTypeSchema,
  Type_ListTypeSchema,
  Type_MapTypeSchema,
  Type_PrimitiveType,
  Type_WellKnownType,
  TypeSchema,
} from "@bufbuild/cel-spec/cel/expr/checked_pb.js";
import type { Constant as ConstantProto, Expr as ExprProto } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import { NullValue } from "@bufbuild/protobuf/wkt";
import type { Expr } from "../../src/cel/ast.js";
import type { CheckedExpr } from "../../src/cel/checked.js";
import type { CelType } from "../../src/cel/types.js";
import type { CelValue } from "../../src/cel/values.js";
import { CelUint } from "../../src/cel/values.js";
import { toProtoConstant, toProtoExpr, toProtoSourceInfo } from "./ast-proto.js";

/** Converts a checked expression (the tree and source info through `ast-proto.ts`). */
export function checkedToProto(
  checked: CheckedExpr,
  convertExpr: (e: Expr) => ExprProto = toProtoExpr,
): CheckedExprProto {
  const typeMap: Record<string, TypeProto> = {};
  for (const [id, t] of checked.typeMap) typeMap[String(id)] = typeToProto(t);
  const referenceMap: Record<string, ReferenceProto> = {};
  for (const [id, r] of checked.referenceMap) {
    const ref = create(ReferenceSchema, { name: r.name ?? "", overloadId: [...(r.overloadIds ?? [])] });
    if (r.value !== undefined) {
      const c = valueToConstant(r.value);
      if (c !== undefined) ref.value = c;
    }
    referenceMap[String(id)] = ref;
  }
  return create(CheckedExprSchema, {
    expr: convertExpr(checked.expr),
    sourceInfo: toProtoSourceInfo(checked.sourceInfo),
    typeMap,
    referenceMap,
  });
}

const PRIMITIVES: Readonly<Record<string, Type_PrimitiveType>> = {
  bool: Type_PrimitiveType.BOOL,
  int: Type_PrimitiveType.INT64,
  uint: Type_PrimitiveType.UINT64,
  double: Type_PrimitiveType.DOUBLE,
  string: Type_PrimitiveType.STRING,
  bytes: Type_PrimitiveType.BYTES,
};

/** A {@link CelType} as a `cel.expr.Type`. */
export function typeToProto(t: CelType): TypeProto {
  switch (t.kind) {
    case "dyn":
      return create(TypeSchema, { typeKind: { case: "dyn", value: {} } });
    case "null":
      return create(TypeSchema, { typeKind: { case: "null", value: NullValue.NULL_VALUE } });
    case "bool":
    case "int":
    case "uint":
    case "double":
    case "string":
    case "bytes":
      return create(TypeSchema, { typeKind: { case: "primitive", value: PRIMITIVES[t.kind]! } });
    case "wrapper":
      return create(TypeSchema, { typeKind: { case: "wrapper", value: PRIMITIVES[t.params[0]!.kind]! } });
    case "timestamp":
      return create(TypeSchema, { typeKind: { case: "wellKnown", value: Type_WellKnownType.TIMESTAMP } });
    case "duration":
      return create(TypeSchema, { typeKind: { case: "wellKnown", value: Type_WellKnownType.DURATION } });
    case "any":
      return create(TypeSchema, { typeKind: { case: "wellKnown", value: Type_WellKnownType.ANY } });
    case "list":
      return create(TypeSchema, {
        typeKind: { case: "listType", value: create(Type_ListTypeSchema, { elemType: typeToProto(t.params[0]!) }) },
      });
    case "map":
      return create(TypeSchema, {
        typeKind: {
          case: "mapType",
          value: create(Type_MapTypeSchema, {
            keyType: typeToProto(t.params[0]!),
            valueType: typeToProto(t.params[1]!),
          }),
        },
      });
    case "message":
      return create(TypeSchema, { typeKind: { case: "messageType", value: t.name } });
    case "typeParam":
      return create(TypeSchema, { typeKind: { case: "typeParam", value: t.name } });
    case "type":
      return create(TypeSchema, {
        typeKind: { case: "type", value: t.params.length > 0 ? typeToProto(t.params[0]!) : create(TypeSchema) },
      });
    case "error":
      return create(TypeSchema, { typeKind: { case: "error", value: {} } });
    case "opaque":
      return create(TypeSchema, {
        typeKind: {
          case: "abstractType",
          value: create(Type_AbstractTypeSchema, { name: t.name, parameterTypes: t.params.map(typeToProto) }),
        },
      });
  }
}

function valueToConstant(v: CelValue): ConstantProto | undefined {
  if (v === null) return toProtoConstant({ kind: "null" });
  if (typeof v === "boolean") return toProtoConstant({ kind: "bool", value: v });
  if (typeof v === "bigint") return toProtoConstant({ kind: "int", value: v });
  if (typeof v === "number") return toProtoConstant({ kind: "double", value: v });
  if (typeof v === "string") return toProtoConstant({ kind: "string", value: v });
  if (v instanceof Uint8Array) return toProtoConstant({ kind: "bytes", value: v });
  if (v instanceof CelUint) return toProtoConstant({ kind: "uint", value: v.value });
  return undefined;
}
