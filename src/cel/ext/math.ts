/**
 * cel-go's math extension (`ext.Math`), by version:
 *
 * | version | adds |
 * |---|---|
 * | 0 | `math.greatest`, `math.least` (macros over `math.@max` / `math.@min`) |
 * | 1 | ceil, floor, round, trunc, isInf, isNaN, isFinite, abs, sign, bitAnd, bitOr, bitXor, bitNot, bitShiftLeft, bitShiftRight |
 * | 2 | sqrt |
 *
 * `math.greatest(...)` / `math.least(...)` are parser macros in cel-go, taken
 * only when the receiver is the identifier `math`:
 *
 * - no argument: error "math.greatest() requires at least one argument";
 * - one argument: `math.@max(arg)` when it is a non-empty list literal of
 *   numeric-ish elements or itself numeric-ish, else "math.greatest() invalid
 *   single argument value";
 * - two arguments: `math.@max(a, b)`;
 * - more: `math.@max([a, b, c, ...])`.
 *
 * With two or more arguments each must be numeric-ish, else "math.greatest()
 * simple literal arguments must be numeric". Numeric-ish: an int/uint/double
 * literal, or any expression that is not a literal, list, map or message
 * construction. (`least` likewise with `math.@min`.)
 */
import { func, overload, type FunctionDecl, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { compareNumbers } from "../runtime/equality.js";
import { BOOL, DOUBLE, DYN, INT, UINT, listType } from "../types.js";
import { CelUint, INT64_MIN, type CelValue } from "../values.js";

export const MATH_LATEST_VERSION = 2;

type Num = bigint | number | CelUint;

function isNum(v: CelValue): v is Num {
  return typeof v === "bigint" || typeof v === "number" || v instanceof CelUint;
}

/** cel-go's `Compare` between numbers, with its errors suffixed by the function name. */
function compare(a: CelValue, b: CelValue, fn: string): number {
  if (!isNum(a)) throw new CelEvalError("no such overload");
  if (!isNum(b)) throw new CelEvalError(`no such overload: ${fn}`);
  if ((typeof a === "number" && Number.isNaN(a)) || (typeof b === "number" && Number.isNaN(b))) {
    throw new CelEvalError(`NaN values cannot be ordered: ${fn}`);
  }
  return compareNumbers(a, b);
}

export function minPair(a: CelValue, b: CelValue): CelValue {
  return compare(a, b, "math.@min") === 1 ? b : a;
}

export function maxPair(a: CelValue, b: CelValue): CelValue {
  return compare(a, b, "math.@max") === -1 ? b : a;
}

function fold(list: readonly CelValue[], pair: (a: CelValue, b: CelValue) => CelValue, fn: string): CelValue {
  if (list.length === 0) throw new CelEvalError(`${fn}(list) argument must not be empty`);
  let acc: CelValue = list[0] as CelValue;
  for (let i = 1; i < list.length; i++) acc = pair(acc, list[i]!);
  if (!isNum(acc)) throw new CelEvalError(`no such overload: ${fn}`);
  return acc;
}

export const minList = (l: readonly CelValue[]) => fold(l, minPair, "math.@min");
export const maxList = (l: readonly CelValue[]) => fold(l, maxPair, "math.@max");

/** Go's `math.Round`: half away from zero. */
export function roundHalfAway(x: number): number {
  if (!Number.isFinite(x)) return x;
  let t = Math.trunc(x);
  if (Math.abs(x - t) >= 0.5) t += Math.sign(x);
  return t === 0 ? (Object.is(x, -0) || x < 0 ? -0 : 0) : t;
}

export function absInt(v: bigint): bigint {
  if (v === INT64_MIN) throw new CelEvalError("integer overflow");
  return v < 0n ? -v : v;
}

function negativeOffset(fn: string, bits: bigint): CelEvalError {
  return new CelEvalError(`math.${fn}() negative offset: ${bits}`);
}

function shiftLeft(v: bigint, bits: bigint): bigint {
  return bits >= 64n ? 0n : v << bits;
}

function shiftRight(v: bigint, bits: bigint): bigint {
  return bits >= 64n ? 0n : v >> bits;
}

function minMaxOverloads(name: "min" | "max", pair: (a: CelValue, b: CelValue) => CelValue, list: (l: readonly CelValue[]) => CelValue) {
  const id = (suffix: string) => `math_@${name}_${suffix}`;
  const ident = (v: CelValue) => v;
  const nums: [string, typeof INT][] = [
    ["double", DOUBLE],
    ["int", INT],
    ["uint", UINT],
  ];
  return [
    ...nums.map(([n, t]) => overload(id(n), [t], t, ident)),
    ...nums.map(([n, t]) => overload(id(`${n}_${n}`), [t, t], t, pair)),
    overload(id("int_uint"), [INT, UINT], DYN, pair),
    overload(id("int_double"), [INT, DOUBLE], DYN, pair),
    overload(id("double_int"), [DOUBLE, INT], DYN, pair),
    overload(id("double_uint"), [DOUBLE, UINT], DYN, pair),
    overload(id("uint_int"), [UINT, INT], DYN, pair),
    overload(id("uint_double"), [UINT, DOUBLE], DYN, pair),
    ...nums.map(([n, t]) => overload(id(`list_${n}`), [listType(t)], t, list)),
  ];
}

/** The math extension at `version` (not part of the Kubernetes environment). */
export function mathLibrary(version: number = MATH_LATEST_VERSION): Library {
  const functions: FunctionDecl[] = [
    func("math.@min", ...minMaxOverloads("min", minPair, minList)),
    func("math.@max", ...minMaxOverloads("max", maxPair, maxList)),
  ];
  if (version >= 1) {
    functions.push(
      func("math.ceil", overload("math_ceil_double", [DOUBLE], DOUBLE, Math.ceil)),
      func("math.floor", overload("math_floor_double", [DOUBLE], DOUBLE, Math.floor)),
      func("math.round", overload("math_round_double", [DOUBLE], DOUBLE, roundHalfAway)),
      func("math.trunc", overload("math_trunc_double", [DOUBLE], DOUBLE, Math.trunc)),
      func("math.isInf", overload("math_isInf_double", [DOUBLE], BOOL, (x: number) => x === Infinity || x === -Infinity)),
      func("math.isNaN", overload("math_isNaN_double", [DOUBLE], BOOL, (x: number) => Number.isNaN(x))),
      func("math.isFinite", overload("math_isFinite_double", [DOUBLE], BOOL, (x: number) => Number.isFinite(x))),
      func(
        "math.abs",
        overload("math_abs_double", [DOUBLE], DOUBLE, Math.abs),
        overload("math_abs_int", [INT], INT, absInt),
        overload("math_abs_uint", [UINT], UINT, (v: CelUint) => v),
      ),
      func(
        "math.sign",
        overload("math_sign_double", [DOUBLE], DOUBLE, (x: number) => (Number.isNaN(x) ? x : x > 0 ? 1 : x < 0 ? -1 : 0)),
        overload("math_sign_int", [INT], INT, (v: bigint) => (v > 0n ? 1n : v < 0n ? -1n : 0n)),
        overload("math_sign_uint", [UINT], UINT, (v: CelUint) => new CelUint(v.value === 0n ? 0n : 1n)),
      ),
      func(
        "math.bitAnd",
        overload("math_bitAnd_int_int", [INT, INT], INT, (a: bigint, b: bigint) => a & b),
        overload("math_bitAnd_uint_uint", [UINT, UINT], UINT, (a: CelUint, b: CelUint) => new CelUint(a.value & b.value)),
      ),
      func(
        "math.bitOr",
        overload("math_bitOr_int_int", [INT, INT], INT, (a: bigint, b: bigint) => a | b),
        overload("math_bitOr_uint_uint", [UINT, UINT], UINT, (a: CelUint, b: CelUint) => new CelUint(a.value | b.value)),
      ),
      func(
        "math.bitXor",
        overload("math_bitXor_int_int", [INT, INT], INT, (a: bigint, b: bigint) => a ^ b),
        overload("math_bitXor_uint_uint", [UINT, UINT], UINT, (a: CelUint, b: CelUint) => new CelUint(a.value ^ b.value)),
      ),
      func(
        "math.bitNot",
        overload("math_bitNot_int_int", [INT], INT, (a: bigint) => ~a),
        overload("math_bitNot_uint_uint", [UINT], UINT, (a: CelUint) => new CelUint(BigInt.asUintN(64, ~a.value))),
      ),
      func(
        "math.bitShiftLeft",
        overload("math_bitShiftLeft_int_int", [INT, INT], INT, (v: bigint, bits: bigint) => {
          if (bits < 0n) throw negativeOffset("bitShiftLeft", bits);
          return BigInt.asIntN(64, shiftLeft(v, bits));
        }),
        overload("math_bitShiftLeft_uint_int", [UINT, INT], UINT, (v: CelUint, bits: bigint) => {
          if (bits < 0n) throw negativeOffset("bitShiftLeft", bits);
          return new CelUint(BigInt.asUintN(64, shiftLeft(v.value, bits)));
        }),
      ),
      func(
        "math.bitShiftRight",
        overload("math_bitShiftRight_int_int", [INT, INT], INT, (v: bigint, bits: bigint) => {
          if (bits < 0n) throw negativeOffset("bitShiftRight", bits);
          // Logical shift: cel-go shifts the value as a uint64.
          return BigInt.asIntN(64, shiftRight(BigInt.asUintN(64, v), bits));
        }),
        overload("math_bitShiftRight_uint_int", [UINT, INT], UINT, (v: CelUint, bits: bigint) => {
          if (bits < 0n) throw negativeOffset("bitShiftRight", bits);
          return new CelUint(shiftRight(v.value, bits));
        }),
      ),
    );
  }
  if (version >= 2) {
    functions.push(
      func(
        "math.sqrt",
        overload("math_sqrt_double", [DOUBLE], DOUBLE, Math.sqrt),
        overload("math_sqrt_int", [INT], DOUBLE, (v: bigint) => Math.sqrt(Number(v))),
        overload("math_sqrt_uint", [UINT], DOUBLE, (v: CelUint) => Math.sqrt(Number(v.value))),
      ),
    );
  }
  return { name: "cel.lib.ext.math", functions, macros: ["math"] };
}
