/**
 * A {@link TypeProvider} over protobuf descriptors, for the CEL conformance
 * suite: TestAllTypes (proto2 and proto3), NestedTestAllTypes and the
 * well-known types, via `@bufbuild/protobuf` reflection.
 *
 * The semantics follow cel-go's `common/types/pb` and the `ConvertToNative`
 * methods of its value types:
 *
 * - Field reads: 32/64-bit signed integers (int, sint, sfixed) → int (`bigint`),
 *   unsigned (uint, fixed) → {@link CelUint}, float/double → `number`, enums →
 *   int (`google.protobuf.NullValue` fields too, as in cel-go), repeated → list, map → `Map`,
 *   messages → {@link ProtoObject}; an unset message field reads as the default
 *   instance, except wrappers (→ `null`) and the other well-known types
 *   (Timestamp/Duration → epoch/zero, Struct → `{}`, ListValue → `[]`, Value → `null`).
 * - Well-known types are always unwrapped: wrappers → primitive, Timestamp →
 *   {@link CelTimestamp}, Duration → {@link CelDuration}, Struct → `Map`, Value →
 *   JSON value, ListValue → list, Any → the unpacked message (itself unwrapped).
 * - Presence (`has`): proto2 and proto3 `optional` fields by explicit presence,
 *   proto3 scalars by non-default value, repeated and map fields by non-emptiness,
 *   message fields by being set, oneof members by being the chosen case.
 * - Construction (`newValue`): field values are converted to the field's proto
 *   type with range checks ("range error" for int32/uint32 overflow), float
 *   narrowing (±Inf beyond float32's range), packing into Any, JSON conversion into
 *   Value/Struct/ListValue; `null` clears message and wrapper fields, sets Value
 *   and Any fields to JSON null, and is an error elsewhere.
 * - Equality: protobuf equality (NaN fields unequal, Any compared unpacked).
 */
import {
  create,
  equals,
  getExtension,
  hasExtension,
  setExtension,
  toBinary,
  toJson,
  ScalarType,
  type DescEnum,
  type DescExtension,
  type DescField,
  type DescMessage,
  type JsonValue,
  type Registry,
} from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { anyPack, anyUnpack, type Any } from "@bufbuild/protobuf/wkt";
import { getTestRegistry } from "@bufbuild/cel-spec/testdata/registry.js";
import type { TypeProvider } from "../../src/cel/decls.js";
import { CelEvalError } from "../../src/cel/errors.js";
import {
  ANY,
  BOOL,
  BYTES,
  CelType,
  DOUBLE,
  DURATION,
  DYN,
  INT,
  STRING,
  TIMESTAMP,
  UINT,
  listType,
  mapType,
  messageType,
  typeType,
  wrapperType,
} from "../../src/cel/types.js";
import {
  CelDuration,
  CelObject,
  CelOptional,
  CelTimestamp,
  CelUint,
  type CelMapKey,
  type CelValue,
} from "../../src/cel/values.js";

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
const UINT32_MAX = 2n ** 32n - 1n;
const NANOS_PER_SECOND = 1_000_000_000n;
/** JSON numbers represent integers exactly up to 2^53 - 1. */
const MAX_JSON_SAFE_INT = 2n ** 53n - 1n;

const WRAPPER_PRIMITIVES: ReadonlyMap<string, CelType> = new Map([
  ["google.protobuf.BoolValue", BOOL],
  ["google.protobuf.BytesValue", BYTES],
  ["google.protobuf.DoubleValue", DOUBLE],
  ["google.protobuf.FloatValue", DOUBLE],
  ["google.protobuf.Int32Value", INT],
  ["google.protobuf.Int64Value", INT],
  ["google.protobuf.StringValue", STRING],
  ["google.protobuf.UInt32Value", UINT],
  ["google.protobuf.UInt64Value", UINT],
]);

/**
 * The CEL type a message type name denotes, as cel-go's `types.NewObjectType`
 * maps it: well-known types become CEL types, anything else a message type.
 */
export function celTypeOfMessage(name: string): CelType {
  const prim = WRAPPER_PRIMITIVES.get(name);
  if (prim !== undefined) return wrapperType(prim);
  switch (name) {
    case "google.protobuf.Any":
      return ANY;
    case "google.protobuf.Timestamp":
      return TIMESTAMP;
    case "google.protobuf.Duration":
      return DURATION;
    case "google.protobuf.Struct":
      return mapType(STRING, DYN);
    case "google.protobuf.Value":
      return DYN;
    case "google.protobuf.ListValue":
      return listType(DYN);
  }
  return messageType(name);
}

/** A protobuf message as a CEL value. Never mutated once built. */
export class ProtoObject extends CelObject {
  readonly celType: CelType;
  private readonly reflected: ReflectMessage;

  constructor(
    readonly provider: ProtoTypeProvider,
    readonly desc: DescMessage,
    readonly message: ReflectMessage["message"],
  ) {
    super();
    this.celType = messageType(desc.typeName);
    this.reflected = reflect(desc, message, false);
  }

  override getField(name: string): CelValue | undefined {
    const field = this.provider.fieldByName(this.desc, name);
    if (field === undefined) {
      const ext = this.provider.extensionFor(this.desc, name);
      if (ext === undefined) return undefined;
      return this.provider.readExtension(this.message, ext);
    }
    return this.provider.readField(this.reflected, field);
  }

  override hasField(name: string): boolean | undefined {
    const field = this.provider.fieldByName(this.desc, name);
    if (field === undefined) {
      const ext = this.provider.extensionFor(this.desc, name);
      return ext === undefined ? undefined : hasExtension(this.message, ext);
    }
    switch (field.fieldKind) {
      case "list":
        return this.reflected.get(field).size > 0;
      case "map":
        return this.reflected.get(field).size > 0;
      default:
        return this.reflected.isSet(field);
    }
  }

  /** cel-go's `IsZeroValue` for messages: nothing set (`proto.Size(m) == 0`). */
  override isZeroValue(): boolean {
    return toBinary(this.desc, this.message).length === 0;
  }

  override equals(other: CelValue): boolean {
    if (!(other instanceof ProtoObject) || other.desc.typeName !== this.desc.typeName) return false;
    return equals(this.desc, this.message, other.message, { registry: this.provider.registry, unpackAny: true });
  }

  override toString(): string {
    try {
      return `${this.desc.typeName}${JSON.stringify(toJson(this.desc, this.message, { registry: this.provider.registry }))}`;
    } catch {
      return `${this.desc.typeName}{...}`;
    }
  }
}

function scalarCelType(scalar: ScalarType): CelType {
  switch (scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return DOUBLE;
    case ScalarType.INT32:
    case ScalarType.INT64:
    case ScalarType.SINT32:
    case ScalarType.SINT64:
    case ScalarType.SFIXED32:
    case ScalarType.SFIXED64:
      return INT;
    case ScalarType.UINT32:
    case ScalarType.UINT64:
    case ScalarType.FIXED32:
    case ScalarType.FIXED64:
      return UINT;
    case ScalarType.BOOL:
      return BOOL;
    case ScalarType.STRING:
      return STRING;
    case ScalarType.BYTES:
      return BYTES;
  }
}

/** A proto scalar as read through reflection → CEL value. */
function scalarToCel(scalar: ScalarType, v: unknown): CelValue {
  switch (scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return v as number;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return BigInt(v as number | bigint | string);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return new CelUint(BigInt(v as number | bigint | string));
    case ScalarType.BOOL:
      return v as boolean;
    case ScalarType.STRING:
      return v as string;
    case ScalarType.BYTES:
      return v as Uint8Array;
  }
}

function typeName(v: CelValue): string {
  if (v === null) return "null_type";
  switch (typeof v) {
    case "boolean":
      return "bool";
    case "bigint":
      return "int";
    case "number":
      return "double";
    case "string":
      return "string";
  }
  if (v instanceof CelUint) return "uint";
  if (v instanceof Uint8Array) return "bytes";
  if (Array.isArray(v)) return "list";
  if (v instanceof Map) return "map";
  if (v instanceof CelTimestamp) return "google.protobuf.Timestamp";
  if (v instanceof CelDuration) return "google.protobuf.Duration";
  if (v instanceof CelType) return "type";
  if (v instanceof CelOptional) return "optional_type";
  if (v instanceof CelObject) return v.celType.name;
  return "unknown";
}

function mismatch(expected: string, v: CelValue): CelEvalError {
  return new CelEvalError(`no such overload: cannot convert ${typeName(v)} to ${expected}`);
}

function rangeError(v: CelValue, to: string): CelEvalError {
  return new CelEvalError(`range error: ${String(v)} does not fit ${to}`);
}

/** A CEL value → a proto scalar in the form reflection expects (number for 32-bit ints, bigint for 64-bit). */
function celToScalar(scalar: ScalarType, v: CelValue): unknown {
  switch (scalar) {
    case ScalarType.DOUBLE:
      if (typeof v !== "number") throw mismatch("double", v);
      return v;
    case ScalarType.FLOAT:
      if (typeof v !== "number") throw mismatch("float", v);
      return Math.fround(v);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      if (typeof v !== "bigint") throw mismatch("int32", v);
      if (v < INT32_MIN || v > INT32_MAX) throw rangeError(v, "int32");
      return Number(v);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      if (typeof v !== "bigint") throw mismatch("int64", v);
      return v;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      if (!(v instanceof CelUint)) throw mismatch("uint32", v);
      if (v.value > UINT32_MAX) throw rangeError(v, "uint32");
      return Number(v.value);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      if (!(v instanceof CelUint)) throw mismatch("uint64", v);
      return v.value;
    case ScalarType.BOOL:
      if (typeof v !== "boolean") throw mismatch("bool", v);
      return v;
    case ScalarType.STRING:
      if (typeof v !== "string") throw mismatch("string", v);
      return v;
    case ScalarType.BYTES:
      if (!(v instanceof Uint8Array)) throw mismatch("bytes", v);
      return v;
  }
}

/** Map keys of proto maps (reflection gives number/bigint/boolean/string) → CEL map keys. */
function mapKeyToCel(scalar: ScalarType, k: unknown): CelMapKey {
  if (scalar === ScalarType.BOOL) return typeof k === "boolean" ? k : k === "true";
  if (scalar === ScalarType.STRING) return String(k);
  return scalarToCel(scalar, k) as bigint | CelUint;
}

/** Shape of a field-like descriptor for one element: a scalar, an enum or a message. */
type Element =
  | { readonly kind: "scalar"; readonly scalar: ScalarType }
  | { readonly kind: "enum"; readonly enum: DescEnum }
  | { readonly kind: "message"; readonly message: DescMessage };

function elementOf(field: DescField | DescExtension): Element {
  switch (field.fieldKind) {
    case "scalar":
      return { kind: "scalar", scalar: field.scalar };
    case "enum":
      return { kind: "enum", enum: field.enum };
    case "message":
      return { kind: "message", message: field.message };
    case "list":
      if (field.listKind === "scalar") return { kind: "scalar", scalar: field.scalar };
      if (field.listKind === "enum") return { kind: "enum", enum: field.enum };
      return { kind: "message", message: field.message };
    case "map":
      if (field.mapKind === "scalar") return { kind: "scalar", scalar: field.scalar };
      if (field.mapKind === "enum") return { kind: "enum", enum: field.enum };
      return { kind: "message", message: field.message };
  }
}

function elementCelType(e: Element): CelType {
  switch (e.kind) {
    case "scalar":
      return scalarCelType(e.scalar);
    case "enum":
      // All enum fields are int to the checker, google.protobuf.NullValue included (cel-go's typeDefToType).
      return INT;
    case "message":
      return celTypeOfMessage(e.message.typeName);
  }
}

export class ProtoTypeProvider implements TypeProvider {
  private readonly fieldCache = new Map<string, ReadonlyMap<string, DescField>>();

  constructor(readonly registry: Registry = getTestRegistry()) {}

  // ---- TypeProvider ----

  findType(name: string): CelType | undefined {
    const n = name.startsWith(".") ? name.slice(1) : name;
    if (this.registry.getMessage(n) !== undefined) return celTypeOfMessage(n);
    // Legacy (non-strong) enums: an enum type denotes int, as in cel-go's default mode.
    if (this.registry.getEnum(n) !== undefined) return INT;
    return undefined;
  }

  findFieldType(typeName: string, field: string): CelType | undefined {
    const desc = this.registry.getMessage(typeName.startsWith(".") ? typeName.slice(1) : typeName);
    if (desc === undefined) return undefined;
    const f = this.fieldByName(desc, field) ?? this.extensionFor(desc, field);
    if (f === undefined) return undefined;
    switch (f.fieldKind) {
      case "list":
        return listType(elementCelType(elementOf(f)));
      case "map":
        return mapType(scalarCelType(f.mapKey), elementCelType(elementOf(f)));
      default:
        return elementCelType(elementOf(f));
    }
  }

  findIdent(name: string): { readonly type: CelType; readonly value: CelValue } | undefined {
    const n = name.startsWith(".") ? name.slice(1) : name;
    const dot = n.lastIndexOf(".");
    if (dot > 0) {
      const e = this.registry.getEnum(n.slice(0, dot));
      const v = e?.values.find((ev) => ev.name === n.slice(dot + 1));
      if (v !== undefined) return { type: INT, value: BigInt(v.number) };
    }
    if (this.registry.getMessage(n) !== undefined) {
      const t = celTypeOfMessage(n);
      return { type: typeType(t), value: t };
    }
    return undefined;
  }

  newValue(typeName: string, fields: ReadonlyMap<string, CelValue>): CelValue {
    const name = typeName.startsWith(".") ? typeName.slice(1) : typeName;
    const desc = this.registry.getMessage(name);
    if (desc === undefined) throw new CelEvalError(`unknown type: ${name}`);
    const r = reflect(desc, create(desc), false);
    for (const [fname, value] of fields) {
      const field = this.fieldByName(desc, fname);
      if (field === undefined) {
        const ext = this.extensionFor(desc, fname);
        if (ext === undefined) throw new CelEvalError(`no such field: ${fname}`);
        this.setExtensionValue(r.message, ext, value);
        continue;
      }
      this.setField(r, field, value);
    }
    return this.messageToCel(r);
  }

  // ---- conversions: proto → CEL ----

  /** Field name (as in the .proto, e.g. `single_int64`) → field. */
  fieldByName(desc: DescMessage, name: string): DescField | undefined {
    let m = this.fieldCache.get(desc.typeName);
    if (m === undefined) {
      m = new Map(desc.fields.map((f) => [f.name, f]));
      this.fieldCache.set(desc.typeName, m);
    }
    return m.get(name);
  }

  /** A proto2 extension of `desc` by its fully qualified name (as written in CEL: ``msg.`pkg.ext_name` ``). */
  extensionFor(desc: DescMessage, name: string): DescExtension | undefined {
    const ext = this.registry.getExtension(name.startsWith(".") ? name.slice(1) : name);
    return ext !== undefined && ext.extendee.typeName === desc.typeName ? ext : undefined;
  }

  /** Reads an extension (its default when unset) with the same conversions as a field. */
  readExtension(message: ReflectMessage["message"], ext: DescExtension): CelValue {
    const v: unknown = getExtension(message, ext);
    const e = elementOf(ext);
    const one = (x: unknown): CelValue =>
      e.kind === "message" ? this.messageToCel(reflect(e.message, x as ReflectMessage["message"], false)) : this.elementToCel(e, x);
    return ext.fieldKind === "list" ? (v as unknown[]).map(one) : one(v);
  }

  private setExtensionValue(message: ReflectMessage["message"], ext: DescExtension, v: CelValue): void {
    const e = elementOf(ext);
    const one = (x: CelValue): unknown => {
      const local = this.celToElement(e, x);
      return e.kind === "message" ? (local as ReflectMessage).message : local;
    };
    if (ext.fieldKind === "list") {
      if (!Array.isArray(v)) throw mismatch(`list for extension ${ext.typeName}`, v);
      setExtension(message, ext, (v as readonly CelValue[]).map(one) as never);
    } else {
      if (v === null) return;
      setExtension(message, ext, one(v) as never);
    }
  }

  /** Reads a field with CEL's conversions (defaults for unset fields). */
  readField(r: ReflectMessage, field: DescField): CelValue {
    switch (field.fieldKind) {
      case "list": {
        const e = elementOf(field);
        const out: CelValue[] = [];
        for (const item of r.get(field)) out.push(this.elementToCel(e, item));
        return out;
      }
      case "map": {
        const e = elementOf(field);
        const out = new Map<CelMapKey, CelValue>();
        for (const [k, v] of r.get(field)) out.set(mapKeyToCel(field.mapKey, k), this.elementToCel(e, v));
        return out;
      }
      case "message": {
        if (!r.isSet(field)) return this.unsetMessage(field.message);
        return this.messageToCel(r.get(field));
      }
      case "enum":
        return this.elementToCel({ kind: "enum", enum: field.enum }, r.get(field));
      case "scalar":
        return scalarToCel(field.scalar, r.get(field));
    }
  }

  private elementToCel(e: Element, v: unknown): CelValue {
    switch (e.kind) {
      case "scalar":
        return scalarToCel(e.scalar, v);
      case "enum":
        // cel-go reads every enum field as its number, google.protobuf.NullValue fields included.
        return BigInt(v as number);
      case "message":
        return this.messageToCel(v as ReflectMessage);
    }
  }

  /** What an unset singular message field reads as. */
  private unsetMessage(desc: DescMessage): CelValue {
    if (WRAPPER_PRIMITIVES.has(desc.typeName)) return null;
    switch (desc.typeName) {
      case "google.protobuf.Value":
        return null;
      case "google.protobuf.Any":
        // cel-go unpacks an empty Any, which fails; a null reads more usefully and
        // matches `TestAllTypes{single_any: null}.single_any`.
        return null;
    }
    return this.messageToCel(reflect(desc, create(desc), false));
  }

  /** A message → CEL value, unwrapping the well-known types. */
  messageToCel(r: ReflectMessage): CelValue {
    const name = r.desc.typeName;
    if (WRAPPER_PRIMITIVES.has(name)) {
      const f = r.desc.fields[0]!;
      return scalarToCel((f as DescField & { scalar: ScalarType }).scalar, r.get(f));
    }
    switch (name) {
      case "google.protobuf.Any":
        return this.anyToCel(r.message as Any);
      case "google.protobuf.Timestamp":
      case "google.protobuf.Duration": {
        const seconds = BigInt(r.get(this.fieldByName(r.desc, "seconds")!) as bigint);
        const nanos = BigInt(r.get(this.fieldByName(r.desc, "nanos")!) as number);
        const total = seconds * NANOS_PER_SECOND + nanos;
        return name === "google.protobuf.Timestamp" ? new CelTimestamp(total) : new CelDuration(total);
      }
      case "google.protobuf.Struct":
        return this.readField(r, this.fieldByName(r.desc, "fields")!);
      case "google.protobuf.ListValue":
        return this.readField(r, this.fieldByName(r.desc, "values")!);
      case "google.protobuf.Value": {
        const oneof = r.desc.oneofs[0]!;
        const f = r.oneofCase(oneof);
        if (f === undefined || f.name === "null_value") return null;
        return this.readField(r, f);
      }
    }
    return new ProtoObject(this, r.desc, r.message);
  }

  /** Unpacks an Any (and unwraps what it holds). An empty or unknown Any is a conversion error. */
  anyToCel(any: Any): CelValue {
    if (any.typeUrl === "") throw new CelEvalError("conversion error: empty google.protobuf.Any");
    let msg;
    try {
      msg = anyUnpack(any, this.registry);
    } catch (e) {
      throw new CelEvalError(`conversion error: cannot unpack ${any.typeUrl}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (msg === undefined) throw new CelEvalError(`conversion error: unknown type ${any.typeUrl}`);
    const desc = this.registry.getMessage(msg.$typeName)!;
    return this.messageToCel(reflect(desc, msg, false));
  }

  // ---- conversions: CEL → proto ----

  private setField(r: ReflectMessage, field: DescField, v: CelValue): void {
    if (v === null) {
      if (field.fieldKind === "message") {
        const n = field.message.typeName;
        // Value and Any hold JSON null; other messages and wrappers stay unset.
        if (n === "google.protobuf.Value" || n === "google.protobuf.Any") {
          r.set(field, this.celToMessage(field.message, null));
          return;
        }
        if (n === "google.protobuf.Struct" || n === "google.protobuf.ListValue") {
          throw new CelEvalError(`unsupported field type: cannot assign null to ${field.name}`);
        }
        r.clear(field);
        return;
      }
      if (field.fieldKind === "enum" && field.enum.typeName === "google.protobuf.NullValue") {
        r.set(field, 0);
        return;
      }
      throw new CelEvalError(`unsupported field type: cannot assign null to ${field.name}`);
    }
    switch (field.fieldKind) {
      case "list": {
        if (!Array.isArray(v)) throw mismatch(`list for field ${field.name}`, v);
        const e = elementOf(field);
        const list = r.get(field);
        for (const item of v as readonly CelValue[]) list.add(this.celToElement(e, item));
        return;
      }
      case "map": {
        if (!(v instanceof Map)) throw mismatch(`map for field ${field.name}`, v);
        const e = elementOf(field);
        const map = r.get(field);
        for (const [k, item] of v as ReadonlyMap<CelMapKey, CelValue>) {
          map.set(celToScalar(field.mapKey, k), this.celToElement(e, item));
        }
        return;
      }
      default:
        r.set(field, this.celToElement(elementOf(field), v));
    }
  }

  private celToElement(e: Element, v: CelValue): unknown {
    switch (e.kind) {
      case "scalar":
        return celToScalar(e.scalar, v);
      case "enum": {
        if (e.enum.typeName === "google.protobuf.NullValue") {
          if (v === null || v === 0n) return 0;
          throw mismatch("google.protobuf.NullValue", v);
        }
        if (typeof v !== "bigint") throw mismatch(e.enum.typeName, v);
        if (v < INT32_MIN || v > INT32_MAX) throw rangeError(v, e.enum.typeName);
        return Number(v);
      }
      case "message":
        return this.celToMessage(e.message, v);
    }
  }

  /** A CEL value → a message of type `desc` (as a ReflectMessage), with cel-go's conversions. */
  celToMessage(desc: DescMessage, v: CelValue): ReflectMessage {
    const name = desc.typeName;
    if (v instanceof ProtoObject && v.desc.typeName === name) return reflect(desc, v.message, false);
    const out = reflect(desc, create(desc), false);
    const prim = WRAPPER_PRIMITIVES.get(name);
    if (prim !== undefined) {
      const f = desc.fields[0]!;
      out.set(f, celToScalar((f as DescField & { scalar: ScalarType }).scalar, v));
      return out;
    }
    switch (name) {
      case "google.protobuf.Any": {
        const packed = this.pack(v);
        return reflect(desc, packed, false);
      }
      case "google.protobuf.Timestamp":
      case "google.protobuf.Duration": {
        const isTs = name === "google.protobuf.Timestamp";
        if (isTs ? !(v instanceof CelTimestamp) : !(v instanceof CelDuration)) throw mismatch(name, v);
        const nanos = (v as CelTimestamp | CelDuration).nanos;
        let seconds = nanos / NANOS_PER_SECOND; // truncates toward zero
        let rem = nanos % NANOS_PER_SECOND;
        if (isTs && rem < 0n) {
          seconds -= 1n;
          rem += NANOS_PER_SECOND;
        }
        out.set(this.fieldByName(desc, "seconds")!, seconds);
        out.set(this.fieldByName(desc, "nanos")!, Number(rem));
        return out;
      }
      case "google.protobuf.Value":
        return this.jsonToValue(desc, this.celToJson(v));
      case "google.protobuf.Struct": {
        if (!(v instanceof Map)) throw mismatch(name, v);
        const fields = out.get(this.fieldByName(desc, "fields")!) as unknown as { set(k: unknown, v: unknown): void };
        const valueDesc = this.registry.getMessage("google.protobuf.Value")!;
        for (const [k, item] of v as ReadonlyMap<CelMapKey, CelValue>) {
          if (typeof k !== "string") throw new CelEvalError(`bad key type: ${typeName(k)} in google.protobuf.Struct`);
          fields.set(k, this.jsonToValue(valueDesc, this.celToJson(item)));
        }
        return out;
      }
      case "google.protobuf.ListValue": {
        if (!Array.isArray(v)) throw mismatch(name, v);
        const values = out.get(this.fieldByName(desc, "values")!) as unknown as { add(v: unknown): void };
        const valueDesc = this.registry.getMessage("google.protobuf.Value")!;
        for (const item of v as readonly CelValue[]) values.add(this.jsonToValue(valueDesc, this.celToJson(item)));
        return out;
      }
    }
    throw mismatch(name, v);
  }

  /** Packs a CEL value into an Any as cel-go does (primitives as wrappers, lists/maps as ListValue/Struct, null as Value). */
  private pack(v: CelValue): Any {
    if (v instanceof ProtoObject) return anyPack(v.desc, v.message);
    let wkt: string;
    if (v === null) wkt = "google.protobuf.Value";
    else if (typeof v === "boolean") wkt = "google.protobuf.BoolValue";
    else if (typeof v === "bigint") wkt = "google.protobuf.Int64Value";
    else if (typeof v === "number") wkt = "google.protobuf.DoubleValue";
    else if (typeof v === "string") wkt = "google.protobuf.StringValue";
    else if (v instanceof CelUint) wkt = "google.protobuf.UInt64Value";
    else if (v instanceof Uint8Array) wkt = "google.protobuf.BytesValue";
    else if (v instanceof CelTimestamp) wkt = "google.protobuf.Timestamp";
    else if (v instanceof CelDuration) wkt = "google.protobuf.Duration";
    else if (Array.isArray(v)) wkt = "google.protobuf.ListValue";
    else if (v instanceof Map) wkt = "google.protobuf.Struct";
    else throw mismatch("google.protobuf.Any", v);
    const desc = this.registry.getMessage(wkt)!;
    const m = this.celToMessage(desc, v);
    return anyPack(desc, m.message);
  }

  /** CEL value → JSON, as cel-go's ConvertToNative(structpb.Value). */
  celToJson(v: CelValue): JsonValue {
    if (v === null || typeof v === "boolean" || typeof v === "string") return v;
    if (typeof v === "number") return v;
    if (typeof v === "bigint") return v >= -MAX_JSON_SAFE_INT && v <= MAX_JSON_SAFE_INT ? Number(v) : v.toString();
    if (v instanceof CelUint) return v.value <= MAX_JSON_SAFE_INT ? Number(v.value) : v.value.toString();
    if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
    if (Array.isArray(v)) return (v as readonly CelValue[]).map((x) => this.celToJson(x));
    if (v instanceof Map) {
      const o: { [k: string]: JsonValue } = {};
      for (const [k, item] of v as ReadonlyMap<CelMapKey, CelValue>) {
        if (typeof k !== "string") throw new CelEvalError(`bad key type: ${typeName(k)} in JSON object`);
        o[k] = this.celToJson(item);
      }
      return o;
    }
    if (v instanceof CelTimestamp || v instanceof CelDuration) {
      const desc = this.registry.getMessage(v instanceof CelTimestamp ? "google.protobuf.Timestamp" : "google.protobuf.Duration")!;
      return toJson(desc, this.celToMessage(desc, v).message, { registry: this.registry });
    }
    if (v instanceof ProtoObject) return toJson(v.desc, v.message, { registry: this.registry });
    throw mismatch("google.protobuf.Value", v);
  }

  /** JSON → a google.protobuf.Value message (as reflection). Numbers stay numbers, including non-finite ones. */
  private jsonToValue(valueDesc: DescMessage, j: JsonValue): ReflectMessage {
    const r = reflect(valueDesc, create(valueDesc), false);
    const f = (n: string) => this.fieldByName(valueDesc, n)!;
    if (j === null) r.set(f("null_value"), 0);
    else if (typeof j === "number") r.set(f("number_value"), j);
    else if (typeof j === "string") r.set(f("string_value"), j);
    else if (typeof j === "boolean") r.set(f("bool_value"), j);
    else if (Array.isArray(j)) {
      const lvDesc = this.registry.getMessage("google.protobuf.ListValue")!;
      const lv = reflect(lvDesc, create(lvDesc), false);
      const values = lv.get(this.fieldByName(lvDesc, "values")!) as unknown as { add(v: unknown): void };
      for (const item of j) values.add(this.jsonToValue(valueDesc, item));
      r.set(f("list_value"), lv);
    } else {
      const sDesc = this.registry.getMessage("google.protobuf.Struct")!;
      const s = reflect(sDesc, create(sDesc), false);
      const fields = s.get(this.fieldByName(sDesc, "fields")!) as unknown as { set(k: unknown, v: unknown): void };
      for (const [k, item] of Object.entries(j)) fields.set(k, this.jsonToValue(valueDesc, item));
      r.set(f("struct_value"), s);
    }
    return r;
  }
}
