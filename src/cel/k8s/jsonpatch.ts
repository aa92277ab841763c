/**
 * The `JSONPatch` CEL type and the `jsonpatch.escapeKey` function of the
 * MutatingAdmissionPolicy mutation environment (k8s.io/apiserver
 * `pkg/cel/mutation/jsonpatch.go`, `pkg/cel/library/jsonpatch.go`), and the
 * conversion of a JSONPatch expression's result to RFC 6902 operations
 * (`evaluatePatchExpression` in the MAP patch package, map.md §4.2).
 *
 * - `JSONPatch{op, path, from, value}`: `op`, `path`, `from` are strings (checked
 *   at compile time: `expected type of field 'op' is 'string' but provided type is 'int'`;
 *   a `dyn` value of another type fails at run time), `value` is dyn. Op names
 *   and paths are not validated.
 * - `has(p.op/path/from)` is whether the string is non-empty; `has(p.value)`
 *   whether it was set. Unset strings read as `""`. Equality compares all four.
 * - `jsonpatch.escapeKey(s)`: `~` → `~0` and `/` → `~1` in one pass.
 */
import { STRING_TRAVERSAL_COST_FACTOR, UNKNOWN_SIZE, actualSize, multiplyByCostFactor, scaleRange } from "./cost-model.js";
import { func, overload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { celEquals } from "../runtime/equality.js";
import { toJson, type JsonValue } from "../runtime/json.js";
import { DYN, STRING, messageType, type CelType } from "../types.js";
import { CelDuration, CelObject, CelTimestamp, CelUint, type CelMapKey, type CelValue } from "../values.js";
import { ObjectValue, checkTypeNames, goTypeOf, type PatchJson } from "./object.js";

export const JSONPATCH_TYPE_NAME = "JSONPatch";
export const JSONPATCH_TYPE = messageType(JSONPATCH_TYPE_NAME);

/** The declared type of a JSONPatch field, or undefined for an unknown field. */
export function jsonPatchFieldType(field: string): CelType | undefined {
  switch (field) {
    case "op":
    case "path":
    case "from":
      return STRING;
    case "value":
      return DYN;
    default:
      return undefined;
  }
}

/** A `JSONPatch{…}` value (`mutation.JSONPatchVal`). */
export class JsonPatchValue extends CelObject {
  readonly celType = JSONPATCH_TYPE;
  constructor(
    readonly op: string,
    readonly path: string,
    readonly from: string,
    /** Undefined when `value` was not set. */
    readonly value: CelValue | undefined,
  ) {
    super();
  }
  override getField(name: string): CelValue | undefined {
    switch (name) {
      case "op":
        return this.op;
      case "path":
        return this.path;
      case "from":
        return this.from;
      case "value":
        return this.value;
      default:
        return undefined;
    }
  }
  override hasField(name: string): boolean | undefined {
    switch (name) {
      case "op":
        return this.op !== "";
      case "path":
        return this.path !== "";
      case "from":
        return this.from !== "";
      case "value":
        return this.value !== undefined;
      default:
        return undefined;
    }
  }
  /** For display (`toJson`, the CLI): `{op, path, from?, value?}` (see {@link jsonPatchOperations} for the apiserver's conversion). */
  toJSON(): JsonValue {
    const out: { [key: string]: JsonValue } = { op: this.op, path: this.path };
    if (this.from !== "") out.from = this.from;
    if (this.value !== undefined) out.value = toJson(this.value);
    return out;
  }
  /** `JSONPatchVal.Equal`: op, from, path, and value (unset equals unset); another type is unequal. */
  override equals(other: CelValue): boolean {
    if (!(other instanceof JsonPatchValue)) return false;
    if (this.op !== other.op || this.from !== other.from || this.path !== other.path) return false;
    if (this.value === undefined || other.value === undefined) return this.value === other.value;
    return celEquals(this.value, other.value);
  }
}

/** `JSONPatchType.Val`: run-time field checks (`dyn` values may be of any type). */
export function newJsonPatch(fields: ReadonlyMap<string, CelValue>): JsonPatchValue {
  let op = "";
  let path = "";
  let from = "";
  let value: CelValue | undefined;
  for (const [name, v] of fields) {
    switch (name) {
      case "op":
      case "path":
      case "from":
        if (typeof v !== "string") throw new CelEvalError(`unexpected type ${goTypeOf(v)} for JSONPatchType '${name}' field`);
        if (name === "op") op = v;
        else if (name === "path") path = v;
        else from = v;
        break;
      case "value":
        value = v;
        break;
      default:
        throw new CelEvalError(`unexpected JSONPatchType field: ${name}`);
    }
  }
  return new JsonPatchValue(op, path, from, value);
}

/** `jsonpatch.escapeKey`: `~` → `~0`, `/` → `~1`, in one pass (no double escaping). */
export function escapeKey(k: string): string {
  return k.replace(/[~/]/g, (c) => (c === "~" ? "~0" : "~1"));
}

/** `library.JSONPatch()`: the `kubernetes.jsonpatch` library. */
export const JSONPATCH_LIBRARY: Library = {
  name: "kubernetes.jsonpatch",
  // cost.go CallCost: `jsonpatch.escapeKey` is one traversal, ceil(size(s) × 0.1), as `url`.
  costs: {
    string_jsonpatch_escapeKey_string: {
      estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
      actual: (args) => multiplyByCostFactor(actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR),
    },
  },
  functions: [func("jsonpatch.escapeKey", overload("string_jsonpatch_escapeKey_string", [STRING], STRING, escapeKey))],
};

// ---------------------------------------------------------------------------
// Conversion to RFC 6902

/** One RFC 6902 operation as the apiserver builds it: `op` and `path` always, `from` when non-empty, `value` when set. */
export interface JsonPatchOperation {
  op: string;
  path: string;
  from?: string;
  value?: PatchJson;
}

const MARSHAL_ERROR = "JSONPath valueExpression evaluated to a type that could not marshal to JSON: ";
/** cel-go's JSON-safe integer range: ±(2^53 − 1). */
const MAX_JSON_INT = 2n ** 53n - 1n;

/**
 * The patch a JSONPatch expression's result stands for. Throws {@link CelEvalError} with the
 * apiserver's messages: `type mismatch: …` for a nested `Object` whose name does not match its
 * path, `JSONPath valueExpression evaluated to a type that could not marshal to JSON: …`.
 */
export function jsonPatchOperations(result: CelValue): JsonPatchOperation[] {
  if (!Array.isArray(result)) throw new CelEvalError("type mismatch: JSONPatchType.expression should evaluate to array");
  const out: JsonPatchOperation[] = [];
  for (const e of result as readonly CelValue[]) {
    if (!(e instanceof JsonPatchValue)) {
      throw new CelEvalError(
        `type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: cannot convert to native type: *mutation.JSONPatchVal`,
      );
    }
    const op: JsonPatchOperation = { op: e.op, path: e.path };
    if (e.from !== "") op.from = e.from;
    if (e.value !== undefined) {
      if (e.value instanceof ObjectValue) {
        checkTypeNames(e.value);
        op.value = objectJson(e.value);
      } else {
        op.value = protoJson(e.value);
      }
    }
    out.push(op);
  }
  return out;
}

/**
 * A CEL value as cel-go converts it to `google.protobuf.Value`: ints and uints within ±(2^53−1)
 * are numbers, larger ones decimal strings; doubles numbers (NaN and infinities cannot marshal);
 * bytes base64; timestamps and durations their JSON strings; maps need string keys.
 */
function protoJson(v: CelValue): PatchJson {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") return v >= -MAX_JSON_INT && v <= MAX_JSON_INT ? Number(v) : v.toString();
  if (v instanceof CelUint) return v.value <= MAX_JSON_INT ? Number(v.value) : v.value.toString();
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new CelEvalError(`${MARSHAL_ERROR}json: unsupported value: ${v}`);
    return v;
  }
  if (v instanceof Uint8Array || v instanceof CelTimestamp || v instanceof CelDuration) return toJson(v) as string;
  if (Array.isArray(v)) {
    return (v as readonly CelValue[]).map((e) => {
      // 1.36 caveat: an Object inside a CEL list does not convert (fixed in 1.37).
      if (e instanceof ObjectValue) throw new CelEvalError(`${MARSHAL_ERROR}an Object value inside a list is not convertible in Kubernetes 1.36`);
      return protoJson(e);
    });
  }
  if (v instanceof Map) {
    const out: { [key: string]: PatchJson } = {};
    for (const [k, e] of v as ReadonlyMap<CelMapKey, CelValue>) {
      if (typeof k !== "string") throw new CelEvalError(`${MARSHAL_ERROR}map key ${String(k)} is not a string`);
      if (e instanceof ObjectValue) throw new CelEvalError(`${MARSHAL_ERROR}an Object value inside a map is not convertible in Kubernetes 1.36`);
      out[k] = protoJson(e);
    }
    return out;
  }
  throw new CelEvalError(`${MARSHAL_ERROR}type conversion error from '${goTypeOf(v)}' to 'google.protobuf.Value'`);
}

/**
 * An `Object` value as `structpb.NewStruct` of its native map: ints become float64 numbers (no
 * strings for large ones), CEL null, nested lists of lists and other non-JSON Go values fail
 * (`proto: invalid type: …`), bytes become base64.
 */
function objectJson(o: ObjectValue): { [key: string]: PatchJson } {
  const out: { [key: string]: PatchJson } = {};
  for (const [k, v] of o.fields) {
    if (Array.isArray(v)) out[k] = (v as readonly CelValue[]).map(structValue);
    else if (v instanceof Map) {
      const m: { [key: string]: PatchJson } = {};
      for (const [mk, mv] of v as ReadonlyMap<CelMapKey, CelValue>) {
        if (typeof mk !== "string") throw new CelEvalError(`${MARSHAL_ERROR}fail to convert field "${k}": map key is not a string`);
        m[mk] = structValue(mv);
      }
      out[k] = m;
    } else out[k] = structValue(v);
  }
  return out;
}

/** `structpb.NewValue` of a field's native value (`ref.Val.Value()`). */
function structValue(v: CelValue): PatchJson {
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof CelUint) return Number(v.value);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new CelEvalError(`${MARSHAL_ERROR}json: unsupported value: ${v}`);
    return v;
  }
  if (v instanceof Uint8Array) return toJson(v) as string;
  if (v instanceof ObjectValue) return objectJson(v);
  throw new CelEvalError(`${MARSHAL_ERROR}proto: invalid type: ${goTypeOf(v)}`);
}
