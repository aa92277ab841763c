/**
 * What happens to a JSON-patched built-in object when the apiserver decodes it back into its Go
 * type (`json.NewSerializerWithOptions(..., Strict: true).Decode` in the MAP JSON patcher): a
 * strict decode whose failures are HTTP 500 InternalErrors that abort the request whatever the
 * failure policy (map-oracle-findings §7):
 *
 * - a value of the wrong JSON type: `json: cannot unmarshal number into Go struct field
 *   ConfigMap.data of type string` (Go's `UnmarshalTypeError`: innermost struct type, then the
 *   JSON field names from the root; map keys and list indices are not part of it);
 * - otherwise, unknown fields: `strict decoding error: unknown field "spec.bogus", unknown field
 *   "…"` (paths with list indices).
 *
 * On success it returns the object as the typed round trip leaves it, as far as it matters here:
 * a JSON `null` field is dropped (nil pointer/slice/map), a `null` value of a `map[string]string`
 * becomes `""` (map-oracle-findings §8). Omitempty of zero values and quantity normalisation are
 * not modelled. Custom resources (unstructured) are not decoded strictly; see dispatch.ts.
 */
import { parseQuantity } from "../cel/k8s/quantity.js";
import type { SchemaNode, SchemaRef, SchemaRegistry } from "../kube/schema.js";
import { isJsonObject, setKey, type JsonObject, type JsonValue } from "./json.js";
import type { IdentityTable } from "./memo.js";

export type TypedDecodeResult = { readonly ok: true; readonly object: JsonObject } | { readonly ok: false; readonly message: string };

class TypeError_ extends Error {}

interface Ctx {
  readonly registry: SchemaRegistry;
  readonly unknown: string[];
  /** Values known to decode cleanly (no error, nothing dropped or changed) at the node stored. */
  readonly clean: IdentityTable<SchemaNode> | undefined;
}

function refName(ref: SchemaRef | undefined): string | undefined {
  if (typeof ref === "string") return ref.slice(ref.lastIndexOf(".") + 1);
  if (ref !== undefined && typeof ref === "object" && "ref" in ref) return ref.ref.slice(ref.ref.lastIndexOf(".") + 1);
  return undefined;
}

function jsonKind(v: JsonValue): string {
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number" || typeof v === "bigint") return "number";
  if (Array.isArray(v)) return "array";
  return "object";
}

function goTypeName(node: SchemaNode, name: string | undefined): string {
  switch (node.t) {
    case "scalar":
      if (node.s === "string") return "string";
      if (node.s === "boolean") return "bool";
      if (node.s === "integer") return node.fmt === "int32" ? "int32" : "int64";
      return "float64";
    case "list":
      return "[]interface {}";
    case "map":
      return "map[string]string";
    case "struct":
      return name !== undefined ? `v1.${name}` : "struct";
    default:
      return "interface {}";
  }
}

/** Strictly decodes `obj` (a built-in kind whose schema is `schema`), as the JSON patcher does. */
export function strictTypedDecode(
  obj: JsonObject,
  schema: SchemaNode,
  registry: SchemaRegistry,
  kind: string,
  clean?: IdentityTable<SchemaNode>,
): TypedDecodeResult {
  const ctx: Ctx = { registry, unknown: [], clean };
  let out: JsonValue;
  try {
    out = walk(ctx, schema, obj, undefined, kind);
  } catch (e) {
    if (e instanceof TypeError_) return { ok: false, message: e.message };
    throw e;
  }
  if (ctx.unknown.length > 0) {
    return { ok: false, message: `strict decoding error: ${ctx.unknown.map((p) => `unknown field ${JSON.stringify(p)}`).join(", ")}` };
  }
  return { ok: true, object: isJsonObject(out) ? out : {} };
}

/**
 * Where a value sits, as a chain up to the root; the texts are only built for messages. A struct
 * field (`field`) is part of both the field path (`spec.containers[0].name`) and of Go's
 * `UnmarshalTypeError` field list (`spec.containers.name`); list indices and map keys only of the path.
 */
interface Loc {
  readonly up: Loc | undefined;
  readonly seg: string;
  readonly field: boolean;
}

function pathOf(l: Loc | undefined): string {
  if (l === undefined) return "";
  const up = pathOf(l.up);
  return l.field ? (up === "" ? l.seg : `${up}.${l.seg}`) : `${up}[${l.seg}]`;
}

function stackOf(l: Loc | undefined): string[] {
  const out: string[] = [];
  for (let c = l; c !== undefined; c = c.up) if (c.field) out.push(c.seg);
  return out.reverse();
}

function typeError(v: JsonValue, node: SchemaNode, name: string | undefined, struct: string, at: Loc | undefined): TypeError_ {
  const what = typeof v === "number" || typeof v === "bigint" ? (jsonKind(v) === "number" && node.t === "scalar" && node.s === "integer" ? `number ${String(v)}` : "number") : jsonKind(v);
  return new TypeError_(`json: cannot unmarshal ${what} into Go struct field ${struct}.${stackOf(at).join(".")} of type ${goTypeName(node, name)}`);
}

/**
 * Returns `v` itself when the decode changes nothing in it, so that unchanged subtrees stay shared;
 * such values are remembered in `ctx.clean`.
 */
function walk(ctx: Ctx, node: SchemaNode, v: JsonValue, at: Loc | undefined, struct: string, name?: string): JsonValue {
  if (ctx.clean !== undefined && typeof v === "object" && v !== null && ctx.clean.get(v) === node) return v;
  const unknownBefore = ctx.unknown.length;
  let out: JsonValue = v;
  switch (node.t) {
    case "struct": {
      if (!isJsonObject(v)) throw typeError(v, node, name, struct, at);
      const here = name ?? struct;
      let copy: JsonObject | undefined;
      const keys = Object.keys(v);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const value = v[key] as JsonValue;
        const child = ctx.registry.child(node, key);
        let after: JsonValue | undefined;
        if (child === undefined) ctx.unknown.push(pathOf({ up: at, seg: key, field: true }));
        else if (value !== null) {
          // Fast paths: a well-typed scalar, a subtree known clean.
          if (typeof value !== "object" ? child.t === "scalar" && scalarFits(child, value) : ctx.clean !== undefined && ctx.clean.get(value) === child) after = value;
          else {
            const ref = Object.prototype.hasOwnProperty.call(node.f, key) ? node.f[key] : undefined;
            after = walk(ctx, child, value, { up: at, seg: key, field: true }, here, refName(ref));
          }
        }
        if (after !== value && copy === undefined) copy = copyKeys(v, keys, i);
        if (copy !== undefined && after !== undefined) setKey(copy, key, after);
      }
      if (copy !== undefined) out = copy;
      break;
    }
    case "map": {
      if (!isJsonObject(v)) throw typeError(v, node, name, struct, at);
      const elem = ctx.registry.resolve(node.v);
      let copy: JsonObject | undefined;
      const keys = Object.keys(v);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const value = v[key] as JsonValue;
        let after: JsonValue | undefined;
        if (value === null) after = elem.t === "scalar" && elem.s === "string" ? "" : undefined;
        else if (typeof value !== "object" && elem.t === "scalar" && scalarFits(elem, value)) after = value;
        else after = walk(ctx, elem, value, { up: at, seg: key, field: false }, struct, refName(node.v));
        if (after !== value && copy === undefined) copy = copyKeys(v, keys, i);
        if (copy !== undefined && after !== undefined) setKey(copy, key, after);
      }
      if (copy !== undefined) out = copy;
      break;
    }
    case "list": {
      if (!Array.isArray(v)) throw typeError(v, node, name, struct, at);
      const elem = ctx.registry.element(node);
      let copy: JsonValue[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const e = v[i] as JsonValue;
        const after =
          e === null || (typeof e !== "object" && elem.t === "scalar" && scalarFits(elem, e)) ? e : walk(ctx, elem, e, { up: at, seg: String(i), field: false }, struct, refName(node.e));
        if (after !== e && copy === undefined) copy = v.slice(0, i);
        if (copy !== undefined) copy.push(after);
      }
      if (copy !== undefined) out = copy;
      break;
    }
    case "scalar": {
      if (!scalarFits(node, v)) throw typeError(v, node, name, struct, at);
      return v;
    }
    default:
      return v;
  }
  // What the decode returns decodes to itself: remembered too (the input when unchanged, else the copy).
  if (ctx.clean !== undefined && ctx.unknown.length === unknownBefore && typeof out === "object" && out !== null) ctx.clean.set(out, node);
  return out;
}

/** Whether a scalar field of the Go type `node` decodes `v`. */
function scalarFits(node: SchemaNode & { t: "scalar" }, v: JsonValue): boolean {
  if (node.fmt !== undefined && node.fmt !== "" && node.fmt !== "byte" && node.fmt !== "int32" && node.fmt !== "int64" && node.fmt !== "double" && node.fmt !== "float") {
    // int-or-string, quantity, date-time, ...: custom unmarshalers; not modelled further.
    return true;
  }
  return node.s === "string"
    ? typeof v === "string"
    : node.s === "boolean"
      ? typeof v === "boolean"
      : node.s === "integer"
        ? typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v))
        : typeof v === "number" || typeof v === "bigint";
}

/** A new object with the first `n` of `keys` copied from `v`. */
function copyKeys(v: JsonObject, keys: readonly string[], n: number): JsonObject {
  const out: JsonObject = {};
  for (let j = 0; j < n; j++) setKey(out, keys[j]!, v[keys[j]!] as JsonValue);
  return out;
}

/**
 * Custom resources: the apiserver decodes a JSON-patched custom resource without strictness and
 * prunes fields its structural schema does not declare (outside preserve-unknown-fields regions),
 * silently (map-oracle-findings §7: `crd-jp-add-unknown-field`). Values are kept as they are.
 */
export function pruneUnknownFields(obj: JsonObject, schema: SchemaNode, registry: SchemaRegistry): JsonObject {
  const out = prune(registry, schema, obj);
  return isJsonObject(out) ? out : obj;
}

function prune(registry: SchemaRegistry, node: SchemaNode, v: JsonValue): JsonValue {
  if (node.t === "struct" && isJsonObject(v)) {
    const out: JsonObject = {};
    for (const key of Object.keys(v)) {
      const child = registry.child(node, key);
      if (child === undefined) continue;
      setKey(out, key, prune(registry, child, v[key] as JsonValue));
    }
    return out;
  }
  if (node.t === "map" && isJsonObject(v)) {
    const elem = registry.resolve(node.v);
    const out: JsonObject = {};
    for (const key of Object.keys(v)) setKey(out, key, prune(registry, elem, v[key] as JsonValue));
    return out;
  }
  if (node.t === "list" && Array.isArray(v)) {
    const elem = registry.element(node);
    return v.map((e) => prune(registry, elem, e as JsonValue));
  }
  return v;
}

/**
 * The typed round trip of a built-in object after a mutation (`ConvertToVersion` into the Go
 * struct, then back to JSON), as far as it changes values: `resource.Quantity` fields come back in
 * their canonical form (`"0.5"` → `"500m"`, a number `2` → `"2"`; map-oracle-findings §6). A value
 * that does not parse as a quantity is left as it is.
 */
export function normalizeTyped(obj: JsonObject, schema: SchemaNode, registry: SchemaRegistry, memo?: IdentityTable<SchemaNode>): JsonObject {
  let quantities = quantityNodes.get(registry);
  if (quantities === undefined) quantityNodes.set(registry, (quantities = new WeakMap()));
  const out = normalize({ registry, quantities, memo }, schema, obj);
  return isJsonObject(out) ? out : obj;
}

interface NormalizeCtx {
  readonly registry: SchemaRegistry;
  /** Whether a node's values can hold a quantity (see `holdsQuantity`), for this registry. */
  readonly quantities: WeakMap<SchemaNode, boolean>;
  readonly memo: IdentityTable<SchemaNode> | undefined;
}

/**
 * Returns `v` itself when nothing in it changes (so unchanged subtrees stay shared). `memo` holds
 * values known to be in normal form at the node stored: inputs that came out unchanged and the
 * copies made. Subtrees whose schema holds no quantity are not walked.
 */
function normalize(ctx: NormalizeCtx, node: SchemaNode, v: JsonValue): JsonValue {
  const { registry, memo } = ctx;
  if (typeof v !== "object" || v === null) {
    if (node.t === "scalar" && node.fmt === "quantity" && (typeof v === "string" || typeof v === "number" || typeof v === "bigint")) {
      const q = canonicalQuantity(String(v));
      return q === undefined || q === v ? v : q;
    }
    return v;
  }
  if (!holdsQuantity(registry, ctx.quantities, node) || memo?.get(v) === node) return v;
  let out: JsonValue = v;
  if ((node.t === "struct" || node.t === "map") && isJsonObject(v)) {
    const elem = node.t === "map" ? registry.resolve(node.v) : undefined;
    let copy: JsonObject | undefined;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const child = elem ?? registry.child(node, key);
      const before = v[key] as JsonValue;
      // Only quantities change among scalars: other scalar fields need no call.
      const after = child === undefined || (typeof before !== "object" && (child.t !== "scalar" || child.fmt !== "quantity")) ? before : normalize(ctx, child, before);
      if (after !== before && copy === undefined) {
        copy = {};
        for (let j = 0; j < i; j++) setKey(copy, keys[j]!, v[keys[j]!] as JsonValue);
      }
      if (copy !== undefined) setKey(copy, key, after);
    }
    if (copy !== undefined) out = copy;
  } else if (node.t === "list" && Array.isArray(v)) {
    const elem = registry.element(node);
    let copy: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const before = v[i] as JsonValue;
      const after = normalize(ctx, elem, before);
      if (after !== before && copy === undefined) copy = v.slice(0, i);
      if (copy !== undefined) copy.push(after);
    }
    if (copy !== undefined) out = copy;
  }
  if (typeof out === "object" && out !== null) memo?.set(out, node);
  return out;
}

/** Whether values of `node` can contain a quantity (per registry; a node being computed counts as yes). */
function holdsQuantity(registry: SchemaRegistry, byNode: WeakMap<SchemaNode, boolean>, node: SchemaNode): boolean {
  const known = byNode.get(node);
  if (known !== undefined) return known;
  byNode.set(node, true);
  let r: boolean;
  switch (node.t) {
    case "scalar":
      r = node.fmt === "quantity";
      break;
    case "struct":
      r = Object.keys(node.f).some((k) => {
        const c = registry.child(node, k);
        return c !== undefined && holdsQuantity(registry, byNode, c);
      });
      break;
    case "map":
      r = holdsQuantity(registry, byNode, registry.resolve(node.v));
      break;
    case "list":
      r = holdsQuantity(registry, byNode, registry.element(node));
      break;
    default:
      r = false;
  }
  byNode.set(node, r);
  return r;
}

const quantityNodes = new WeakMap<SchemaRegistry, WeakMap<SchemaNode, boolean>>();

/** Canonical forms of quantity texts seen recently (quantities repeat a lot: `100m`, `128Mi`). */
const canonicalQuantities = new Map<string, string | null>();

/** `resource.Quantity`'s canonical text, or undefined when `text` is not a quantity. */
function canonicalQuantity(text: string): string | undefined {
  let q = canonicalQuantities.get(text);
  if (q === undefined) {
    try {
      q = parseQuantity(text).toString();
    } catch {
      q = null;
    }
    if (canonicalQuantities.size >= 4096) canonicalQuantities.clear();
    canonicalQuantities.set(text, q);
  }
  return q ?? undefined;
}
