import { describe, expect, it } from "vitest";
import { randomString } from "./random.js";
import { err, run, type Outcome } from "./test-harness.js";

/** A deterministic source: cycles through the given draws. */
const seq = (...draws: number[]) => {
  let i = 0;
  return (n: number) => draws[i++ % draws.length]! % n;
};

// kyverno/sdk extensions/cel/libs/random/impl_test.go: outputs match their pattern.
describe("random library", () => {
  it.each<[string, RegExp]>([
    [`random.random("[A-Z0-9]{8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{12}")`, /^[A-Z0-9]{8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{12}$/],
    [`random.random()`, /^[0-9a-z]{8}$/],
    [`random()`, /^[0-9a-z]{8}$/],
    [`random("[a-f]{3,5}")`, /^[a-f]{3,5}$/],
    [`random("(foo|bar)-\\\\d+")`, /^(foo|bar)-\d{1,11}$/],
    [`random("x[^a-z]?y")`, /^x[^a-z]?y$/],
    [`random("\\\\w{4}\\\\.svc")`, /^\w{4}\.svc$/],
    [`random("ab*c")`, /^ab{0,10}c$/],
    [`random("^pre[[:digit:]]{2}$")`, /^pre[0-9]{2}$/],
    [`random("(?:a|b){2}c?")`, /^[ab]{2}c?$/],
    [`random("")`, /^$/],
  ])("%s", (expr, want) => {
    for (let i = 0; i < 20; i++) {
      const o = run(expr) as { value: string };
      expect(o.value).toMatch(want);
    }
  });

  it.each<[string, Outcome]>([
    [`random("a(b")`, err("error parsing regexp: missing closing ): `a(b`")],
    [`random("[z-a]")`, err("error parsing regexp: invalid character class range: `z-a`")],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it("uses the injected source", () => {
    // the repetition count is drawn first (rnd(1) for {4}), then one draw per character
    expect(randomString("[a-c]{4}", seq(0, 0, 1, 2, 0))).toBe("abca");
    expect(run(`random()`, { random: seq(35) })).toEqual({ value: "zzzzzzzz" });
  });

  it.each([`random(1)`, `random("a", "b")`, `random.random(b"x")`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
