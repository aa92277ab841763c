import { describe, expect, it } from "vitest";
import { stringToDuration, stringToTimestamp } from "../std/time.js";
import { DYN } from "../types.js";
import { CelUint } from "../values.js";
import { outcome, k8sEnv, type Outcome } from "./test-harness.js";
import { K8S_LISTS_LIBRARY, cost, k8sListsLibrary, traversalCost } from "./lists.js";
import { QUANTITY_LIBRARY } from "./quantity.js";
import type { CostRange } from "./cost-model.js";

const env = k8sEnv([K8S_LISTS_LIBRARY, QUANTITY_LIBRARY], { d: DYN });
const v = (value: unknown): Outcome => ({ value: value as never });
const evalErr = (evalError: string): Outcome => ({ evalError });

// Expected values from the examples in k8s.io/apiserver pkg/cel/library/lists.go and the
// lists cases of cost_test.go / library_compatibility_test.go, plus cel-go Compare/Add semantics.
describe("Kubernetes lists library", () => {
  it.each<[string, Outcome]>([
    [`[1, 2, 3].isSorted()`, v(true)],
    [`["a", "b", "b", "c"].isSorted()`, v(true)],
    [`[2.0, 1.0].isSorted()`, v(false)],
    [`[1, 2, 3].sum()`, v(6n)],
    [`[1.0, 2.0, 3.0].sum()`, v(6)],
    [`[1u, 2u].sum()`, v(new CelUint(3n))],
    [`[duration('1s'), duration('1m')].sum()`, v(stringToDuration("61s"))],
    [`[1, 2, 3].min()`, v(1n)],
    [`[1, 2, 3].max()`, v(3n)],
    [`[timestamp('2020-01-01T00:00:00Z'), timestamp('2019-01-01T00:00:00Z')].min()`, v(stringToTimestamp("2019-01-01T00:00:00Z"))],
    [`[b'b', b'ab'].min()`, v(new Uint8Array([0x61, 0x62]))],
    [`[false, true].max()`, v(true)],
    [`["😀", "\\uffff"].max()`, v("😀")],
    [`[1, 2, 2, 3].indexOf(2)`, v(1n)],
    [`[1, 2, 2, 3].lastIndexOf(2)`, v(2n)],
    [`[1, 2, 3].indexOf(4)`, v(-1n)],
    [`["a", "b"].lastIndexOf("c")`, v(-1n)],
    [`[[1], [2, 3]].indexOf([2, 3])`, v(1n)],
    [`[quantity("1"), quantity("1000m")].lastIndexOf(quantity("1"))`, v(1n)],
    // Empty lists.
    [`[].sum()`, v(0n)],
    [`[0.0].sum() == 0.0`, v(true)],
    [`[].isSorted()`, v(true)],
    [`[].indexOf(1)`, v(-1n)],
    [`[].min()`, evalErr("min called on empty list")],
    [`[].max()`, evalErr("max called on empty list")],
    [`d.min()`, evalErr("min called on empty list")],
    // Overflow is the + operator's error.
    [`[9223372036854775807, 1].sum()`, evalErr("integer overflow")],
    [`[18446744073709551615u, 1u].sum()`, evalErr("unsigned integer overflow")],
  ])("%s", (expr, want) => {
    expect(outcome(env, expr, { d: [] })).toEqual(want);
  });

  it.each<[string, unknown[], Outcome]>([
    // dyn receivers of one element type.
    ["d.sum()", [1.5, 2.5], v(4)],
    ["d.sum()", [new CelUint(1n), new CelUint(2n)], v(new CelUint(3n))],
    // Failed comparisons (NaN) never replace the candidate.
    ["d.min()", [Number.NaN, 1], v(Number.NaN)],
    ["d.min()", [1, Number.NaN, 0.5], v(0.5)],
    ["d.indexOf(1)", [1.0, 1n], v(0n)],
    ["d.lastIndexOf(1)", [1.0, 1n, "1"], v(1n)],
  ])("%s with d = %o", (expr, d, want) => {
    expect(outcome(env, expr, { d: d as never })).toEqual(want);
  });

  // cel-go picks the overload for a dyn list by its FIRST element (IsAssignableRuntimeType).
  it.each<[string, unknown[], Outcome]>([
    ["d.isSorted()", [1n, 2.5, new CelUint(3n)], v(true)],
    ["d.isSorted()", [2n, 1.5], v(false)],
    ["d.max()", [1n, "a", 2.5], v(2.5)],
    ["d.min()", ["b", 1n, "a"], v("a")],
  ])("(first-element dispatch) %s with d = %o", (expr, d, want) => {
    expect(outcome(env, expr, { d: d as never })).toEqual(want);
  });

  it("handles mixed lists as cel-go's first-element dispatch would", () => {
    const impl = (id: string) => K8S_LISTS_LIBRARY.functions!.flatMap((f) => f.overloads).find((o) => o.id === id)!.impl!;
    expect(impl("list_int_is_sorted_bool")([1n, 2.5, new CelUint(3n)])).toBe(true);
    expect(impl("list_int_is_sorted_bool")([2n, 1.5])).toBe(false);
    expect(impl("list_int_max_int")([1n, "a", 2.5])).toBe(2.5);
    expect(impl("list_string_min_string")(["b", 1n, "a"])).toBe("a");
    expect(impl("list_int_sum_int")([1.5, 2.5])).toBe(4);
    expect(() => impl("list_int_sum_int")([1.5, 2n])).toThrow("no such overload");
    expect(() => impl("list_int_sum_int")(["a"])).toThrow("no such overload");
  });

  it.each([`[1, 2].indexOf("a")`, `["a"].sum()`, `[[1]].min()`, `[{"a": 1}].isSorted()`, `[true].sum()`, `1.isSorted()`])(
    "rejects %s at compile time",
    (expr) => {
      expect(outcome(env, expr)).toHaveProperty("compileError");
    },
  );

  it("version 0 (Kubernetes 1.36) has no includes; version 1 has", () => {
    expect(outcome(env, `[1, 2].includes(2)`)).toHaveProperty("compileError");
    const v1 = k8sEnv([k8sListsLibrary(1)]);
    expect(outcome(v1, `[1, 2].includes(2)`)).toEqual(v(true));
    expect(outcome(v1, `[1, 2].includes(3)`)).toEqual(v(false));
    expect(outcome(v1, `"a".includes("a")`)).toEqual(v(true));
  });

  it("costs one traversal of the receiver", () => {
    expect(traversalCost([1n, 2n, 3n])).toBe(3n);
    // Strings cost uint64(bytes × 0.1): truncated, so short strings are free.
    expect(traversalCost(["abc", "0123456789é"])).toBe(1n);
    expect(cost.list_int_sum_int!.actual([[1n, 2n]])).toBe(2n);
    const estimate = cost.list_string_max_string!.estimate as (a: readonly CostRange[], t: CostRange, e?: CostRange) => CostRange;
    expect(estimate([], { min: 0n, max: 10n }, { min: 0n, max: 20n })).toEqual({ min: 0n, max: 30n });
    expect(estimate([], { min: 2n, max: 10n })).toEqual({ min: 2n, max: 10n });
  });
});
