import { describe, expect, test } from "vitest";
import { Env } from "./env.js";
import { CelCompileError } from "./errors.js";
import { listsLibrary } from "./ext/lists.js";
import { mathLibrary } from "./ext/math.js";
import type { CelValue } from "./values.js";

const env = new Env({ libraries: [listsLibrary(3), mathLibrary()] });

function run(src: string): CelValue {
  return env.program(env.compile(src)).eval({});
}

function compileError(src: string): string {
  try {
    env.compile(src);
  } catch (e) {
    if (e instanceof CelCompileError) return e.message.split("\n")[0]!;
    throw e;
  }
  return "compiled";
}

describe("sortBy (cel-go lists extension v2+)", () => {
  test.each<[string, CelValue]>([
    ["[3, 1, 2].sortBy(x, x)", [1n, 2n, 3n]],
    ["[3, 1, 2].sortBy(x, -x)", [3n, 2n, 1n]],
    ["['bb', 'a', 'ccc'].sortBy(s, size(s))", ["a", "bb", "ccc"]],
    ["[{'n': 'b', 'k': 2}, {'n': 'a', 'k': 1}].sortBy(e, e.k).map(e, e.n)", ["a", "b"]],
    ["[].sortBy(x, x)", []],
  ])("%s", (src, want) => {
    expect(run(src)).toEqual(want);
  });

  test("the target must be a list, identifier, comprehension, call or select", () => {
    expect(compileError("{'a': 1}.sortBy(x, x)")).toBe(
      "ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression",
    );
  });

  test("the iteration variable must be a simple name", () => {
    expect(compileError("[1].sortBy(1, 2)")).toMatch(/argument is not an identifier/);
  });

  test("without the lists extension, sortBy is an ordinary (undeclared) call", () => {
    expect(() => new Env().compile("[1].sortBy(x, x)")).toThrow(CelCompileError);
  });
});

describe("math.greatest / math.least (cel-go math extension)", () => {
  test.each<[string, CelValue]>([
    ["math.greatest(1)", 1n],
    ["math.greatest(1, 5)", 5n],
    ["math.greatest(1, 5, 3)", 5n],
    ["math.least(4, -2, 7)", -2n],
    ["math.greatest([1, 9, 3])", 9n],
    ["math.least(2.5, 1.5)", 1.5],
  ])("%s", (src, want) => {
    expect(run(src)).toEqual(want);
  });

  test.each<[string, string]>([
    ["math.greatest()", "ERROR: <input>:1:1: math.greatest() requires at least one argument"],
    ["math.least('a')", "ERROR: <input>:1:12: math.least() invalid single argument value"],
    ["math.greatest('a', 1)", "ERROR: <input>:1:15: math.greatest() simple literal arguments must be numeric"],
    ["math.least(1, 2, [3])", "ERROR: <input>:1:18: math.least() simple literal arguments must be numeric"],
  ])("%s is rejected at parse time", (src, want) => {
    expect(compileError(src)).toBe(want);
  });

  test("only the identifier `math` as receiver triggers the macro", () => {
    expect(compileError("x.greatest(1)")).toMatch(/undeclared reference to 'x'/);
  });
});
