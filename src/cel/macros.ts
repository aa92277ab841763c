/**
 * Macro expansion, done by the parser exactly as cel-go does it: a call that
 * matches a macro (by name, argument count and receiver style) is replaced by
 * the expression the macro builds, usually a comprehension over the hidden
 * accumulator `@result`. The families:
 *
 * - "standard" (cel-go `parser.AllMacros`): `has`, `all`, `exists`,
 *   `exists_one`, `existsOne`, `map` (2 and 3 arguments), `filter`;
 * - "twoVar" (cel-go `ext.TwoVarComprehensions`): `all`, `exists`,
 *   `existsOne`, `exists_one` with two iteration variables, `transformList`,
 *   `transformMap`, `transformMapEntry` (3 and 4 arguments);
 * - "optional" (cel-go `OptionalTypes`): `optMap`, `optFlatMap`;
 * - "bind" (cel-go `ext.Bindings`): `cel.bind(var, init, expr)`;
 * - "lists" (cel-go `ext.Lists`, version 2+): `sortBy(x, key)`;
 * - "math" (cel-go `ext.Math`): `math.greatest(...)`, `math.least(...)`.
 */
import { ACCUMULATOR, type Expr, Op } from "./ast.js";
import type { MacroSet } from "./decls.js";

/** cel-go's legacy accumulator name, still rejected as an iteration variable. */
const LEGACY_ACCUMULATOR = "__result__";
/** The iteration variable of the single-pass comprehensions built by `cel.bind`, `optMap` and `optFlatMap`. */
const UNUSED_ITER_VAR = "#unused";

/**
 * Node factory handed to expanders. New nodes get fresh ids positioned at the
 * macro call; {@link copy} keeps each copied node's original position.
 */
export interface MacroHelper {
  ident(name: string): Expr;
  accu(): Expr;
  bool(value: boolean): Expr;
  int(value: bigint): Expr;
  list(elements: readonly Expr[]): Expr;
  emptyMap(): Expr;
  call(fn: string, args: readonly Expr[]): Expr;
  memberCall(fn: string, target: Expr, args: readonly Expr[]): Expr;
  presenceTest(operand: Expr, field: string): Expr;
  comprehension(
    iterRange: Expr,
    iterVar: string,
    iterVar2: string | undefined,
    accuVar: string,
    accuInit: Expr,
    loopCondition: Expr,
    loopStep: Expr,
    result: Expr,
  ): Expr;
  copy(expr: Expr): Expr;
}

/** A macro whose arguments are malformed: the message is reported at `at`'s position. */
export interface MacroError {
  readonly kind: "macroError";
  readonly at: Expr;
  readonly message: string;
}

/** Result of an expander: the expansion, an error, or `undefined` to leave the call as it is. */
export type MacroResult = Expr | MacroError | undefined;

export type MacroExpander = (h: MacroHelper, target: Expr | undefined, args: readonly Expr[]) => MacroResult;

export interface MacroDef {
  readonly name: string;
  readonly argCount: number;
  readonly receiver: boolean;
  readonly expand: MacroExpander;
}

function err(at: Expr, message: string): MacroError {
  return { kind: "macroError", at, message };
}

function isAccumulatorName(name: string): boolean {
  return name === ACCUMULATOR || name === LEGACY_ACCUMULATOR;
}

// ---------------------------------------------------------------------------
// standard

function expandHas(h: MacroHelper, _target: Expr | undefined, args: readonly Expr[]): MacroResult {
  const arg = args[0] as Expr;
  if (arg.kind === "select") return h.presenceTest(arg.operand, arg.field);
  return err(arg, "invalid argument to has() macro");
}

const enum Quantifier {
  All,
  Exists,
  ExistsOne,
}

/**
 * The fold of a quantifier over `range` (its nodes made in cel-go's order, which fixes their ids:
 * JavaScript evaluates the arguments left to right; no array of parts in between).
 */
function quantifierFold(
  h: MacroHelper,
  kind: Quantifier,
  range: Expr,
  iterVar: string,
  iterVar2: string | undefined,
  predicate: Expr,
): Expr {
  switch (kind) {
    case Quantifier.All:
      return h.comprehension(
        range,
        iterVar,
        iterVar2,
        ACCUMULATOR,
        h.bool(true),
        h.call(Op.notStrictlyFalse, [h.accu()]),
        h.call(Op.logicalAnd, [h.accu(), predicate]),
        h.accu(),
      );
    case Quantifier.Exists:
      return h.comprehension(
        range,
        iterVar,
        iterVar2,
        ACCUMULATOR,
        h.bool(false),
        h.call(Op.notStrictlyFalse, [h.call(Op.not, [h.accu()])]),
        h.call(Op.logicalOr, [h.accu(), predicate]),
        h.accu(),
      );
    case Quantifier.ExistsOne:
      return h.comprehension(
        range,
        iterVar,
        iterVar2,
        ACCUMULATOR,
        h.int(0n),
        h.bool(true),
        h.call(Op.conditional, [predicate, h.call(Op.add, [h.accu(), h.int(1n)]), h.accu()]),
        h.call(Op.equals, [h.accu(), h.int(1n)]),
      );
  }
}

function quantifier(kind: Quantifier): MacroExpander {
  return (h, target, args) => {
    const v = args[0] as Expr;
    if (v.kind !== "ident") return err(v, "argument must be a simple name");
    if (isAccumulatorName(v.name)) return err(v, "iteration variable overwrites accumulator variable");
    return quantifierFold(h, kind, target as Expr, v.name, undefined, args[1] as Expr);
  };
}

function expandMap(h: MacroHelper, target: Expr | undefined, args: readonly Expr[]): MacroResult {
  const v = args[0] as Expr;
  if (v.kind !== "ident") return err(v, "argument is not an identifier");
  if (isAccumulatorName(v.name)) return err(v, "iteration variable overwrites accumulator variable");
  const filter = args.length === 3 ? args[1] : undefined;
  const fn = args[args.length - 1] as Expr;
  const init = h.list([]);
  const cond = h.bool(true);
  let step = h.call(Op.add, [h.accu(), h.list([fn])]);
  if (filter !== undefined) step = h.call(Op.conditional, [filter, step, h.accu()]);
  return h.comprehension(target as Expr, v.name, undefined, ACCUMULATOR, init, cond, step, h.accu());
}

function expandFilter(h: MacroHelper, target: Expr | undefined, args: readonly Expr[]): MacroResult {
  const v = args[0] as Expr;
  if (v.kind !== "ident") return err(v, "argument is not an identifier");
  if (isAccumulatorName(v.name)) return err(v, "iteration variable overwrites accumulator variable");
  const init = h.list([]);
  const cond = h.bool(true);
  let step = h.call(Op.add, [h.accu(), h.list([v])]);
  step = h.call(Op.conditional, [args[1] as Expr, step, h.accu()]);
  return h.comprehension(target as Expr, v.name, undefined, ACCUMULATOR, init, cond, step, h.accu());
}

// ---------------------------------------------------------------------------
// twoVar

function iterVars(a0: Expr, a1: Expr): [string, string] | MacroError {
  if (a0.kind !== "ident") return err(a0, "argument must be a simple name");
  if (a1.kind !== "ident") return err(a1, "argument must be a simple name");
  if (a0.name === a1.name) return err(a1, `duplicate variable name: ${a0.name}`);
  if (isAccumulatorName(a0.name)) return err(a0, "iteration variable overwrites accumulator variable");
  if (isAccumulatorName(a1.name)) return err(a1, "iteration variable overwrites accumulator variable");
  return [a0.name, a1.name];
}

function quantifier2(kind: Quantifier): MacroExpander {
  return (h, target, args) => {
    const vars = iterVars(args[0] as Expr, args[1] as Expr);
    if (!Array.isArray(vars)) return vars;
    return quantifierFold(h, kind, target as Expr, vars[0], vars[1], args[2] as Expr);
  };
}

const MAP_INSERT = "cel.@mapInsert";

function transform(shape: "list" | "map" | "mapEntry"): MacroExpander {
  return (h, target, args) => {
    const vars = iterVars(args[0] as Expr, args[1] as Expr);
    if (!Array.isArray(vars)) return vars;
    const filter = args.length === 4 ? args[2] : undefined;
    const fn = args[args.length - 1] as Expr;
    let step: Expr;
    if (shape === "list") step = h.call(Op.add, [h.accu(), h.list([fn])]);
    else if (shape === "map") step = h.call(MAP_INSERT, [h.accu(), h.ident(vars[0]), fn]);
    else step = h.call(MAP_INSERT, [h.accu(), fn]);
    if (filter !== undefined) step = h.call(Op.conditional, [filter, step, h.accu()]);
    const init = shape === "list" ? h.list([]) : h.emptyMap();
    return h.comprehension(target as Expr, vars[0], vars[1], ACCUMULATOR, init, h.bool(true), step, h.accu());
  };
}

// ---------------------------------------------------------------------------
// optional

function optMap(flat: boolean): MacroExpander {
  const name = flat ? "optFlatMap" : "optMap";
  return (h, target, args) => {
    const v = args[0] as Expr;
    if (v.kind !== "ident") return err(v, `${name}() variable name must be a simple identifier`);
    const t = target as Expr;
    const hasValue = h.memberCall("hasValue", t, []);
    const body = h.comprehension(
      h.list([]),
      UNUSED_ITER_VAR,
      undefined,
      v.name,
      h.memberCall("value", h.copy(t), []),
      h.bool(false),
      h.ident(v.name),
      args[1] as Expr,
    );
    // cel-go builds the arguments in this order, which fixes the ids.
    const present = flat ? body : h.call("optional.of", [body]);
    return h.call(Op.conditional, [hasValue, present, h.call("optional.none", [])]);
  };
}

// ---------------------------------------------------------------------------
// bind

function expandBind(h: MacroHelper, target: Expr | undefined, args: readonly Expr[]): MacroResult {
  if (target === undefined || target.kind !== "ident" || target.name !== "cel") return undefined;
  const v = args[0] as Expr;
  if (v.kind !== "ident") return err(v, "cel.bind() variable names must be simple identifiers");
  return h.comprehension(
    h.list([]),
    UNUSED_ITER_VAR,
    undefined,
    v.name,
    args[1] as Expr,
    h.bool(false),
    h.ident(v.name),
    args[2] as Expr,
  );
}

// ---------------------------------------------------------------------------
// lists: sortBy

/** The accumulator `sortBy` binds its target to (cel-go's name, so ASTs print alike). */
const SORT_BY_INPUT = "@__sortBy_input__";

/**
 * `target.sortBy(x, key)` → bind `@__sortBy_input__` to the target, then
 * `@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(x, key))`.
 */
function expandSortBy(h: MacroHelper, target: Expr | undefined, args: readonly Expr[]): MacroResult {
  const t = target as Expr;
  if (t.kind !== "list" && t.kind !== "select" && t.kind !== "ident" && t.kind !== "comprehension" && t.kind !== "call") {
    return err(t, "sortBy can only be applied to a list, identifier, comprehension, call or select expression");
  }
  const keys = expandMap(h, h.ident(SORT_BY_INPUT), args);
  if (keys === undefined || keys.kind === "macroError") return keys;
  const sorted = h.memberCall("@sortByAssociatedKeys", h.ident(SORT_BY_INPUT), [keys]);
  return h.comprehension(h.list([]), UNUSED_ITER_VAR, undefined, SORT_BY_INPUT, t, h.bool(false), h.ident(SORT_BY_INPUT), sorted);
}

// ---------------------------------------------------------------------------
// math: greatest, least

/** cel-go's test for a macro argument that may be numeric: a number literal, or anything but a literal or aggregate. */
function isNumericArg(e: Expr): boolean {
  switch (e.kind) {
    case "const":
      return e.value.kind === "int" || e.value.kind === "uint" || e.value.kind === "double";
    case "list":
    case "map":
    case "struct":
      return false;
    default:
      return true;
  }
}

function mathExtreme(name: "greatest" | "least"): MacroExpander {
  const fn = name === "greatest" ? "math.@max" : "math.@min";
  const label = `math.${name}()`;
  return (h, target, args) => {
    if (target === undefined || target.kind !== "ident" || target.name !== "math") return undefined;
    if (args.length === 0) return err(target, `${label} requires at least one argument`);
    if (args.length === 1) {
      const a = args[0] as Expr;
      const numericList = a.kind === "list" && a.elements.length > 0 && a.elements.every(isNumericArg);
      if (numericList || isNumericArg(a)) return h.call(fn, [a]);
      return err(a, `${label} invalid single argument value`);
    }
    for (const a of args) if (!isNumericArg(a)) return err(a, `${label} simple literal arguments must be numeric`);
    return args.length === 2 ? h.call(fn, args) : h.call(fn, [h.list(args)]);
  };
}

// ---------------------------------------------------------------------------

/** `argCount` of a macro that takes any number of arguments. */
const VARIADIC = -1;

const STANDARD: readonly MacroDef[] = [
  { name: "has", argCount: 1, receiver: false, expand: expandHas },
  { name: "all", argCount: 2, receiver: true, expand: quantifier(Quantifier.All) },
  { name: "exists", argCount: 2, receiver: true, expand: quantifier(Quantifier.Exists) },
  { name: "exists_one", argCount: 2, receiver: true, expand: quantifier(Quantifier.ExistsOne) },
  { name: "existsOne", argCount: 2, receiver: true, expand: quantifier(Quantifier.ExistsOne) },
  { name: "map", argCount: 2, receiver: true, expand: expandMap },
  { name: "map", argCount: 3, receiver: true, expand: expandMap },
  { name: "filter", argCount: 2, receiver: true, expand: expandFilter },
];

const TWO_VAR: readonly MacroDef[] = [
  { name: "all", argCount: 3, receiver: true, expand: quantifier2(Quantifier.All) },
  { name: "exists", argCount: 3, receiver: true, expand: quantifier2(Quantifier.Exists) },
  { name: "existsOne", argCount: 3, receiver: true, expand: quantifier2(Quantifier.ExistsOne) },
  { name: "exists_one", argCount: 3, receiver: true, expand: quantifier2(Quantifier.ExistsOne) },
  { name: "transformList", argCount: 3, receiver: true, expand: transform("list") },
  { name: "transformList", argCount: 4, receiver: true, expand: transform("list") },
  { name: "transformMap", argCount: 3, receiver: true, expand: transform("map") },
  { name: "transformMap", argCount: 4, receiver: true, expand: transform("map") },
  { name: "transformMapEntry", argCount: 3, receiver: true, expand: transform("mapEntry") },
  { name: "transformMapEntry", argCount: 4, receiver: true, expand: transform("mapEntry") },
];

const OPTIONAL: readonly MacroDef[] = [
  { name: "optMap", argCount: 2, receiver: true, expand: optMap(false) },
  { name: "optFlatMap", argCount: 2, receiver: true, expand: optMap(true) },
];

const BIND: readonly MacroDef[] = [{ name: "bind", argCount: 3, receiver: true, expand: expandBind }];

const LISTS: readonly MacroDef[] = [{ name: "sortBy", argCount: 2, receiver: true, expand: expandSortBy }];

const MATH: readonly MacroDef[] = [
  { name: "greatest", argCount: VARIADIC, receiver: true, expand: mathExtreme("greatest") },
  { name: "least", argCount: VARIADIC, receiver: true, expand: mathExtreme("least") },
];

const FAMILIES: Readonly<Record<MacroSet, readonly MacroDef[]>> = {
  standard: STANDARD,
  twoVar: TWO_VAR,
  optional: OPTIONAL,
  bind: BIND,
  lists: LISTS,
  math: MATH,
};

/** Macros by function name. */
export type MacroTable = ReadonlyMap<string, readonly MacroDef[]>;

const EMPTY_TABLE: MacroTable = new Map();
const tableCache = new WeakMap<ReadonlySet<MacroSet>, { size: number; table: MacroTable }>();
const tableByKey = new Map<string, MacroTable>();
/** The set looked up last, with its size then and its table (parses come in runs against one environment). */
const LAST_TABLE: { sets: ReadonlySet<MacroSet> | undefined; size: number; table: MacroTable } = { sets: undefined, size: 0, table: EMPTY_TABLE };
const FAMILY_ORDER = ["standard", "twoVar", "optional", "bind", "lists", "math"] as const;

/** The lookup table for a set of macro families (cached per set). */
export function macroTable(sets: ReadonlySet<MacroSet> | undefined): MacroTable {
  if (sets === undefined || sets.size === 0) return EMPTY_TABLE;
  if (LAST_TABLE.sets === sets && LAST_TABLE.size === sets.size) return LAST_TABLE.table;
  const cached = tableCache.get(sets);
  // Sets are not expected to change after use; the size check catches the common way they do.
  if (cached !== undefined && cached.size === sets.size) {
    LAST_TABLE.sets = sets;
    LAST_TABLE.size = sets.size;
    LAST_TABLE.table = cached.table;
    return cached.table;
  }
  const key = FAMILY_ORDER.filter((s) => sets.has(s)).join(",");
  let table = tableByKey.get(key);
  if (table === undefined) {
    const m = new Map<string, MacroDef[]>();
    for (const s of FAMILY_ORDER) {
      if (!sets.has(s)) continue;
      for (const def of FAMILIES[s]) {
        const list = m.get(def.name);
        if (list === undefined) m.set(def.name, [def]);
        else list.push(def);
      }
    }
    table = m;
    tableByKey.set(key, table);
  }
  tableCache.set(sets, { size: sets.size, table });
  return table;
}

/** The macro matching a call, if any. */
export function findMacro(table: MacroTable, name: string, argCount: number, receiver: boolean): MacroDef | undefined {
  return matchMacro(table.get(name), argCount, receiver);
}

/** Of the macros of one name (a {@link MacroTable} entry), the one matching a call, if any. */
export function matchMacro(defs: readonly MacroDef[] | undefined, argCount: number, receiver: boolean): MacroDef | undefined {
  if (defs === undefined) return undefined;
  for (let i = 0; i < defs.length; i++) {
    const d = defs[i] as MacroDef;
    if ((d.argCount === argCount || d.argCount === VARIADIC) && d.receiver === receiver) return d;
  }
  return undefined;
}
