import { describe, expect, it } from "vitest";
import type { Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { CelUint } from "../values.js";
import { base64Decode, base64Encode, ENCODERS_LIBRARY } from "./encoders.js";
import { mathLibrary } from "./math.js";

function impl(lib: Library, id: string): (...args: any[]) => unknown {
  for (const f of lib.functions ?? []) for (const o of f.overloads) if (o.id === id) return o.impl!;
  throw new Error(`no overload ${id}`);
}
const math = mathLibrary();
const call = (id: string, ...args: unknown[]) => impl(math, id)(...args);
const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof CelEvalError) return e.message;
    throw e;
  }
  throw new Error("expected a CelEvalError");
};
const u = (n: bigint) => new CelUint(n);

describe("math versions", () => {
  const names = (v: number) => (mathLibrary(v).functions ?? []).map((f) => f.name);
  it("adds functions by version", () => {
    expect(names(0)).toEqual(["math.@min", "math.@max"]);
    expect(names(1)).toContain("math.bitShiftRight");
    expect(names(1)).not.toContain("math.sqrt");
    expect(names(2)).toContain("math.sqrt");
  });
});

describe("math functions", () => {
  it.each<[string, unknown[], unknown]>([
    ["math_@max_int", [-5n], -5n],
    ["math_@max_int_int", [3n, -3n], 3n],
    ["math_@max_int_double", [1n, 1.0], 1n],
    ["math_@max_uint_int", [u(5n), -7n], u(5n)],
    ["math_@max_int_uint", [-3n, u(3n)], u(3n)],
    ["math_@max_double_int", [1.797693e308, 1n], 1.797693e308],
    ["math_@max_list_double", [[5.4, 10n, u(3n), -5.0, 3.5]], 10n],
    ["math_@max_list_int", [[5.4, 10n, u(3n), -5.0, 9223372036854775807n]], 9223372036854775807n],
    ["math_@max_list_uint", [[5.4, u(10n), u(3n), -5.0, 3.5]], u(10n)],
    ["math_@min_int_int", [5n, -7n], -7n],
    ["math_@min_int_int", [1n, -9223372036854775808n], -9223372036854775808n],
    ["math_@min_list_int", [[1n, 3n, 0n]], 0n],
    ["math_@min_int_double", [1n, 1.0], 1n],
    ["math_ceil_double", [-1.2], -1],
    ["math_floor_double", [-1.2], -2],
    ["math_round_double", [-1.5], -2],
    ["math_round_double", [1.5], 2],
    ["math_round_double", [-1.4], -1],
    ["math_round_double", [2.5], 3],
    ["math_round_double", [0.49999999999999994], 0],
    ["math_trunc_double", [-1.2], -1],
    ["math_abs_int", [-11n], 11n],
    ["math_abs_double", [-11.5], 11.5],
    ["math_abs_uint", [u(1n)], u(1n)],
    ["math_sign_int", [-11n], -1n],
    ["math_sign_uint", [u(100n)], u(1n)],
    ["math_sign_uint", [u(0n)], u(0n)],
    ["math_sign_double", [-32.0], -1],
    ["math_sign_double", [0.0], 0],
    ["math_isNaN_double", [Number.NaN], true],
    ["math_isInf_double", [-Infinity], true],
    ["math_isFinite_double", [Number.NaN], false],
    ["math_bitAnd_int_int", [1n, -1n], 1n],
    ["math_bitOr_int_int", [4n, -2n], -2n],
    ["math_bitXor_int_int", [4n, -2n], -6n],
    ["math_bitXor_uint_uint", [u(1n), u(3n)], u(2n)],
    ["math_bitNot_int_int", [0n], -1n],
    ["math_bitNot_uint_uint", [u(1n)], u(18446744073709551614n)],
    ["math_bitShiftLeft_int_int", [1n, 2n], 4n],
    ["math_bitShiftLeft_int_int", [1n, 63n], -9223372036854775808n],
    ["math_bitShiftLeft_int_int", [-1n, 200n], 0n],
    ["math_bitShiftLeft_uint_int", [u(1n), 200n], u(0n)],
    ["math_bitShiftLeft_uint_int", [u(3n), 63n], u(9223372036854775808n)],
    ["math_bitShiftRight_int_int", [-1024n, 3n], 2305843009213693824n],
    ["math_bitShiftRight_int_int", [-1024n, 64n], 0n],
    ["math_bitShiftRight_uint_int", [u(1024n), 2n], u(256n)],
    ["math_sqrt_double", [16.0], 4],
    ["math_sqrt_int", [-1n], Number.NaN],
    ["math_sqrt_uint", [u(81n)], 9],
  ])("%s %#", (id, args, want) => {
    expect(call(id, ...args)).toEqual(want);
  });

  it("keeps the sign of zero like Go", () => {
    expect(Object.is(call("math_round_double", -0.4), -0)).toBe(true);
  });

  it.each<[string, unknown[], string]>([
    ["math_abs_int", [-9223372036854775808n], "integer overflow"],
    ["math_bitShiftLeft_uint_int", [u(1n), -1n], "math.bitShiftLeft() negative offset: -1"],
    ["math_bitShiftRight_int_int", [1n, -1n], "math.bitShiftRight() negative offset: -1"],
    ["math_@max_list_int", [[]], "math.@max(list) argument must not be empty"],
    ["math_@min_double_double", [Number.NaN, 1.0], "NaN values cannot be ordered: math.@min"],
    ["math_@max_list_int", [[1n, "a"]], "no such overload: math.@max"],
    ["math_@max_list_int", [["a"]], "no such overload: math.@max"],
  ])("%s error %#", (id, args, want) => {
    expect(err(() => call(id, ...args))).toBe(want);
  });
});

describe("encoders", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  it.each<[string, string]>([
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["hello", "aGVsbG8="],
    ["Hello World!", "SGVsbG8gV29ybGQh"],
  ])("encodes %j", (plain, enc) => {
    expect(base64Encode(bytes(plain))).toBe(enc);
    expect(base64Decode(enc)).toEqual(bytes(plain));
  });
  it("decodes unpadded input and ignores newlines", () => {
    expect(base64Decode("aGVsbG8")).toEqual(bytes("hello"));
    expect(base64Decode("Zg")).toEqual(bytes("f"));
    expect(base64Decode("aGVs\r\nbG8=")).toEqual(bytes("hello"));
    expect(base64Decode("/+8=")).toEqual(new Uint8Array([0xff, 0xef]));
  });
  it.each<[string, string]>([
    ["a", "illegal base64 data at input byte 0"],
    ["aGVsbG8*", "illegal base64 data at input byte 7"],
    ["Zg=", "illegal base64 data at input byte 2"],
    ["Zm9v-A==", "illegal base64 data at input byte 4"],
  ])("rejects %j", (s, want) => {
    expect(err(() => base64Decode(s))).toBe(want);
  });
  it("declares cel-go's overloads", () => {
    expect(impl(ENCODERS_LIBRARY, "base64_encode_bytes")(bytes("hi"))).toBe("aGk=");
  });
});
