/**
 * The CEL standard library as one {@link Library}: the overload tables of the
 * files beside this one. Every environment includes it.
 */
import type { FunctionDecl, Library } from "../decls.js";
import { COLLECTION_FUNCTIONS } from "./collections.js";
import { CONVERSION_FUNCTIONS } from "./conversions.js";
import { OPERATOR_FUNCTIONS } from "./operators.js";
import { STRING_FUNCTIONS } from "./strings.js";
import { TIME_FUNCTIONS } from "./time.js";

/**
 * cel-go's declaration order of overloads where a function has several that a free type
 * parameter can match (common/stdlib/standard.go). The checker tries overloads in this order
 * and the first that matches binds the parameter, so `dyn(x) + optional.none().value()` is
 * `bytes` and `[].map(x, -x)` is `list(double)` in cel-go (found by the differential suite,
 * see docs/reference-testing.md). Overloads not listed keep their place after these.
 */
const CEL_GO_ORDER: Readonly<Record<string, readonly string[]>> = {
  "-_": ["negate_double", "negate_int64"],
  "_*_": ["multiply_double", "multiply_int64", "multiply_uint64"],
  "_+_": ["add_bytes", "add_double", "add_duration_duration", "add_duration_timestamp", "add_timestamp_duration", "add_int64", "add_list", "add_string", "add_uint64"],
  "_-_": ["subtract_double", "subtract_duration_duration", "subtract_int64", "subtract_timestamp_duration", "subtract_timestamp_timestamp", "subtract_uint64"],
  "_/_": ["divide_double", "divide_int64", "divide_uint64"],
  double: ["double_to_double", "int64_to_double", "string_to_double", "uint64_to_double"],
  duration: ["duration_to_duration", "int64_to_duration", "string_to_duration"],
  int: ["int64_to_int64", "double_to_int64", "duration_to_int64", "string_to_int64", "timestamp_to_int64", "uint64_to_int64"],
  size: ["size_bytes", "bytes_size", "size_list", "list_size", "size_map", "map_size", "size_string", "string_size"],
  string: ["string_to_string", "bool_to_string", "bytes_to_string", "double_to_string", "duration_to_string", "int64_to_string", "timestamp_to_string", "uint64_to_string"],
  timestamp: ["timestamp_to_timestamp", "int64_to_timestamp", "string_to_timestamp"],
  uint: ["uint64_to_uint64", "double_to_uint64", "int64_to_uint64", "string_to_uint64"],
};

/** The functions merged by name (a later overload of the same id replaces an earlier one), in cel-go's overload order. */
function inCelGoOrder(functions: readonly FunctionDecl[]): FunctionDecl[] {
  const byName = new Map<string, FunctionDecl>();
  for (const f of functions) {
    const existing = byName.get(f.name);
    if (existing === undefined) {
      byName.set(f.name, f);
      continue;
    }
    const byId = new Map(existing.overloads.map((o) => [o.id, o]));
    for (const o of f.overloads) byId.set(o.id, o);
    byName.set(f.name, { ...existing, overloads: [...byId.values()] });
  }
  for (const [name, order] of Object.entries(CEL_GO_ORDER)) {
    const f = byName.get(name);
    if (f === undefined) continue;
    const rank = (id: string): number => {
      const i = order.indexOf(id);
      return i < 0 ? order.length : i;
    };
    byName.set(name, { ...f, overloads: [...f.overloads].sort((a, b) => rank(a.id) - rank(b.id)) });
  }
  return [...byName.values()];
}

export const STANDARD_LIBRARY: Library = {
  name: "cel.lib.std",
  functions: inCelGoOrder([...OPERATOR_FUNCTIONS, ...COLLECTION_FUNCTIONS, ...CONVERSION_FUNCTIONS, ...STRING_FUNCTIONS, ...TIME_FUNCTIONS]),
  macros: ["standard"],
};
