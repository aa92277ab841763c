import { describe, expect, test } from "vitest";
import { Env } from "../env.js";
import { STRING } from "../types.js";
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

describe("string functions", () => {
  table([
    ["'hello'.contains('ell')", true],
    ["'hello'.contains('')", true],
    ["'hello'.startsWith('he')", true],
    ["'hello'.endsWith('lo')", true],
    ["'hello'.endsWith('he')", false],
  ]);
});

describe("matches uses RE2", () => {
  table([
    ["'abc'.matches('^a.c$')", true],
    ["matches('abc', 'b')", true],
    ["'ABC'.matches('(?i)abc')", true],
    ["'a+b'.matches('^\\\\Qa+b\\\\E$')", true],
    ["'abc'.matches('^[[:alpha:]]+$')", true],
    ["'é'.matches('^\\\\pL$')", true],
    ["'😀'.matches('^.$')", true],
    ["'a\\nb'.matches('a.b')", false],
    ["'a\\nb'.matches('(?s)a.b')", true],
    ["'ab'.matches('a\\\\b')", false],
  ]);

  table([
    ["'ab'.matches('(a')", e("error parsing regexp: missing closing ): `(a`")],
    ["'ab'.matches('a**')", e("error parsing regexp: invalid nested repetition operator: `**`")],
  ]);

  test("patterns RE2 rejects are errors", () => {
    for (const p of ["'(?<=a)b'", "'a(?=b)'", "'(a'", "'\\\\1'"]) {
      expect(() => env.program(env.compile(`'ab'.matches(${p})`)).eval({}), p).toThrow(CelEvalError);
    }
  });

  test("a catastrophic backtracking pattern runs in linear time", () => {
    const q = new Env({ variables: { x: STRING } });
    const prog = q.program(q.compile("x.matches('^(a+)+$')"));
    prog.eval({ x: "a" }); // compile the regex once
    const input = `${"a".repeat(30)}!`;
    const start = performance.now();
    expect(prog.eval({ x: input })).toBe(false);
    expect(performance.now() - start).toBeLessThan(10);
  });
});
