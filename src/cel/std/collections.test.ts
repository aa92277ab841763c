import { describe, expect, test } from "vitest";
import { Env } from "../env.js";
import { CelEvalError } from "../errors.js";
import { typeOf } from "../runtime/type-of.js";
import { celEquals } from "../runtime/equality.js";
import type { CelValue } from "../values.js";

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

describe("size", () => {
  table([
    ["size('héllo😀')", 6n],
    ["'😀'.size()", 1n],
    ["size('')", 0n],
    ["size(b'abc')", 3n],
    ["b'\\xff'.size()", 1n],
    ["size([1, 2])", 2n],
    ["[1].size()", 1n],
    ["size({'a': 1})", 1n],
    ["{}.size()", 0n],
    ["size(dyn(1))", e("no such overload: size"), "unchecked"],
  ]);
});

describe("membership and indexing", () => {
  table([
    ["1 in [1, 2]", true],
    ["3 in [1, 2]", false],
    ["'a' in ['a']", true],
    ["dyn(1.0) in [1]", true, "unchecked"],
    ["'k' in {'k': 1}", true],
    ["'x' in {'k': 1}", false],
    ["dyn(2u) in {2: 'a'}", true, "unchecked"],
    ["[[1]] == [[1]] && [1] in [[1]]", true],
    ["[1, 2][0]", 1n],
    ["{'a': 2}['a']", 2n],
    ["[1][5]", e("index out of bounds: 5")],
    ["{'a': 2}['b']", e("no such key: b")],
  ]);
});
