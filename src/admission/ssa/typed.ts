/**
 * The structured-merge-diff (SMD v6) view of a schema, and conversion of a value to a typed value:
 * the validation `typed.AsTyped` runs, with its error texts and paths.
 *
 * A {@link SchemaNode} becomes an SMD atom the way kube-openapi's `schemaconv` builds it from the
 * apiserver's OpenAPI v3:
 * - struct: a map with fields (undeclared fields are errors unless the struct preserves unknown
 *   fields); `atomic` from `x-kubernetes-map-type: atomic`;
 * - map: a map with an element type;
 * - list: atomic, or associative (a set, or a map keyed by `keys`);
 * - scalar: `string` (no format, or `byte`), numeric (`integer`, `number`), boolean, and
 *   "untyped" (a string with any other format: quantity, date-time, ...) which accepts any
 *   scalar; int-or-string is typeless in the OpenAPI v3, hence deduced (below);
 * - untyped: the deduced type (any scalar; a list, atomic; a map, granular, of deduced values),
 *   except RawExtension and the elements of untyped lists, which are untyped-atomic (maps atomic).
 *
 * CRD schemas must follow the same conventions: a `type: object` with
 * `x-kubernetes-preserve-unknown-fields` and no properties is `{t: "map", v: {t: "untyped"}}` (a map
 * only), a schema without a type is `{t: "untyped"}`, and `default`s of list-map key fields go into
 * `ListNode.keyDefaults`.
 */
import type { ListNode, SchemaNode, SchemaRegistry } from "../../kube/schema.js";
import { CEL_NULL, goFloat, goQuote, goSharpV, goType, goV, type GoValue } from "../gofmt.js";
import { getKey, hasKey, isJsonObject, type JsonObject, type JsonValue } from "../json.js";
import type { IdentityTable } from "../memo.js";

/** The untyped-atomic type (`__untyped_atomic_`): elements of untyped lists. */
export const UNTYPED_ATOMIC: SchemaNode = Object.freeze({ t: "untyped" }) as SchemaNode;
const RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension";

type ScalarKind = "string" | "numeric" | "boolean" | "untyped";

export interface MapAtom {
  readonly atomic: boolean;
  /** `FindField`: the type of a declared field. */
  field(name: string): SchemaNode | undefined;
  /** The type of undeclared keys; undefined when they are not allowed. */
  readonly element: SchemaNode | undefined;
}

export interface ListAtom {
  readonly atomic: boolean;
  /** Key fields of a map list; empty for a set. */
  readonly keys: readonly string[];
  readonly element: SchemaNode;
  /** The default a missing key field takes, or undefined. */
  keyDefault(field: string): JsonValue | undefined;
}

export interface Atom {
  readonly scalar?: ScalarKind;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
}

/** The schema context: the registry resolving references, and how key-field defaults are found. */
export interface TypeContext {
  readonly registry: SchemaRegistry;
  /**
   * Built-in kinds only: a required key field without an explicit default defaults to its zero
   * value, because the apiserver's OpenAPI v3 gives every non-omitempty field a zero default
   * (so a container without a name is keyed `name=""`).
   */
  readonly zeroDefaultsForRequiredKeys: boolean;
  /** Atoms built so far, per node. */
  readonly atoms: WeakMap<SchemaNode, Atom>;
}

const contexts = new WeakMap<SchemaRegistry, Map<boolean, TypeContext>>();

/** The context for a registry (reused across calls: schema nodes are immutable). */
export function typeContext(registry: SchemaRegistry, zeroDefaultsForRequiredKeys: boolean): TypeContext {
  let byFlag = contexts.get(registry);
  if (byFlag === undefined) contexts.set(registry, (byFlag = new Map()));
  let ctx = byFlag.get(zeroDefaultsForRequiredKeys);
  if (ctx === undefined) byFlag.set(zeroDefaultsForRequiredKeys, (ctx = { registry, zeroDefaultsForRequiredKeys, atoms: new WeakMap() }));
  return ctx;
}

/** The SMD atom of a schema node (`Schema.Resolve`). */
export function atomOf(ctx: TypeContext, node: SchemaNode): Atom {
  let a = ctx.atoms.get(node);
  if (a === undefined) {
    a = buildAtom(ctx, node);
    ctx.atoms.set(node, a);
  }
  return a;
}

function buildAtom(ctx: TypeContext, node: SchemaNode): Atom {
  switch (node.t) {
    case "scalar": {
      // IntOrString has no type in the OpenAPI v3 (oneOf integer, string), and neither has a CRD's
      // x-kubernetes-int-or-string: schemaconv makes both a deduced type, which also accepts maps
      // and (atomic) lists.
      if (node.fmt === "int-or-string") return atomOf(ctx, DEDUCED);
      if (node.s === "integer" || node.s === "number") return { scalar: "numeric" };
      if (node.s === "boolean") return { scalar: "boolean" };
      return { scalar: node.fmt === undefined || node.fmt === "" || node.fmt === "byte" ? "string" : "untyped" };
    }
    case "struct": {
      return {
        map: {
          atomic: node.atomic === true,
          // Declared fields only (undeclared ones take `element`); the registry caches the lookups.
          field: (name) => ctx.registry.declaredField(node, name),
          element: node.preserveUnknown === true ? DEDUCED : undefined,
        },
      };
    }
    case "map":
      return { map: { atomic: node.atomic === true, field: () => undefined, element: ctx.registry.resolve(node.v) } };
    case "list":
      return { list: listAtom(ctx, node) };
    case "untyped": {
      const atomic = node === UNTYPED_ATOMIC || isRawExtension(ctx, node);
      return {
        scalar: "untyped",
        list: { atomic: true, keys: [], element: UNTYPED_ATOMIC, keyDefault: () => undefined },
        map: { atomic, field: () => undefined, element: atomic ? UNTYPED_ATOMIC : DEDUCED },
      };
    }
  }
}

/** The deduced type (`__untyped_deduced_`). */
const DEDUCED: SchemaNode = Object.freeze({ t: "untyped" }) as SchemaNode;

function isRawExtension(ctx: TypeContext, node: SchemaNode): boolean {
  try {
    return ctx.registry.resolve(RAW_EXTENSION) === node;
  } catch {
    return false;
  }
}

function listAtom(ctx: TypeContext, node: ListNode): ListAtom {
  const element = ctx.registry.element(node);
  const keys = node.lt === "map" ? (node.keys ?? []) : [];
  return {
    atomic: node.lt === "atomic",
    keys,
    element,
    keyDefault(field) {
      const explicit = node.keyDefaults;
      if (explicit !== undefined && Object.prototype.hasOwnProperty.call(explicit, field)) return explicit[field] as JsonValue;
      if (!ctx.zeroDefaultsForRequiredKeys || element.t !== "struct" || !(element.required ?? []).includes(field)) return undefined;
      const f = ctx.registry.child(element, field);
      if (f?.t !== "scalar") return undefined;
      if (f.s === "string") return "";
      if (f.s === "boolean") return false;
      return 0;
    },
  };
}

/** `deduceAtom`: the part of the atom a value's shape selects, or the whole atom when none fits. */
export function deduceAtom(a: Atom, v: GoValue | undefined): Atom {
  if (v === undefined || v === null || v === CEL_NULL) return a;
  // An atom of one kind (every typed node) is its own deduction: no new object.
  const kinds = (a.list !== undefined ? 1 : 0) + (a.map !== undefined ? 1 : 0) + (a.scalar !== undefined ? 1 : 0);
  if (Array.isArray(v)) return a.list !== undefined && kinds > 1 ? { list: a.list } : a;
  if (isJsonObject(v)) return a.map !== undefined && kinds > 1 ? { map: a.map } : a;
  return a.scalar !== undefined && kinds > 1 ? { scalar: a.scalar } : a;
}

// ---------------------------------------------------------------------------------------------
// Path elements

export type PathElement =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "key"; readonly fields: ReadonlyArray<readonly [string, GoValue]> }
  | { readonly kind: "value"; readonly value: GoValue }
  | { readonly kind: "index"; readonly index: number };

/** `value.ToString`. */
export function valueToString(v: GoValue): string {
  if (v === null) return "null";
  if (v === CEL_NULL) return "{{undefined}}";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloat(v);
  if (Array.isArray(v)) return `[${v.map((e) => valueToString(e)).join(",")}]`;
  return Object.keys(v)
    .map((k) => `${k}=${valueToString(v[k] as JsonValue)}`)
    .join("");
}

/** `PathElement.String`: `.name`, `[name="c"]`, `[containerPort=80,protocol="TCP"]`, `[="x"]`, `[0]`. */
export function peString(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `.${pe.name}`;
    case "key":
      return `[${pe.fields.map(([n, v]) => `${n}=${valueToString(v)}`).join(",")}]`;
    case "value":
      return `[=${valueToString(pe.value)}]`;
    case "index":
      return `[${pe.index}]`;
  }
}

/** An identity for `PathElement.Equals` (numbers compare by value, so 80 and 80.0 are one key). */
export function peId(pe: PathElement): string {
  // A cheap text for the usual keys (scalars), built so that it is equal exactly when the values are
  // (numbers by value, each kind tagged); anything else falls back to the printed form. A value
  // takes the same branch wherever it appears, so the two forms never meet for equal elements.
  if (pe.kind === "key") {
    let id = "k";
    for (const [name, v] of pe.fields) {
      const t = scalarId(v);
      if (t === undefined) return peString(pe);
      id += `\u0000${name}\u0001${t}`;
    }
    return id;
  }
  if (pe.kind === "value") {
    const t = scalarId(pe.value);
    return t === undefined ? peString(pe) : `v${t}`;
  }
  return peString(pe);
}

/** An element's identity as a Map key: see {@link peKey}. */
export type ItemKey = string | number | bigint | boolean | null;

/**
 * {@link peId} as a Map key that needs no text for the usual case: an element of a list keyed by one
 * field (or of a set) with a scalar value is keyed by the value itself, numbers canonical (80, 80n
 * and 80.0 are one key; "80" is another, being a string). Other elements get their `peId` text
 * behind two NULs. Only keys of one list are compared, so the two forms only meet when a single
 * key's value is a string starting with two NULs.
 */
export function peKey(list: ListAtom, pe: PathElement): ItemKey {
  const v = pe.kind === "key" && list.keys.length === 1 && pe.fields.length === 1 ? pe.fields[0]![1] : pe.kind === "value" ? pe.value : undefined;
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "bigint":
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    case "number":
      return Number.isInteger(v) && !Number.isSafeInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v) : v;
    default:
      return v === null ? null : `\u0000\u0000${peId(pe)}`;
  }
}

/** The identity text of a scalar for {@link peId} (`valueToString`'s equality, kind-tagged), or undefined. */
function scalarId(v: GoValue): string | undefined {
  switch (typeof v) {
    case "string":
      // Length-prefixed, so that no string can forge the separators of a multi-field key.
      return `s${v.length}:${v}`;
    case "boolean":
      return v ? "b1" : "b0";
    case "bigint":
      return `n${v.toString()}`;
    case "number":
      return `n${Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloat(v)}`;
    default:
      return v === null ? "z" : undefined;
  }
}

/** `listItemToPathElement` for an associative list; a string is the error. */
export function listItemToPathElement(list: ListAtom, child: GoValue): PathElement | string {
  if (list.keys.length > 0) {
    if (child === null) return "associative list with keys may not have a null element";
    if (!isJsonObject(child)) return "associative list with keys may not have non-map elements";
    const fields: Array<readonly [string, GoValue]> = [];
    for (const name of list.keys) {
      if (hasKey(child, name)) fields.push([name, getKey(child, name) as JsonValue]);
      else {
        const def = list.keyDefault(name);
        if (def !== undefined && def !== null) fields.push([name, def]);
      }
    }
    if (fields.length === 0) {
      return `associative list with keys has an element that omits all key fields [${list.keys.map((k) => goQuote(k)).join(" ")}] (and doesn't have default values for any key fields)`;
    }
    if (fields.length > 1) fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return { kind: "key", fields };
  }
  if (isJsonObject(child)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(child)) return "not supported: associative list with lists as elements";
  if (child === null) return "associative list without keys has an element that's an explicit null";
  return { kind: "value", value: child };
}

// ---------------------------------------------------------------------------------------------
// Validation (`typed.AsTyped`)

export interface FieldError {
  /** The SMD path, e.g. `.spec.containers[name="app"].imagee`; empty for the root. */
  readonly path: string;
  readonly message: string;
}

/** `ValidationErrors.Error()`. */
export function formatErrors(errs: readonly FieldError[]): string {
  const one = (e: FieldError): string => (e.path === "" ? e.message : `${e.path}: ${e.message}`);
  if (errs.length === 1) return one(errs[0] as FieldError);
  return ["errors:", ...errs.map((e) => `  ${one(e)}`)].join("\n");
}

export interface ValidateOptions {
  /** Sets and map lists may hold the same key more than once (the live object, since 1.35). */
  readonly allowDuplicates: boolean;
  /** A JSON null stands for CEL's null, which reaches SMD as a protobuf NullValue (patches in 1.36). */
  readonly nullIsCelNull: boolean;
  /**
   * Values already known to validate without errors against the schema node stored (by identity);
   * validated objects and lists are added. Lets a request re-validate only what a mutation built.
   */
  readonly valid?: IdentityTable<SchemaNode>;
}

/** Validates `v` against `node`; the errors in walk order (object keys in insertion order). */
export function validate(ctx: TypeContext, node: SchemaNode, v: JsonValue, opts: ValidateOptions): FieldError[] {
  const errs = validateValue(ctx, node, v, opts);
  return errs === NONE ? [] : errs;
}

function goValue(v: JsonValue, opts: ValidateOptions): GoValue {
  return v === null && opts.nullIsCelNull ? CEL_NULL : v;
}

/** No errors. Shared: callers only read the arrays these functions return. */
const NONE: FieldError[] = [];

function prefixed(prefix: string, errs: FieldError[]): FieldError[] {
  return errs.map((e) => ({ path: prefix + e.path, message: e.message }));
}

function validateValue(ctx: TypeContext, node: SchemaNode, raw: JsonValue, opts: ValidateOptions): FieldError[] {
  const memo = opts.valid !== undefined && typeof raw === "object" && raw !== null ? opts.valid : undefined;
  if (memo !== undefined && memo.get(raw as object) === node) return [];
  const v = goValue(raw, opts);
  const a = deduceAtom(atomOf(ctx, node), v);
  let errs: FieldError[];
  if (a.map !== undefined) errs = validateMap(ctx, a.map, raw, v, opts);
  else if (a.scalar !== undefined) errs = validateScalar(a.scalar, v);
  else if (a.list !== undefined) errs = validateList(ctx, a.list, raw, v, opts);
  else errs = [{ path: "", message: "schema error: invalid atom: inlined" }];
  // (`errs` may be the shared NONE: never modified, only read.)
  if (memo !== undefined && errs.length === 0) memo.set(raw as object, node);
  return errs;
}

/** `validateScalar`; null is valid for every scalar type, CEL's NullValue for none. */
export function scalarError(kind: ScalarKind, v: GoValue): string | undefined {
  if (v === null) return undefined;
  const isScalar = v !== CEL_NULL && !Array.isArray(v) && !isJsonObject(v);
  switch (kind) {
    case "numeric":
      return typeof v === "number" || typeof v === "bigint" ? undefined : `expected numeric (int or float), got ${goType(v)}`;
    case "string":
      return typeof v === "string" ? undefined : `expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}`;
    case "boolean":
      return typeof v === "boolean" ? undefined : `expected boolean, got &{${goV(v)}}`;
    case "untyped":
      return isScalar ? undefined : `expected any scalar, got &{${goV(v)}}`;
  }
}

function validateScalar(kind: ScalarKind, v: GoValue): FieldError[] {
  const err = scalarError(kind, v);
  return err === undefined ? NONE : [{ path: "", message: err }];
}

function validateMap(ctx: TypeContext, m: MapAtom, raw: JsonValue, v: GoValue, opts: ValidateOptions): FieldError[] {
  if (v === null) return NONE;
  if (!isJsonObject(v)) return [{ path: "", message: `expected map, got &{${goV(v)}}` }];
  const obj = raw as JsonObject;
  let errs: FieldError[] = NONE;
  for (const key of Object.keys(obj)) {
    const t = m.field(key) ?? m.element;
    if (t === undefined) {
      if (errs === NONE) errs = [];
      errs.push({ path: `.${key}`, message: "field not declared in schema" });
      break;
    }
    const sub = validateValue(ctx, t, obj[key] as JsonValue, opts);
    if (sub.length > 0) {
      if (errs === NONE) errs = [];
      errs.push(...prefixed(`.${key}`, sub));
    }
  }
  return errs;
}

function validateList(ctx: TypeContext, l: ListAtom, raw: JsonValue, v: GoValue, opts: ValidateOptions): FieldError[] {
  if (v === null) return NONE;
  if (!Array.isArray(v)) return [{ path: "", message: `expected list, got &{${goV(v)}}` }];
  const list = raw as JsonValue[];
  const errs: FieldError[] = [];
  // Keys are only compared when duplicates are errors; otherwise an element's path is only
  // needed for the messages of its errors.
  const seen = opts.allowDuplicates ? undefined : new Set<ItemKey>();
  for (let i = 0; i < list.length; i++) {
    const child = list[i] as JsonValue;
    let pe: PathElement;
    if (l.atomic) pe = { kind: "index", index: i };
    else {
      const r = listItemToPathElement(l, goValue(child, opts));
      if (typeof r === "string") {
        errs.push({ path: "", message: `element ${i}: ${r}` });
        return errs;
      }
      pe = r;
      if (seen !== undefined) {
        const id = peKey(l, pe);
        if (seen.has(id)) errs.push({ path: "", message: `duplicate entries for key ${peString(pe)}` });
        seen.add(id);
      }
    }
    const sub = validateValue(ctx, l.element, child, opts);
    if (sub.length > 0) errs.push(...prefixed(peString(pe), sub));
  }
  return errs.length > 0 ? errs : NONE;
}
