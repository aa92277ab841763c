/**
 * The Kubernetes lists library (`kubernetes.lists`; distinct from cel-go's
 * lists extension), as `k8s.io/apiserver/pkg/cel/library/lists.go` declares it:
 *
 * - `list.isSorted()`, `list.min()`, `list.max()` for int, uint, double, bool,
 *   duration, timestamp, string and bytes elements; `list.sum()` for int,
 *   uint, double and duration (0 of the element type for an empty list);
 * - `list<A>.indexOf(A)`, `list<A>.lastIndexOf(A)` (-1 when absent);
 * - version 1 (Kubernetes 1.37+) adds `includes(dyn, dyn)`; 1.36 uses version 0.
 *
 * `min`/`max` of an empty list are the errors "min called on empty list" /
 * "max called on empty list". Comparisons follow cel-go's `Compare`: a
 * comparison that fails (NaN, or mismatched types in a `dyn` list) counts as
 * "not greater", so `min`/`max` keep their current candidate and `isSorted`
 * goes on; ties keep the first element.
 *
 * A `dyn` receiver is dispatched as cel-go does at run time: by the type of
 * the first element (cel-go's `IsAssignableRuntimeType` looks at one element),
 * so `sum` starts from the zero of that type and fails with "no such overload"
 * when a later element has another type.
 */
import { func, memberOverload, type Library, type OverloadDecl } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { celCompare, celEquals } from "../runtime/equality.js";
import { addInt, uintOverflow } from "../std/operators.js";
import { addDurations } from "../std/time.js";
import { BOOL, BYTES, DOUBLE, DURATION, DYN, INT, STRING, TIMESTAMP, UINT, listType, typeParam, type CelType } from "../types.js";
import { CelDuration, CelObject, CelUint, UINT64_MAX, type CelValue } from "../values.js";
import {
  FIXED_1,
  STRING_TRAVERSAL_COST_FACTOR,
  UINT64_MAX as COST_MAX,
  UNKNOWN_SIZE,
  addRanges,
  scaleRange,
  type CostEntry,
  type CostRange,
} from "./cost-model.js";

type List = readonly CelValue[];

/** cel-go `Compare` between two values: -1, 0, 1, or null when it is an error (NaN, mismatched types). */
function compare(a: CelValue, b: CelValue): number | null {
  try {
    const c = celCompare(a, b);
    return Number.isNaN(c) ? null : c;
  } catch (e) {
    if (e instanceof CelEvalError) return null;
    throw e;
  }
}

/** `a.Equal(b) == types.True`: errors (e.g. from custom types) count as unequal. */
function equalsTrue(a: CelValue, b: CelValue): boolean {
  try {
    return celEquals(a, b);
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
}

export function isSorted(list: List): boolean {
  for (let i = 1; i < list.length; i++) if (compare(list[i - 1]!, list[i]!) === 1) return false;
  return true;
}

function extreme(name: "min" | "max", prefer: number) {
  return (list: List): CelValue => {
    if (list.length === 0) throw new CelEvalError(`${name} called on empty list`);
    let result = list[0]!;
    for (let i = 1; i < list.length; i++) if (compare(result, list[i]!) === prefer) result = list[i]!;
    return result;
  };
}
export const listMin = extreme("min", 1);
export const listMax = extreme("max", -1);

type Summable = "int" | "uint" | "double" | "duration";

function summableKind(v: CelValue): Summable | undefined {
  if (typeof v === "bigint") return "int";
  if (v instanceof CelUint) return "uint";
  if (typeof v === "number") return "double";
  if (v instanceof CelDuration) return "duration";
  return undefined;
}

const ZERO: Record<Summable, CelValue> = {
  int: 0n,
  uint: new CelUint(0n),
  double: 0,
  duration: new CelDuration(0n),
};

function add(kind: Summable, acc: CelValue, next: CelValue): CelValue {
  if (summableKind(next) !== kind) throw new CelEvalError("no such overload");
  switch (kind) {
    case "int":
      return addInt(acc as bigint, next as bigint);
    case "uint": {
      const s = (acc as CelUint).value + (next as CelUint).value;
      if (s > UINT64_MAX) throw uintOverflow();
      return new CelUint(s);
    }
    case "double":
      return (acc as number) + (next as number);
    case "duration":
      return addDurations(acc as CelDuration, next as CelDuration);
  }
}

/** `sum` of the overload for `declared`; a list of another element type is summed as its first element's overload would. */
function sum(declared: Summable) {
  return (list: List): CelValue => {
    let kind = declared;
    if (list.length > 0) {
      const k = summableKind(list[0]!);
      if (k === undefined) throw new CelEvalError("no such overload");
      kind = k;
    }
    let acc = ZERO[kind];
    for (const v of list) acc = add(kind, acc, v);
    return acc;
  };
}

export function indexOf(list: List, item: CelValue): bigint {
  for (let i = 0; i < list.length; i++) if (equalsTrue(list[i]!, item)) return BigInt(i);
  return -1n;
}

export function lastIndexOf(list: List, item: CelValue): bigint {
  for (let i = list.length - 1; i >= 0; i--) if (equalsTrue(list[i]!, item)) return BigInt(i);
  return -1n;
}

/** Version 1 `includes(target, arg)`: list membership, or equality for a non-list target. */
export function includes(target: CelValue, arg: CelValue): boolean {
  if (Array.isArray(target)) return (target as List).some((item) => equalsTrue(item, arg));
  return equalsTrue(target, arg);
}

const SUMMABLE: readonly [Summable, CelType][] = [
  ["int", INT],
  ["uint", UINT],
  ["double", DOUBLE],
  ["duration", DURATION],
];
const COMPARABLE: readonly [string, CelType][] = [
  ["int", INT],
  ["uint", UINT],
  ["double", DOUBLE],
  ["bool", BOOL],
  ["duration", DURATION],
  ["timestamp", TIMESTAMP],
  ["string", STRING],
  ["bytes", BYTES],
];
const A = typeParam("A");

/** The Kubernetes lists library at `version` (Kubernetes 1.36 uses version 0). */
export function k8sListsLibrary(version = 0): Library {
  const generic = (o: OverloadDecl): OverloadDecl => ({ ...o, typeParams: ["A"] });
  const functions = [
    func("isSorted", ...COMPARABLE.map(([n, t]) => memberOverload(`list_${n}_is_sorted_bool`, [listType(t)], BOOL, isSorted))),
    func("sum", ...SUMMABLE.map(([n, t]) => memberOverload(`list_${n}_sum_${n}`, [listType(t)], t, sum(n)))),
    func("max", ...COMPARABLE.map(([n, t]) => memberOverload(`list_${n}_max_${n}`, [listType(t)], t, listMax))),
    func("min", ...COMPARABLE.map(([n, t]) => memberOverload(`list_${n}_min_${n}`, [listType(t)], t, listMin))),
    func("indexOf", generic(memberOverload("list_a_index_of_int", [listType(A), A], INT, indexOf))),
    func("lastIndexOf", generic(memberOverload("list_a_last_index_of_int", [listType(A), A], INT, lastIndexOf))),
  ];
  if (version >= 1) functions.push(func("includes", memberOverload("list_includes_dyn_dyn", [DYN, DYN], BOOL, includes)));
  return {
    name: "kubernetes.lists",
    functions,
    get costs() {
      return cost;
    },
  };
}

/** The library as Kubernetes 1.36 has it (version 0). */
export const K8S_LISTS_LIBRARY: Library = k8sListsLibrary(0);

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go), for the cost estimator.

const utf8Length = (s: string): number => {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    // A lone surrogate becomes U+FFFD (3 bytes) in Go.
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
};

/**
 * cost.go `traversalCost`: strings and bytes cost uint64(len × 0.1) (bytes of
 * UTF-8, truncated, not rounded up), lists the sum over their elements, maps
 * over keys and values, anything else 1.
 */
export function traversalCost(v: CelValue): bigint {
  if (typeof v === "string") return BigInt(Math.trunc(utf8Length(v) * STRING_TRAVERSAL_COST_FACTOR));
  if (v instanceof Uint8Array) return BigInt(Math.trunc(v.length * STRING_TRAVERSAL_COST_FACTOR));
  if (Array.isArray(v)) {
    let c = 0n;
    for (const e of v as List) c += traversalCost(e);
    return c;
  }
  if (v instanceof Map) {
    let c = 0n;
    for (const [k, e] of v as ReadonlyMap<CelValue & (string | bigint | boolean | CelUint), CelValue>) c += traversalCost(k) + traversalCost(e);
    return c;
  }
  if (v instanceof CelObject) return 1n;
  return 1n;
}

const mulSat = (a: bigint, b: bigint): bigint => {
  const p = a * b;
  return p > COST_MAX ? COST_MAX : p;
};

/**
 * Estimate: size(list) × (1 + size(element) × 0.1 for string/bytes elements,
 * else 1). The estimator must pass the receiver's size as `target` and, for
 * string/bytes elements, the element size as `element`.
 */
const traverse = (fn: string): CostEntry => ({
  function: fn,
  estimate: (_args: readonly CostRange[], target: CostRange = UNKNOWN_SIZE, element?: CostRange) => {
    const el = element === undefined ? FIXED_1 : addRanges(FIXED_1, scaleRange(element, STRING_TRAVERSAL_COST_FACTOR));
    return { min: mulSat(target.min, el.min), max: mulSat(target.max, el.max) };
  },
  actual: (args) => (args.length > 0 ? traversalCost(args[0]!) : 0n),
  note: "one traversal of the receiver (traversalCost); estimate(args, target, elementSizeForStringOrBytes)",
});

/** Cost of every overload of the lists library, by overload id. */
export const cost: Readonly<Record<string, CostEntry>> = Object.fromEntries([
  ...COMPARABLE.map(([n]) => [`list_${n}_is_sorted_bool`, traverse("isSorted")] as const),
  ...SUMMABLE.map(([n]) => [`list_${n}_sum_${n}`, traverse("sum")] as const),
  ...COMPARABLE.map(([n]) => [`list_${n}_max_${n}`, traverse("max")] as const),
  ...COMPARABLE.map(([n]) => [`list_${n}_min_${n}`, traverse("min")] as const),
  ["list_a_index_of_int", traverse("indexOf")] as const,
  ["list_a_last_index_of_int", traverse("lastIndexOf")] as const,
  ["list_includes_dyn_dyn", traverse("includes")] as const,
]);
