/**
 * `Object{…}` construction for MutatingAdmissionPolicy ApplyConfiguration
 * expressions (k8s.io/apiserver `pkg/cel/mutation/typeresolver.go` and
 * `mutation/dynamic/objects.go`, v0.36).
 *
 * - Compile time: the name `Object` and every dotted name starting with
 *   `Object.` is a constructible message type; every field name is accepted and
 *   every field is `dyn`. There is no schema ({@link objectTypeProvider}). The
 *   expression must type-check to exactly `Object` ({@link checkOutputType}).
 * - Run time: an {@link ObjectValue} records its type name and the fields set,
 *   in the order written. {@link checkTypeNames} is the apiserver's sanity check
 *   that every nested `Object.x.y{}` is named after its field path from the root
 *   (lists and maps are transparent):
 *   `type mismatch: unexpected type name "X", expected "Y", which matches field name path from root Object type`.
 * - {@link applyConfigurationJson}: the result as the plain JSON the apiserver
 *   hands to structured-merge-diff, with 1.36's conversion caveats (map.md §3.1).
 *
 * Beyond Kubernetes, {@link objectTypeProvider} takes an optional schema (strict
 * mode): `Object.<path>` names must then exist in the kind's schema and fields
 * are typed from it, so `Object.spec{replicasx: 1}` is a compile error
 * (`undefined field 'replicasx'`) instead of a server-side-apply error at run time.
 */
import type { TypeProvider } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { celEquals } from "../runtime/equality.js";
import { isDocumentValue, toJson, type JsonValue } from "../runtime/json.js";
import { BOOL, CelType, DYN, INT, STRING, listType, mapType, messageType, typeEquals } from "../types.js";
import { CelObject, CelUint, type CelMapKey, type CelValue } from "../values.js";
import type { CelSchemaNode } from "./values.js";
import { JSONPATCH_TYPE, JSONPATCH_TYPE_NAME, jsonPatchFieldType, newJsonPatch } from "./jsonpatch.js";

export const OBJECT_TYPE_NAME = "Object";
export const OBJECT_TYPE = messageType(OBJECT_TYPE_NAME);

/** `Object` or `Object.<path>`. */
export function isObjectTypeName(name: string): boolean {
  return name === OBJECT_TYPE_NAME || name.startsWith(`${OBJECT_TYPE_NAME}.`);
}

/** Message types by `Object…` name: made once, as every construction asks for its type. */
const objectTypes = new Map<string, CelType>();

function objectType(name: string): CelType {
  let t = objectTypes.get(name);
  if (t === undefined) {
    t = messageType(name);
    // Names come from policy expressions; bounded so that a stream of distinct names cannot grow it.
    if (objectTypes.size >= 10_000) objectTypes.clear();
    objectTypes.set(name, t);
  }
  return t;
}

/** A value built by `Object{…}` or `Object.<path>{…}`. Immutable. */
export class ObjectValue extends CelObject {
  readonly celType: CelType;
  constructor(
    readonly typeName: string,
    /** The fields set, in the order written. */
    readonly fields: ReadonlyMap<string, CelValue>,
  ) {
    super();
    this.celType = objectType(typeName);
  }
  /** The field's value when set; an unset field is "no such field" (there is no schema to give a default). */
  override getField(name: string): CelValue | undefined {
    return this.fields.get(name);
  }
  override hasField(name: string): boolean {
    return this.fields.has(name);
  }
  /** `ObjectVal.IsZeroValue`: no field set. */
  override isZeroValue(): boolean {
    return this.fields.size === 0;
  }
  /**
   * `ObjectVal.Equal`: the same type name and the same fields. (Go compares the field maps with
   * `reflect.DeepEqual`; here field values compare with CEL equality.) Another type is unequal.
   */
  override equals(other: CelValue): boolean {
    if (!(other instanceof ObjectValue) || other.typeName !== this.typeName) return false;
    if (other.fields.size !== this.fields.size) return false;
    for (const [k, v] of this.fields) {
      const o = other.fields.get(k);
      if (o === undefined || !celEquals(v, o)) return false;
    }
    return true;
  }
  override toString(): string {
    return `${this.typeName}{${[...this.fields.keys()].join(", ")}}`;
  }
  /** For display (`toJson`, the CLI): the fields as JSON, leniently (see {@link applyConfigurationJson} for the apiserver's conversion). */
  toJSON(): JsonValue {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of this.fields) out[k] = toJson(v);
    return out;
  }
}

// ---------------------------------------------------------------------------
// Type provider

/**
 * The mutation environment's type resolver: `Object`, `Object.<path>` and `JSONPatch`.
 * Without a schema this is exactly Kubernetes' `DynamicTypeResolver`. With a schema
 * (strict mode, celmap's own) names and fields resolve against it; see the module comment.
 */
export function objectTypeProvider(options: { readonly schema?: CelSchemaNode } = {}): TypeProvider {
  const schema = options.schema;
  const nodes = new Map<string, CelSchemaNode | null>();
  /** The schema node an `Object.<path>` name stands for: struct fields and map values by name, list elements transparently. */
  const nodeOf = (name: string): CelSchemaNode | undefined => {
    if (schema === undefined) return undefined;
    let n = nodes.get(name);
    if (n === undefined) {
      n = walk(schema, name.split(".").slice(1)) ?? null;
      nodes.set(name, n);
    }
    return n ?? undefined;
  };
  const isObjectType = (name: string): boolean => {
    if (!isObjectTypeName(name)) return false;
    if (schema === undefined) return true;
    const n = nodeOf(name);
    return n !== undefined && (n.kind === "struct" || n.kind === "untyped");
  };
  return {
    findType(name) {
      if (name === JSONPATCH_TYPE_NAME) return JSONPATCH_TYPE;
      return isObjectType(name) ? objectType(name) : undefined;
    },
    findFieldType(typeName, field) {
      if (typeName === JSONPATCH_TYPE_NAME) return jsonPatchFieldType(field);
      if (!isObjectType(typeName)) return undefined;
      if (schema === undefined) return DYN;
      const n = nodeOf(typeName)!;
      const child = n.child(field);
      return child === undefined ? undefined : fieldTypeOf(child);
    },
    newValue(typeName, fields) {
      if (typeName === JSONPATCH_TYPE_NAME) return newJsonPatch(fields);
      if (!isObjectType(typeName)) throw new CelEvalError(`unknown type: ${typeName}`);
      // The planner builds a new field map for every construction and never touches it again.
      return new ObjectValue(typeName, fields);
    },
  };
}

function walk(node: CelSchemaNode, path: readonly string[]): CelSchemaNode | undefined {
  let n: CelSchemaNode | undefined = elementsOf(node);
  for (const step of path) {
    if (n === undefined) return undefined;
    n = n.child(step);
    if (n !== undefined) n = elementsOf(n);
  }
  return n;
}

/** Lists are transparent in `Object.<path>` names: a list field's name stands for its elements. */
function elementsOf(node: CelSchemaNode): CelSchemaNode | undefined {
  let n: CelSchemaNode | undefined = node;
  while (n !== undefined && n.kind === "list") n = n.element();
  return n;
}

/**
 * Strict mode's field types: typed only where structured-merge-diff itself is strict, so a
 * value the apiserver would accept is never a compile error: strings (but not int-or-string or
 * quantities, which take ints too), integers and booleans; numbers accept ints and doubles (dyn);
 * structs and untyped values are dyn (a `Object.<path>{}` or a map may set them).
 */
function fieldTypeOf(node: CelSchemaNode): CelType {
  switch (node.kind) {
    case "scalar":
      return scalarType(node);
    case "list": {
      const e = node.element();
      return listType(e !== undefined && e.kind === "scalar" ? scalarType(e) : DYN);
    }
    case "map": {
      const v = node.child("");
      return mapType(STRING, v !== undefined && v.kind === "scalar" ? scalarType(v) : DYN);
    }
    default:
      return DYN;
  }
}

function scalarType(node: CelSchemaNode): CelType {
  if (node.format === "int-or-string" || node.format === "quantity") return DYN;
  switch (node.scalar) {
    case "string":
      return STRING;
    case "integer":
      return INT;
    case "boolean":
      return BOOL;
    default:
      return DYN;
  }
}

// ---------------------------------------------------------------------------
// Output type check (k8s.io/apiserver pkg/admission/plugin/cel/compile.go)

/**
 * The apiserver's return-type check after compiling: the expression's type must be exactly
 * `expected` (`Object` for ApplyConfiguration, `list(JSONPatch)` for JSONPatch, `bool` for
 * conditions). Returns the apiserver's message, or undefined when it matches.
 */
export function checkOutputType(actual: CelType, expected: CelType): string | undefined {
  if (typeEquals(actual, expected)) return undefined;
  return `must evaluate to ${expected.toString()} but got ${actual.toString()}`;
}

// ---------------------------------------------------------------------------
// Run-time checks and conversion

/**
 * `ObjectVal.CheckTypeNamesMatchFieldPathNames`: every nested `Object…{}` must be named
 * `<parent type name>.<field name>`; lists and maps are transparent. One message per
 * mismatch, in field order (Go's map order is random), as `errors.Join` joins them.
 */
export function typeNameMismatches(root: ObjectValue): string[] {
  const out: string[] = [];
  visitTypeNames(root, root.typeName, out);
  return out;
}

function visitTypeNames(v: CelValue, expected: string, out: string[]): void {
  if (v instanceof ObjectValue) {
    if (v.typeName !== expected) {
      out.push(
        `unexpected type name ${goQuote(v.typeName)}, expected ${goQuote(expected)}, which matches field name path from root Object type`,
      );
    }
    for (const [k, f] of v.fields) visitTypeNames(f, `${expected}.${k}`, out);
    return;
  }
  if (Array.isArray(v)) {
    for (const e of v as readonly CelValue[]) visitTypeNames(e, expected, out);
    return;
  }
  if (v instanceof Map) {
    for (const e of (v as ReadonlyMap<CelMapKey, CelValue>).values()) visitTypeNames(e, expected, out);
  }
}

/** Throws the patcher's `type mismatch: …` error when {@link typeNameMismatches} finds any. */
export function checkTypeNames(root: ObjectValue): void {
  const errs = typeNameMismatches(root);
  if (errs.length > 0) throw new CelEvalError(`type mismatch: ${errs.join("\n")}`);
}

/** JSON as the admission patchers take it: integers are `bigint` (Go int64), other numbers float64. */
export type PatchJson = null | boolean | number | bigint | string | PatchJson[] | { [key: string]: PatchJson };

/**
 * A value kube-apiserver 1.36 passes on to structured-merge-diff in a form SMD cannot take
 * (the conversion caveats of map.md §3.1): SMD then rejects the patch. Thrown by
 * {@link applyConfigurationJson} with the path of the value; the apiserver's own message comes
 * from SMD and differs (`<path>: expected …, got …`).
 */
export class UnconvertibleValueError extends Error {
  override readonly name = "UnconvertibleValueError";
  constructor(
    /** `.spec.x` style path of the value. */
    readonly path: string,
    /** What the value is, as Go sees it (`uint64`, `[]ref.Val`, `time.Time`, ...). */
    readonly goType: string,
  ) {
    super(`${path}: value of type ${goType} cannot be converted for structured-merge-diff (kube-apiserver 1.36)`);
  }
}

/**
 * The ApplyConfiguration result as plain JSON (`ObjectVal.Value()`): ints → int64 (`bigint`),
 * doubles → float64, strings, bools, CEL maps → objects (a non-string key fails the whole
 * conversion, which the patcher reports as `invalid return type: *dynamic.ObjectVal`), lists →
 * arrays, nested Objects → objects, CEL `null` → JSON null (SMD rejects it as a protobuf
 * NullValue: the SSA applier's default "cel" null mode reproduces that).
 *
 * 1.36 caveats, reported as {@link UnconvertibleValueError}: uint, timestamp, duration, bytes,
 * type and host values (quantities, IPs, …), and — because only one level of lists and maps is
 * converted — a list or map directly inside a list, or inside a CEL map's value.
 * Call {@link checkTypeNames} first, as the apiserver does.
 */
export function applyConfigurationJson(root: ObjectValue): { [key: string]: PatchJson } {
  const out: { [key: string]: PatchJson } = {};
  for (const [k, v] of root.fields) out[k] = convertField(v, `.${k}`);
  return out;
}

function convertField(v: CelValue, path: string): PatchJson {
  // A list or map read from the object is native in cel-go and passed on as it is.
  if (isDocumentValue(v)) return nativeJson(v);
  if (Array.isArray(v)) {
    // (The apiserver's `var result []any` stays nil for an empty list, which reaches
    // structured-merge-diff as a Go nil, not CEL's null: not modelled yet, see the reference
    // ledger's apply-configuration-empty-list-is-null.)
    return (v as readonly CelValue[]).map((e, i) => convertLeaf(e, `${path}[${i}]`));
  }
  if (v instanceof Map) {
    const out: { [key: string]: PatchJson } = {};
    for (const [k, e] of v as ReadonlyMap<CelMapKey, CelValue>) {
      if (typeof k !== "string") throw new CelEvalError("invalid return type: *dynamic.ObjectVal");
      out[k] = convertLeaf(e, `${path}.${k}`);
    }
    return out;
  }
  return convertLeaf(v, path);
}

/** `ref.Val.Value()`: scalars and nested Objects convert; lists and maps stay CEL values (caveat). */
function convertLeaf(v: CelValue, path: string): PatchJson {
  if (v === null || typeof v === "boolean" || typeof v === "string" || typeof v === "bigint" || typeof v === "number") return v;
  if (isDocumentValue(v)) return nativeJson(v);
  if (v instanceof ObjectValue) {
    const out: { [key: string]: PatchJson } = {};
    for (const [k, f] of v.fields) out[k] = convertField(f, `${path}.${k}`);
    return out;
  }
  throw new UnconvertibleValueError(path, goTypeOf(v));
}

/** A document's list or map (see `isDocumentValue`) as the JSON it came from. */
function nativeJson(v: CelValue): PatchJson {
  if (Array.isArray(v)) return (v as readonly CelValue[]).map(nativeJson);
  if (v instanceof Map) {
    const out: { [key: string]: PatchJson } = {};
    for (const [k, e] of v as ReadonlyMap<CelMapKey, CelValue>) out[String(k)] = nativeJson(e);
    return out;
  }
  if (v === null || typeof v === "boolean" || typeof v === "string" || typeof v === "bigint" || typeof v === "number") return v;
  if (v instanceof ObjectValue) return convertLeaf(v, "");
  return toJson(v) as PatchJson;
}

/** Go's `%T` of a CEL value's `Value()` (for messages). */
export function goTypeOf(v: CelValue): string {
  if (v === null) return "structpb.NullValue";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int64";
  if (typeof v === "number") return "float64";
  if (typeof v === "string") return "string";
  if (v instanceof CelUint) return "uint64";
  if (v instanceof Uint8Array) return "[]uint8";
  if (Array.isArray(v)) return "[]ref.Val";
  if (v instanceof Map) return "map[ref.Val]ref.Val";
  if (v instanceof ObjectValue) return "map[string]interface {}";
  if (v instanceof CelType) return "*types.Type";
  if (v instanceof CelObject) return v.celType.name;
  const name = (v as object).constructor?.name;
  if (name === "CelTimestamp") return "time.Time";
  if (name === "CelDuration") return "time.Duration";
  return "interface {}";
}

/** Go `%q` of a plain string (enough for type names, which are CEL identifiers and dots). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}
