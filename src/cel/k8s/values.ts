/**
 * Kubernetes value semantics for schema-typed objects (k8s.io/apiserver
 * `pkg/cel/common/valuesunstructured.go` `UnstructuredToVal`, `pkg/cel/escaping.go`),
 * as CRD validation rules and other schema-aware CEL contexts see objects.
 *
 * {@link kubernetesValue} converts plain JSON (integers as `bigint` or integral
 * numbers) to CEL values following a schema ({@link CelSchemaNode}):
 *
 * - **Structs** (objects with properties): a property whose value is `null` is
 *   absent (`has()` false, selection "no such key"); property names are reached
 *   by their escaped CEL names (`foo-bar` as `foo__dash__bar`, `a.b` as
 *   `a__dot__b`, `a/b` as `a__slash__b`, `__` as `__underscores__`, reserved
 *   words such as `namespace` as `__namespace__`); indexing with the raw name
 *   works too (`obj['foo-bar']`), as Kubernetes unescapes the key; names that
 *   cannot be escaped (`1a`, `a b`) are inaccessible; iteration yields escaped
 *   names. Undeclared properties are not visible.
 * - **Maps** (`additionalProperties`): raw keys, nulls kept.
 * - **Lists** with `x-kubernetes-list-type: set`: `==` ignores order (when the
 *   set list is the left operand), `+` is a union keeping the left order and
 *   appending new elements; `map` (keyed by `x-kubernetes-list-map-keys`): `==`
 *   ignores order and matches elements by key, `+` merges: left positions are
 *   kept, values replaced by the right element with the same key, new keys
 *   appended. The results of `+` keep these semantics.
 * - **Scalars**: `integer` → int, `number` → double (ints too), string formats
 *   `date-time`/`date` → timestamp, `duration` → duration, `byte` → bytes;
 *   `int-or-string` keeps an int or a string.
 * - Untyped values (no schema, `x-kubernetes-preserve-unknown-fields` without
 *   properties) are plain CEL values (`fromJson`).
 *
 * Not used for MutatingAdmissionPolicy's `object`/`oldObject`/`params`, which the
 * apiserver declares `dyn` and converts without a schema (no escaping, nulls
 * present): use `fromJson` for those.
 *
 * `src/cel` has no schema of its own: callers adapt theirs to {@link CelSchemaNode}
 * (celmap's `SchemaRegistry` in `src/kube/cel-schema.ts`).
 */
import { CelEvalError } from "../errors.js";
import { fromJson } from "../runtime/json.js";
import { celEquals } from "../runtime/equality.js";
import { base64Decode } from "../ext/encoders.js";
import { stringToDuration, stringToTimestamp } from "../std/time.js";
import { CelTimestamp, CelUint, withListSemantics, type CelMapKey, type CelValue, type ListSemantics } from "../values.js";

/** The little a schema must tell about a value for CEL: a structural schema node. */
export interface CelSchemaNode {
  /**
   * `struct`: an object with declared properties; `map`: an object with `additionalProperties`;
   * `list`; `scalar`; `untyped`: any JSON (no type, or preserve-unknown-fields without properties).
   */
  readonly kind: "struct" | "map" | "list" | "scalar" | "untyped";
  /** For scalars. */
  readonly scalar?: "string" | "integer" | "number" | "boolean";
  /** OpenAPI format: `date-time`, `date`, `duration`, `byte`, `int-or-string`, `quantity`, … */
  readonly format?: string;
  /** For lists: `x-kubernetes-list-type` (absent means atomic). */
  readonly listType?: "atomic" | "set" | "map";
  /** For map lists: `x-kubernetes-list-map-keys`. */
  readonly listMapKeys?: readonly string[];
  /**
   * Struct: the declared property's schema, undefined when undeclared (or an untyped node when
   * the struct preserves unknown fields); map: the value schema, whatever the name; untyped: itself.
   */
  child(name: string): CelSchemaNode | undefined;
  /** For lists: the element schema. */
  element(): CelSchemaNode | undefined;
}

/** Converts a plain JSON value to a CEL value with Kubernetes' schema-typed semantics (see the module comment). */
export function kubernetesValue(json: unknown, schema: CelSchemaNode | undefined): CelValue {
  if (schema === undefined || json === null || json === undefined) return fromJson(json ?? null);
  switch (schema.kind) {
    case "struct":
      return isObject(json) ? structValue(json, schema) : fromJson(json);
    case "map":
      if (!isObject(json)) return fromJson(json);
      return new Map<CelMapKey, CelValue>(Object.entries(json).map(([k, v]) => [k, kubernetesValue(v, schema.child(k))]));
    case "list": {
      if (!Array.isArray(json)) return fromJson(json);
      const elem = schema.element();
      const list: CelValue[] = json.map((e) => kubernetesValue(e, elem));
      if (schema.listType === "set") return setList(list);
      if (schema.listType === "map") return mapList(list, (schema.listMapKeys ?? []).map((k) => escapeName(k) ?? k));
      return list;
    }
    case "scalar":
      return scalarValue(json, schema);
    default:
      return fromJson(json);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function scalarValue(json: unknown, schema: CelSchemaNode): CelValue {
  if (schema.format === "int-or-string") return fromJson(json);
  switch (schema.scalar) {
    case "number":
      // JSON integers are doubles under a number schema.
      if (typeof json === "bigint") return Number(json);
      return typeof json === "number" ? json : fromJson(json);
    case "string":
      if (typeof json !== "string") return fromJson(json);
      return formattedString(json, schema.format);
    default:
      return fromJson(json);
  }
}

/** String formats CEL sees as other types; an unparsable value is an error value when read. */
function formattedString(s: string, format: string | undefined): CelValue {
  try {
    switch (format) {
      case "date-time":
        return stringToTimestamp(s);
      case "date": {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) throw new CelEvalError(`Invalid date formatted string ${s}`);
        return stringToTimestamp(`${s}T00:00:00Z`);
      }
      case "duration":
        return stringToDuration(s);
      case "byte":
        return base64Decode(s);
      default:
        return s;
    }
  } catch {
    // Kubernetes makes the value an error; here the raw string stays readable.
    return s;
  }
}

// ---------------------------------------------------------------------------
// Structs: escaping and null-as-absent

/**
 * A struct's properties under their escaped CEL names. Lookups accept escaped or raw names
 * (Kubernetes unescapes the key, then looks up the property).
 */
class StructMap extends Map<CelMapKey, CelValue> {
  override get(key: CelMapKey): CelValue | undefined {
    const own = super.get(key);
    if (own !== undefined || typeof key !== "string") return own;
    const canonical = canonicalName(key);
    return canonical === undefined || canonical === key ? undefined : super.get(canonical);
  }
  override has(key: CelMapKey): boolean {
    return this.get(key) !== undefined;
  }
}

/** The escaped form of the property a CEL key names, or undefined when it names none. */
function canonicalName(key: string): string | undefined {
  const raw = unescapeName(key);
  return raw === undefined ? undefined : escapeName(raw);
}

function structValue(json: Record<string, unknown>, schema: CelSchemaNode): CelValue {
  const out = new StructMap();
  for (const [k, v] of Object.entries(json)) {
    if (v === null || v === undefined) continue; // null-valued properties are absent
    const child = schema.child(k);
    if (child === undefined) continue; // undeclared: not visible
    const name = escapeName(k);
    if (name === undefined) continue; // not a valid CEL identifier even escaped: inaccessible
    out.set(name, kubernetesValue(v, child));
  }
  return out;
}

/** `pkg/cel/escaping.go` RESERVED words (`namespace` included, heavily used in Kubernetes). */
const RESERVED = new Set([
  "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
  "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
]);

/**
 * `cel.Escape`: a property name as a CEL identifier, or undefined when it cannot be one
 * (empty, starts with a digit, or has characters other than `[a-zA-Z0-9_.\-/]`).
 * `__` → `__underscores__`, `.` → `__dot__`, `-` → `__dash__`, `/` → `__slash__`,
 * a reserved word `w` → `__w__`.
 */
export function escapeName(ident: string): string | undefined {
  if (ident === "" || (ident[0]! >= "0" && ident[0]! <= "9")) return undefined;
  if (RESERVED.has(ident)) return `__${ident}__`;
  if (!/^[a-zA-Z0-9_.\-/]*$/.test(ident)) return undefined;
  return ident.replace(/__|[.\-/]/g, (m) => (m === "__" ? "__underscores__" : m === "." ? "__dot__" : m === "-" ? "__dash__" : "__slash__"));
}

/** `cel.Unescape`: the property name an escaped identifier stands for, or undefined for an invalid escape. */
export function unescapeName(escaped: string): string | undefined {
  let ok = true;
  const out = escaped.replace(/__[^_]+__/g, (m) => {
    const inner = m.slice(2, -2);
    switch (inner) {
      case "underscores":
        return "__";
      case "dot":
        return ".";
      case "dash":
        return "-";
      case "slash":
        return "/";
    }
    if (RESERVED.has(inner)) {
      if (m.length !== escaped.length) ok = false;
      return inner;
    }
    ok = false;
    return "";
  });
  return ok ? out : undefined;
}

// ---------------------------------------------------------------------------
// Set and map lists

/** Go map-key identity of a scalar as Kubernetes keys sets and map lists (int64 and float64 differ). */
function scalarKey(v: CelValue | undefined): string {
  if (v === undefined) return "-";
  if (typeof v === "bigint") return `i${v}`;
  if (typeof v === "number") return `d${v}`;
  if (typeof v === "string") return `s${v}`;
  if (typeof v === "boolean") return `b${v}`;
  if (v === null) return "n";
  if (v instanceof CelUint) return `u${v.value}`;
  if (v instanceof CelTimestamp) return `t${v.nanos}`;
  // Non-scalars never compare equal as Go map keys; make each distinct.
  return `o${Math.random()}`;
}

const SET_SEMANTICS: ListSemantics = {
  equals(self, other) {
    if (self.length !== other.length) return false;
    const keys = new Set(self.map(scalarKey));
    return other.every((e) => keys.has(scalarKey(e)));
  },
  concat(self, other) {
    const keys = new Set(self.map(scalarKey));
    const out = [...self];
    for (const e of other) {
      const k = scalarKey(e);
      if (!keys.has(k)) {
        keys.add(k);
        out.push(e);
      }
    }
    return setList(out);
  },
};

/** A list with `x-kubernetes-list-type: set` semantics. */
export function setList(elements: CelValue[]): readonly CelValue[] {
  return withListSemantics(elements, SET_SEMANTICS);
}

/** A list with `x-kubernetes-list-type: map` semantics, keyed by these (escaped) key fields. */
export function mapList(elements: CelValue[], keys: readonly string[]): readonly CelValue[] {
  const keyOf = (e: CelValue): string => {
    if (!(e instanceof Map)) return scalarKey(e);
    const m = e as ReadonlyMap<CelMapKey, CelValue>;
    return keys.map((k) => scalarKey(m.get(k))).join("\u0000");
  };
  const semantics: ListSemantics = {
    equals(self, other) {
      if (self.length !== other.length) return false;
      const byKey = new Map(self.map((e) => [keyOf(e), e] as const));
      for (const e of other) {
        const mine = byKey.get(keyOf(e));
        if (mine === undefined || !celEquals(mine, e)) return false;
      }
      return true;
    },
    concat(self, other) {
      const out = [...self];
      const index = new Map(self.map((e, i) => [keyOf(e), i] as const));
      for (const e of other) {
        const i = index.get(keyOf(e));
        if (i !== undefined) out[i] = e;
        else out.push(e);
      }
      return withListSemantics(out, semantics);
    },
  };
  return withListSemantics(elements, semantics);
}
