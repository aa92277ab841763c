/**
 * cel-go's sets extension (`ext.Sets`): list-as-set predicates with CEL
 * equality (`sets.contains([1], [1.0])` is true).
 */
import { func, overload, type Library, type OverloadCost } from "../decls.js";
import { celEqualsOrFalse } from "../runtime/equality.js";
import { BOOL, listType, typeParam } from "../types.js";
import type { CelValue } from "../values.js";

/** cel-go `list.Contains(v)`: `v.Equal(e)` for each element; an error counts as not equal. */
function has(list: readonly CelValue[], v: CelValue): boolean {
  for (const e of list) if (celEqualsOrFalse(v, e)) return true;
  return false;
}

/** Every element of `b` is in `a`. */
export function setsContains(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  for (const v of b) if (!has(a, v)) return false;
  return true;
}

/** `a` and `b` contain each other. */
export function setsEquivalent(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  return setsContains(a, b) && setsContains(b, a);
}

/** Some element of `a` is in `b`. */
export function setsIntersects(a: readonly CelValue[], b: readonly CelValue[]): boolean {
  for (const v of a) if (has(b, v)) return true;
  return false;
}

const LIST_T = listType(typeParam("T"));

/** cel-go ext/sets.go `trackSetsCost`: 1 + size(a) × size(b) × factor (an overload cost tracker). */
const setsCost = (factor: number): OverloadCost => ({
  actual: (args) => 1 + Math.trunc((args[0] as readonly CelValue[]).length * (args[1] as readonly CelValue[]).length * factor),
  resolvedOnly: true,
});

export const SETS_LIBRARY: Library = {
  name: "cel.lib.ext.sets",
  costs: {
    list_sets_contains_list: setsCost(1),
    list_sets_intersects_list: setsCost(1),
    list_sets_equivalent_list: setsCost(2),
  },
  functions: [
    func("sets.contains", { ...overload("list_sets_contains_list", [LIST_T, LIST_T], BOOL, setsContains), typeParams: ["T"] }),
    func("sets.equivalent", { ...overload("list_sets_equivalent_list", [LIST_T, LIST_T], BOOL, setsEquivalent), typeParams: ["T"] }),
    func("sets.intersects", { ...overload("list_sets_intersects_list", [LIST_T, LIST_T], BOOL, setsIntersects), typeParams: ["T"] }),
  ],
};
