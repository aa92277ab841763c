/**
 * Run-time cost tracking against cel-go v0.26's numbers: the expected costs are
 * those of `interpreter/runtimecost_test.go` (`TestRuntimeCost`), evaluated with
 * cel-go's defaults (no constant folding, `has()` costs 1). Proto message
 * inputs are replaced by maps, which cost the same per selection.
 */
import { describe, expect, test } from "vitest";
import { Env, type EnvOptions } from "./env.js";
import { CelCostLimitError, COST_LIMIT_MESSAGE, KUBERNETES_COST_OPTIONS, PER_CALL_LIMIT } from "./cost-runtime.js";
import { CelEvalError } from "./errors.js";
import { BOOL, BYTES, DYN, INT, STRING, listType, mapType, type CelType } from "./types.js";
import type { CelValue } from "./values.js";

const ALL = mapType(STRING, DYN); // stands in for TestAllTypes
const ALL_LIST = listType(ALL);
const NESTED_LIST = listType(ALL_LIST);
const ALL_MAP = mapType(STRING, ALL);
const NESTED_MAP = mapType(STRING, ALL_MAP);
const INT_LIST = listType(INT);

const rand500 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".repeat(10).slice(0, 500);

interface Case {
  readonly name: string;
  readonly expr: string;
  readonly want: number;
  readonly vars?: Record<string, CelType>;
  readonly in?: Record<string, CelValue>;
  readonly presence?: boolean;
}

const CASES: Case[] = [
  { name: "const", expr: `"Hello World!"`, want: 0 },
  { name: "identity", expr: `input`, vars: { input: INT_LIST }, in: { input: [1n, 2n] }, want: 1 },
  { name: "select: map", expr: `input['key']`, vars: { input: mapType(STRING, STRING) }, in: { input: new Map([["key", "v"]]) }, want: 2 },
  { name: "select: array index", expr: `input[0]`, vars: { input: listType(STRING) }, in: { input: ["v"] }, want: 2 },
  { name: "select: field", expr: `input.single_int32`, vars: { input: ALL }, in: { input: new Map([["single_int32", 0n]]) }, want: 2 },
  { name: "expr select: map", expr: `input['ke' + 'y']`, vars: { input: mapType(STRING, STRING) }, in: { input: new Map([["key", "v"]]) }, want: 3 },
  { name: "expr select: array index", expr: `input[3-3]`, vars: { input: listType(STRING) }, in: { input: ["v"] }, want: 3 },
  {
    name: "select: field test only no has() cost",
    expr: `has(input.single_int32)`,
    vars: { input: ALL },
    in: { input: new Map() },
    presence: false,
    want: 1,
  },
  { name: "select: field test only", expr: `has(input.single_int32)`, vars: { input: ALL }, in: { input: new Map() }, want: 2 },
  {
    name: "select: non-proto field test has() cost",
    expr: `has(input.testAttr.nestedAttr)`,
    vars: { input: NESTED_MAP },
    in: { input: new Map([["testAttr", new Map([["nestedAttr", "0"]])]]) },
    want: 3,
  },
  {
    name: "select: non-proto field test no has() cost",
    expr: `has(input.testAttr.nestedAttr)`,
    vars: { input: NESTED_MAP },
    in: { input: new Map([["testAttr", new Map([["nestedAttr", "0"]])]]) },
    presence: false,
    want: 2,
  },
  { name: "create list", expr: `[1, 2, 3]`, want: 10 },
  { name: "create map", expr: `{"a": 1, "b": 2, "c": 3}`, want: 30 },
  { name: "all comprehension", expr: `input.all(x, true)`, vars: { input: ALL_LIST }, in: { input: [] }, want: 2 },
  { name: "nested all comprehension", expr: `input.all(x, x.all(y, true))`, vars: { input: NESTED_LIST }, in: { input: [] }, want: 2 },
  { name: "all comprehension on literal", expr: `[1, 2, 3].all(x, true)`, want: 20 },
  { name: "variable cost function", expr: `input.matches('[0-9]')`, vars: { input: STRING }, in: { input: rand500 }, want: 103 },
  { name: "variable cost function with constant", expr: `'123'.matches('[0-9]')`, want: 2 },
  { name: "or", expr: `false || false`, want: 0 },
  { name: "or short-circuit", expr: `true || false`, want: 0 },
  {
    name: "or accumulated branch cost",
    expr: `a || b || c || d`,
    vars: { a: BOOL, b: BOOL, c: BOOL, d: BOOL },
    in: { a: false, b: false, c: false, d: false },
    want: 4,
  },
  { name: "and", expr: `true && false`, want: 0 },
  { name: "and short-circuit", expr: `false && true`, want: 0 },
  {
    name: "and accumulated branch cost",
    expr: `a && b && c && d`,
    vars: { a: BOOL, b: BOOL, c: BOOL, d: BOOL },
    in: { a: true, b: true, c: true, d: true },
    want: 4,
  },
  { name: "lt", expr: `1 < 2`, want: 1 },
  { name: "lte", expr: `1 <= 2`, want: 1 },
  { name: "eq", expr: `1 == 2`, want: 1 },
  { name: "gt", expr: `2 > 1`, want: 1 },
  { name: "gte", expr: `2 >= 1`, want: 1 },
  { name: "in", expr: `2 in [1, 2, 3]`, want: 13 },
  { name: "plus", expr: `1 + 1`, want: 1 },
  { name: "minus", expr: `1 - 1`, want: 1 },
  { name: "/", expr: `1 / 1`, want: 1 },
  { name: "*", expr: `1 * 1`, want: 1 },
  { name: "%", expr: `1 % 1`, want: 1 },
  { name: "ternary", expr: `true ? 1 : 2`, want: 0 },
  { name: "string size", expr: `size("123")`, want: 1 },
  { name: "str eq str", expr: `'12345678901234567890' == '123456789012345678901234567890'`, want: 2 },
  { name: "bytes to string conversion", expr: `string(input)`, vars: { input: BYTES }, in: { input: new TextEncoder().encode(rand500) }, want: 51 },
  { name: "string to bytes conversion", expr: `bytes(input)`, vars: { input: STRING }, in: { input: rand500 }, want: 51 },
  { name: "int to string conversion", expr: `string(1)`, want: 1 },
  { name: "contains", expr: `input.contains(arg1)`, vars: { input: STRING, arg1: STRING }, in: { input: rand500, arg1: rand500 }, want: 2502 },
  { name: "matches", expr: `input.matches('\\\\d+a\\\\d+b')`, vars: { input: STRING }, in: { input: rand500 }, want: 103 },
  { name: "startsWith", expr: `input.startsWith(arg1)`, vars: { input: STRING, arg1: STRING }, in: { input: "idc", arg1: rand500 }, want: 3 },
  { name: "endsWith", expr: `input.endsWith(arg1)`, vars: { input: STRING, arg1: STRING }, in: { input: "idc", arg1: rand500 }, want: 3 },
  { name: "size receiver", expr: `input.size()`, vars: { input: STRING }, in: { input: "500" }, want: 2 },
  { name: "size", expr: `size(input)`, vars: { input: STRING }, in: { input: "500" }, want: 2 },
  {
    name: "ternary eval",
    expr: `(x > 2 ? input1 : input2).all(y, true)`,
    vars: { x: INT, input1: ALL_LIST, input2: ALL_LIST },
    in: { input1: [new Map()], input2: [new Map()], x: 1n },
    want: 6,
  },
  { name: "ternary eval trivial, true", expr: `true ? false : 1 > 3`, want: 0 },
  { name: "ternary eval trivial, false", expr: `false ? false : 1 > 3`, want: 1 },
  {
    name: "comprehension over map",
    expr: `input.all(k, input[k].single_int32 > 3)`,
    vars: { input: ALL_MAP },
    in: { input: new Map([["val", new Map([["single_int32", 0n]])]]) },
    want: 9,
  },
  { name: "comprehension over nested map of maps", expr: `input.all(k, input[k].all(x, true))`, vars: { input: NESTED_MAP }, in: { input: new Map() }, want: 2 },
  { name: "string size of map keys", expr: `input.all(k, k.contains(k))`, vars: { input: NESTED_MAP }, in: { input: new Map() }, want: 2 },
  {
    name: "comprehension variable shadowing",
    expr: `input.all(k, input[k].all(k, true) && k.contains(k))`,
    vars: { input: NESTED_MAP },
    in: { input: new Map() },
    want: 2,
  },
  { name: "list concat", expr: `(list1 + list2).all(x, true)`, vars: { list1: INT_LIST, list2: INT_LIST }, in: { list1: [], list2: [] }, want: 4 },
  { name: "str concat", expr: `"abcdefg".contains(str1 + str2)`, vars: { str1: STRING, str2: STRING }, in: { str1: "val1", str2: "val2222222" }, want: 6 },
  { name: "ternary as operand", expr: `(1 > 2 ? 5 : 3) > 1`, want: 2 },
  { name: "ternary as operand (||)", expr: `(1 > 2 || 2 > 1) == true`, want: 3 },
  { name: "list map literal", expr: `[{'k1': 1}, {'k2': 2}].all(x, true)`, want: 77 },
  { name: ".filter list literal", expr: `[1,2,3,4,5].filter(x, x % 2 == 0)`, want: 62 },
  { name: ".map list literal", expr: `[1,2,3,4,5].map(x, x)`, want: 86 },
  { name: ".map.filter list literal", expr: `[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)`, want: 138 },
  { name: ".map.exists list literal", expr: `[1,2,3,4,5].map(x, x).exists(x, x == 5) == true`, want: 118 },
  { name: ".map.map list literal", expr: `[1,2,3,4,5].map(x, x).map(x, x)`, want: 162 },
  { name: ".map.filter nested list literal", expr: `[1,2,3,4,5].map(x, [x, x]).filter(z, z.size() == 2)`, want: 232 },
  { name: "comprehension on nested list", expr: `[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))`, want: 171 },
  { name: "comprehension size", expr: `[1,2,3,4,5].map(x, x).map(x, x) + [1]`, want: 173 },
  { name: "nested comprehension", expr: `[1,2,3].all(i, i in [1,2,3].map(j, j + j))`, want: 86 },
];

function program(expr: string, vars: Record<string, CelType> = {}, options: EnvOptions = {}) {
  const env = new Env({ variables: vars, ...options });
  return env.program(env.compile(expr));
}

describe("runtime cost equals cel-go's (interpreter/runtimecost_test.go)", () => {
  for (const c of CASES) {
    test(c.name, () => {
      const p = program(c.expr, c.vars, { cost: { presenceTestHasCost: c.presence ?? true } });
      const r = p.evalWithCost(c.in ?? {});
      expect(r.cost).toBe(c.want);
      expect(p.lastCost).toBe(c.want);
      // The tracked and untracked plans agree on the value.
      expect(r.value).toEqual(p.eval(c.in ?? {}));
    });
  }

  test("unchecked ASTs are charged the same", () => {
    let n = 0;
    for (const c of CASES) {
      if (c.expr.includes("has(")) continue;
      const env = new Env({ variables: c.vars ?? {} });
      const p = env.program(env.parse(c.expr));
      const r = p.evalWithCost(c.in ?? {});
      // cel-go charges size-dependent standard functions only with a checked overload id.
      if (/matches|contains|startsWith|endsWith|string\(input|bytes\(|\bin\b|==/.test(c.expr)) continue;
      expect(r.cost, c.expr).toBe(c.want);
      n++;
    }
    expect(n).toBeGreaterThan(20);
  });
});

describe("cost limits", () => {
  test("at the limit passes, above it stops with cel-go's error", () => {
    const vars = { str1: STRING, str2: STRING };
    const input = { str1: "val1", str2: "val2222222" };
    const p = program(`"abcdefg".contains(str1 + str2)`, vars);
    expect(p.evalWithCost(input, { costLimit: 6 }).cost).toBe(6);
    expect(() => p.eval(input, { costLimit: 5 })).toThrow(CelCostLimitError);
    try {
      p.eval(input, { costLimit: 5 });
    } catch (x) {
      expect(x).toBeInstanceOf(CelEvalError);
      const err = x as CelCostLimitError;
      expect(err.message).toBe("operation cancelled: actual cost limit exceeded");
      expect(err.message).toBe(COST_LIMIT_MESSAGE);
      expect(err.limit).toBe(5);
      expect(err.expression).toBe(`"abcdefg".contains(str1 + str2)`);
      expect(err.detail).toContain("cost limit 5");
      expect(err.detail).toContain(`"abcdefg".contains(str1 + str2)`);
    }
  });

  test("the nested-map bar: stopped by the per-call limit, not a timeout", () => {
    const env = new Env({ variables: { input: listType(INT) }, cost: KUBERNETES_COST_OPTIONS });
    const p = env.program(
      env.compile(
        `input.map(x, [1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, a*b*c*d)))))`,
      ),
    );
    const input = Array.from({ length: 1000 }, (_, i) => BigInt(i));
    const t0 = performance.now();
    let err: unknown;
    try {
      p.eval({ input }, { costLimit: PER_CALL_LIMIT });
    } catch (x) {
      err = x;
    }
    const ms = performance.now() - t0;
    expect(err).toBeInstanceOf(CelCostLimitError);
    expect((err as CelCostLimitError).limit).toBe(1_000_000);
    expect((err as CelCostLimitError).cost).toBeGreaterThan(1_000_000);
    expect((err as CelCostLimitError).cost).toBeLessThan(1_000_100);
    expect(ms).toBeLessThan(2000);
  });

  test("the same bar as written in the issue, over literals", () => {
    const env = new Env({ cost: KUBERNETES_COST_OPTIONS });
    const p = env.program(
      env.compile(`[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, a*b*c*d))))`),
    );
    // 10^4 innermost steps are well within the limit: the cost is reported.
    const r = p.evalWithCost({}, { costLimit: PER_CALL_LIMIT });
    expect(r.cost).toBeGreaterThan(10_000 * 12);
    expect(() => p.eval({}, { costLimit: 100_000 })).toThrow("operation cancelled: actual cost limit exceeded");
  });

  test("errors absorbed by || and comprehensions do not swallow the limit", () => {
    const p = program(`xs.all(x, x.contains('b') || true) || true`, { xs: listType(STRING) });
    const xs = Array.from({ length: 100 }, () => "a".repeat(1000));
    expect(() => p.eval({ xs }, { costLimit: 500 })).toThrow(CelCostLimitError);
    expect(p.evalWithCost({ xs }).value).toBe(true);
  });

  test("a remaining budget interrupts inside a comprehension as soon as exceeded", () => {
    const p = program(`xs.all(x, x > 0)`, { xs: listType(INT) });
    const xs = Array.from({ length: 10_000 }, (_, i) => BigInt(i + 1));
    const full = p.evalWithCost({ xs }).cost;
    // range 1 + result 1 + 10,000 × (condition 2 + accumulator 1 + x 1 + > 1)
    expect(full).toBe(2 + 10_000 * 5);
    let err: CelCostLimitError | undefined;
    try {
      p.eval({ xs }, { costLimit: 1000 });
    } catch (x) {
      err = x as CelCostLimitError;
    }
    expect(err?.cost).toBeLessThanOrEqual(1005);
    expect(p.lastCost).toBe(err?.cost);
  });

  test("eval without options tracks nothing; eval with a limit tracks", () => {
    const p = program(`[1, 2].map(x, x * 2)`);
    expect(p.eval()).toEqual([2n, 4n]);
    expect(p.lastCost).toBeUndefined();
    expect(p.eval(undefined, { costLimit: 1000 })).toEqual([2n, 4n]);
    expect(p.lastCost).toBe(10 + 10 + 2 * (12 + 2) + 1);
  });
});

describe("Kubernetes cost options", () => {
  const k8s = (expr: string, vars: Record<string, CelType> = {}, input: Record<string, CelValue> = {}) =>
    program(expr, vars, { cost: KUBERNETES_COST_OPTIONS }).evalWithCost(input).cost;

  test("constant literals and conversions fold to 0", () => {
    expect(k8s(`[1, 2, 3]`)).toBe(0);
    expect(k8s(`{"a": [1], "b": [2]}`)).toBe(0);
    expect(k8s(`duration('1s')`)).toBe(0);
    expect(k8s(`[1, 2, 3].all(x, true)`)).toBe(10);
    expect(k8s(`[x, 2]`, { x: INT }, { x: 1n })).toBe(11);
  });

  test("membership in a constant primitive list is a set lookup (0)", () => {
    expect(k8s(`x in ['a', 'b', 'c']`, { x: STRING }, { x: "b" })).toBe(1);
    expect(k8s(`x in [y, 'b']`, { x: STRING, y: STRING }, { x: "b", y: "a" })).toBe(1 + 1 + 10 + 2);
  });

  test("has() costs nothing of its own", () => {
    expect(k8s(`has(o.a)`, { o: mapType(STRING, INT) }, { o: new Map() })).toBe(1);
  });
});

describe("the tracked plan gives the same value or error as the untracked one", () => {
  const env = new Env({
    variables: { xs: listType(INT), m: mapType(STRING, INT), s: STRING, d: DYN },
    libraries: [],
    cost: KUBERNETES_COST_OPTIONS,
  });
  const vars = { xs: [1n, 2n, 3n, 0n], m: new Map<string, CelValue>([["a", 1n], ["b", 0n]]), s: "héllo wörld 😀", d: new Map([["k", "v"]]) };
  const EXPRS = [
    `xs.map(x, 10 / x)`,
    `xs.exists(x, 10 / x == 5) || true`,
    `xs.all(x, 10 / x > 0)`,
    `xs.exists(x, 10 / x > 100)`,
    `xs.filter(x, 10 / x > 3)`,
    `xs.map(x, x > 1, x * 2)`,
    `m.all(k, m[k] >= 0) && s.contains('ö')`,
    `m.exists_one(k, m[k] == 1)`,
    `s + s == s`,
    `size(s) > 3 ? s.startsWith('h') : s.endsWith('d')`,
    `d.k == 'v' && d.missing == 'x'`,
    `d.missing == 'x' || d.k == 'v'`,
    `[1, 2, 3].map(x, [x, x]).filter(y, y[0] > 1)`,
    `{'a': 1, 'b': xs[0]}.a + xs[1]`,
    `xs[10]`,
    `has(d.k) && !has(d.z)`,
    `'x' in ['a', 'b', 'x'] && 5 in xs`,
    `xs.map(x, string(x) + ':' + s).exists(y, y.matches('^3'))`,
    `s.matches('^h.*d 😀$')`,
    `dyn(xs) == [1, 2, 3, 0]`,
    `cel.bind(z, xs.size(), z * z)`,
    `xs.map(a, xs.map(b, a * b)).all(r, r.size() == 4)`,
    `m.map(k, m[k] + 1)`,
    `int('7') + uint(1) == 8`,
  ];
  for (const expr of EXPRS) {
    test(expr, () => {
      let ast;
      try {
        ast = env.compile(expr);
      } catch {
        ast = env.parse(expr);
      }
      const p = env.program(ast);
      const run = (tracked: boolean): unknown => {
        try {
          return { value: tracked ? p.evalWithCost(vars).value : p.eval(vars) };
        } catch (e) {
          return { error: (e as Error).message };
        }
      };
      expect(run(true)).toEqual(run(false));
    });
  }
});

describe("string sizes are code points, however they are measured", () => {
  const env = new Env({ variables: { s: STRING, t: STRING, d: DYN }, libraries: [], cost: KUBERNETES_COST_OPTIONS });
  const emoji = "😀".repeat(12); // 24 UTF-16 units, 12 code points
  const ascii = "a".repeat(24);
  const t = "x".repeat(20);
  const cost = (expr: string, vars: Record<string, CelValue>): number => env.program(env.compile(expr)).evalWithCost(vars).cost;

  test("concatenation chains, constants on either side, repeated evaluations on other strings", () => {
    const p = env.program(env.compile(`s + 'ab' + t`));
    for (let i = 0; i < 3; i++) {
      // 1 + 1 + ceil(14 × 0.1) + ceil(34 × 0.1); then 1 + 1 + ceil(26 × 0.1) + ceil(46 × 0.1)
      expect(p.evalWithCost({ s: emoji, t }).cost).toBe(8);
      expect(p.evalWithCost({ s: ascii, t }).cost).toBe(10);
    }
    expect(cost(`(s + t) + (t + s)`, { s: emoji, t })).toBe(4 + 4 + 4 + 7);
    expect(cost(`'😀' + s`, { s: emoji })).toBe(1 + 2);
    expect(cost(`s + '😀😀'`, { s: "b".repeat(9) })).toBe(1 + 2);
    expect(cost(`d + 'x' + s`, { d: emoji, s: emoji })).toBe(2 + 2 + 3);
  });

  test("a receiver's traversal (startsWith, endsWith)", () => {
    const p = env.program(env.compile(`s.startsWith('z') || s.endsWith('b')`));
    for (let i = 0; i < 3; i++) {
      expect(p.evalWithCost({ s: emoji }).cost).toBe(3 + 3);
      expect(p.evalWithCost({ s: ascii }).cost).toBe(4 + 4);
    }
  });

  test("non-string operands of a string-typed call take the general call", () => {
    for (const expr of [`d + 'x'`, `'x' + d`, `d.startsWith('x')`, `d + 'x' + 'y'`]) {
      const p = env.program(env.compile(expr));
      for (const d of [1n, [1n], "q"] as CelValue[]) {
        const run = (tracked: boolean): unknown => {
          try {
            return { value: tracked ? p.evalWithCost({ d }).value : p.eval({ d }) };
          } catch (e) {
            return { error: (e as Error).message };
          }
        };
        expect(run(true)).toEqual(run(false));
      }
    }
  });
});
