/**
 * Size, membership and indexing of the standard library (cel-go overload ids).
 * `size` of a string counts code points, as cel-go counts runes. The planner
 * evaluates `_[_]` and `@in` inline; the implementations here serve dynamic
 * dispatch and other callers.
 */
import { func, memberOverload, overload, type FunctionDecl } from "../decls.js";
import { indexValue, inList, inMap } from "../runtime/access.js";
import { BOOL, BYTES, INT, STRING, listType, mapType, typeParam } from "../types.js";
import type { CelMapKey, CelValue } from "../values.js";

const A = typeParam("A");
const B = typeParam("B");
const LIST_A = listType(A);
const MAP_AB = mapType(A, B);

/** Number of Unicode code points (a surrogate pair counts once). */
export function codePointLength(s: string): bigint {
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
  return BigInt(n);
}

const sizeString = (s: string): bigint => codePointLength(s);
const sizeBytes = (b: Uint8Array): bigint => BigInt(b.length);
const sizeList = (l: readonly CelValue[]): bigint => BigInt(l.length);
const sizeMap = (m: ReadonlyMap<CelMapKey, CelValue>): bigint => BigInt(m.size);

export const COLLECTION_FUNCTIONS: readonly FunctionDecl[] = [
  func(
    "size",
    overload("size_string", [STRING], INT, sizeString),
    overload("size_bytes", [BYTES], INT, sizeBytes),
    overload("size_list", [LIST_A], INT, sizeList),
    overload("size_map", [MAP_AB], INT, sizeMap),
    memberOverload("string_size", [STRING], INT, sizeString),
    memberOverload("bytes_size", [BYTES], INT, sizeBytes),
    memberOverload("list_size", [LIST_A], INT, sizeList),
    memberOverload("map_size", [MAP_AB], INT, sizeMap),
  ),
  func(
    "@in",
    overload("in_list", [A, LIST_A], BOOL, inList),
    overload("in_map", [A, MAP_AB], BOOL, (k: CelValue, m: ReadonlyMap<CelMapKey, CelValue>) => inMap(k, m)),
  ),
  func(
    "_[_]",
    overload("index_list", [LIST_A, INT], A, indexValue),
    overload("index_map", [MAP_AB, A], B, indexValue),
  ),
];
