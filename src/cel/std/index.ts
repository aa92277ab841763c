/**
 * The CEL standard library as one {@link Library}: the overload tables of the
 * files beside this one. Every environment includes it.
 */
import type { Library } from "../decls.js";
import { COLLECTION_FUNCTIONS } from "./collections.js";
import { CONVERSION_FUNCTIONS } from "./conversions.js";
import { OPERATOR_FUNCTIONS } from "./operators.js";
import { STRING_FUNCTIONS } from "./strings.js";
import { TIME_FUNCTIONS } from "./time.js";

export const STANDARD_LIBRARY: Library = {
  name: "cel.lib.std",
  functions: [...OPERATOR_FUNCTIONS, ...COLLECTION_FUNCTIONS, ...CONVERSION_FUNCTIONS, ...STRING_FUNCTIONS, ...TIME_FUNCTIONS],
  macros: ["standard"],
};
