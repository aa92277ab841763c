import { describe, expect, test } from "vitest";
import { Env } from "../env.js";
import { CelEvalError } from "../errors.js";
import { typeOf } from "../runtime/type-of.js";
import { celEquals } from "../runtime/equality.js";
import { CelUint, type CelValue } from "../values.js";

type Want = CelValue | { readonly error: string };
const env = new Env();

/** Evaluates unchecked and, unless `uncheckedOnly`, checked; both must give `want`. */
function table(cases: readonly (readonly [expr: string, want: Want, uncheckedOnly?: "unchecked"])[]): void {
  for (const [expr, want, only] of cases) {
    test(expr, () => {
      const parsed = env.parse(expr);
      check(parsed, want, "unchecked");
      if (only === undefined) check(env.check(parsed), want, "checked");
    });
  }
}

function check(ast: Parameters<Env["program"]>[0], want: Want, label: string): void {
  let got: CelValue;
  try {
    got = env.program(ast).eval({});
  } catch (e) {
    if (!(e instanceof CelEvalError)) throw e;
    expect(want !== null && typeof want === "object" && "error" in want ? e.message : `error: ${e.message}`, label).toBe(
      want !== null && typeof want === "object" && "error" in want ? want.error : String(want),
    );
    return;
  }
  if (want !== null && typeof want === "object" && "error" in want) throw new Error(`${label}: expected error ${want.error}, got ${String(got)}`);
  expect(typeOf(got).name, label).toBe(typeOf(want as CelValue).name);
  if (typeof got === "number" && Number.isNaN(got)) expect(Number.isNaN(want as number), label).toBe(true);
  else expect(celEquals(got, want as CelValue), `${label}: got ${String(got)}`).toBe(true);
}

const e = (error: string): Want => ({ error });
const u = (n: bigint): CelUint => new CelUint(n);

describe("string(double) formats like Go's %g", () => {
  table([
    ["string(1.0)", "1"],
    ["string(1.5)", "1.5"],
    ["string(-2.25)", "-2.25"],
    ["string(1e100)", "1e+100"],
    ["string(123456.0)", "123456"],
    ["string(1234567.0)", "1.234567e+06"],
    ["string(123456789.0)", "1.23456789e+08"],
    ["string(0.0001)", "0.0001"],
    ["string(0.00001)", "1e-05"],
    ["string(-0.0)", "-0"],
    ["string(0.1)", "0.1"],
    ["string(1.0/3.0)", "0.3333333333333333"],
    ["string(double('Infinity'))", "+Inf"],
    ["string(double('-Infinity'))", "-Inf"],
    ["string(double('NaN'))", "NaN"],
  ]);
});

describe("other string conversions", () => {
  table([
    ["string(-12)", "-12"],
    ["string(12u)", "12"],
    ["string(true)", "true"],
    ["string('x')", "x"],
    ["string(b'\\xc3\\xbf')", "ÿ"],
    ["string(b'\\xff')", e("invalid UTF-8 in bytes, cannot convert to string")],
  ]);
});

describe("int", () => {
  table([
    ["int(1.9)", 1n],
    ["int(-1.9)", -1n],
    ["int(42u)", 42n],
    ["int(9223372036854775807u)", 9223372036854775807n],
    ["int(9223372036854775808u)", e("integer overflow")],
    ["int(1e19)", e("integer overflow")],
    ["int(-9223372036854775808.0)", e("integer overflow")],
    ["int(9.2233720368547e18)", 9223372036854700032n],
    ["int(double('NaN'))", e("integer overflow")],
    ["int('123')", 123n],
    ["int('-5')", -5n],
    ["int('+5')", 5n],
    ["int('9223372036854775807')", 9223372036854775807n],
    ["int('9223372036854775808')", e("type conversion error from 'string' to 'int'")],
    ["int('1.5')", e("type conversion error from 'string' to 'int'")],
    ["int(' 1')", e("type conversion error from 'string' to 'int'")],
    ["int('')", e("type conversion error from 'string' to 'int'")],
  ]);
});

describe("uint", () => {
  table([
    ["uint(1)", u(1n)],
    ["uint(-1)", e("unsigned integer overflow")],
    ["uint(1.5)", u(1n)],
    ["uint(-0.5)", e("unsigned integer overflow")],
    ["uint(18446744073709551616.0)", e("unsigned integer overflow")],
    ["uint('18446744073709551615')", u(18446744073709551615n)],
    ["uint('18446744073709551616')", e("type conversion error from 'string' to 'uint'")],
    ["uint('-1')", e("type conversion error from 'string' to 'uint'")],
  ]);
});

describe("double", () => {
  table([
    ["double(1)", 1.0],
    ["double(9223372036854775807)", 9223372036854775807],
    ["double(18446744073709551615u)", 18446744073709551615],
    ["double('1.5')", 1.5],
    ["double('1e3')", 1000.0],
    ["double('-Inf')", -Infinity],
    ["double('inf')", Infinity],
    ["double('.5')", 0.5],
    ["double('1e400')", e("type conversion error from 'string' to 'double'")],
    ["double('abc')", e("type conversion error from 'string' to 'double'")],
    ["double('e5')", e("type conversion error from 'string' to 'double'")],
    ["double('1_000')", e("type conversion error from 'string' to 'double'")],
    ["double('5.')", 5.0],
    ["double('0x1p-2')", 0.25],
    ["double('+nan')", e("type conversion error from 'string' to 'double'")],
  ]);
});

describe("bool, bytes, dyn, type", () => {
  table([
    ["bool('true')", true],
    ["bool('T')", true],
    ["bool('0')", false],
    ["bool('FALSE')", false],
    ["bool('yes')", e("type conversion error from 'string' to 'bool'")],
    ["bytes('ÿ')", new Uint8Array([0xc3, 0xbf])],
    ["bytes(b'a')", new Uint8Array([97])],
    ["dyn(1) + 1", 2n],
    ["type(1u) == uint", true],
    ["type(1.0) == double", true],
    ["type(b'') == bytes", true],
    ["type(null) == null_type", true],
    ["type(true) == bool", true],
  ]);
});
