/**
 * Run-time cost rules, as cel-go v0.26's `interpreter/runtimecost.go` counts
 * them (`CostTracker.costCall`, `actualSize`), plus the options and the error
 * shared by the planner's tracking closures and the static estimator
 * (`cost.ts`).
 *
 * What cel-go charges per evaluated node (and so what the planner charges):
 *
 * | node                                   | cost                                   |
 * |----------------------------------------|----------------------------------------|
 * | constant (and, with constant folding, constant list/map literals, conversions of constants, `x in [consts]`) | 0 |
 * | identifier (variable, iteration variable, accumulator) | 1                      |
 * | field selection / index (each qualifier) | 1, plus 1 when the operand is not itself an attribute (`f(x).a`) |
 * | `has(x.f)`                             | 1, or 0 with `presenceTestHasCost: false` (Kubernetes) |
 * | `&&`, `\|\|`, `?:`, comprehension itself | 0 (an attribute branch of `?:` is not charged its own 1) |
 * | list / map / message literal           | 10 / 30 / 40                           |
 * | function call                          | library table, else the rules below, else 1 |
 */
import type { Library, OverloadCost } from "./decls.js";
import { CelEvalError } from "./errors.js";
import { CelObject, CelOptional, type CelValue } from "./values.js";

/** cel-go `common/cost.go`. */
export const SELECT_AND_IDENT_COST = 1;
export const CONST_COST = 0;
export const LIST_CREATE_BASE_COST = 10;
export const MAP_CREATE_BASE_COST = 30;
export const STRUCT_CREATE_BASE_COST = 40;
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

/** k8s.io/apiserver `pkg/apis/cel/config.go`. */
export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;
/** Maximum request size, from which Kubernetes derives unknown list/string size bounds. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/**
 * How costs are counted: cel-go's knobs that change the numbers. Set on the
 * environment (`EnvOptions.cost`); the defaults are cel-go's, the Kubernetes
 * environments use {@link KUBERNETES_COST_OPTIONS}.
 */
export interface CostOptions {
  /** `has(x.f)` costs 1 (cel-go default true; Kubernetes: false, `PresenceTestHasCost(false)`). */
  readonly presenceTestHasCost?: boolean;
  /**
   * cel-go's `OptOptimize`: constant list/map literals, type conversions of
   * constants and `x in [constant primitives]` are folded at plan time and cost 0.
   * Default false; Kubernetes turns it on.
   */
  readonly constantFolding?: boolean;
}

/** The cost knobs of Kubernetes' base environment (`environment/base.go`). */
export const KUBERNETES_COST_OPTIONS: CostOptions = Object.freeze({ presenceTestHasCost: false, constantFolding: true });

export const COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded";

/**
 * The run-time cost limit (per-call limit or a caller's remaining budget) was
 * exceeded. Message exactly cel-go's; `limit` and `expression` name what was
 * exceeded where. Never absorbed by `||`, `&&` or comprehensions: evaluation stops.
 */
export class CelCostLimitError extends CelEvalError {
  constructor(
    /** The limit that was exceeded. */
    readonly limit: number,
    /** The cost when evaluation stopped (> limit). */
    readonly cost: number,
    /** The expression's source text, when the program knows it. */
    public expression?: string,
  ) {
    super(COST_LIMIT_MESSAGE);
  }

  /** The message with the limit and the expression, for logs. */
  get detail(): string {
    const where = this.expression === undefined ? "" : ` in expression: ${this.expression}`;
    return `${COST_LIMIT_MESSAGE} (cost limit ${this.limit})${where}`;
  }
}

export const INTERRUPTED_MESSAGE = "operation interrupted";

/** The evaluation was interrupted (`EvalOptions.interrupt` answered true; see `eval-limits.ts`). Never absorbed. */
export class CelInterruptedError extends CelEvalError {
  constructor() {
    super(INTERRUPTED_MESSAGE);
  }
}

/** Whether CEL may absorb this thrown value as an error value (`||`, `&&`, comprehensions). */
export function absorbable(x: unknown): x is CelEvalError {
  return x instanceof CelEvalError && !(x instanceof CelCostLimitError) && !(x instanceof CelInterruptedError);
}

/** A high surrogate: a string without one has as many code points as UTF-16 units. */
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** Code points of `s` (cel-go's string size). */
export function codePoints(s: string): number {
  const n = s.length;
  if (n < 8) {
    // Short strings: a tight loop is cheaper than a regex call.
    for (let i = 0; i < n; i++) if ((s.charCodeAt(i) & 0xfc00) === 0xd800) return countCodePoints(s);
    return n;
  }
  // Almost every string has no surrogates: a native regex scan decides that fast.
  return HIGH_SURROGATE.test(s) ? countCodePoints(s) : n;
}

/** Code points of `s`, counted: a high surrogate followed by a low one is one code point. */
function countCodePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** cel-go `actualSize`: the `Size()` of sizers (strings in code points), an optional's value's size, else 1. */
export function actualSize(v: CelValue | undefined): number {
  if (typeof v === "string") return codePoints(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof CelOptional) return v.value !== undefined ? actualSize(v.value) : 1;
  if (v instanceof CelObject) {
    const sized = v as CelObject & { size?: () => number };
    if (typeof sized.size === "function") return sized.size();
  }
  return 1;
}

const t = (x: number): number => Math.ceil(x * STRING_TRAVERSAL_COST_FACTOR);

/** Standard overloads whose run-time cost depends on their arguments (`costCall`'s cases). */
export const VARIABLE_COST_OVERLOADS: ReadonlySet<string> = new Set([
  "starts_with_string",
  "ends_with_string",
  "string_to_bytes",
  "bytes_to_string",
  "strings_quote",
  "string_format",
  "in_list",
  "less_string",
  "greater_string",
  "less_equals_string",
  "greater_equals_string",
  "less_bytes",
  "greater_bytes",
  "less_equals_bytes",
  "greater_equals_bytes",
  "equals",
  "not_equals",
  "add_string",
  "add_bytes",
  "matches_string",
  "contains_string",
]);

/**
 * The run-time cost rule of a standard overload as a function of its first two
 * arguments (no argument array), or undefined when the overload costs 1.
 */
export function stdCostFunction(overloadId: string): ((a: CelValue, b: CelValue) => number) | undefined {
  switch (overloadId) {
    case "starts_with_string":
    case "ends_with_string":
    case "string_to_bytes":
    case "bytes_to_string":
    case "strings_quote":
    case "string_format":
      return (a) => t(actualSize(a));
    case "in_list":
      return (_a, b) => actualSize(b);
    case "less_string":
    case "greater_string":
    case "less_equals_string":
    case "greater_equals_string":
    case "less_bytes":
    case "greater_bytes":
    case "less_equals_bytes":
    case "greater_equals_bytes":
    case "equals":
    case "not_equals":
      return equalityCost;
    case "add_string":
    case "add_bytes":
      return (a, b) => t(actualSize(a) + actualSize(b));
    case "matches_string":
      return matchesCost;
    case "contains_string":
      return (a, b) => t(actualSize(a)) * t(actualSize(b));
    default:
      return undefined;
  }
}

/**
 * cel-go `CostTracker.costCall` without an estimator: the cost of one call of
 * `overloadId` (the checker's single overload id, "" otherwise) on `args`
 * (receiver first).
 */
export function stdCallCost(overloadId: string, args: readonly CelValue[]): number {
  switch (overloadId) {
    case "starts_with_string":
    case "ends_with_string":
    case "string_to_bytes":
    case "bytes_to_string":
    case "strings_quote":
    case "string_format":
      return t(actualSize(args[0]));
    case "in_list":
      return actualSize(args[1]);
    case "less_string":
    case "greater_string":
    case "less_equals_string":
    case "greater_equals_string":
    case "less_bytes":
    case "greater_bytes":
    case "less_equals_bytes":
    case "greater_equals_bytes":
    case "equals":
    case "not_equals":
      return equalityCost(args[0]!, args[1]!);
    case "add_string":
    case "add_bytes":
      return t(actualSize(args[0]) + actualSize(args[1]));
    case "matches_string":
      return matchesCost(args[0]!, args[1]!);
    case "contains_string":
      return t(actualSize(args[0])) * t(actualSize(args[1]));
    default:
      return 1;
  }
}

/** `==`/`!=` and ordering of strings/bytes: ceil(min(size) × 0.1). */
export function equalityCost(a: CelValue, b: CelValue): number {
  const ta = typeof a;
  if (ta === "bigint" || ta === "boolean" || ta === "number" || a === null) {
    // size 1: ceil(min(1, size(b)) × 0.1) is 1, or 0 when b is empty.
    const tb = typeof b;
    if (tb === "bigint" || tb === "boolean" || tb === "number" || b === null) return 1;
    return actualSize(b) === 0 ? 0 : 1;
  }
  if (ta === "string" && typeof b === "string") {
    // ceil(min × 0.1) is 1 for any min in 1..10: only the lengths beyond 10 need counting.
    const sa = a as string;
    if (sa.length === 0 || b.length === 0) return 0;
    if (sa.length <= 10 || b.length <= 10) return 1;
    return t(Math.min(codePoints(sa), codePoints(b)));
  }
  return t(Math.min(actualSize(a), actualSize(b)));
}

export function matchesCost(s: CelValue, pattern: CelValue): number {
  const strCost = t(1 + actualSize(s));
  const regexCost = Math.ceil(actualSize(pattern) * REGEX_STRING_LENGTH_COST_FACTOR);
  return strCost * regexCost;
}

/** Library cost tables of an environment's libraries, merged by overload id (later libraries win). */
export function libraryCosts(libraries: readonly Library[]): ReadonlyMap<string, OverloadCost> {
  const out = new Map<string, OverloadCost>();
  for (const lib of libraries) {
    for (const [id, c] of Object.entries(lib.costs ?? {})) out.set(id, c);
  }
  return out;
}
