import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { INT } from "../types.js";
import { Env } from "../env.js";
import { CelEvalError } from "../errors.js";
import { typeOf } from "../runtime/type-of.js";
import { celEquals } from "../runtime/equality.js";
import { CelUint, type CelValue } from "../values.js";

type Want = CelValue | { readonly error: string };
const env = new Env({ crossTypeNumericComparisons: true });

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

describe("int64 arithmetic fails on overflow", () => {
  table([
    ["1 + 2", 3n],
    ["9223372036854775807 + 1", e("integer overflow")],
    ["-9223372036854775808 - 1", e("integer overflow")],
    ["-9223372036854775807 - 1", -9223372036854775808n],
    ["9223372036854775807 * 2", e("integer overflow")],
    ["-9223372036854775808 * -1", e("integer overflow")],
    ["-9223372036854775808 / -1", e("integer overflow")],
    ["-9223372036854775808 % -1", e("integer overflow")],
    ["-(-9223372036854775807 - 1)", e("integer overflow")],
    ["-(9223372036854775807)", -9223372036854775807n],
    ["7 / 2", 3n],
    ["-7 / 2", -3n],
    ["-7 % 2", -1n],
    ["7 % -2", 1n],
    ["5 / 0", e("division by zero")],
    ["5 % 0", e("modulus by zero")],
  ]);
});

describe("uint64 arithmetic fails on overflow", () => {
  table([
    ["1u + 2u", u(3n)],
    ["18446744073709551615u + 1u", e("unsigned integer overflow")],
    ["0u - 1u", e("unsigned integer overflow")],
    ["9223372036854775808u * 2u", e("unsigned integer overflow")],
    ["7u / 2u", u(3n)],
    ["7u % 2u", u(1n)],
    ["1u / 0u", e("division by zero")],
    ["1u % 0u", e("modulus by zero")],
  ]);
});

describe("doubles are IEEE", () => {
  table([
    ["1.5 + 1.0", 2.5],
    ["1.0 / 0.0", Infinity],
    ["-1.0 / 0.0", -Infinity],
    ["0.0 / 0.0", Number.NaN],
    ["-(1.5)", -1.5],
    ["0.1 + 0.2", 0.30000000000000004],
  ]);
});

describe("concatenation", () => {
  table([
    ["'ab' + 'cd'", "abcd"],
    ["b'ab' + b'cd'", new Uint8Array([97, 98, 99, 100])],
    ["[1] + [2, 3]", [1n, 2n, 3n]],
    ["[] + [1]", [1n]],
  ]);
});

describe("ordering", () => {
  table([
    ["1 < 2", true],
    ["2 <= 2", true],
    ["3 > 2", true],
    ["2 >= 3", false],
    ["1 < 1.5", true],
    ["2u > 1", true],
    ["-1 < 0u", true],
    ["1.0 <= 1u", true],
    ["9223372036854775807 < 9223372036854775808.0", false],
    ["9223372036854775807 >= 9223372036854775808.0", true],
    ["18446744073709551615u < 18446744073709590000.0", true],
    ["-9223372036854775808 > -9223372036854777857.0", true],
    ["'a' < 'b'", true],
    ["'abc' < 'abd'", true],
    ["'\\uffff' < '\\U0001F600'", true],
    ["b'a' < b'b'", true],
    ["false < true", true],
    ["true <= false", false],
    ["double('NaN') < 1.0", e("NaN values cannot be ordered")],
    ["dyn(1) < 'a'", e("no such overload"), "unchecked"],
    ["dyn([]) < [1]", e("no such overload: _<_"), "unchecked"],
  ]);
});

describe("equality", () => {
  table([
    ["1 == 1", true],
    ["1 != 2", true],
    ["dyn(1) == 1.0", true],
    ["dyn(1u) == 1", true],
    ["dyn(0.5) == 0", false],
    ["'a' == 'a'", true],
    ["b'a' == b'a'", true],
    ["[1, 2] == [1, 2]", true],
    ["[1, 2] != [2, 1]", true],
    ["{'a': [1]} == {'a': [1]}", true],
    ["null == null", true],
    ["dyn(null) == 0", false],
  ]);
});

describe("int64 arithmetic agrees with exact arithmetic (property)", () => {
  const MIN = -(2n ** 63n);
  const MAX = 2n ** 63n - 1n;
  const int64 = fc.oneof(
    fc.bigInt({ min: MIN, max: MAX }),
    fc.constantFrom(MIN, MAX, -1n, 0n, 1n, MIN + 1n, MAX - 1n),
  );
  const ops: readonly [string, (a: bigint, b: bigint) => bigint | undefined][] = [
    ["+", (a, b) => a + b],
    ["-", (a, b) => a - b],
    ["*", (a, b) => a * b],
    ["/", (a, b) => (b === 0n ? undefined : a / b)],
    ["%", (a, b) => (b === 0n ? undefined : a % b)],
  ];
  for (const [op, exact] of ops) {
    test(`x ${op} y`, () => {
      const penv = new Env({ variables: { x: INT, y: INT } });
      const prog = penv.program(penv.compile(`x ${op} y`));
      fc.assert(
        fc.property(int64, int64, (a, b) => {
          const want = exact(a, b);
          let got: CelValue | string;
          try {
            got = prog.eval({ x: a, y: b });
          } catch (x) {
            if (!(x instanceof CelEvalError)) throw x;
            got = x.message;
          }
          if (want === undefined) return got === (op === "/" ? "division by zero" : "modulus by zero");
          if (want > MAX || want < MIN || (op === "%" && a === MIN && b === -1n)) return got === "integer overflow";
          return got === want;
        }),
        { numRuns: 500 },
      );
    });
  }
});
