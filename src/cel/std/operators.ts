/**
 * Operators of the standard library as overload tables, with cel-go's overload
 * ids and semantics: int64 and uint64 arithmetic that fails with "integer
 * overflow" / "unsigned integer overflow" instead of wrapping, IEEE doubles,
 * "division by zero" / "modulus by zero" for integers, heterogeneous equality,
 * ordering across int, uint and double (`less_int64_double` and friends), and
 * string/bytes/list concatenation. Timestamp and duration arithmetic is in
 * `time.ts`; their ordering is here with the other relations.
 *
 * The logical operators, `_?_:_` and `@not_strictly_false` are declared without
 * implementations: the planner evaluates them itself (they are not strict).
 */
import { func, overload, type FunctionDecl, type OverloadDecl } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { checkSize, LIMITS } from "../eval-limits.js";
import { compareBytes, compareIntDouble, compareStrings, compareUintDouble, celEquals } from "../runtime/equality.js";
import {
  BOOL,
  BYTES,
  DOUBLE,
  DURATION,
  INT,
  STRING,
  TIMESTAMP,
  UINT,
  listType,
  typeParam,
  type CelType,
} from "../types.js";
import { CelDuration, CelTimestamp, CelUint, INT64_MAX, INT64_MIN, UINT64_MAX, listSemantics, type CelValue } from "../values.js";

const A = typeParam("A");
const LIST_A = listType(A);

export function intOverflow(): CelEvalError {
  return new CelEvalError("integer overflow");
}
export function uintOverflow(): CelEvalError {
  return new CelEvalError("unsigned integer overflow");
}

function checkInt(r: bigint): bigint {
  if (r > INT64_MAX || r < INT64_MIN) throw intOverflow();
  return r;
}
function checkUint(r: bigint): CelUint {
  if (r > UINT64_MAX || r < 0n) throw uintOverflow();
  return new CelUint(r);
}

export const addInt = (a: bigint, b: bigint): bigint => checkInt(a + b);
export const subInt = (a: bigint, b: bigint): bigint => checkInt(a - b);
export const mulInt = (a: bigint, b: bigint): bigint => checkInt(a * b);
export function divInt(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new CelEvalError("division by zero");
  if (b === -1n && a === INT64_MIN) throw intOverflow();
  return a / b; // truncates toward zero, as Go
}
export function modInt(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new CelEvalError("modulus by zero");
  if (b === -1n && a === INT64_MIN) throw intOverflow();
  return a % b; // sign of the dividend, as Go
}
export function negInt(a: bigint): bigint {
  if (a === INT64_MIN) throw intOverflow();
  return -a;
}

const addUint = (a: CelUint, b: CelUint): CelUint => checkUint(a.value + b.value);
const subUint = (a: CelUint, b: CelUint): CelUint => checkUint(a.value - b.value);
const mulUint = (a: CelUint, b: CelUint): CelUint => checkUint(a.value * b.value);
function divUint(a: CelUint, b: CelUint): CelUint {
  if (b.value === 0n) throw new CelEvalError("division by zero");
  return new CelUint(a.value / b.value);
}
function modUint(a: CelUint, b: CelUint): CelUint {
  if (b.value === 0n) throw new CelEvalError("modulus by zero");
  return new CelUint(a.value % b.value);
}

/** `+` on strings, under the size guard (`eval-limits.ts`). */
function concatStrings(a: string, b: string): string {
  if (a.length + b.length > LIMITS.maxSize) checkSize(a.length + b.length);
  return a + b;
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length + b.length > LIMITS.maxSize) checkSize(a.length + b.length);
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function concatLists(a: readonly CelValue[], b: readonly CelValue[]): readonly CelValue[] {
  if (a.length + b.length > LIMITS.maxSize) checkSize(a.length + b.length);
  const own = listSemantics(a); // Kubernetes set/map lists: union, merge by keys
  if (own !== undefined) return own.concat(a, b);
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return a.concat(b);
}

// ------------------------------------------------------------------ ordering

const nanError = (): CelEvalError => new CelEvalError("NaN values cannot be ordered");

function cmpDouble(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) throw nanError();
  return a < b ? -1 : a > b ? 1 : 0;
}
function cmpIntDouble(a: bigint, b: number): number {
  if (Number.isNaN(b)) throw nanError();
  return compareIntDouble(a, b);
}
function cmpDoubleInt(a: number, b: bigint): number {
  if (Number.isNaN(a)) throw nanError();
  return -compareIntDouble(b, a);
}
function cmpUintDouble(a: bigint, b: number): number {
  if (Number.isNaN(b)) throw nanError();
  return compareUintDouble(a, b);
}
const cmpBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
const cmpBool = (a: boolean, b: boolean): number => (a === b ? 0 : a ? 1 : -1);

type Cmp = (a: never, b: never) => number;

interface Rel {
  readonly suffix: string;
  readonly params: readonly [CelType, CelType];
  readonly cmp: Cmp;
  /** A direct implementation for the common case (no comparator call). */
  readonly direct?: Record<"lt" | "le" | "gt" | "ge", (a: never, b: never) => boolean>;
}

const RELATIONS: readonly Rel[] = [
  { suffix: "bool", params: [BOOL, BOOL], cmp: cmpBool as Cmp },
  {
    suffix: "int64",
    params: [INT, INT],
    cmp: cmpBig as Cmp,
    direct: {
      lt: ((a: bigint, b: bigint) => a < b) as never,
      le: ((a: bigint, b: bigint) => a <= b) as never,
      gt: ((a: bigint, b: bigint) => a > b) as never,
      ge: ((a: bigint, b: bigint) => a >= b) as never,
    },
  },
  { suffix: "int64_double", params: [INT, DOUBLE], cmp: cmpIntDouble as Cmp },
  { suffix: "int64_uint64", params: [INT, UINT], cmp: ((a: bigint, b: CelUint) => cmpBig(a, b.value)) as Cmp },
  { suffix: "uint64", params: [UINT, UINT], cmp: ((a: CelUint, b: CelUint) => cmpBig(a.value, b.value)) as Cmp },
  { suffix: "uint64_double", params: [UINT, DOUBLE], cmp: ((a: CelUint, b: number) => cmpUintDouble(a.value, b)) as Cmp },
  { suffix: "uint64_int64", params: [UINT, INT], cmp: ((a: CelUint, b: bigint) => cmpBig(a.value, b)) as Cmp },
  { suffix: "double", params: [DOUBLE, DOUBLE], cmp: cmpDouble as Cmp },
  { suffix: "double_int64", params: [DOUBLE, INT], cmp: cmpDoubleInt as Cmp },
  { suffix: "double_uint64", params: [DOUBLE, UINT], cmp: ((a: number, b: CelUint) => -cmpUintDouble(b.value, a)) as Cmp },
  {
    suffix: "string",
    params: [STRING, STRING],
    cmp: compareStrings as Cmp,
  },
  { suffix: "bytes", params: [BYTES, BYTES], cmp: compareBytes as Cmp },
  {
    suffix: "timestamp",
    params: [TIMESTAMP, TIMESTAMP],
    cmp: ((a: CelTimestamp, b: CelTimestamp) => cmpBig(a.nanos, b.nanos)) as Cmp,
  },
  {
    suffix: "duration",
    params: [DURATION, DURATION],
    cmp: ((a: CelDuration, b: CelDuration) => cmpBig(a.nanos, b.nanos)) as Cmp,
  },
];

function relation(name: string, prefix: string, key: "lt" | "le" | "gt" | "ge", test: (c: number) => boolean): FunctionDecl {
  const overloads: OverloadDecl[] = RELATIONS.map((r) => {
    const cmp = r.cmp as (a: CelValue, b: CelValue) => number;
    const impl = r.direct?.[key] ?? ((a: CelValue, b: CelValue) => test(cmp(a, b)));
    return overload(`${prefix}_${r.suffix}`, r.params, BOOL, impl as (a: CelValue, b: CelValue) => boolean);
  });
  return func(name, ...overloads);
}

export const OPERATOR_FUNCTIONS: readonly FunctionDecl[] = [
  // Non-strict operators: evaluated by the planner.
  func("_&&_", overload("logical_and", [BOOL, BOOL], BOOL)),
  func("_||_", overload("logical_or", [BOOL, BOOL], BOOL)),
  func("_?_:_", overload("conditional", [BOOL, A, A], A)),
  func("@not_strictly_false", overload("not_strictly_false", [BOOL], BOOL)),

  func("!_", overload("logical_not", [BOOL], BOOL, (a: boolean) => !a)),
  func(
    "-_",
    overload("negate_int64", [INT], INT, negInt),
    overload("negate_double", [DOUBLE], DOUBLE, (a: number) => -a),
  ),
  func("_==_", overload("equals", [A, A], BOOL, celEquals)),
  func("_!=_", overload("not_equals", [A, A], BOOL, (a: CelValue, b: CelValue) => !celEquals(a, b))),

  func(
    "_+_",
    overload("add_int64", [INT, INT], INT, addInt),
    overload("add_uint64", [UINT, UINT], UINT, addUint),
    overload("add_double", [DOUBLE, DOUBLE], DOUBLE, (a: number, b: number) => a + b),
    overload("add_string", [STRING, STRING], STRING, concatStrings),
    overload("add_bytes", [BYTES, BYTES], BYTES, concatBytes),
    overload("add_list", [LIST_A, LIST_A], LIST_A, concatLists),
  ),
  func(
    "_-_",
    overload("subtract_int64", [INT, INT], INT, subInt),
    overload("subtract_uint64", [UINT, UINT], UINT, subUint),
    overload("subtract_double", [DOUBLE, DOUBLE], DOUBLE, (a: number, b: number) => a - b),
  ),
  func(
    "_*_",
    overload("multiply_int64", [INT, INT], INT, mulInt),
    overload("multiply_uint64", [UINT, UINT], UINT, mulUint),
    overload("multiply_double", [DOUBLE, DOUBLE], DOUBLE, (a: number, b: number) => a * b),
  ),
  func(
    "_/_",
    overload("divide_int64", [INT, INT], INT, divInt),
    overload("divide_uint64", [UINT, UINT], UINT, divUint),
    overload("divide_double", [DOUBLE, DOUBLE], DOUBLE, (a: number, b: number) => a / b),
  ),
  func(
    "_%_",
    overload("modulo_int64", [INT, INT], INT, modInt),
    overload("modulo_uint64", [UINT, UINT], UINT, modUint),
  ),

  relation("_<_", "less", "lt", (c) => c < 0),
  relation("_<=_", "less_equals", "le", (c) => c <= 0),
  relation("_>_", "greater", "gt", (c) => c > 0),
  relation("_>=_", "greater_equals", "ge", (c) => c >= 0),
];
