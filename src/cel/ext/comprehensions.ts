/**
 * cel-go's two-variable comprehensions (`ext.TwoVarComprehensions()`): the
 * macros `all`, `exists`, `existsOne`, `transformList`, `transformMap`,
 * `transformMapEntry` with two iteration variables (expanded by the parser;
 * over a list the variables are index and element, over a map key and value),
 * and the internal `cel.@mapInsert` function those expansions call.
 *
 * The planner builds `transformMap` results in place; `cel.@mapInsert` here is
 * the general (copying) implementation. Inserting a key that is present is an
 * error, as in cel-go: "insert failed: key k already exists".
 */
import { func, overload, type FunctionDecl, type Library } from "../decls.js";
import { MAP_INSERT, mapInsertInPlace } from "../planner.js";
import { mapType, typeParam } from "../types.js";
import type { CelMapKey, CelValue } from "../values.js";

const K = typeParam("K");
const V = typeParam("V");
const MAP_KV = mapType(K, V);

type CelMap = ReadonlyMap<CelMapKey, CelValue>;

export const TWO_VAR_COMPREHENSION_FUNCTIONS: readonly FunctionDecl[] = [
  func(
    MAP_INSERT,
    overload("@mapInsert_map_key_value", [MAP_KV, K, V], MAP_KV, (m: CelMap, k: CelValue, v: CelValue) => {
      const out = new Map(m);
      mapInsertInPlace(out, k, v);
      return out;
    }),
    overload("@mapInsert_map_map", [MAP_KV, MAP_KV], MAP_KV, (m: CelMap, u: CelMap) => {
      const out = new Map(m);
      for (const [k, v] of u) mapInsertInPlace(out, k, v);
      return out;
    }),
  ),
];

export const TWO_VAR_COMPREHENSIONS_LIBRARY: Library = {
  name: "cel.lib.ext.comprev2",
  functions: TWO_VAR_COMPREHENSION_FUNCTIONS,
  macros: ["twoVar"],
};
