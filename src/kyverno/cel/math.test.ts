import { describe, expect, it } from "vitest";
import { run, v, type Outcome } from "./test-harness.js";

// kyverno/sdk extensions/cel/libs/math/impl_test.go, then Go math.Round behaviour.
describe("math library (math.round with precision)", () => {
  it.each<[string, Outcome]>([
    [`math.round(10.125, 2)`, v(10.13)],
    [`math.round(10.125, 0)`, v(10)],
    [`math.round(12345.6789, -2)`, v(12300)],
    [`math.round(-2.5, 0)`, v(-3)], // half away from zero
    [`math.round(2.5, 0)`, v(3)],
    [`math.round(1.005, 2)`, v(1)], // 1.005 * 100 = 100.49999999999999 in binary
    [`math.round(0.0, 3)`, v(0)],
    [`math.round(123.456, 1)`, v(123.5)],
    [`math.round(-0.4, 0)`, v(-0)],
    [`math.round(1.0 / 0.0, 2)`, v(Infinity)],
    [`math.isNaN(math.round(0.0 / 0.0, 2))`, v(true)],
    [`math.round(55.0, -2)`, v(100)],
    // cel-go's math extension is present too (one-argument round, greatest, ...)
    [`math.round(2.5)`, v(3)],
    [`math.greatest(1, 5, 3)`, v(5n)],
    [`math.ceil(1.2)`, v(2)],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it.each([`math.round(1, 2)`, `math.round(1.5, 2.0)`, `math.round("1", 1)`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
