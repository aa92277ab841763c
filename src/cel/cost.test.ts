/**
 * Static cost estimation against cel-go v0.26's numbers (`checker/cost_test.go`
 * `TestCost`), with its size hints (`testCostEstimator`: a hinted path has size
 * [0, hint]), plus Kubernetes' budget message and run-time costs within the
 * estimates.
 */
import { describe, expect, test } from "vitest";
import { Env } from "./env.js";
import { costBudgetMessage, checkEstimatedCost, estimateCost, type SizeEstimator } from "./cost.js";
import { CelCompileError } from "./errors.js";
import { BOOL, BYTES, INT, STRING, TIMESTAMP, DURATION, DYN, listType, mapType, type CelType } from "./types.js";

const ALL = mapType(STRING, DYN);
const INT_LIST = listType(INT);
const STR_LIST = listType(STRING);

function hints(h: Record<string, number>): SizeEstimator {
  return {
    estimateSize(node) {
      const k = node.path?.join(".");
      const v = k === undefined ? undefined : h[k];
      return v === undefined ? undefined : { min: 0n, max: BigInt(v) };
    },
  };
}

interface Case {
  readonly name: string;
  readonly expr: string;
  readonly vars?: Record<string, CelType>;
  readonly hints?: Record<string, number>;
  readonly want: [number | bigint, number | bigint];
  readonly presence?: boolean;
}

const CASES: Case[] = [
  { name: "const", expr: `"Hello World!"`, want: [0, 0] },
  { name: "identity", expr: `input`, vars: { input: INT_LIST }, want: [1, 1] },
  { name: "select: map", expr: `input['key']`, vars: { input: mapType(STRING, STRING) }, want: [2, 2] },
  { name: "select: field", expr: `input.single_int32`, vars: { input: ALL }, want: [2, 2] },
  { name: "select: field test only no has() cost", expr: `has(input.single_int32)`, vars: { input: ALL }, presence: false, want: [1, 1] },
  { name: "select: field test only", expr: `has(input.single_int32)`, vars: { input: ALL }, want: [2, 2] },
  { name: "select: non-proto field test", expr: `has(input.testAttr.nestedAttr)`, vars: { input: mapType(STRING, mapType(STRING, ALL)) }, want: [3, 3] },
  { name: "create list", expr: `[1, 2, 3]`, want: [10, 10] },
  { name: "create map", expr: `{"a": 1, "b": 2, "c": 3}`, want: [30, 30] },
  { name: "all comprehension", expr: `input.all(x, true)`, vars: { input: listType(ALL) }, hints: { input: 100 }, want: [2, 302] },
  {
    name: "nested all comprehension",
    expr: `input.all(x, x.all(y, true))`,
    vars: { input: listType(listType(ALL)) },
    hints: { input: 50, "input.@items": 10 },
    want: [2, 1752],
  },
  { name: "all comprehension on literal", expr: `[1, 2, 3].all(x, true)`, want: [20, 20] },
  { name: "variable cost function", expr: `input.matches('[0-9]')`, vars: { input: STRING }, hints: { input: 500 }, want: [3, 103] },
  { name: "variable cost function with constant", expr: `'123'.matches('[0-9]')`, want: [2, 2] },
  { name: "or", expr: `true || false`, want: [0, 0] },
  { name: "or accumulated branch cost", expr: `a || b || c || d`, vars: { a: BOOL, b: BOOL, c: BOOL, d: BOOL }, want: [1, 4] },
  { name: "and accumulated branch cost", expr: `a && b && c && d`, vars: { a: BOOL, b: BOOL, c: BOOL, d: BOOL }, want: [1, 4] },
  { name: "lt", expr: `1 < 2`, want: [1, 1] },
  { name: "in", expr: `2 in [1, 2, 3]`, want: [13, 13] },
  { name: "ternary", expr: `true ? 1 : 2`, want: [0, 0] },
  { name: "string size", expr: `size("123")`, want: [1, 1] },
  { name: "bytes size", expr: `size(b"123")`, want: [1, 1] },
  { name: "bytes to string conversion", expr: `string(input)`, vars: { input: BYTES }, hints: { input: 500 }, want: [1, 51] },
  { name: "bytes to string conversion equality", expr: `string(input) == string(input)`, vars: { input: BYTES }, hints: { input: 500 }, want: [3, 152] },
  { name: "string to bytes conversion", expr: `bytes(input)`, vars: { input: STRING }, hints: { input: 500 }, want: [1, 51] },
  { name: "string to bytes conversion equality", expr: `bytes(input) == bytes(input)`, vars: { input: STRING }, hints: { input: 500 }, want: [3, 302] },
  { name: "int to string conversion", expr: `string(1)`, want: [1, 1] },
  { name: "contains", expr: `input.contains(arg1)`, vars: { input: STRING, arg1: STRING }, hints: { input: 500, arg1: 500 }, want: [2, 2502] },
  { name: "matches", expr: `input.matches('\\\\d+a\\\\d+b')`, vars: { input: STRING }, hints: { input: 500 }, want: [3, 103] },
  { name: "startsWith", expr: `input.startsWith(arg1)`, vars: { input: STRING, arg1: STRING }, hints: { arg1: 500 }, want: [2, 52] },
  { name: "size receiver", expr: `input.size()`, vars: { input: STRING }, want: [2, 2] },
  {
    name: "ternary eval",
    expr: `(x > 2 ? input1 : input2).all(y, true)`,
    vars: { x: INT, input1: listType(ALL), input2: listType(ALL) },
    hints: { input1: 1, input2: 1 },
    want: [4, 7],
  },
  { name: "comprehension over map", expr: `input.all(k, input[k].single_int32 > 3)`, vars: { input: mapType(STRING, ALL) }, hints: { input: 10 }, want: [2, 82] },
  {
    name: "comprehension over nested map of maps",
    expr: `input.all(k, input[k].all(x, true))`,
    vars: { input: mapType(STRING, mapType(STRING, ALL)) },
    hints: { input: 5, "input.@values": 10 },
    want: [2, 187],
  },
  {
    name: "string size of map keys",
    expr: `input.all(k, k.contains(k))`,
    vars: { input: mapType(STRING, mapType(STRING, ALL)) },
    hints: { input: 5, "input.@keys": 10 },
    want: [2, 32],
  },
  {
    name: "comprehension variable shadowing",
    expr: `input.all(k, input[k].all(k, true) && k.contains(k))`,
    vars: { input: mapType(STRING, mapType(STRING, ALL)) },
    hints: { input: 2, "input.@values": 2, "input.@keys": 5 },
    want: [2, 34],
  },
  { name: "list concat", expr: `(list1 + list2).all(x, true)`, vars: { list1: INT_LIST, list2: INT_LIST }, hints: { list1: 10, list2: 10 }, want: [4, 64] },
  { name: "str concat", expr: `"abcdefg".contains(str1 + str2)`, vars: { str1: STRING, str2: STRING }, hints: { str1: 10, str2: 10 }, want: [2, 6] },
  { name: "list size comparison", expr: `list1.size() == list2.size()`, vars: { list1: INT_LIST, list2: INT_LIST }, want: [5, 5] },
  {
    name: "list size from ternary",
    expr: `x > y ? list1.size() : list2.size()`,
    vars: { x: INT, y: INT, list1: INT_LIST, list2: INT_LIST },
    want: [5, 5],
  },
  {
    name: "list size from concat",
    expr: `([x, y] + list1 + list2).size()`,
    vars: { x: INT, y: INT, list1: INT_LIST, list2: INT_LIST },
    hints: { list1: 10, list2: 20 },
    want: [17, 17],
  },
  {
    name: "list cost tracking through comprehension",
    expr: `[list1, list2].exists(l, l.exists(v, v.startsWith('hi')))`,
    vars: { list1: STR_LIST, list2: STR_LIST },
    hints: { list1: 10, "list1.@items": 64, list2: 20, "list2.@items": 128 },
    want: [21, 265],
  },
  {
    name: "str endsWith equality",
    expr: `str1.endsWith("abcdefghijklmnopqrstuvwxyz") == str2.endsWith("abcdefghijklmnopqrstuvwxyz")`,
    vars: { str1: STRING, str2: STRING },
    want: [9, 9],
  },
  { name: "nested subexpression operators", expr: `((5 != 6) == (1 == 2)) == ((3 <= 4) == (9 != 9))`, want: [7, 7] },
  { name: "str size estimate", expr: `string(timestamp1) == string(timestamp2)`, vars: { timestamp1: TIMESTAMP, timestamp2: TIMESTAMP }, want: [5, 1844674407370955268n] },
  { name: "timestamp equality check", expr: `timestamp1 == timestamp2`, vars: { timestamp1: TIMESTAMP, timestamp2: TIMESTAMP }, want: [3, 3] },
  { name: "duration inequality check", expr: `duration1 != duration2`, vars: { duration1: DURATION, duration2: DURATION }, want: [3, 3] },
  { name: ".filter list literal", expr: `[1,2,3,4,5].filter(x, x % 2 == 0)`, want: [41, 101] },
  { name: ".map list literal", expr: `[1,2,3,4,5].map(x, x)`, want: [86, 86] },
  { name: ".map.filter list literal", expr: `[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)`, want: [117, 177] },
  { name: ".map.exists list literal", expr: `[1,2,3,4,5].map(x, x).exists(x, x == 5) == true`, want: [108, 118] },
  { name: ".map.map list literal", expr: `[1,2,3,4,5].map(x, x).map(x, x)`, want: [162, 162] },
  { name: ".map list literal selection", expr: `[1,2,3,4,5].map(x, x)[4]`, want: [87, 87] },
  { name: "nested array selection", expr: `[[1,2],[1,2],[1,2],[1,2],[1,2]][4]`, want: [61, 61] },
  { name: "nested map selection", expr: `{'a': [1,2], 'b': [1,2], 'c': [1,2], 'd': [1,2], 'e': [1,2]}.b`, want: [81, 81] },
  { name: "comprehension on nested list", expr: `[[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]].all(y, y.all(y, y == 1))`, want: [76, 136] },
  { name: "comprehension on transformed nested list", expr: `[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))`, want: [157, 217] },
  {
    name: "comprehension on nested literal list",
    expr: `["a", "ab", "abc", "abcd", "abcde"].map(x, [x, x]).all(y, y.all(y, y.startsWith('a')))`,
    want: [157, 217],
  },
  { name: "comprehension chaining with concat", expr: `[1,2,3,4,5].map(x, x).map(x, x) + [1]`, want: [173, 173] },
  { name: "nested comprehension", expr: `[1,2,3].all(i, i in [1,2,3].map(j, j + j))`, want: [20, 230] },
  { name: "nested dyn comprehension", expr: `dyn([1,2,3]).all(i, i in dyn([1,2,3]).map(j, j + j))`, want: [21, 234] },
  { name: "literal map access", expr: `{'hello': 'hi'}['hello'] != {'hello': 'bye'}['hello']`, want: [63, 63] },
  { name: "literal list access", expr: `['hello', 'hi'][0] != ['hello', 'bye'][1]`, want: [23, 23] },
  { name: "type call", expr: `type(1)`, want: [1, 1] },
];

describe("estimated cost equals cel-go's (checker/cost_test.go)", () => {
  for (const c of CASES) {
    test(c.name, () => {
      const env = new Env({ variables: c.vars ?? {}, cost: { presenceTestHasCost: c.presence ?? true } });
      const est = estimateCost(env.compile(c.expr), env, { sizeEstimator: hints(c.hints ?? {}) });
      expect([est.min, est.max]).toEqual([BigInt(c.want[0]), BigInt(c.want[1])]);
    });
  }
});

describe("run-time costs fall within the estimates", () => {
  test.each([
    [`[1,2,3,4,5].filter(x, x % 2 == 0)`],
    [`[1,2,3,4,5].map(x, x).exists(x, x == 5) == true`],
    [`[1,2,3].all(i, i in [1,2,3].map(j, j + j))`],
    [`[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))`],
    [`[1,2,3,4,5].map(x, x).map(x, x) + [1]`],
  ])("%s", (expr) => {
    const env = new Env();
    const checked = env.compile(expr);
    const est = estimateCost(checked, env);
    const actual = BigInt(env.program(checked).evalWithCost().cost);
    expect(actual >= est.min && actual <= est.max).toBe(true);
  });
});

test("a qualifier on a non-attribute operand costs its relative attribute at run time (1 above the estimate)", () => {
  // cel-go wraps `[…]` in a relative attribute (observed: 1) before qualifying it (1);
  // the estimator charges the index call only.
  const env = new Env();
  const checked = env.compile(`['hello', 'hi'][0] != ['hello', 'bye'][1]`);
  expect(estimateCost(checked, env).max).toBe(23n);
  expect(env.program(checked).evalWithCost().cost).toBe(25);
});

describe("Kubernetes' estimated-cost rejection", () => {
  test("message wording (apiextensions getCostErrorMessage)", () => {
    expect(costBudgetMessage("estimated rule cost", 10n, 10n)).toBeUndefined();
    expect(costBudgetMessage("estimated rule cost", 2_000_000, 1_000_000)).toBe(
      "estimated rule cost exceeds budget by factor of 2.0x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
    );
    expect(costBudgetMessage("estimated rule cost", 1_200_000, 1_000_000)).toContain("by factor of 1.200000x");
    expect(costBudgetMessage("estimated rule cost", 2n ** 64n - 1n, 1_000_000)).toContain("by factor of more than 100x");
  });

  test("an unbounded nested comprehension is rejected, a bounded one passes", () => {
    const env = new Env({ variables: { xs: STR_LIST } });
    const nested = env.compile(`xs.all(x, xs.all(y, x.contains(y)))`);
    expect(() => checkEstimatedCost(nested, env, 1_000_000)).toThrow(CelCompileError);
    expect(() => checkEstimatedCost(nested, env, 1_000_000)).toThrow(/estimated rule cost exceeds budget by factor of more than 100x/);
    const bounded = checkEstimatedCost(nested, env, 1_000_000, { sizeEstimator: hints({ xs: 10, "xs.@items": 10 }) });
    expect(bounded.max).toBeLessThan(1_000_000n);
  });
});
