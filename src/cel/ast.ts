/**
 * The CEL abstract syntax tree shared by every stage (parse → check → plan).
 *
 * It mirrors the `cel.expr.Expr` protobuf of the CEL spec node for node, so that
 * a tree can be printed in cel-go's debug format and compared with the official
 * parser and checker test data. Macros are expanded by the parser into
 * `comprehension` nodes exactly as cel-go expands them; the original call is kept
 * in `SourceInfo.macroCalls` for error messages and unparsing.
 *
 * Optional selection `a.?b` and optional indexing `a[?b]` are calls of the
 * functions `_?._` and `_[?_]` (as in cel-go), not a flag on `select`.
 */

/** A literal value. Integers are exact (`bigint`); `uint` is kept distinct from `int`. */
export type Constant =
  | { readonly kind: "null" }
  | { readonly kind: "bool"; readonly value: boolean }
  | { readonly kind: "int"; readonly value: bigint }
  | { readonly kind: "uint"; readonly value: bigint }
  | { readonly kind: "double"; readonly value: number }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "bytes"; readonly value: Uint8Array };

export interface ConstExpr {
  readonly kind: "const";
  readonly id: number;
  readonly value: Constant;
}

/** A plain or qualified name as written, e.g. `a`, or `.a` for a root-scoped name. */
export interface IdentExpr {
  readonly kind: "ident";
  readonly id: number;
  readonly name: string;
}

/**
 * Field selection `operand.field`. With `testOnly` it is the expansion of the
 * `has(operand.field)` macro: a presence test rather than a read.
 */
export interface SelectExpr {
  readonly kind: "select";
  readonly id: number;
  readonly operand: Expr;
  readonly field: string;
  readonly testOnly: boolean;
}

/**
 * A function call. Operators are calls too, named as cel-go names them:
 * `_+_`, `_-_`, `_*_`, `_/_`, `_%_`, `-_`, `!_`, `_==_`, `_!=_`, `_<_`, `_<=_`,
 * `_>_`, `_>=_`, `_&&_`, `_||_`, `_?_:_`, `_[_]`, `@in`, and the optional forms
 * `_?._` (`a.?b`, second argument a string constant) and `_[?_]` (`a[?b]`).
 * `@not_strictly_false` appears inside macro expansions.
 * A receiver-style call `t.f(x)` has `target` set; a global call `f(x)` has not.
 */
export interface CallExpr {
  readonly kind: "call";
  readonly id: number;
  readonly fn: string;
  readonly target?: Expr;
  readonly args: readonly Expr[];
}

/** `[a, ?b]`: `optionalIndices` lists the positions written with `?`. */
export interface ListExpr {
  readonly kind: "list";
  readonly id: number;
  readonly elements: readonly Expr[];
  readonly optionalIndices: readonly number[];
}

export interface MapEntry {
  readonly id: number;
  readonly key: Expr;
  readonly value: Expr;
  /** Written `{?k: v}`: the entry is present only when `v` is an optional with a value. */
  readonly optional: boolean;
}

export interface MapExpr {
  readonly kind: "map";
  readonly id: number;
  readonly entries: readonly MapEntry[];
}

export interface StructField {
  readonly id: number;
  readonly field: string;
  readonly value: Expr;
  readonly optional: boolean;
}

/**
 * Message construction `T{f: v}`. `typeName` is the name as written, dots
 * included (`Object.spec.containers`, `.google.protobuf.Int64Value`); the checker
 * resolves it against the container and the type provider.
 */
export interface StructExpr {
  readonly kind: "struct";
  readonly id: number;
  readonly typeName: string;
  readonly fields: readonly StructField[];
}

/**
 * The fold every macro expands to:
 *
 *     accu = accuInit
 *     for (iterVar[, iterVar2] in iterRange) {
 *       if (!loopCondition) break
 *       accu = loopStep
 *     }
 *     return result
 *
 * With `iterVar2` (two-variable comprehensions), over a list `iterVar` is the
 * index and `iterVar2` the element; over a map they are key and value.
 */
export interface ComprehensionExpr {
  readonly kind: "comprehension";
  readonly id: number;
  readonly iterVar: string;
  readonly iterVar2?: string;
  readonly iterRange: Expr;
  readonly accuVar: string;
  readonly accuInit: Expr;
  readonly loopCondition: Expr;
  readonly loopStep: Expr;
  readonly result: Expr;
  /**
   * Set by the parser on a macro's expansion over {@link ACCUMULATOR} when every reference to the
   * accumulator anywhere in it was made by the expander (the macro's arguments have none, its
   * target is the range): how many there are. Absent or -1: unknown.
   */
  readonly accuRefs?: number;
}

export type Expr =
  | ConstExpr
  | IdentExpr
  | SelectExpr
  | CallExpr
  | ListExpr
  | MapExpr
  | StructExpr
  | ComprehensionExpr;

/** Where each node came from, for error messages with `<input>:line:col`. */
export interface SourceInfo {
  /** The expression text as given. */
  readonly text: string;
  /** Description used in messages; cel-go uses `<input>`. */
  readonly description: string;
  /** Code-point offset of the start of each line after the first. */
  readonly lineOffsets: readonly number[];
  /** Expression id → code-point offset of the token that produced it. */
  readonly positions: ReadonlyMap<number, number>;
  /** Comprehension (or has-select) id → the macro call as written, for unparsing and errors. */
  readonly macroCalls: ReadonlyMap<number, Expr>;
}

export interface ParsedExpr {
  readonly expr: Expr;
  readonly sourceInfo: SourceInfo;
}

/** The well-known operator function names, so no stage spells them twice. */
export const Op = {
  add: "_+_",
  subtract: "_-_",
  multiply: "_*_",
  divide: "_/_",
  modulo: "_%_",
  negate: "-_",
  not: "!_",
  equals: "_==_",
  notEquals: "_!=_",
  less: "_<_",
  lessEquals: "_<=_",
  greater: "_>_",
  greaterEquals: "_>=_",
  logicalAnd: "_&&_",
  logicalOr: "_||_",
  conditional: "_?_:_",
  index: "_[_]",
  optIndex: "_[?_]",
  optSelect: "_?._",
  in: "@in",
  notStrictlyFalse: "@not_strictly_false",
} as const;

/** Name of the hidden accumulator variable in macro expansions (cel-go's `@result`). */
export const ACCUMULATOR = "@result";
