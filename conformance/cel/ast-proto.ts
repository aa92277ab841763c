/**
 * Our AST ({@link Expr}, {@link ParsedExpr}) → the CEL spec's `cel.expr` protobuf
 * messages, so that trees can be printed with the spec's `toDebugString` and
 * compared with cel-go's debug strings, or handed to anything that speaks the
 * proto form. Test/conformance code only: never imported from `src/`.
 *
 * - map literals become `struct_expr` with `map_key` entries and an empty
 *   message name, message construction `struct_expr` with `field_key` entries;
 * - `SourceInfo.line_offsets` follow cel-go: the start offset of every line
 *   after the first, then the text length + 1;
 * - `macro_calls` follow cel-go: the call has id 0, and an argument that is
 *   itself a macro expansion is replaced by a bare `Expr` carrying only its id
 *   (nested calls and lists are rewritten the same way).
 */
import { create } from "@bufbuild/protobuf";
import { NullValue } from "@bufbuild/protobuf/wkt";
import {
  type Constant as ConstantProto,
  ConstantSchema,
  type Expr as ExprProto,
  type Expr_CreateStruct_Entry as EntryProto,
  Expr_CreateStruct_EntrySchema,
  ExprSchema,
  type ParsedExpr as ParsedExprProto,
  ParsedExprSchema,
  type SourceInfo as SourceInfoProto,
  SourceInfoSchema,
} from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import type { Constant, Expr, ParsedExpr, SourceInfo } from "../../src/cel/ast.js";

/** A constant → `cel.expr.Constant`. */
export function toProtoConstant(c: Constant): ConstantProto {
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

/** An expression tree → `cel.expr.Expr`. */
export function toProtoExpr(e: Expr): ExprProto {
  const id = BigInt(e.id);
  switch (e.kind) {
    case "const":
      return create(ExprSchema, { id, exprKind: { case: "constExpr", value: toProtoConstant(e.value) } });
    case "ident":
      return create(ExprSchema, { id, exprKind: { case: "identExpr", value: { name: e.name } } });
    case "select":
      return create(ExprSchema, {
        id,
        exprKind: { case: "selectExpr", value: { operand: toProtoExpr(e.operand), field: e.field, testOnly: e.testOnly } },
      });
    case "call":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "callExpr",
          value:
            e.target === undefined
              ? { function: e.fn, args: e.args.map(toProtoExpr) }
              : { function: e.fn, target: toProtoExpr(e.target), args: e.args.map(toProtoExpr) },
        },
      });
    case "list":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "listExpr",
          value: { elements: e.elements.map(toProtoExpr), optionalIndices: [...e.optionalIndices] },
        },
      });
    case "map":
      return create(ExprSchema, {
        id,
        exprKind: {
          case: "structExpr",
          value: {
            messageName: "",
            entries: e.entries.map(
              (en): EntryProto =>
                create(Expr_CreateStruct_EntrySchema, {
                  id: BigInt(en.id),
                  keyKind: { case: "mapKey", value: toProtoExpr(en.key) },
                  value: toProtoExpr(en.value),
                  optionalEntry: en.optional,
                }),
            ),
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
            entries: e.fields.map(
              (f): EntryProto =>
                create(Expr_CreateStruct_EntrySchema, {
                  id: BigInt(f.id),
                  keyKind: { case: "fieldKey", value: f.field },
                  value: toProtoExpr(f.value),
                  optionalEntry: f.optional,
                }),
            ),
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
            iterRange: toProtoExpr(e.iterRange),
            accuVar: e.accuVar,
            accuInit: toProtoExpr(e.accuInit),
            loopCondition: toProtoExpr(e.loopCondition),
            loopStep: toProtoExpr(e.loopStep),
            result: toProtoExpr(e.result),
          },
        },
      });
  }
}

/** cel-go's rendering of a macro call argument: nested expansions become bare id references. */
function macroArgToProto(e: Expr, macroCalls: SourceInfo["macroCalls"]): ExprProto {
  if (macroCalls.has(e.id)) return create(ExprSchema, { id: BigInt(e.id) });
  if (e.kind === "call") {
    const args = e.args.map((a) => macroArgToProto(a, macroCalls));
    return create(ExprSchema, {
      id: BigInt(e.id),
      exprKind: {
        case: "callExpr",
        value:
          e.target === undefined
            ? { function: e.fn, args }
            : { function: e.fn, target: macroArgToProto(e.target, macroCalls), args },
      },
    });
  }
  if (e.kind === "list") {
    return create(ExprSchema, {
      id: BigInt(e.id),
      exprKind: {
        case: "listExpr",
        value: {
          elements: e.elements.map((x) => macroArgToProto(x, macroCalls)),
          optionalIndices: [...e.optionalIndices],
        },
      },
    });
  }
  return toProtoExpr(e);
}

/** Source info → `cel.expr.SourceInfo`. */
export function toProtoSourceInfo(info: SourceInfo): SourceInfoProto {
  const positions: Record<string, number> = {};
  for (const [id, offset] of info.positions) positions[String(id)] = offset;
  const macroCalls: Record<string, ExprProto> = {};
  for (const [id, call] of info.macroCalls) {
    if (call.kind !== "call") {
      macroCalls[String(id)] = toProtoExpr(call);
      continue;
    }
    const args = call.args.map((a) => macroArgToProto(a, info.macroCalls));
    const target = call.target === undefined ? undefined : macroArgToProto(call.target, info.macroCalls);
    macroCalls[String(id)] = create(ExprSchema, {
      id: 0n,
      exprKind: {
        case: "callExpr",
        value: target === undefined ? { function: call.fn, args } : { function: call.fn, target, args },
      },
    });
  }
  const length = [...info.text].length;
  return create(SourceInfoSchema, {
    location: info.description,
    lineOffsets: [...info.lineOffsets, length + 1],
    positions,
    macroCalls,
  });
}

/** A parsed expression → `cel.expr.ParsedExpr` (tree and source info). */
export function toProtoParsedExpr(parsed: ParsedExpr): ParsedExprProto {
  return create(ParsedExprSchema, { expr: toProtoExpr(parsed.expr), sourceInfo: toProtoSourceInfo(parsed.sourceInfo) });
}

/** Alias under the name the conformance runner looks for first. */
export const toParsedExprProto = toProtoParsedExpr;
