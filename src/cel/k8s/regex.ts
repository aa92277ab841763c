/**
 * The Kubernetes regex library (`kubernetes.regex`): `string.find(regex)`,
 * `string.findAll(regex)` and `string.findAll(regex, limit)`, as
 * `k8s.io/apiserver/pkg/cel/library/regex.go` declares them, with RE2 syntax
 * and Go's match semantics (`Regexp.FindString` / `FindAllString`: leftmost-first,
 * empty matches right after a match skipped; a negative limit means all, 0 none).
 *
 * Patterns compile through the standard library's RE2 cache (`compileRegex`);
 * an invalid pattern is the CEL error `Illegal regex: error parsing regexp: …`.
 */
import type { RE2JS } from "@bufbuild/re2";
import { func, memberOverload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { compileRegex, rememberByText } from "../std/strings.js";
import { INT, STRING, listType } from "../types.js";
import type { CelValue } from "../values.js";
import {
  STRING_TRAVERSAL_COST_FACTOR,
  UINT64_MAX,
  UNKNOWN_SIZE,
  actualSize,
  addRanges,
  multiplyByCostFactor,
  scaleRange,
  type CostEntry,
  type CostRange,
} from "./cost-model.js";
import { findAllString, findString } from "./go-regexp-match.js";

function compile(pattern: string): RE2JS {
  try {
    return compileRegex(pattern);
  } catch (e) {
    if (e instanceof CelEvalError) {
      // compileRegex prefixes "error parsing regexp: " to a message that already starts with it.
      const doubled = "error parsing regexp: error parsing regexp: ";
      let msg = e.message.startsWith(doubled) ? e.message.slice("error parsing regexp: ".length) : e.message;
      // Go's regexp.Error always ends with ": `<expr>`", empty for a trailing backslash.
      if (msg.endsWith("trailing backslash at end of expression")) msg += ": ``";
      throw new CelEvalError(`Illegal regex: ${msg}`);
    }
    throw e;
  }
}

/** Compiles a constant pattern at instantiation; the error is Go's `regexp.Compile` message. */
function checkPattern(pattern: CelValue): void {
  if (typeof pattern !== "string") return;
  try {
    compile(pattern);
  } catch (e) {
    if (e instanceof CelEvalError) throw new Error(e.message.replace(/^Illegal regex: /, ""));
    throw e;
  }
}

/** `find` by compiled pattern, remembering its answers by text as `matches` does. */
const finders = new WeakMap<RE2JS, (s: string) => string>();

export function find(s: string, pattern: string): string {
  const re = compile(pattern);
  let f = finders.get(re);
  if (f === undefined) finders.set(re, (f = rememberByText((t) => (re.test(t) ? findString(re, t) : ""))));
  return f(s);
}

export function findAll(s: string, pattern: string, limit: bigint = -1n): CelValue[] {
  const re = compile(pattern);
  // Go converts the limit with int(n); int is 64-bit on the platforms Kubernetes runs on.
  if (limit === 0n || !re.test(s)) return [];
  return findAllString(re, s, limit < 0n ? -1 : limit > BigInt(s.length + 1) ? s.length + 1 : Number(limit));
}

export const REGEX_LIBRARY: Library = {
  name: "kubernetes.regex",
  /** Cost rules for the estimator and run-time tracking (`cost` below; a getter, as it is defined later). */
  get costs() {
    return cost;
  },
  // cel.OptimizeRegex(FindRegexOptimization, FindAllRegexOptimization): a constant pattern is
  // compiled when the program is instantiated, so a bad one fails the program (see instantiate.ts).
  constantArgumentChecks: ["find", "findAll"].map((fn) => ({ function: fn, argIndex: 0, check: checkPattern })),
  functions: [
    func("find", memberOverload("string_find_string", [STRING, STRING], STRING, find)),
    func(
      "findAll",
      memberOverload("string_find_all_string", [STRING, STRING], listType(STRING), (s: string, p: string) => findAll(s, p)),
      memberOverload("string_find_all_string_int", [STRING, STRING, INT], listType(STRING), findAll),
    ),
  ],
};

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go), for the cost estimator.

/** cel-go `common.RegexStringLengthCostFactor`. */
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

const mulSat = (a: bigint, b: bigint): bigint => {
  const p = a * b;
  return p > UINT64_MAX ? UINT64_MAX : p;
};

/**
 * `(ceil((1 + size(s)) × 0.1)) × ceil(size(regex) × 0.25)`. The estimate needs
 * the receiver's size: it is passed as the second argument (`target`), the
 * regex size as `args[0]`.
 */
const findCost = (fn: string): CostEntry => ({
  function: fn,
  estimate: (args: readonly CostRange[], target: CostRange = UNKNOWN_SIZE) => {
    const str = scaleRange(addRanges(target, { min: 1n, max: 1n }), STRING_TRAVERSAL_COST_FACTOR);
    const regex = scaleRange(args[0] ?? UNKNOWN_SIZE, REGEX_STRING_LENGTH_COST_FACTOR);
    return { min: mulSat(str.min, regex.min), max: mulSat(str.max, regex.max) };
  },
  actual: (args) =>
    mulSat(
      multiplyByCostFactor(1n + actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR),
      multiplyByCostFactor(actualSize(args[1]), REGEX_STRING_LENGTH_COST_FACTOR),
    ),
  note: "ceil((1 + size(s)) × 0.1) × ceil(size(regex) × 0.25); estimate(args, target) needs the receiver size; result size [0, size(s).max]",
});

/** Cost of every overload of the regex library, by overload id. */
export const cost: Readonly<Record<string, CostEntry>> = {
  string_find_string: findCost("find"),
  string_find_all_string: findCost("findAll"),
  string_find_all_string_int: findCost("findAll"),
};
