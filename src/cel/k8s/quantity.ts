/**
 * The Kubernetes quantity library (`kubernetes.quantity`, Kubernetes 1.28+):
 * `quantity(string)`, `isQuantity(string)`, `sign(Quantity)` and the Quantity
 * methods `isGreaterThan`, `isLessThan`, `compareTo`, `asApproximateFloat`,
 * `asInteger`, `isInteger`, `add`, `sub`, as `k8s.io/apiserver/pkg/cel/library/quantity.go`
 * declares them, over a model of `k8s.io/apimachinery/pkg/api/resource.Quantity`.
 *
 * The model keeps Go's two representations, because results depend on them:
 * a quantity is either an `int64Amount` (an int64 `value` times 10^`scale`) or
 * an `inf.Dec` (a big `unscaled` times 10^-`scale`). `asInteger`/`isInteger`
 * succeed only for the int64 form (`quantity("1.5Ki")` is 1536 held as a Dec,
 * so it is not an "integer"), and `asApproximateFloat` multiplies the
 * representation's mantissa by Go's `math.Pow10` of its exponent.
 *
 * Go's aliasing is modelled too:
 * - `Quantity.Cmp` converts its receiver to the Dec form in place when either
 *   side is a Dec, so `x.compareTo(y)` can turn `x` into a Dec (after which
 *   `x.isInteger()` is false), exactly as in Kubernetes.
 * - Kubernetes 1.36 (`k8s.io/apiserver` v0.36) copies the receiver of
 *   `add`/`sub` shallowly (`copy := *q`), so when the receiver holds a Dec the
 *   result shares it and the receiver is changed as well. Later versions use
 *   `DeepCopy`. {@link quantityLibrary} takes the behaviour as an option;
 *   {@link QUANTITY_LIBRARY} is the 1.36 one.
 * - `quantity()` returns a `Quantity` value while `add`/`sub` return a pointer
 *   (`*Quantity`), and `Quantity.Equal` accepts only values: `q == x.add(y)`
 *   is a "no such overload" error when the right-hand side came from
 *   `add`/`sub`, while `x.add(y) == q` compares. (Known difference: inside
 *   list equality cel-go treats that error as "equal", and `in` treats it as
 *   "not found"; here the error propagates from both.)
 *
 * Equality (`==`) is by value (`Cmp == 0`): `quantity("1000m") == quantity("1")`.
 * There is no `string(Quantity)` in CEL; {@link Quantity.toString} gives Go's
 * `String()` (canonical form) for hosts converting a quantity to JSON.
 */
import { func, memberOverload, overload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { BOOL, DOUBLE, INT, STRING, opaqueType } from "../types.js";
import { CelObject, INT64_MAX, INT64_MIN, type CelValue } from "../values.js";
import {
  FIXED_1,
  STRING_TRAVERSAL_COST_FACTOR,
  UNKNOWN_SIZE,
  actualSize,
  multiplyByCostFactor,
  scaleRange,
  type CostEntry,
} from "./cost-model.js";

export const QUANTITY_TYPE = opaqueType("kubernetes.Quantity");

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

// ---------------------------------------------------------------------------
// int64 helpers (resource/math.go): every "ok" result is an exact int64 range check.

const inInt64 = (x: bigint): boolean => x >= INT64_MIN && x <= INT64_MAX;
/** Go's two's-complement negation of an int64 (`-mostNegative == mostNegative`). */
const negWrap = (x: bigint): bigint => (x === INT64_MIN ? INT64_MIN : -x);

const POW10_CACHE: bigint[] = [];
function pow10(n: number): bigint {
  if (n < 64) {
    let v = POW10_CACHE[n];
    if (v === undefined) POW10_CACHE[n] = v = 10n ** BigInt(n);
    return v;
  }
  return 10n ** BigInt(n);
}

/** `positiveScaleInt64`: base × 10^scale (scale ≥ 0), or undefined on overflow. */
function positiveScaleInt64(base: bigint, scale: number): bigint | undefined {
  if (scale === 0 || base === 0n) return base;
  if (scale > 19) return undefined;
  const r = base * pow10(scale);
  return inInt64(r) ? r : undefined;
}

/** `negativeScaleInt64`: base ÷ 10^scale rounded away from zero; `exact` when nothing was lost. */
function negativeScaleInt64(base: bigint, scale: number): { result: bigint; exact: boolean } {
  if (scale === 0) return { result: base, exact: true };
  if (scale > 19) {
    if (base === 0n) return { result: 0n, exact: true };
    return { result: base > 0n ? 1n : -1n, exact: false };
  }
  const d = pow10(scale);
  const q = base / d;
  const fraction = base % d !== 0n;
  if (!fraction) return { result: q, exact: true };
  return { result: base > 0n ? q + 1n : q - 1n, exact: false };
}

/** `divideByScaleInt64` (scale > 0). */
function divideByScaleInt64(base: bigint, scale: number): { result: bigint; remainder: bigint; exact: boolean } {
  if (scale === 0) return { result: base, remainder: 0n, exact: true };
  if (scale >= 18) return { result: 0n, remainder: base, exact: false };
  const d = pow10(scale);
  return { result: base / d, remainder: base % d, exact: true };
}

/** `removeInt64Factors`. */
function removeInt64Factors(value: bigint, base: bigint): { result: bigint; times: number } {
  if (value === INT64_MIN) return { result: value, times: 0 };
  let result = value < 0n ? -value : value;
  let times = 0;
  while (result >= base && result % base === 0n) {
    times++;
    result /= base;
  }
  return { result: value < 0n ? -result : result, times };
}

/** `removeBigIntFactors`. */
function removeBigIntFactors(d: bigint, factor: bigint): { result: bigint; times: number } {
  let times = 0;
  while (d !== 0n && d % factor === 0n) {
    d /= factor;
    times++;
  }
  return { result: d, times };
}

// ---------------------------------------------------------------------------
// int64Amount (resource/amount.go): value × 10^scale. Immutable here; Go copies it by value.

interface Int64Amount {
  readonly value: bigint;
  readonly scale: number;
}
const ZERO_AMOUNT: Int64Amount = { value: 0n, scale: 0 };

function amountSign(a: Int64Amount): number {
  return a.value === 0n ? 0 : a.value > 0n ? 1 : -1;
}

function amountAsInt64(a: Int64Amount): bigint | undefined {
  if (a.scale === 0) return a.value;
  if (a.scale < 0) return undefined;
  return positiveScaleInt64(a.value, a.scale);
}

function amountAsScaledInt64(a: Int64Amount, scale: number): bigint | undefined {
  if (a.scale < scale) return negativeScaleInt64(a.value, scale - a.scale).result;
  return positiveScaleInt64(a.value, a.scale - scale);
}

function amountAsDec(a: Int64Amount): Dec {
  return new Dec(a.value, -a.scale);
}

function amountCmp(a: Int64Amount, b: Int64Amount): number {
  let av = a.value;
  let bv = b.value;
  if (a.scale > b.scale) {
    const r = divideByScaleInt64(b.value, a.scale - b.scale);
    if (!r.exact) return decCmp(amountAsDec(a), amountAsDec(b));
    if (r.result === a.value) return r.remainder === 0n ? 0 : r.remainder > 0n ? -1 : 1;
    bv = r.result;
  } else if (a.scale < b.scale) {
    const r = divideByScaleInt64(a.value, b.scale - a.scale);
    if (!r.exact) return decCmp(amountAsDec(a), amountAsDec(b));
    if (r.result === b.value) return r.remainder === 0n ? 0 : r.remainder > 0n ? 1 : -1;
    av = r.result;
  }
  return av === bv ? 0 : av < bv ? -1 : 1;
}

/** `int64Amount.Add`: the sum, or undefined when it does not fit (Go then falls back to Dec). */
function amountAdd(a: Int64Amount, b: Int64Amount): Int64Amount | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return { value: b.value, scale: b.scale };
  if (a.scale === b.scale) {
    const c = a.value + b.value;
    return inInt64(c) ? { value: c, scale: a.scale } : undefined;
  }
  if (a.scale > b.scale) {
    const c0 = positiveScaleInt64(a.value, a.scale - b.scale);
    if (c0 === undefined) return undefined;
    const c = c0 + b.value;
    return inInt64(c) ? { value: c, scale: b.scale } : undefined;
  }
  const c0 = positiveScaleInt64(b.value, b.scale - a.scale);
  if (c0 === undefined) return undefined;
  const c = a.value + c0;
  return inInt64(c) ? { value: c, scale: a.scale } : undefined;
}

function amountAsScale(a: Int64Amount, scale: number): { amount: Int64Amount; exact: boolean } {
  if (a.scale >= scale) return { amount: a, exact: true };
  const r = negativeScaleInt64(a.value, scale - a.scale);
  return { amount: { value: r.result, scale }, exact: r.exact };
}

function amountCanonical(a: Int64Amount): { number: string; exponent: number } {
  let { result: amount, times } = removeInt64Factors(a.value, 10n);
  let exponent = a.scale + times;
  switch (exponent % 3) {
    case 1:
    case -2: {
      const m = amount * 10n;
      if (!inInt64(m)) return decCanonical(amountAsDec(a));
      amount = m;
      exponent -= 1;
      break;
    }
    case 2:
    case -1: {
      const m = amount * 100n;
      if (!inInt64(m)) return decCanonical(amountAsDec(a));
      amount = m;
      exponent -= 2;
      break;
    }
  }
  return { number: amount.toString(), exponent };
}

function amountCanonicalBase1024(a: Int64Amount): { number: string; exponent: number } {
  const value = amountAsScaledInt64(a, 0);
  if (value === undefined) return decCanonicalBase1024(amountAsDec(a));
  const { result, times } = removeInt64Factors(value, 1024n);
  return { number: result.toString(), exponent: times };
}

// ---------------------------------------------------------------------------
// inf.Dec: unscaled × 10^-scale. Mutable, because Go shares *inf.Dec between quantity copies.

export class Dec {
  constructor(
    public unscaled: bigint,
    public scale: number,
  ) {}
}

function digitCount(x: bigint): number {
  return (x < 0n ? -x : x).toString().length;
}

function decSign(d: Dec): number {
  return d.unscaled === 0n ? 0 : d.unscaled > 0n ? 1 : -1;
}

/** Value comparison; avoids materialising 10^n for operands whose magnitudes differ a lot. */
function decCmp(x: Dec, y: Dec): number {
  const sx = decSign(x);
  const sy = decSign(y);
  if (sx !== sy) return sx < sy ? -1 : 1;
  if (sx === 0) return 0;
  // Order of magnitude: |v| is in [10^(m-1), 10^m) with m = digits - scale.
  const mx = digitCount(x.unscaled) - x.scale;
  const my = digitCount(y.unscaled) - y.scale;
  if (mx !== my) return (mx < my ? -1 : 1) * sx;
  const [a, b] = upscale(x, y);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Both unscaled values at the larger scale (inf's `upscale`). */
function upscale(x: Dec, y: Dec): [bigint, bigint, number] {
  if (x.scale === y.scale) return [x.unscaled, y.unscaled, x.scale];
  if (x.scale > y.scale) return [x.unscaled, y.unscaled * pow10(x.scale - y.scale), x.scale];
  return [x.unscaled * pow10(y.scale - x.scale), y.unscaled, y.scale];
}

/** `inf.Dec.Round(x, s, inf.RoundUp)`: to scale `s`, rounding away from zero. */
function decRoundUp(x: Dec, s: number): Dec {
  const shift = s - x.scale;
  if (shift >= 0) return new Dec(x.unscaled * pow10(shift), s);
  const k = -shift;
  if (x.unscaled === 0n) return new Dec(0n, s);
  if (k > digitCount(x.unscaled)) return new Dec(x.unscaled > 0n ? 1n : -1n, s);
  const d = pow10(k);
  const q = x.unscaled / d;
  if (x.unscaled % d === 0n) return new Dec(q, s);
  return new Dec(x.unscaled > 0n ? q + 1n : q - 1n, s);
}

function decCanonical(d: Dec): { number: string; exponent: number } {
  let exponent = -d.scale;
  let { result: amount, times } = removeBigIntFactors(d.unscaled, 10n);
  exponent += times;
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  return { number: amount.toString(), exponent };
}

function decCanonicalBase1024(d: Dec): { number: string; exponent: number } {
  const tmp = decRoundUp(d, 0);
  const { result, times } = removeBigIntFactors(tmp.unscaled, 1024n);
  return { number: result.toString(), exponent: times };
}

/** `inf.Dec.SetString` on the numeric part `[+-]?digits[.digits]`. */
function decFromString(s: string): Dec | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(s);
  if (m === null) return undefined;
  const int = m[2]!;
  const frac = m[3] ?? "";
  if (int.length + frac.length === 0) return undefined;
  const unscaled = BigInt(int + frac || "0");
  return new Dec(m[1] === "-" ? -unscaled : unscaled, frac.length);
}

// ---------------------------------------------------------------------------
// Go's math.Pow10, table for table, so products round as in Go.

const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG32 = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));

export function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.floor(n / 32)]! * POW10_TAB[n % 32]!;
  if (n >= -323 && n <= 0) return POW10_NEG32[Math.floor(-n / 32)]! / POW10_TAB[-n % 32]!;
  return n > 0 ? Number.POSITIVE_INFINITY : 0;
}

// ---------------------------------------------------------------------------
// Quantity

export const QUANTITY_FORMAT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_FORMAT_RE}'`;
export const ERR_NUMERIC = "unable to parse numeric part of quantity";
export const ERR_SUFFIX = "unable to parse quantity's suffix";

/**
 * A `resource.Quantity`. `pointer` records that Kubernetes holds it as
 * `*Quantity` (results of `add`/`sub`), which matters for `==` (see the module comment).
 */
export class Quantity extends CelObject {
  override readonly celType = QUANTITY_TYPE;
  constructor(
    public i: Int64Amount,
    public d: Dec | null,
    /** Go's cached string form (set by the parser for some inputs, cleared by arithmetic). */
    public s: string,
    public format: QuantityFormat,
    public pointer = false,
  ) {
    super();
  }

  /** Go's `copy := *q`: a new struct sharing the Dec. */
  shallowCopy(): Quantity {
    return new Quantity(this.i, this.d, this.s, this.format);
  }
  /** Go's `q.DeepCopy()`. */
  deepCopy(): Quantity {
    return new Quantity(this.i, this.d === null ? null : new Dec(this.d.unscaled, this.d.scale), this.s, this.format);
  }

  isZero(): boolean {
    return this.d !== null ? this.d.unscaled === 0n : this.i.value === 0n;
  }
  sign(): number {
    return this.d !== null ? decSign(this.d) : amountSign(this.i);
  }
  /** `AsDec`: converts this quantity to the Dec form in place. */
  asDec(): Dec {
    if (this.d === null) {
      this.d = amountAsDec(this.i);
      this.i = ZERO_AMOUNT;
    }
    return this.d;
  }
  /** The Dec form without converting (what Go's `AsDec` does to a by-value copy). */
  decView(): Dec {
    return this.d ?? amountAsDec(this.i);
  }
  /** `q.Cmp(y)` with `q` this (pointer receiver, converted in place) and `y` passed by value. */
  cmp(y: Quantity): number {
    if (this.d === null && y.d === null) return amountCmp(this.i, y.i);
    return decCmp(this.asDec(), y.decView());
  }
  cmpInt64(y: bigint): number {
    if (this.d !== null) return decCmp(this.d, new Dec(y, 0));
    return amountCmp(this.i, { value: y, scale: 0 });
  }
  /** `q.Add(y)`, mutating this (and a Dec shared with other copies). */
  add(y: Quantity): void {
    this.s = "";
    if (this.d === null && y.d === null) {
      if (this.i.value === 0n) this.format = y.format;
      const r = amountAdd(this.i, y.i);
      if (r !== undefined) {
        this.i = r;
        return;
      }
    } else if (this.isZero()) {
      this.format = y.format;
    }
    const d = this.asDec();
    const [a, b, scale] = upscale(d, y.decView());
    d.unscaled = a + b;
    d.scale = scale;
  }
  /** `q.Sub(y)`, mutating this (and a Dec shared with other copies). */
  sub(y: Quantity): void {
    this.s = "";
    if (this.isZero()) this.format = y.format;
    if (this.d === null && y.d === null) {
      const r = amountAdd(this.i, { value: negWrap(y.i.value), scale: y.i.scale });
      if (r !== undefined) {
        this.i = r;
        return;
      }
    }
    const d = this.asDec();
    const [a, b, scale] = upscale(d, y.decView());
    d.unscaled = a - b;
    d.scale = scale;
  }
  /** `AsInt64`: only the int64 form converts. */
  asInt64(): bigint | undefined {
    if (this.d !== null) return undefined;
    return amountAsInt64(this.i);
  }
  /** `AsApproximateFloat64`. */
  asApproximateFloat64(): number {
    let base: number;
    let exponent: number;
    if (this.d !== null) {
      base = Number(this.d.unscaled);
      exponent = -this.d.scale;
    } else {
      base = Number(this.i.value);
      exponent = this.i.scale;
    }
    if (exponent === 0) return base;
    return base * goPow10(exponent);
  }

  /** Go's `String()`: the cached input form when the parser kept it, else the canonical form. */
  override toString(): string {
    if (this.s.length > 0) return this.s;
    const [number, suffix] = this.canonicalize();
    return number + suffix;
  }

  /** `CanonicalizeBytes`: number and suffix. */
  canonicalize(): [string, string] {
    if (this.isZero()) return ["0", ""];
    let format = this.format;
    let rounded: { kind: "i"; a: Int64Amount } | { kind: "d"; d: Dec } | undefined;
    if (format === "BinarySI") {
      if (this.cmpInt64(-1024n) > 0 && this.cmpInt64(1024n) < 0) {
        format = "DecimalSI";
      } else if (this.d !== null) {
        const tmp = decRoundUp(this.d, 0);
        rounded = { kind: "d", d: tmp };
        if (decCmp(tmp, this.d) !== 0) format = "DecimalSI";
      } else {
        const r = amountAsScale(this.i, 0);
        rounded = { kind: "i", a: r.amount };
        if (!r.exact) format = "DecimalSI";
      }
    }
    if (format === "BinarySI") {
      const { number, exponent } = rounded!.kind === "d" ? decCanonicalBase1024(rounded!.d) : amountCanonicalBase1024(rounded!.a);
      return [number, BINARY_SUFFIX.get(exponent * 10) ?? ""];
    }
    const { number, exponent } = this.d !== null ? decCanonical(this.d) : amountCanonical(this.i);
    if (format === "DecimalSI") return [number, DECIMAL_SUFFIX.get(exponent) ?? ""];
    return [number, exponent === 0 ? "" : `e${exponent}`];
  }

  /** `Quantity.Equal` as the CEL wrapper calls it (both sides by value). */
  /** Go `Quantity.Equal`: another type (or a `*Quantity`) is "no such overload". */
  override equals(other: CelValue): boolean {
    if (!(other instanceof Quantity) || other.pointer) throw new CelEvalError("no such overload");
    return this.shallowCopy().cmp(other) === 0;
  }
}

const DECIMAL_SUFFIX = new Map<number, string>([
  [-9, "n"],
  [-6, "u"],
  [-3, "m"],
  [0, ""],
  [3, "k"],
  [6, "M"],
  [9, "G"],
  [12, "T"],
  [15, "P"],
  [18, "E"],
]);
const BINARY_SUFFIX = new Map<number, string>([
  [10, "Ki"],
  [20, "Mi"],
  [30, "Gi"],
  [40, "Ti"],
  [50, "Pi"],
  [60, "Ei"],
]);

/** `quantitySuffixer.interpret`. */
function interpretSuffix(s: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  const dec = DECIMAL_SUFFIX_BY_NAME.get(s);
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = BINARY_SUFFIX_BY_NAME.get(s);
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" };
  if (s.length > 1 && (s[0] === "E" || s[0] === "e")) {
    // strconv.ParseInt(s[1:], 10, 64), then int32(...) (wrapping).
    if (!/^[+-]?[0-9]+$/.test(s.slice(1))) return undefined;
    const v = BigInt(s.slice(1));
    if (!inInt64(v)) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, v)), format: "DecimalExponent" };
  }
  return undefined;
}
const DECIMAL_SUFFIX_BY_NAME = new Map([...DECIMAL_SUFFIX].map(([e, n]) => [n, e]));
const BINARY_SUFFIX_BY_NAME = new Map([...BINARY_SUFFIX].map(([e, n]) => [n, e]));

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** `parseQuantityString`. */
function parseQuantityString(str: string): { positive: boolean; value: string; num: string; denom: string; suffix: string } {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === "-") {
      positive = false;
      pos++;
    } else if (str[0] === "+") {
      pos++;
    }
  }
  // Leading zeroes.
  for (;;) {
    if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
    if (str[pos] !== "0") break;
    pos++;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: "", suffix: "" };
  let num = str.slice(pos, i);
  pos = i;
  if (num.length === 0) num = "0";
  let denom = "";
  if (pos < end && str[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: "" };
    denom = str.slice(pos, i);
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && "eEinumkKMGTP".includes(str[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === "-" || str[pos] === "+") pos++;
  i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  throw new QuantityParseError(ERR_FORMAT_WRONG);
}

export class QuantityParseError extends Error {}

/** `resource.ParseQuantity`; throws {@link QuantityParseError} with Go's message. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityParseError(ERR_FORMAT_WRONG);
  if (str === "0") return new Quantity(ZERO_AMOUNT, null, str, "DecimalSI");

  const { positive, value, num, denom, suffix } = parseQuantityString(str);
  const suf = interpretSuffix(suffix);
  if (suf === undefined) throw new QuantityParseError(ERR_SUFFIX);
  const { base, exponent } = suf;
  let format = suf.format;

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === "BinarySI") {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc(Math.fround(Math.fround(exponent) * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }

  if (precision >= 0) {
    // Go's Scale is int32: the subtraction wraps.
    scale = (scale - denom.length) | 0;
    if (scale >= -9) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      let result = v * mantissa;
      if (inInt64(result)) {
        if (!positive) result = -result;
        const i = { value: result, scale };
        if (format === "BinarySI") {
          if (exponent % 10 === 0 && (v & 7n) !== 0n) return new Quantity(i, null, str, format);
        } else if (scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0") {
          return new Quantity(i, null, str, format);
        }
        return new Quantity(i, null, "", format);
      }
    }
  }

  const amount = decFromString(value);
  if (amount === undefined) throw new QuantityParseError(ERR_NUMERIC);
  if (base === 10) {
    // amount.Scale() + Scale(exponent).infScale(), in int32 (infScale negates, wrapping at -2^31).
    amount.scale = (amount.scale + (-exponent | 0)) | 0;
  } else {
    amount.unscaled *= 1n << BigInt(exponent);
  }
  const sign = decSign(amount);
  if (sign === -1) amount.unscaled = -amount.unscaled;
  let d = amount;
  if (d.unscaled !== 0n) d = decRoundUp(d, 9);
  if (format === "BinarySI" && decCmp(d, MAX_ALLOWED) > 0) d = new Dec(INT64_MAX, 0);
  if (format === "BinarySI" && decCmp(d, DEC_ONE) < 0 && decSign(d) > 0) format = "DecimalSI";
  if (sign === -1) d.unscaled = -d.unscaled;
  return new Quantity(ZERO_AMOUNT, d, "", format);
}
const MAX_ALLOWED = new Dec(INT64_MAX, 0);
const DEC_ONE = new Dec(1n, 0);

/** `resource.NewQuantity(v, DecimalExponent)`. */
export function newQuantity(v: bigint, format: QuantityFormat): Quantity {
  return new Quantity({ value: v, scale: 0 }, null, "", format);
}

// ---------------------------------------------------------------------------
// The library

function toQuantity(s: string): Quantity {
  try {
    return parseQuantity(s);
  } catch (e) {
    if (e instanceof QuantityParseError) throw new CelEvalError(e.message);
    // 10^n beyond what a BigInt can hold (exponents near ±2^31; Go would exhaust memory).
    if (e instanceof RangeError) throw new CelEvalError(`quantity too large to represent: ${e.message}`);
    throw e;
  }
}

function isQuantity(s: string): boolean {
  try {
    parseQuantity(s);
    return true;
  } catch (e) {
    if (e instanceof QuantityParseError) return false;
    if (e instanceof RangeError) throw new CelEvalError(`quantity too large to represent: ${e.message}`);
    throw e;
  }
}

function arithmetic(deepCopy: boolean, op: "add" | "sub") {
  return (q: Quantity, other: Quantity | bigint): Quantity => {
    const y = typeof other === "bigint" ? newQuantity(other, "DecimalExponent") : other;
    const copy = deepCopy ? q.deepCopy() : q.shallowCopy();
    try {
      if (op === "add") copy.add(y);
      else copy.sub(y);
    } catch (e) {
      // A RangeError from an astronomically large exponent difference (Go would run out of memory).
      if (e instanceof RangeError) throw new CelEvalError(`quantity ${op}: ${e.message}`);
      throw e;
    }
    copy.pointer = true;
    return copy;
  };
}

export interface QuantityLibraryOptions {
  /**
   * `add`/`sub` deep-copy their receiver (Kubernetes after 1.36). False, the
   * 1.36 behaviour, shares the receiver's Dec with the result.
   */
  readonly deepCopyOnArithmetic?: boolean;
}

export function quantityLibrary(options: QuantityLibraryOptions = {}): Library {
  const deep = options.deepCopyOnArithmetic ?? false;
  const Q = QUANTITY_TYPE;
  return {
    name: "kubernetes.quantity",
    get costs() {
      return cost;
    },
    functions: [
      func("quantity", overload("string_to_quantity", [STRING], Q, toQuantity)),
      func("isQuantity", overload("is_quantity_string", [STRING], BOOL, isQuantity)),
      func("sign", overload("quantity_sign", [Q], INT, (q: Quantity) => BigInt(q.sign()))),
      func(
        "isGreaterThan",
        memberOverload("quantity_is_greater_than", [Q, Q], BOOL, (q: Quantity, o: Quantity) => q.cmp(o) === 1),
      ),
      func("isLessThan", memberOverload("quantity_is_less_than", [Q, Q], BOOL, (q: Quantity, o: Quantity) => q.cmp(o) === -1)),
      func("compareTo", memberOverload("quantity_compare_to", [Q, Q], INT, (q: Quantity, o: Quantity) => BigInt(q.cmp(o)))),
      func("asApproximateFloat", memberOverload("quantity_get_float", [Q], DOUBLE, (q: Quantity) => q.asApproximateFloat64())),
      func(
        "asInteger",
        memberOverload("quantity_get_int", [Q], INT, (q: Quantity) => {
          const v = q.asInt64();
          if (v === undefined) throw new CelEvalError("cannot convert value to integer");
          return v;
        }),
      ),
      func("isInteger", memberOverload("quantity_is_integer", [Q], BOOL, (q: Quantity) => q.asInt64() !== undefined)),
      func(
        "add",
        memberOverload("quantity_add", [Q, Q], Q, arithmetic(deep, "add")),
        memberOverload("quantity_add_int", [Q, INT], Q, arithmetic(deep, "add")),
      ),
      func(
        "sub",
        memberOverload("quantity_sub", [Q, Q], Q, arithmetic(deep, "sub")),
        memberOverload("quantity_sub_int", [Q, INT], Q, arithmetic(deep, "sub")),
      ),
    ],
  };
}

/** The library as Kubernetes 1.36 has it. */
export const QUANTITY_LIBRARY: Library = quantityLibrary();

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go), for the cost estimator.

const nominal: Pick<CostEntry, "estimate" | "actual"> = { estimate: () => FIXED_1, actual: () => 1n };
const traversal = (fn: string): CostEntry => ({
  function: fn,
  estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
  actual: (args) => multiplyByCostFactor(actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR),
  note: "string traversal: ceil(size(s) × 0.1)",
});

/** Cost of every overload of the quantity library, by overload id (`_==_` on two quantities under `equals_quantity`). */
export const cost: Readonly<Record<string, CostEntry>> = {
  string_to_quantity: traversal("quantity"),
  is_quantity_string: traversal("isQuantity"),
  quantity_sign: { function: "sign", ...nominal, note: "1" },
  quantity_is_greater_than: { function: "isGreaterThan", ...nominal, note: "1" },
  quantity_is_less_than: { function: "isLessThan", ...nominal, note: "1" },
  quantity_compare_to: { function: "compareTo", ...nominal, note: "1" },
  quantity_get_float: { function: "asApproximateFloat", ...nominal, note: "1" },
  quantity_get_int: { function: "asInteger", ...nominal, note: "1" },
  quantity_is_integer: { function: "isInteger", ...nominal, note: "1" },
  quantity_add: { function: "add", ...nominal, note: "1" },
  quantity_add_int: { function: "add", ...nominal, note: "1" },
  quantity_sub: { function: "sub", ...nominal, note: "1" },
  quantity_sub_int: { function: "sub", ...nominal, note: "1" },
  equals_quantity: { function: "_==_", ...nominal, note: "equality of two kubernetes.Quantity values: 1" },
};
