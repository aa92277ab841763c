/**
 * cel-go's lists extension (`ext.Lists`), by version (Kubernetes 1.34+ uses
 * version 3, which adds only cost tracking over version 2):
 *
 * | version | adds |
 * |---|---|
 * | 0 | `list.slice(start, end)` |
 * | 1 | `list.flatten()`, `list.flatten(depth)` |
 * | 2 | `list.sort()`, `list.sortBy(x, key)` (macro), `lists.range(n)`, `list.reverse()`, `list.distinct()` |
 *
 * `sortBy` is a parser macro in cel-go:
 *
 *     target.sortBy(x, keyExpr)
 *       → cel.bind(@__sortBy_input__, target,
 *           @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(x, keyExpr)))
 *
 * (a comprehension over an empty list whose accumulator `@__sortBy_input__` is
 * initialised to `target`; the target must be a list literal, identifier,
 * selection, call or comprehension, else "sortBy can only be applied to a list,
 * identifier, comprehension, call or select expression"). This file supplies
 * the `@sortByAssociatedKeys` function the expansion calls.
 *
 * `first()`/`last()` belong to cel-go's optional library, not to this one.
 */
import { func, memberOverload, overload, type FunctionDecl, type Library, type OverloadCost } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { celCompare, celEqualsOrFalse } from "../runtime/equality.js";
import { BOOL, BYTES, DOUBLE, DURATION, DYN, INT, STRING, TIMESTAMP, UINT, listType, typeParam, type CelType } from "../types.js";
import { goSortSlice } from "./go-sort.js";
import { LIST_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR } from "../cost-runtime.js";
import { CelDuration, CelTimestamp, CelUint, type CelValue } from "../values.js";

export const LISTS_LATEST_VERSION = 3;

export function slice(list: readonly CelValue[], start: bigint, end: bigint): CelValue[] {
  if (start < 0n || end < 0n) throw new CelEvalError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) throw new CelEvalError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (BigInt(list.length) < end) throw new CelEvalError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(Number(start), Number(end));
}

export function flatten(list: readonly CelValue[], depth = 1n): CelValue[] {
  if (depth < 0n) throw new CelEvalError("level must be non-negative");
  const out: CelValue[] = [];
  for (const v of list) {
    if (Array.isArray(v) && depth > 0n) out.push(...flatten(v, depth - 1n));
    else out.push(v);
  }
  return out;
}

export function range(n: bigint): bigint[] {
  const out: bigint[] = [];
  for (let i = 0n; i < n; i++) out.push(i);
  return out;
}

export function reverseList(list: readonly CelValue[]): CelValue[] {
  return [...list].reverse();
}

export function distinct(list: readonly CelValue[]): readonly CelValue[] {
  const out: CelValue[] = [];
  // cel-go: `val.Equal(other) == types.True`; an error counts as not equal.
  for (const v of list) if (!out.some((o) => celEqualsOrFalse(v, o))) out.push(v);
  return out;
}

/** Kinds with an ordering (cel-go's `traits.Comparer`). */
function kindOf(v: CelValue): string | undefined {
  switch (typeof v) {
    case "bigint":
      return "int";
    case "number":
      return "double";
    case "string":
      return "string";
    case "boolean":
      return "bool";
  }
  if (v instanceof CelUint) return "uint";
  if (v instanceof Uint8Array) return "bytes";
  if (v instanceof CelTimestamp) return "timestamp";
  if (v instanceof CelDuration) return "duration";
  return undefined;
}

/**
 * `@sortByAssociatedKeys`: `list` ordered by the parallel `keys` (ascending).
 * Equal keys are ordered as Go's unstable `sort.Slice` leaves them.
 */
export function sortByAssociatedKeys(list: readonly CelValue[], keys: readonly CelValue[]): readonly CelValue[] {
  if (list.length !== keys.length) {
    throw new CelEvalError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  if (list.length === 0) return list;
  const kind = kindOf(keys[0]!);
  if (kind === undefined) throw new CelEvalError("list elements must be comparable");
  for (const k of keys) if (kindOf(k) !== kind) throw new CelEvalError("list elements must have the same type");
  // Go's sort.Slice over the index list (unstable, so equal keys land where cel-go puts them).
  const idx = list.map((_, i) => i);
  goSortSlice(
    idx.length,
    (i, j) => celCompare(keys[idx[i]!]!, keys[idx[j]!]!) < 0, // NaN is never less
    (i, j) => {
      const t = idx[i]!;
      idx[i] = idx[j]!;
      idx[j] = t;
    },
  );
  return idx.map((i) => list[i] as CelValue);
}

export function sort(list: readonly CelValue[]): readonly CelValue[] {
  return sortByAssociatedKeys(list, list);
}

const COMPARABLE: readonly CelType[] = [INT, UINT, DOUBLE, BOOL, DURATION, TIMESTAMP, STRING, BYTES];

/** cel-go's overload-id spelling of a type (`list_google.protobuf.Timestamp_sort` uses the type name). */
function idName(t: CelType): string {
  return t.name;
}

/** The lists extension at `version` (Kubernetes: 3). */
export function listsLibrary(version: number = LISTS_LATEST_VERSION): Library {
  const T = typeParam("T");
  const LIST_T = listType(T);
  const functions: FunctionDecl[] = [
    func("slice", { ...memberOverload("list_slice", [LIST_T, INT, INT], LIST_T, slice), typeParams: ["T"] }),
  ];
  if (version >= 1) {
    functions.push(
      func(
        "flatten",
        { ...memberOverload("list_flatten", [listType(LIST_T)], LIST_T, (l: readonly CelValue[]) => flatten(l, 1n)), typeParams: ["T"] },
        memberOverload("list_flatten_int", [listType(DYN), INT], listType(DYN), flatten),
      ),
    );
  }
  if (version >= 2) {
    functions.push(
      func(
        "sort",
        ...COMPARABLE.map((t) => memberOverload(`list_${idName(t)}_sort`, [listType(t)], listType(t), sort)),
      ),
      func(
        "@sortByAssociatedKeys",
        ...COMPARABLE.map((u) => ({
          ...memberOverload(`list_${idName(u)}_sortByAssociatedKeys`, [LIST_T, listType(u)], LIST_T, sortByAssociatedKeys),
          typeParams: ["T"],
        })),
      ),
      func("lists.range", overload("lists_range", [INT], listType(INT), range)),
      func("reverse", { ...memberOverload("list_reverse", [LIST_T], LIST_T, reverseList), typeParams: ["T"] }),
      func("distinct", { ...memberOverload("list_distinct", [LIST_T], LIST_T, distinct), typeParams: ["T"] }),
    );
  }
  if (version < 2) return { name: "cel.lib.ext.lists", functions };
  return { name: "cel.lib.ext.lists", functions, macros: ["lists"], ...(version >= 3 ? { costs: listsV3Costs() } : {}) };
}

// Run-time costs of version 3 (cel-go ext/lists.go `ProgramOptions`: `OverloadCostTracker`s).

/** `trackAllocatingListCall`: the size times a factor (truncated, as Go's uint64(float64)), plus the call and the new list. */
const allocating = (factor: number, size: number): number => Math.trunc(size * factor) + 1 + LIST_CREATE_BASE_COST;

/** `trackListSelfCompare`: O(n^2) over the list, dearer for strings and bytes. */
function selfCompare(l: CelValue): number {
  const list = l as readonly CelValue[];
  if (list.length === 0) return allocating(2, 0);
  const e = list[0];
  const factor = typeof e === "string" || e instanceof Uint8Array ? 2 + STRING_TRAVERSAL_COST_FACTOR : 2;
  return allocating(factor, list.length * list.length);
}

function listsV3Costs(): Record<string, OverloadCost> {
  // Overload cost trackers: only for a call the checker resolved to the one overload.
  const tracker = (actual: NonNullable<OverloadCost["actual"]>): OverloadCost => ({ actual, resolvedOnly: true });
  const outputSize = tracker((_args, result) => allocating(1, (result as readonly CelValue[]).length));
  const flatten = tracker((args) => allocating(args.length === 2 ? Number(args[1] as bigint) : 1, (args[0] as readonly CelValue[]).length));
  const costs: Record<string, OverloadCost> = {
    list_slice: outputSize,
    list_flatten: flatten,
    list_flatten_int: flatten,
    lists_range: outputSize,
    list_reverse: outputSize,
    list_distinct: tracker((args) => selfCompare(args[0]!)),
  };
  for (const t of COMPARABLE) {
    costs[`list_${idName(t)}_sort`] = tracker((args) => selfCompare(args[0]!));
    costs[`list_${idName(t)}_sortByAssociatedKeys`] = tracker((args) => selfCompare(args[1]!));
  }
  return costs;
}

/** Kubernetes' lists extension (version 3), with the `sortBy` macro. */
export const KUBERNETES_LISTS_LIBRARY: Library = listsLibrary(3);
