/**
 * Kyverno's transform library (`kyverno.transform`, kyverno/sdk
 * `extensions/cel/libs/transform`): `listObjToMap(list, list, string, string) → map`
 * and (since 1.18) `transform.listObjToMap`.
 *
 * `listObjToMap(keys, values, keyField, valueField)` zips two equal-length lists
 * of objects into `{keys[i][keyField]: values[i][valueField]}`. Errors:
 * `listObjToMap must take lists of equal length. list1: N, list2: M`;
 * `the passed key name cannot be handled as a string in the key object list`
 * (a missing or non-string key). A missing value field gives `null`; a later
 * duplicate key wins. An element that is not an object makes Kyverno's Go code
 * panic (an unchecked type assertion); here it is the error
 * `failed to convert key to a string, map` (key list) or `object cannot be
 * handled as a map string to any in the value object list` (value list).
 */
import { func, overload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { LIST, MAP, STRING } from "../../cel/types.js";
import { isMap, type CelMapKey, type CelValue } from "../../cel/values.js";
import { mapGet } from "../../cel/runtime/map.js";

export function listObjToMap(keys: readonly CelValue[], values: readonly CelValue[], keyName: string, valueName: string): CelValue {
  if (keys.length !== values.length) {
    throw new CelEvalError(`listObjToMap must take lists of equal length. list1: ${keys.length}, list2: ${values.length}`);
  }
  const out = new Map<CelMapKey, CelValue>();
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (!isMap(k)) throw new CelEvalError("failed to convert key to a string, map");
    const key = mapGet(k, keyName);
    if (typeof key !== "string") throw new CelEvalError("the passed key name cannot be handled as a string in the key object list");
    const v = values[i]!;
    if (!isMap(v)) throw new CelEvalError("object cannot be handled as a map string to any in the value object list");
    const value = mapGet(v, valueName);
    out.set(key, value === undefined ? null : value);
  }
  return out;
}

export const TRANSFORM_LIBRARY: Library = {
  name: "kyverno.transform",
  functions: [
    func("listObjToMap", overload("list_of_object_to_map_non_prefixed", [LIST, LIST, STRING, STRING], MAP, listObjToMap)),
    func("transform.listObjToMap", overload("list_of_object_to_map_prefixed", [LIST, LIST, STRING, STRING], MAP, listObjToMap)),
  ],
};
