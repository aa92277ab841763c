/** The run-time type of a value: what `type(x)` returns (parameters erased, as in cel-go). */
import { BOOL, BYTES, DOUBLE, DURATION, INT, LIST, MAP, NULL_TYPE, STRING, TIMESTAMP, TYPE, UINT, CelType, OPTIONAL_NAME, DYN } from "../types.js";
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelUint, type CelValue } from "../values.js";

const OPTIONAL = new CelType("opaque", OPTIONAL_NAME, [DYN]);

export function typeOf(v: CelValue): CelType {
  switch (typeof v) {
    case "boolean":
      return BOOL;
    case "bigint":
      return INT;
    case "number":
      return DOUBLE;
    case "string":
      return STRING;
  }
  if (v === null) return NULL_TYPE;
  if (Array.isArray(v)) return LIST;
  if (v instanceof Map) return MAP;
  if (v instanceof CelUint) return UINT;
  if (v instanceof Uint8Array) return BYTES;
  if (v instanceof CelTimestamp) return TIMESTAMP;
  if (v instanceof CelDuration) return DURATION;
  if (v instanceof CelType) return TYPE;
  if (v instanceof CelOptional) return OPTIONAL;
  if (v instanceof CelObject) return v.celType;
  throw new Error(`not a CEL value: ${String(v)}`);
}
