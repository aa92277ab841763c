/**
 * cel-go's optional types library (`cel.OptionalTypes()`): the `optional_type(T)`
 * values, `optional.of`, `optional.ofNonZeroValue`, `optional.none`,
 * `optional.unwrap`, `hasValue`, `value`, `or`, `orValue`, the `a.?b` / `a[?b]`
 * syntax (evaluated by the planner) and the `optMap` / `optFlatMap` macros
 * (expanded by the parser).
 *
 * `or` and `orValue` short-circuit: the planner evaluates their argument only
 * when the receiver is `optional.none()`.
 */
import { func, memberOverload, overload, type FunctionDecl, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { indexValue } from "../runtime/access.js";
import { BOOL, INT, STRING, listType, mapType, optionalType, typeParam } from "../types.js";
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelUint, type CelValue } from "../values.js";

const V = typeParam("V");
const K = typeParam("K");
const OPT_V = optionalType(V);

/** Whether `v` is its type's zero value (cel-go `IsZeroValue`), for `optional.ofNonZeroValue`. */
export function isZeroValue(v: CelValue): boolean {
  switch (typeof v) {
    case "boolean":
      return v === false;
    case "bigint":
      return v === 0n;
    case "number":
      return v === 0;
    case "string":
      return v === "";
  }
  if (v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (v instanceof Uint8Array) return v.length === 0;
  if (v instanceof CelUint) return v.value === 0n;
  if (v instanceof CelDuration) return v.nanos === 0n;
  if (v instanceof CelTimestamp) return v.nanos === 0n;
  if (v instanceof CelOptional) return v.value === undefined;
  if (v instanceof CelObject) return v.isZeroValue?.() ?? false;
  return false;
}

function optionalValue(o: CelOptional): CelValue {
  if (o.value === undefined) throw new CelEvalError("optional.none() dereference");
  return o.value;
}

function unwrapList(l: readonly CelOptional[]): CelValue[] {
  const out: CelValue[] = [];
  for (const o of l) {
    if (!(o instanceof CelOptional)) throw new CelEvalError(`value ${String(o)} is not optional`);
    if (o.value !== undefined) out.push(o.value);
  }
  return out;
}

export const OPTIONAL_FUNCTIONS: readonly FunctionDecl[] = [
  func("optional.of", overload("optional_of", [V], OPT_V, (v: CelValue) => CelOptional.of(v))),
  func(
    "optional.ofNonZeroValue",
    overload("optional_ofNonZeroValue", [V], OPT_V, (v: CelValue) => (isZeroValue(v) ? CelOptional.NONE : CelOptional.of(v))),
  ),
  func("optional.none", overload("optional_none", [], OPT_V, () => CelOptional.NONE)),
  func(
    "optional.unwrap",
    overload("optional_unwrap", [listType(OPT_V)], listType(V), (l: readonly CelOptional[]) => unwrapList(l)),
  ),
  // Version 2 (cel-go v0.26 `OptionalTypes()` is the latest version): first, last, unwrapOpt.
  func(
    "unwrapOpt",
    memberOverload("optional_unwrapOpt", [listType(OPT_V)], listType(V), (l: readonly CelOptional[]) => unwrapList(l)),
  ),
  func(
    "first",
    memberOverload("list_first", [listType(V)], OPT_V, (l: readonly CelValue[]) =>
      l.length === 0 ? CelOptional.NONE : CelOptional.of(l[0]!),
    ),
  ),
  func(
    "last",
    memberOverload("list_last", [listType(V)], OPT_V, (l: readonly CelValue[]) =>
      l.length === 0 ? CelOptional.NONE : CelOptional.of(l[l.length - 1]!),
    ),
  ),
  func("hasValue", memberOverload("optional_hasValue", [OPT_V], BOOL, (o: CelOptional) => o.value !== undefined)),
  func("value", memberOverload("optional_value", [OPT_V], V, optionalValue)),
  func(
    "or",
    memberOverload("optional_or_optional", [OPT_V, OPT_V], OPT_V, (a: CelOptional, b: CelOptional) =>
      a.value !== undefined ? a : b,
    ),
  ),
  func(
    "orValue",
    memberOverload("optional_orValue_value", [OPT_V, V], V, (a: CelOptional, b: CelValue) =>
      a.value !== undefined ? a.value : b,
    ),
  ),
  // Indexing an optional with `[]` propagates optionality (the planner evaluates `_[_]` inline).
  func(
    "_[_]",
    overload("optional_list_index_int", [optionalType(listType(V)), INT], OPT_V, indexValue),
    overload("optional_map_index_value", [optionalType(mapType(K, V)), K], OPT_V, indexValue),
  ),
  // Evaluated by the planner; declared for the checker.
  func(
    "_?._",
    overload("select_optional_field", [mapType(STRING, V), STRING], OPT_V),
  ),
  func(
    "_[?_]",
    overload("list_optindex_optional_int", [listType(V), INT], OPT_V),
    overload("optional_list_optindex_optional_int", [optionalType(listType(V)), INT], OPT_V),
    overload("map_optindex_optional_value", [mapType(K, V), K], OPT_V),
    overload("optional_map_optindex_optional_value", [optionalType(mapType(K, V)), K], OPT_V),
  ),
];

export const OPTIONAL_LIBRARY: Library = {
  name: "cel.lib.optional",
  functions: OPTIONAL_FUNCTIONS,
  macros: ["optional"],
  optionalSyntax: true,
};

