import { describe, expect, it } from "vitest";
import { outcome, k8sEnv, type Outcome } from "./test-harness.js";
import { ERR_FORMAT_WRONG, ERR_SUFFIX, Quantity, cost, QUANTITY_LIBRARY, parseQuantity, quantityLibrary } from "./quantity.js";

const env = k8sEnv([QUANTITY_LIBRARY]);
const v = (value: unknown): Outcome => ({ value: value as never });
const evalErr = (evalError: string): Outcome => ({ evalError });

// Expected values from k8s.io/apiserver pkg/cel/library/quantity_test.go (TestQuantity), plus our own.
describe("quantity library (Kubernetes TestQuantity)", () => {
  it.each<[string, Outcome]>([
    [`quantity("12Mi") == quantity("12582912")`, v(true)],
    [`quantity("10Mo")`, evalErr(ERR_FORMAT_WRONG)],
    [`quantity("10Mm")`, evalErr(ERR_SUFFIX)],
    [`isQuantity("20")`, v(true)],
    [`isQuantity("20M")`, v(true)],
    [`isQuantity("20Mi")`, v(true)],
    [`isQuantity("20Mo")`, v(false)],
    [`isQuantity("10Mm")`, v(false)],
    [`quantity("200M") == quantity("200M")`, v(true)],
    [`quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")`, v(true)],
    [`quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")`, v(true)],
    [`quantity("200M") == quantity("0.3G")`, v(false)],
    [`quantity("50M").isLessThan(quantity("50Mi"))`, v(true)],
    [`quantity("50M").isLessThan(quantity("100M"))`, v(true)],
    [`quantity("100M").isLessThan(quantity("50M"))`, v(false)],
    [`quantity("50Mi").isGreaterThan(quantity("50M"))`, v(true)],
    [`quantity("150Mi").isGreaterThan(quantity("100Mi"))`, v(true)],
    [`quantity("50M").isGreaterThan(quantity("100M"))`, v(false)],
    [`quantity("200M").compareTo(quantity("0.2G"))`, v(0n)],
    [`quantity("50M").compareTo(quantity("50Mi"))`, v(-1n)],
    [`quantity("50Mi").compareTo(quantity("50M"))`, v(1n)],
    [`quantity("50k").add(quantity("20")) == quantity("50.02k")`, v(true)],
    [`quantity("50k").add(20).isLessThan(quantity("50020"))`, v(false)],
    [`quantity("50k").sub(quantity("20")) == quantity("49.98k")`, v(true)],
    [`quantity("50k").sub(20) == quantity("49980")`, v(true)],
    [`quantity("50k").add(20).sub(quantity("100k")).asInteger()`, v(-49980n)],
    [`quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()`, v(20n)],
    [`quantity("50k").asInteger()`, v(50000n)],
    [`quantity("9999999999999999999999999999999999999G").asInteger()`, evalErr("cannot convert value to integer")],
    [`quantity("9999999999999999999999999999999999999G").isInteger()`, v(false)],
    [`quantity("50").isInteger()`, v(true)],
    [`quantity("50.703k").asApproximateFloat()`, v(50703)],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it("rejects wrong argument types at compile time", () => {
    const o = outcome(env, `isQuantity([1, 2, 3])`);
    expect(o).toHaveProperty("compileError");
    expect((o as { compileError: string }).compileError).toMatch(/found no matching overload for 'isQuantity' applied to/);
    expect(outcome(env, `quantity("1").add(1.5)`)).toHaveProperty("compileError");
    expect(outcome(env, `quantity("1").isGreaterThan(1)`)).toHaveProperty("compileError");
    expect(outcome(env, `quantity("1").sign()`)).toHaveProperty("compileError");
  });
});

describe("quantity library (further cases)", () => {
  it.each<[string, Outcome]>([
    [`sign(quantity("-1m"))`, v(-1n)],
    [`sign(quantity("0Ki"))`, v(0n)],
    [`sign(quantity("3E"))`, v(1n)],
    [`quantity("1000m") == quantity("1")`, v(true)],
    [`quantity("1Ki") == quantity("1024")`, v(true)],
    // int64 form with a negative scale is not an integer, nor is a Dec (1.5Ki = 1536).
    [`quantity("15.000").isInteger()`, v(false)],
    [`quantity("1.5Ki").isInteger()`, v(false)],
    [`quantity("1.5Ki").asApproximateFloat()`, v(1536)],
    // Binary suffixes from Pi up exceed the parser's int64 precision estimate: held as a Dec, not an "integer".
    [`quantity("1Ei").asInteger()`, evalErr("cannot convert value to integer")],
    [`quantity("1Pi").isInteger()`, v(false)],
    [`quantity("1Ti").asInteger()`, v(1099511627776n)],
    [`quantity("8Ei").asInteger()`, evalErr("cannot convert value to integer")],
    [`quantity("9Ei").compareTo(quantity("9223372036854775807"))`, v(0n)],
    [`quantity("1.1E-9").asApproximateFloat()`, v(2e-9)],
    [`quantity("0.000000000001Ki").compareTo(quantity("2n"))`, v(0n)],
    [`quantity("1e3").asInteger()`, v(1000n)],
    [`quantity("-0012.5e1").asApproximateFloat()`, v(-125)],
    [`quantity("")`, evalErr(ERR_FORMAT_WRONG)],
    [`quantity(" 1")`, evalErr(ERR_FORMAT_WRONG)],
    [`quantity("1.1.M")`, evalErr(ERR_FORMAT_WRONG)],
    [`quantity("0.1mi")`, evalErr(ERR_SUFFIX)],
    [`quantity("1i")`, evalErr(ERR_SUFFIX)],
    [`quantity("-3.01e-")`, evalErr(ERR_SUFFIX)],
    [`quantity("9223372036854775807").add(1).isInteger()`, v(false)],
    [`quantity("9223372036854775807").add(1).compareTo(quantity("9223372036854775808"))`, v(0n)],
    [`quantity("1").sub(quantity("1m")) == quantity("999m")`, v(true)],
    // Go's *Quantity on the right of == is not a Quantity to Quantity.Equal.
    [`quantity("2") == quantity("1").add(1)`, evalErr("no such overload")],
    [`quantity("1").add(1) == quantity("1").add(1)`, evalErr("no such overload")],
    [`quantity("1").add(1) == quantity("2")`, v(true)],
    // 0 * Pow10(500) in Go is NaN.
    [`string(quantity("0e500").asApproximateFloat())`, v("NaN")],
    [`quantity("12e500").asApproximateFloat() > 1.0e308`, v(true)],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr)).toEqual(want);
  });

  it("compareTo on a Dec converts the receiver to a Dec (as Go's Quantity.Cmp does)", () => {
    const e = k8sEnv([QUANTITY_LIBRARY]);
    expect(outcome(e, `[quantity("1")].all(x, x.isInteger() && x.compareTo(quantity("1.5Ki")) < 0 && !x.isInteger())`)).toEqual(v(true));
    // Comparing two int64 forms converts nothing.
    expect(outcome(e, `[quantity("1")].all(x, x.compareTo(quantity("2")) < 0 && x.isInteger())`)).toEqual(v(true));
  });

  it("1.36 add/sub share the receiver's Dec; later versions deep-copy", () => {
    const expr = `[quantity("9999999999999999999999999999999999999")].all(x, x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)`;
    expect(outcome(k8sEnv([QUANTITY_LIBRARY]), expr)).toEqual(v(false));
    expect(outcome(k8sEnv([quantityLibrary({ deepCopyOnArithmetic: true })]), expr)).toEqual(v(true));
    // The int64 form is a value: no sharing either way.
    expect(outcome(k8sEnv([QUANTITY_LIBRARY]), `[quantity("5")].all(x, x.add(1).compareTo(x.add(2)) == -1)`)).toEqual(v(true));
  });

  it("has the type kubernetes.Quantity", () => {
    const o = outcome(env, `type(quantity("1"))`) as { value: { name: string } };
    expect(o.value.name).toBe("kubernetes.Quantity");
    expect(outcome(env, `type(quantity("1")) == type(quantity("2").add(1))`)).toEqual(v(true));
  });

  it("exports the cost table by overload id", () => {
    expect(cost.string_to_quantity!.actual(["123456789012"])).toBe(2n);
    expect(cost.string_to_quantity!.estimate([{ min: 1n, max: 20n }])).toEqual({ min: 1n, max: 2n });
    expect(cost.quantity_add_int!.actual([])).toBe(1n);
  });
});

describe("resource.ParseQuantity and String (apimachinery quantity_test.go)", () => {
  const cases: [string, string][] = [
    ["1Ki", "1Ki"],
    ["1Mi", "1Mi"],
    ["1Gi", "1Gi"],
    ["1024Mi", "1Gi"],
    ["1000M", "1G"],
    [".001Ki", "1024m"],
    [".000001Ki", "1024u"],
    [".000000001Ki", "1024n"],
    [".000000000001Ki", "2n"],
  ];
  it.each(cases)("%s prints as %s", (input, want) => {
    expect(parseQuantity(input).toString()).toBe(want);
    expect(parseQuantity("-" + input).toString()).toBe("-" + want);
  });

  it.each<[string, string, Quantity["format"]]>([
    ["0", "0", "DecimalSI"],
    ["0Ki", "0", "BinarySI"],
    ["50k", "50k", "DecimalSI"],
    ["100.035k", "100.035k", "DecimalSI"],
    ["100.0350k", "100035", "DecimalSI"],
    ["1.3E+6", "1300e3", "DecimalExponent"],
    ["9Ei", "9223372036854775807", "BinarySI"],
    ["100.035Ki", "102435840m", "BinarySI"],
    ["0.5Mi", "512Ki", "BinarySI"],
    ["3.001n", "4n", "DecimalSI"],
    ["0.00000012354", "124n", "DecimalSI"],
    ["1.", "1.", "DecimalSI"], // the parser keeps the input as the string form
    ["1.G", "1.G", "DecimalSI"],
    ["12E", "12E", "DecimalSI"],
    ["+1", "+1", "DecimalSI"],
    ["1e-9", "1e-9", "DecimalExponent"],
  ])("%s → %s (%s)", (input, str, format) => {
    const q = parseQuantity(input);
    expect(q.format).toBe(format);
    expect(q.toString()).toBe(str);
  });

  it("arithmetic results print canonically", () => {
    const q = parseQuantity("50k");
    const r = q.shallowCopy();
    r.add(parseQuantity("20"));
    expect(r.toString()).toBe("50020");
    const b = parseQuantity("4Ei");
    b.add(parseQuantity("4Ei"));
    expect(b.d).not.toBeNull();
    expect(b.toString()).toBe("8Ei");
  });
});
