/**
 * Field-level validation errors, modelled on apimachinery's `field.Error`
 * (`k8s.io/apimachinery/pkg/util/validation/field/errors.go`, v0.36.3) and rendered in
 * exactly its words:
 *
 *   spec.mutations[1].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"
 *   spec.reinvocationPolicy: Required value
 *
 * An error is plain data (type, path, bad value, detail) plus, once the edge knows it,
 * the document it came from. Rendering is separate: {@link errorBody}, {@link errorString}.
 */
import type { FieldPath } from "./field-path.js";
import { goJSON, goQuote, goSimple } from "./go-format.js";
import type { SourceRef } from "./source.js";

/** apimachinery `field.ErrorType` values (also the `reason` of a Status cause). */
export const ErrorType = {
  NotFound: "FieldValueNotFound",
  Required: "FieldValueRequired",
  Duplicate: "FieldValueDuplicate",
  Invalid: "FieldValueInvalid",
  NotSupported: "FieldValueNotSupported",
  Forbidden: "FieldValueForbidden",
  TooLong: "FieldValueTooLong",
  TooMany: "FieldValueTooMany",
  TooFew: "FieldValueTooFew",
  Internal: "InternalError",
  TypeInvalid: "FieldValueTypeInvalid",
  TooShort: "FieldValueTooShort",
} as const;
export type ErrorType = (typeof ErrorType)[keyof typeof ErrorType];

/** The canonical words apimachinery prints for each type (`ErrorType.String()`). */
export function errorTypeText(t: ErrorType): string {
  switch (t) {
    case ErrorType.NotFound:
      return "Not found";
    case ErrorType.Required:
      return "Required value";
    case ErrorType.Duplicate:
      return "Duplicate value";
    case ErrorType.Invalid:
    case ErrorType.TypeInvalid:
      return "Invalid value";
    case ErrorType.NotSupported:
      return "Unsupported value";
    case ErrorType.Forbidden:
      return "Forbidden";
    case ErrorType.TooLong:
      return "Too long";
    case ErrorType.TooMany:
      return "Too many";
    case ErrorType.TooFew:
      return "Too few";
    case ErrorType.Internal:
      return "Internal error";
    case ErrorType.TooShort:
      return "Too short";
  }
}

/** Marker for "no bad value to print" (apimachinery's `omitValue`). */
export const OMIT: unique symbol = Symbol("omitValue");

/**
 * A bad value of a Go *named* string type (`PatchType`, `OperationType`, ...). apimachinery
 * prints those through `json.Marshal` rather than `%q`, which differs for HTML characters
 * and non-ASCII (`"\u003c"` vs `"<"`), so callers mark them.
 */
export class JsonString {
  constructor(readonly value: string) {}
}

/**
 * A bad value already rendered as Go's `json.Marshal` renders it, for values whose key order
 * or field names JSON data cannot carry (a struct of an internal API type prints its Go field
 * names in declaration order: `{"Type":"BlueGreen","RollingUpdate":null}`).
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Marks a value of a Go named string type (see {@link JsonString}). */
export function named(value: string): JsonString {
  return new JsonString(value);
}

/**
 * A bad value. Strings print Go-quoted (`"x"`); numbers, bigints and booleans print bare;
 * anything else (lists, objects, null) prints as Go's JSON encoding; {@link OMIT} prints nothing.
 */
export type BadValue = string | number | bigint | boolean | null | typeof OMIT | readonly unknown[] | object;

export interface FieldError {
  readonly type: ErrorType;
  readonly path: FieldPath;
  readonly badValue: BadValue;
  readonly detail: string;
  /** Set at the edge (io/cli) once the document is known. */
  readonly source?: SourceRef;
}

function make(type: ErrorType, path: FieldPath, badValue: BadValue, detail: string): FieldError {
  return { type, path, badValue, detail };
}

/** `field.Required(path, detail)`. */
export function required(path: FieldPath, detail = ""): FieldError {
  return make(ErrorType.Required, path, "", detail);
}

/** `field.Invalid(path, value, detail)`. */
export function invalid(path: FieldPath, value: BadValue, detail: string): FieldError {
  return make(ErrorType.Invalid, path, value, detail);
}

/** `field.TypeInvalid(path, value, detail)`. */
export function typeInvalid(path: FieldPath, value: BadValue, detail: string): FieldError {
  return make(ErrorType.TypeInvalid, path, value, detail);
}

/** `field.NotFound(path, value)`. */
export function notFound(path: FieldPath, value: BadValue): FieldError {
  return make(ErrorType.NotFound, path, value, "");
}

/**
 * `field.NotSupported(path, value, validValues)`: detail `supported values: "a", "b"`
 * (each value Go-quoted, in the order given; callers pass Go's sorted `sets.List()` order
 * where the apiserver does).
 */
export function notSupported(path: FieldPath, value: BadValue, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? "supported values: " + validValues.map(goQuote).join(", ") : "";
  return make(ErrorType.NotSupported, path, value, detail);
}

/** `field.Forbidden(path, detail)`. */
export function forbidden(path: FieldPath, detail: string): FieldError {
  return make(ErrorType.Forbidden, path, "", detail);
}

/** `field.Duplicate(path, value)`. */
export function duplicate(path: FieldPath, value: BadValue): FieldError {
  return make(ErrorType.Duplicate, path, value, "");
}

/** `field.TooLong(path, _, maxLength)`: `Too long: may not be more than N bytes`. */
export function tooLong(path: FieldPath, maxLength: number): FieldError {
  const detail =
    maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}` : "value is too long";
  return make(ErrorType.TooLong, path, "<value omitted>", detail);
}

/** `field.TooMany(path, actual, max)`: `Too many: 65: must have at most 64 items`. */
export function tooMany(path: FieldPath, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? "item" : "items"}` : "has too many items";
  return make(ErrorType.TooMany, path, actual >= 0 ? actual : OMIT, detail);
}

/** `field.InternalError(path, err)`: `Internal error: <err>`. */
export function internalError(path: FieldPath, message: string): FieldError {
  return make(ErrorType.Internal, path, message, message);
}

/** Attaches a document reference (returns a new error). */
export function withSource(err: FieldError, source: SourceRef): FieldError {
  return { ...err, source };
}

function renderBadValue(v: BadValue): string {
  if (v instanceof JsonString) return goJSON(v.value);
  if (v instanceof RawJson) return v.text;
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return goSimple(v);
  return goJSON(v);
}

/** `Error.ErrorBody()`: the message without the field path. */
export function errorBody(e: FieldError): string {
  let s: string;
  switch (e.type) {
    case ErrorType.Required:
    case ErrorType.Forbidden:
    case ErrorType.TooLong:
    case ErrorType.TooShort:
    case ErrorType.Internal:
      s = errorTypeText(e.type);
      break;
    default:
      s = e.badValue === OMIT ? errorTypeText(e.type) : `${errorTypeText(e.type)}: ${renderBadValue(e.badValue)}`;
  }
  if (e.detail.length > 0) s += `: ${e.detail}`;
  return s;
}

/** `Error.Error()`: `<path>: <body>`. */
export function errorString(e: FieldError): string {
  return `${e.path.toString()}: ${errorBody(e)}`;
}

/**
 * `ErrorList.ToAggregate().Error()`: messages deduplicated (first occurrence wins), one
 * message printed bare, several joined with `, ` inside `[...]`. Empty list → `""`.
 */
export function aggregateMessage(errors: readonly FieldError[]): string {
  const seen = new Set<string>();
  const msgs: string[] = [];
  for (const e of errors) {
    const m = errorString(e);
    if (!seen.has(m)) {
      seen.add(m);
      msgs.push(m);
    }
  }
  if (msgs.length === 0) return "";
  if (msgs.length === 1) return msgs[0]!;
  return "[" + msgs.join(", ") + "]";
}

/**
 * The apiserver's 422 message for a rejected object (`apierrors.NewInvalid`):
 * `MutatingAdmissionPolicy.admissionregistration.k8s.io "name" is invalid: <aggregate>`.
 * `qualifiedKind` is `Kind.group` (just `Kind` for the core group).
 */
export function invalidObjectMessage(qualifiedKind: string, name: string, errors: readonly FieldError[]): string {
  const agg = aggregateMessage(errors);
  const head = `${qualifiedKind} ${goQuote(name)} is invalid`;
  return agg === "" ? head : `${head}: ${agg}`;
}
