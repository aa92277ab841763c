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
import {
  type Constant as ConstantProto,
  ConstantSchema,
  type Expr as ExprProto,
  ExprSchema,
} from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import { NullValue } from "@bufbuild/protobuf/wkt";
import type { Constant, Expr } from "../../src/cel/ast.js";
import type { CheckedExpr } from "../../src/cel/checked.js";
import type { CelType } from "../../src/cel/types.js";
import type { CelValue } from "../../src/cel/values.js";
import { CelUint } from "../../src/cel/values.js";

/** Converts a checked expression; `exprToProto` converts the tree (defaults to {@link exprToProto}). */
export function checkedToProto(
  checked: CheckedExpr,
  convertExpr: (e: Expr) => ExprProto = exprToProto,
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
  return create(CheckedExprSchema, { expr: convertExpr(checked.expr), typeMap, referenceMap });
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

function constantToProto(c: Constant): ConstantProto {
  switch (c.kind) {
    case "null":
      return create(ConstantSchema, { constantKind: { case: "nullValue", value: NullValue.NULL_VALUE } });
    case "bool":
      return create(ConstantSchema, { constantKind: { case: "boolValue", value: c.value } });
    case "int":
      return create(ConstantSchema, { constantKind: { case: "int64Value", value: c.value } });
    case "uint":
      return create(ConstantSchema, { constantKind: { case: "uint64Value", value: c.value } });
    case "double":
      return create(ConstantSchema, { constantKind: { case: "doubleValue", value: c.value } });
    case "string":
      return create(ConstantSchema, { constantKind: { case: "stringValue", value: c.value } });
    case "bytes":
      return create(ConstantSchema, { constantKind: { case: "bytesValue", value: c.value } });
  }
}

function valueToConstant(v: CelValue): ConstantProto | undefined {
  if (v === null) return constantToProto({ kind: "null" });
  if (typeof v === "boolean") return constantToProto({ kind: "bool", value: v });
  if (typeof v === "bigint") return constantToProto({ kind: "int", value: v });
  if (typeof v === "number") return constantToProto({ kind: "double", value: v });
  if (typeof v === "string") return constantToProto({ kind: "string", value: v });
  if (v instanceof Uint8Array) return constantToProto({ kind: "bytes", value: v });
  if (v instanceof CelUint) return constantToProto({ kind: "uint", value: v.value });
  return undefined;
}

/** Our AST → `cel.expr.Expr` (map literals become `struct_expr` with map keys, as in the proto). */
export function exprToProto(e: Expr): ExprProto {
  const id = BigInt(e.id);
  switch (e.kind) {
    case "const":
      return create(ExprSchema, { id, exprKind: { case: "constExpr", value: constantToProto(e.value) } });
    case "ident":
      return create(ExprSchema, { id, exprKind: { case: "identExpr", value: { name: e.name } } });
    case "select":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "selectExpr",
          value: { operand: exprToProto(e.operand), field: e.field, testOnly: e.testOnly },
        },
      });
    case "call":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "callExpr",
          value: {
            function: e.fn,
            args: e.args.map(exprToProto),
            ...(e.target !== undefined ? { target: exprToProto(e.target) } : {}),
          },
        },
      });
    case "list":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "listExpr",
          value: { elements: e.elements.map(exprToProto), optionalIndices: [...e.optionalIndices] },
        },
      });
    case "map":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "structExpr",
          value: {
            messageName: "",
            entries: e.entries.map((en) => ({
              id: BigInt(en.id),
              keyKind: { case: "mapKey" as const, value: exprToProto(en.key) },
              value: exprToProto(en.value),
              optionalEntry: en.optional,
            })),
          },
        },
      });
    case "struct":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "structExpr",
          value: {
            messageName: e.typeName,
            entries: e.fields.map((f) => ({
              id: BigInt(f.id),
              keyKind: { case: "fieldKey" as const, value: f.field },
              value: exprToProto(f.value),
              optionalEntry: f.optional,
            })),
          },
        },
      });
    case "comprehension":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "comprehensionExpr",
          value: {
            iterVar: e.iterVar,
            iterVar2: e.iterVar2 ?? "",
            iterRange: exprToProto(e.iterRange),
            accuVar: e.accuVar,
            accuInit: exprToProto(e.accuInit),
            loopCondition: exprToProto(e.loopCondition),
            loopStep: exprToProto(e.loopStep),
            result: exprToProto(e.result),
          },
        },
      });
  }
}
