/**
 * The evaluation limits that are not cost (`EvalOptions.interrupt`, `EvalOptions.maxSize`,
 * `withEvalLimits`): an interrupt stops a running comprehension and is never absorbed; the size
 * guard stops concatenations that cel-go's cost model prices at 1 (`dyn + dyn`).
 */
import { describe, expect, test } from "vitest";
import { Env } from "./env.js";
import { CelCostLimitError, CelInterruptedError } from "./cost-runtime.js";
import { INTERRUPT_CHECK_FREQUENCY, withEvalLimits } from "./eval-limits.js";
import { DYN } from "./types.js";

const env = new Env({ variables: { x: DYN, n: DYN } });
const TEN = "[0,1,2,3,4,5,6,7,8,9]";
const program = (src: string) => env.program(env.compile(src));

describe("interrupt", () => {
  test("polled every INTERRUPT_CHECK_FREQUENCY iterations: stops a long comprehension, tracked or not", () => {
    const p = program(`${TEN}.all(a, ${TEN}.all(b, ${TEN}.all(c, ${TEN}.all(d, true))))`);
    let polls = 0;
    const interrupt = (): boolean => ++polls >= 3;
    expect(() => p.eval({}, { interrupt })).toThrow(CelInterruptedError);
    expect(polls).toBe(3);
    polls = 0;
    expect(() => p.eval({}, { interrupt, costLimit: 1e9 })).toThrow("operation interrupted");
    // Without the option nothing is polled and the result is the usual one.
    expect(p.eval({})).toBe(true);
    expect(INTERRUPT_CHECK_FREQUENCY).toBe(100);
  });

  test("never absorbed by || or a comprehension's error handling", () => {
    // Polled once when the evaluation starts (an expired deadline runs nothing), then every 100 iterations.
    const later = (): (() => boolean) => {
      let polls = 0;
      return () => ++polls > 1;
    };
    const p = program(`true || ${TEN}.all(a, ${TEN}.all(b, ${TEN}.all(c, true)))`);
    expect(p.eval({}, { interrupt: later() })).toBe(true); // short-circuit: the loop never runs
    expect(() => p.eval({}, { interrupt: () => true })).toThrow(CelInterruptedError);
    const q = program(`${TEN}.all(a, ${TEN}.all(b, ${TEN}.all(c, true))) || true`);
    expect(() => q.eval({}, { interrupt: later() })).toThrow(CelInterruptedError);
  });

  test("withEvalLimits: nested evaluations inherit it; restored after", () => {
    const p = program(`${TEN}.all(a, ${TEN}.all(b, ${TEN}.all(c, true)))`);
    expect(() => withEvalLimits({ interrupt: () => true }, () => p.eval({}))).toThrow(CelInterruptedError);
    expect(p.eval({})).toBe(true);
  });
});

describe("maxSize", () => {
  test("string, bytes and list concatenation over the limit: the cost-limit error; under it, the value", () => {
    const s = program("x + x + x + x");
    expect(s.eval({ x: "ab" }, { maxSize: 8 })).toBe("abababab");
    expect(() => s.eval({ x: "abc" }, { maxSize: 8 })).toThrow(CelCostLimitError);
    expect(() => s.eval({ x: "abc" }, { maxSize: 8, costLimit: 1e6 })).toThrow("operation cancelled: actual cost limit exceeded");
    expect(() => s.eval({ x: [1n, 2n, 3n] }, { maxSize: 8 })).toThrow(CelCostLimitError);
    expect(() => s.eval({ x: new Uint8Array(3) }, { maxSize: 8 })).toThrow(CelCostLimitError);
    // `dyn + dyn` costs 1 per `+`, whatever the sizes (cel-go's rule: no single overload id).
    expect(s.evalWithCost({ x: "a".repeat(1000) }).cost).toBeLessThan(20);
  });

  test("never absorbed; a nested scope can only lower the limit", () => {
    const s = program("x + x || true");
    expect(() => s.eval({ x: "abcdef" }, { maxSize: 8 })).toThrow(CelCostLimitError);
    const t = program("x + x");
    expect(() => withEvalLimits({ maxSize: 8 }, () => t.eval({ x: "abcdef" }, { maxSize: 100 }))).toThrow(CelCostLimitError);
  });
});
