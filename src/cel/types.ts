/**
 * CEL types, used both by the checker (with parameters, e.g. `list(int)`) and at
 * run time as the values of `type(x)` (where parameters are erased: the type of
 * `[1]` is `list`, as in cel-go).
 *
 * Types are immutable and compared structurally with {@link typeEquals}; the
 * primitive ones are singletons so hot paths can compare by identity.
 */

export type TypeKind =
  | "dyn"
  | "null"
  | "bool"
  | "int"
  | "uint"
  | "double"
  | "string"
  | "bytes"
  | "list"
  | "map"
  | "timestamp"
  | "duration"
  | "type"
  | "error"
  | "any"
  /** A protobuf wrapper such as google.protobuf.Int64Value: the primitive in `params[0]`, or null. */
  | "wrapper"
  /** A named message / struct type (protobuf messages, `Object`, `JSONPatch`). */
  | "message"
  /** A named type with parameters that is neither list nor map: `optional_type(T)`, `net.IP`, `kubernetes.Quantity`. */
  | "opaque"
  /** A type parameter in an overload signature, e.g. `A` in `list(A)`. */
  | "typeParam";

export class CelType {
  /** Whether a type parameter occurs in this type (itself included); private, so not part of its visible shape. */
  readonly #parametric: boolean;

  constructor(
    readonly kind: TypeKind,
    /** The CEL name: `int`, `list`, `google.protobuf.Timestamp`, `optional_type`, `Object.spec`, `A`. */
    readonly name: string,
    readonly params: readonly CelType[] = NO_PARAMS,
  ) {
    let parametric = kind === "typeParam";
    for (let i = 0; i < params.length && !parametric; i++) parametric = CelType.mayBeParametric(params[i] as CelType);
    this.#parametric = parametric;
  }

  /**
   * False when no type parameter occurs in `t` (substituting type parameters
   * leaves it as it is); true when one does or when `t` is not a constructed
   * {@link CelType} (a look-alike object: not known).
   */
  static mayBeParametric(t: CelType): boolean {
    return #parametric in t ? t.#parametric : true;
  }

  /** cel-go's spelling: `list(int)`, `map(string, dyn)`, `optional_type(string)`, `type(int)`. */
  toString(): string {
    if (this.kind === "wrapper") return `wrapper(${this.params[0]!.toString()})`;
    if (this.params.length === 0) return this.name;
    return `${this.name}(${this.params.map((p) => p.toString()).join(", ")})`;
  }
}

/** The parameters of every parameterless type made without an explicit list (shared, never mutated). */
const NO_PARAMS: readonly CelType[] = [];

export const DYN = new CelType("dyn", "dyn");
export const NULL_TYPE = new CelType("null", "null_type");
export const BOOL = new CelType("bool", "bool");
export const INT = new CelType("int", "int");
export const UINT = new CelType("uint", "uint");
export const DOUBLE = new CelType("double", "double");
export const STRING = new CelType("string", "string");
export const BYTES = new CelType("bytes", "bytes");
export const TIMESTAMP = new CelType("timestamp", "google.protobuf.Timestamp");
export const DURATION = new CelType("duration", "google.protobuf.Duration");
export const ERROR = new CelType("error", "*error*");
export const ANY = new CelType("any", "google.protobuf.Any");
/** `type` with no parameter: the type of all type values at run time. */
export const TYPE = new CelType("type", "type");
/** Parameter-erased `list` and `map`: the run-time types of list and map values. */
export const LIST = new CelType("list", "list", [DYN]);
export const MAP = new CelType("map", "map", [DYN, DYN]);
export const OPTIONAL_NAME = "optional_type";

export function listType(elem: CelType): CelType {
  return new CelType("list", "list", [elem]);
}
export function mapType(key: CelType, value: CelType): CelType {
  return new CelType("map", "map", [key, value]);
}
export function typeType(of?: CelType): CelType {
  return of === undefined ? TYPE : new CelType("type", "type", [of]);
}
export function optionalType(of: CelType): CelType {
  return new CelType("opaque", OPTIONAL_NAME, [of]);
}
export function opaqueType(name: string, ...params: CelType[]): CelType {
  return new CelType("opaque", name, params);
}
export function messageType(name: string): CelType {
  return new CelType("message", name);
}
export function typeParam(name: string): CelType {
  return new CelType("typeParam", name);
}
export function wrapperType(primitive: CelType): CelType {
  const name = WRAPPER_NAMES.get(primitive.kind);
  if (name === undefined) throw new Error(`no wrapper type for ${primitive.toString()}`);
  return new CelType("wrapper", name, [primitive]);
}

const WRAPPER_NAMES = new Map<TypeKind, string>([
  ["bool", "google.protobuf.BoolValue"],
  ["int", "google.protobuf.Int64Value"],
  ["uint", "google.protobuf.UInt64Value"],
  ["double", "google.protobuf.DoubleValue"],
  ["string", "google.protobuf.StringValue"],
  ["bytes", "google.protobuf.BytesValue"],
]);

/** Structural equality; `dyn` equals only `dyn` here (assignability is the checker's business). */
export function typeEquals(a: CelType, b: CelType): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.name !== b.name || a.params.length !== b.params.length) return false;
  for (let i = 0; i < a.params.length; i++) {
    if (!typeEquals(a.params[i]!, b.params[i]!)) return false;
  }
  return true;
}

/** Primitive type names a CEL program may use as identifiers (`int`, `list`, ...), with their type values. */
export const BUILTIN_TYPE_NAMES: ReadonlyMap<string, CelType> = new Map([
  ["bool", BOOL],
  ["int", INT],
  ["uint", UINT],
  ["double", DOUBLE],
  ["string", STRING],
  ["bytes", BYTES],
  ["list", LIST],
  ["map", MAP],
  ["null_type", NULL_TYPE],
  ["type", TYPE],
  ["dyn", DYN],
  ["google.protobuf.Timestamp", TIMESTAMP],
  ["google.protobuf.Duration", DURATION],
]);
