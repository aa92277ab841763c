/**
 * OpenAPI v3 schema validation of a custom resource, in the words kube-apiserver uses
 * (kube-openapi's `validate` messages turned into field errors by apiextensions'
 * `kubeOpenAPIResultToFieldErrors`, v0.36.3):
 *
 *     spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
 *     spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1
 *     spec.color: Unsupported value: "pink": supported values: "red", "blue"
 *     spec.name: Too long: may not be more than 5 bytes
 *     spec.tags: Too many: 4: must have at most 3 items
 *     spec.size: Required value
 *
 * Keywords: type (+ nullable, x-kubernetes-int-or-string), format, enum, minimum/maximum
 * (+ exclusive), multipleOf, minLength/maxLength, pattern, minItems/maxItems,
 * minProperties/maxProperties, required, properties, additionalProperties, items, allOf, anyOf,
 * oneOf, not. `x-kubernetes-preserve-unknown-fields` regions are not walked further than their
 * declared properties. Works on the CRD version's raw `openAPIV3Schema`.
 */
import { invalid, notSupported, required, tooLong, tooMany, typeInvalid, type FieldError } from "../../diag/field-error.js";
import { FieldPath } from "../../diag/field-path.js";
import { goFloatV } from "../../diag/go-format.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../admission/json.js";
import { formatProblem } from "./formats.js";

type Schema = JsonObject;

function jsonType(v: JsonValue): "null" | "boolean" | "string" | "integer" | "number" | "array" | "object" {
  if (v === null) return "null";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "string") return "string";
  if (typeof v === "bigint") return "integer";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (Array.isArray(v)) return "array";
  return "object";
}

/** Go's `%v` of a float64 schema bound (`1`, `1.5`, `1e+21`). */
const goFloat = goFloatV;

function num(v: JsonValue | undefined): number | undefined {
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : undefined;
}

/** Unicode code points (Go's `utf8.RuneCountInString`). */
function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const PATTERN_CACHE = new Map<string, RegExp | null>();
function patternRe(p: string): RegExp | null {
  let re = PATTERN_CACHE.get(p);
  if (re === undefined) {
    try {
      re = new RegExp(p, "u");
    } catch {
      re = null;
    }
    PATTERN_CACHE.set(p, re);
  }
  return re;
}

/** The name kube-openapi gives a value (`spec.tags[1]`, `spec.labels.key`). */
function child(name: string, key: string): string {
  return name === "" ? key : `${name}.${key}`;
}

function at(path: string): FieldPath {
  // apiextensions builds the error path with fldPath.Child(name): one segment holding the whole name.
  return path === "" ? FieldPath.empty : FieldPath.root(path);
}

/** Validates `value` against `schema`; `name` is kube-openapi's path of the value. */
export function validateSchema(value: JsonValue, schema: Schema, name = ""): FieldError[] {
  const errs: FieldError[] = [];
  validate(value, schema, name, errs);
  return errs;
}

function validate(v: JsonValue, s: Schema, name: string, errs: FieldError[]): void {
  const type = typeof s.type === "string" ? s.type : "";
  const intOrString = s["x-kubernetes-int-or-string"] === true;
  const t = jsonType(v);
  // typeValidator
  // An int-or-string schema is converted to the kube-openapi type list [integer, string]
  // (apiextensions-apiserver pkg/apiserver/validation ConvertJSONSchemaPropsWithPostProcess), whose
  // type error names both: `must be of type integer,string: "boolean"`.
  if (v === null) {
    if ((type !== "" || intOrString) && s.nullable !== true) {
      errs.push(typeInvalid(at(name), "null", `${name} in body must be of type ${intOrString ? "integer,string" : type}: "null"`));
      return;
    }
    return;
  }
  // (kube-openapi runs every validator; those for another kind of value do not apply, enum always does.)
  if (intOrString && t !== "integer" && t !== "string") {
    errs.push(typeInvalid(at(name), t, `${name} in body must be of type integer,string: ${JSON.stringify(t)}`));
  }
  if (type !== "" && !intOrString) {
    const ok = type === t || (type === "number" && t === "integer");
    if (!ok) {
      const actual = t === "integer" && type !== "number" ? "integer" : t;
      errs.push(typeInvalid(at(name), actual, `${name} in body must be of type ${type}: ${JSON.stringify(actual)}`));
    }
  }
  // schemaPropsValidator: allOf, anyOf, oneOf, not
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) if (isJsonObject(sub)) validate(v, sub, name, errs);
  if (Array.isArray(s.anyOf)) {
    const subs = s.anyOf.filter(isJsonObject);
    const results = subs.map((sub) => validateSchema(v, sub, name));
    if (subs.length > 0 && !results.some((r) => r.length === 0)) {
      errs.push(invalid(at(name), "", `${name} in body must validate at least one schema (anyOf)`));
      errs.push(...results.flat());
    }
  }
  if (Array.isArray(s.oneOf)) {
    const subs = s.oneOf.filter(isJsonObject);
    const results = subs.map((sub) => validateSchema(v, sub, name));
    const passing = results.filter((r) => r.length === 0).length;
    if (subs.length > 0 && passing !== 1) {
      errs.push(invalid(at(name), "", `${name} in body must validate one and only one schema (oneOf)${passing === 0 ? "" : `. Found ${passing} valid alternatives`}`));
      if (passing === 0) errs.push(...results.flat());
    }
  }
  if (isJsonObject(s.not) && validateSchema(v, s.not, name).length === 0) errs.push(invalid(at(name), "", `${name} in body must not validate the schema (not)`));
  // stringValidator
  if (typeof v === "string") {
    // The first failing check only (kube-openapi's stringValidator returns at the first).
    const maxLength = num(s.maxLength);
    const minLength = num(s.minLength);
    const re = typeof s.pattern === "string" ? patternRe(s.pattern) : null;
    if (maxLength !== undefined && runeCount(v) > maxLength) errs.push(tooLong(at(name), maxLength));
    else if (minLength !== undefined && runeCount(v) < minLength) errs.push(invalid(at(name), v, `${name} in body should be at least ${minLength} chars long`));
    else if (re !== null && !re.test(v)) errs.push(invalid(at(name), v, `${name} in body should match '${String(s.pattern)}'`));
  }
  // formatValidator
  if (typeof s.format === "string" && typeof v === "string" && type === "string") {
    if (formatProblem(s.format, v)) errs.push(typeInvalid(at(name), v, `${name} in body must be of type ${s.format}: ${JSON.stringify(v)}`));
  }
  // numberValidator
  if ((typeof v === "number" || typeof v === "bigint") && (type === "integer" || type === "number" || type === "")) {
    const n = Number(v);
    const isInt = t === "integer";
    // IsValueValidAgainstRange: a non-integral number where an integer is declared.
    if (type === "integer" && !isInt) errs.push(invalid(FieldPath.root("<nil>"), "", `Checked value must be of type integer (default format) in ${name}`));
    const multipleOf = num(s.multipleOf);
    if (multipleOf !== undefined) {
      // MultipleOfNativeType: an integer value is checked against the factor truncated to an integer.
      const factor = isInt ? Math.trunc(multipleOf) : multipleOf;
      if (factor <= 0) errs.push(invalid(at(name), factor, `factor MultipleOf declared for ${name} must be positive: ${goFloat(factor)}`));
      else if (isInt ? n % factor !== 0 : !Number.isInteger(factor < 1 ? (1 / factor) * n : n / factor)) errs.push(invalid(at(name), v, `${name} in body should be a multiple of ${goFloat(factor)}`));
    }
    const min = num(s.minimum);
    if (min !== undefined) {
      const excl = s.exclusiveMinimum === true;
      if (excl ? n <= min : n < min) errs.push(invalid(at(name), v, `${name} in body should be greater than ${excl ? "" : "or equal to "}${goFloat(min)}`));
    }
    const max = num(s.maximum);
    if (max !== undefined) {
      const excl = s.exclusiveMaximum === true;
      if (excl ? n >= max : n > max) errs.push(invalid(at(name), v, `${name} in body should be less than ${excl ? "" : "or equal to "}${goFloat(max)}`));
    }
  }
  // sliceValidator
  if (Array.isArray(v)) {
    const maxItems = num(s.maxItems);
    const minItems = num(s.minItems);
    if (minItems !== undefined && v.length < minItems) errs.push(invalid(at(name), v.length, `${name} in body should have at least ${minItems} items`));
    if (maxItems !== undefined && v.length > maxItems) errs.push(tooMany(at(name), v.length, maxItems));
    if (isJsonObject(s.items)) v.forEach((e, i) => validate(e, s.items as Schema, `${name}[${i}]`, errs));
  }
  // commonValidator: enum
  if (Array.isArray(s.enum) && !s.enum.some((e) => jsonEqual(e, v))) {
    errs.push(notSupported(at(name), v as never, s.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e)))));
  }
  // objectValidator
  if (isJsonObject(v)) {
    const keys = Object.keys(v);
    const maxP = num(s.maxProperties);
    const minP = num(s.minProperties);
    if (maxP !== undefined && keys.length > maxP) errs.push(tooMany(at(name), keys.length, maxP));
    if (minP !== undefined && keys.length < minP) errs.push(invalid(at(name), keys.length, `${name} in body should have at least ${minP} properties`));
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === "string" && !Object.prototype.hasOwnProperty.call(v, r)) errs.push(required(at(child(name, r))));
    const props = isJsonObject(s.properties) ? s.properties : {};
    for (const k of keys) {
      const ps = props[k];
      if (isJsonObject(ps)) validate(v[k] as JsonValue, ps, child(name, k), errs);
      else if (isJsonObject(s.additionalProperties)) validate(v[k] as JsonValue, s.additionalProperties, child(name, k), errs);
    }
  }
}

function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (typeof a === "number" || typeof a === "bigint") return (typeof b === "number" || typeof b === "bigint") && Number(a) === Number(b);
  if (a === null || typeof a !== "object") return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i] as JsonValue));
  if (!isJsonObject(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k] as JsonValue, b[k] as JsonValue));
}

// ---------------------------------------------------------------------------------------------
// x-kubernetes-list-type set/map uniqueness (`structurallisttype.ValidateListSetsAndMaps`)

/** Duplicate entries of `set` and `map` lists, at `spec.tags[1]` style paths. */
export function validateListTypes(v: JsonValue, s: Schema, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  walkLists(v, s, path, errs);
  return errs;
}

function walkLists(v: JsonValue, s: Schema, path: FieldPath, errs: FieldError[]): void {
  if (Array.isArray(v)) {
    const lt = s["x-kubernetes-list-type"];
    if (lt === "set") for (const i of secondOccurrences(v)) errs.push(duplicateAt(path.index(i), v[i] as JsonValue));
    else if (lt === "map") errs.push(...listMapDuplicates(v, s, path));
    if (isJsonObject(s.items)) v.forEach((e, i) => walkLists(e as JsonValue, s.items as Schema, path.index(i), errs));
    return;
  }
  if (!isJsonObject(v)) return;
  const props = isJsonObject(s.properties) ? s.properties : undefined;
  for (const k of Object.keys(v)) {
    if (isJsonObject(s.additionalProperties)) walkLists(v[k] as JsonValue, s.additionalProperties, path.key(k), errs);
    if (props !== undefined && isJsonObject(props[k])) walkLists(v[k] as JsonValue, props[k] as Schema, path.isEmpty ? FieldPath.root(k) : path.child(k), errs);
  }
}

function duplicateAt(path: FieldPath, value: JsonValue): FieldError {
  return { type: "FieldValueDuplicate", path, badValue: value as never, detail: "" };
}

function canonical(v: JsonValue): string {
  if (v === null || typeof v !== "object") return `s:${typeof v}:${String(v)}`;
  return `c:${stableJson(v)}`;
}

function stableJson(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map((e) => stableJson(e as JsonValue)).join(",")}]`;
  if (isJsonObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson(v[k] as JsonValue)}`).join(",")}}`;
  return typeof v === "bigint" ? v.toString() : JSON.stringify(v);
}

/** Indices of the second occurrence of each repeated value (Go's `validateListSet`). */
function secondOccurrences(values: readonly JsonValue[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((x, i) => {
    const k = canonical(x);
    const n = seen.get(k) ?? 0;
    if (n === 1) out.push(i);
    seen.set(k, n + 1);
  });
  return out;
}

function listMapDuplicates(v: JsonValue[], s: Schema, path: FieldPath): FieldError[] {
  for (let i = 0; i < v.length; i++) {
    const x = v[i] as JsonValue;
    if (x !== null && !isJsonObject(x)) return [invalid(path.index(i), x as never, "must be an object for an array of list-type map")];
  }
  if (v.length <= 1) return [];
  const keyFields = Array.isArray(s["x-kubernetes-list-map-keys"]) ? s["x-kubernetes-list-map-keys"].filter((k): k is string => typeof k === "string") : [];
  const keys: JsonObject[] = v.map((x) => {
    const key: JsonObject = {};
    if (isJsonObject(x)) for (const f of keyFields) if (Object.prototype.hasOwnProperty.call(x, f)) key[f] = x[f] as JsonValue;
    return key;
  });
  if (keyFields.length === 1) {
    const f = keyFields[0]!;
    const single = keys.map((k) => (Object.prototype.hasOwnProperty.call(k, f) ? canonical(k[f] as JsonValue) : "unspecified"));
    const seen = new Map<string, number>();
    const errs: FieldError[] = [];
    single.forEach((k, i) => {
      const n = seen.get(k) ?? 0;
      if (n === 1) errs.push(duplicateAt(path.index(i), keys[i]!));
      seen.set(k, n + 1);
    });
    return errs;
  }
  return secondOccurrences(keys).map((i) => duplicateAt(path.index(i), keys[i]!));
}
