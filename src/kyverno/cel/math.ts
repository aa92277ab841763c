/**
 * Kyverno's math library (`kyverno.math`, kyverno/sdk `extensions/cel/libs/math`):
 * `math.round(double, int) → double`, Go's `math.Round(v * 10^p) / 10^p`
 * (half away from zero, on the scaled binary value; negative precision rounds
 * to tens, hundreds…). It sits beside cel-go's `math.round(double)` of the math
 * extension (a different overload of the same function).
 */
import { func, overload, type Library } from "../../cel/decls.js";
import { DOUBLE, INT } from "../../cel/types.js";

/** Go `math.Round`: half away from zero; NaN and ±Inf unchanged. */
function goRound(x: number): number {
  if (!Number.isFinite(x)) return x;
  // Math.round is exact (ties toward +∞); on |x| that is ties away from zero.
  const r = Math.round(Math.abs(x));
  return x < 0 || Object.is(x, -0) ? -r : r;
}

export function roundPrecision(v: number, precision: bigint): number {
  const shift = Math.pow(10, Number(precision));
  return goRound(v * shift) / shift;
}

export const KYVERNO_MATH_LIBRARY: Library = {
  name: "kyverno.math",
  functions: [func("math.round", overload("math_round_float_int", [DOUBLE, INT], DOUBLE, roundPrecision))],
};
