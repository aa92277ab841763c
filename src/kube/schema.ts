/**
 * The structural schemas of Kubernetes kinds, reduced to what server-side-apply
 * merging, CEL typing and cost estimation need: which values are structs, maps,
 * lists (and of which list type, keyed by which fields) and scalars.
 *
 * Built-in kinds come from the generated index (`builtin-schemas.generated.ts`,
 * made by `scripts/gen-schema-index.mjs` from the Kubernetes OpenAPI document);
 * CRDs add their own nodes at run time through {@link SchemaRegistry.addKind}.
 *
 * Example: `registry.forKind("v1", "Pod")` gives the Pod struct; following
 * `spec` then `containers` gives `{t: "list", lt: "map", keys: ["name"], e: ...}`,
 * which tells the merge to key containers by name.
 */
import { BUILTIN_SCHEMAS_JSON } from "./builtin-schemas.generated.js";

export type ScalarType = "string" | "integer" | "number" | "boolean";

export interface ScalarNode {
  readonly t: "scalar";
  readonly s: ScalarType;
  /** OpenAPI format: `int32`, `int64`, `date-time`, `byte`, `int-or-string`, `quantity`, ... */
  readonly fmt?: string;
  readonly enum?: readonly unknown[];
  readonly maxLength?: number;
}

export interface StructNode {
  readonly t: "struct";
  readonly f: Readonly<Record<string, SchemaRef>>;
  readonly required?: readonly string[];
  /** `x-kubernetes-map-type: atomic`: replaced as a whole, never merged field by field. */
  readonly atomic?: boolean;
  /**
   * Undeclared fields are allowed, each with an untyped value (`x-kubernetes-preserve-unknown-fields`
   * on an object with properties, or below one, in a CRD schema).
   */
  readonly preserveUnknown?: boolean;
  readonly maxProperties?: number;
}

export interface MapNode {
  readonly t: "map";
  readonly v: SchemaRef;
  readonly atomic?: boolean;
  readonly maxProperties?: number;
}

export interface ListNode {
  readonly t: "list";
  readonly e: SchemaRef;
  /** `x-kubernetes-list-type`, or the strategic-merge fallback for built-ins, or atomic. */
  readonly lt: "atomic" | "set" | "map";
  /** `x-kubernetes-list-map-keys` when `lt` is `map`. */
  readonly keys?: readonly string[];
  /** Values key fields take when absent (ContainerPort.protocol = TCP). */
  readonly keyDefaults?: Readonly<Record<string, unknown>>;
  readonly maxItems?: number;
}

/** A value of any shape (`x-kubernetes-preserve-unknown-fields`, RawExtension, JSON). */
export interface UntypedNode {
  readonly t: "untyped";
  readonly preserveUnknown?: boolean;
}

export type SchemaNode = ScalarNode | StructNode | MapNode | ListNode | UntypedNode;

/** A node, the name of a definition, or a definition referenced with a field-level map-type override. */
export type SchemaRef = SchemaNode | string | { readonly ref: string; readonly mapType: "atomic" | "granular" };

interface SchemaIndex {
  readonly kinds: Readonly<Record<string, string>>;
  readonly types: Readonly<Record<string, SchemaRef>>;
}

let builtin: SchemaIndex | undefined;

/** Marks a field known to be undeclared in the field cache. */
const NO_FIELD: { readonly t: "none" } = { t: "none" };

/** The schema of an undeclared field of a struct that preserves unknown fields. */
const UNKNOWN_FIELD: UntypedNode = { t: "untyped", preserveUnknown: true };

/** Parses the generated index once (about 260 KB of JSON, a few milliseconds). */
function builtinIndex(): SchemaIndex {
  builtin ??= JSON.parse(BUILTIN_SCHEMAS_JSON) as SchemaIndex;
  return builtin;
}

/** `apps/v1` + `Deployment` → `apps/v1/Deployment`; core kinds are `v1/Pod`. */
export function gvkKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/**
 * Schemas by kind: the built-in ones plus those registered at run time (CRDs).
 * Nodes are shared and must be treated as immutable.
 */
export class SchemaRegistry {
  private readonly kinds = new Map<string, SchemaRef>();
  private readonly types = new Map<string, SchemaRef>();
  /** Named definitions resolved (references are followed for every value of a kind); reset when a definition is added. */
  private readonly named = new Map<string, SchemaNode>();
  /** Resolved struct fields (see `child`); reset when a definition is added. */
  private fieldCache = new WeakMap<SchemaNode, Map<string, SchemaNode | typeof NO_FIELD>>();
  /** Field-level map-type overrides, resolved once per reference object (and base node). */
  private readonly overrides = new WeakMap<object, { readonly base: SchemaNode; readonly node: SchemaNode }>();

  /** A registry holding the built-in Kubernetes kinds. */
  static builtin(): SchemaRegistry {
    return new SchemaRegistry();
  }

  /** Registers (or replaces) the schema of a kind, e.g. a CRD version's structural schema. */
  addKind(apiVersion: string, kind: string, schema: SchemaNode): void {
    this.kinds.set(gvkKey(apiVersion, kind), schema);
  }

  /** Registers a named definition that nodes of `addKind` may reference by name. */
  addType(name: string, schema: SchemaRef): void {
    this.types.set(name, schema);
    this.fieldCache = new WeakMap();
    this.named.clear();
  }

  /** The schema of a kind, or undefined when the kind is unknown (no schema: the caller decides). */
  forKind(apiVersion: string, kind: string): SchemaNode | undefined {
    const key = gvkKey(apiVersion, kind);
    const own = this.kinds.get(key);
    if (own !== undefined) return this.resolve(own);
    const name = builtinIndex().kinds[key];
    return name === undefined ? undefined : this.resolve(name);
  }

  /** Follows references; a field-level `mapType` override is applied to the referenced struct or map. */
  resolve(ref: SchemaRef): SchemaNode {
    if (typeof ref === "string") {
      const hit = this.named.get(ref);
      if (hit !== undefined) return hit;
      const node = this.types.get(ref) ?? builtinIndex().types[ref];
      if (node === undefined) throw new Error(`schema index has no definition ${ref}`);
      const resolved = this.resolve(node);
      this.named.set(ref, resolved);
      return resolved;
    }
    if ("ref" in ref) {
      const node = this.resolve(ref.ref);
      if (node.t !== "struct" && node.t !== "map") return node;
      // One node per reference, so that callers may key caches by node identity.
      const hit = this.overrides.get(ref);
      if (hit !== undefined && hit.base === node) return hit.node;
      const out: SchemaNode = { ...node, atomic: ref.mapType === "atomic" };
      this.overrides.set(ref, { base: node, node: out });
      return out;
    }
    return ref;
  }

  /** The schema of a struct field or map value, or undefined when the field is not declared. */
  child(node: SchemaNode, field: string): SchemaNode | undefined {
    if (node.t === "struct") {
      // Field lookups repeat for every object of a kind: resolved once per struct and field name.
      let fields = this.fieldCache.get(node);
      if (fields === undefined) this.fieldCache.set(node, (fields = new Map()));
      const hit = fields.get(field);
      if (hit !== undefined) return hit === NO_FIELD ? undefined : (hit as SchemaNode);
      const f = Object.prototype.hasOwnProperty.call(node.f, field) ? node.f[field] : undefined;
      const r = f === undefined ? (node.preserveUnknown === true ? UNKNOWN_FIELD : undefined) : this.resolve(f);
      fields.set(field, r ?? NO_FIELD);
      return r;
    }
    if (node.t === "map") return this.resolve(node.v);
    if (node.t === "untyped") return node;
    return undefined;
  }

  /** The schema of a field a struct declares; undefined for any other (even where it preserves unknown fields). */
  declaredField(node: StructNode, field: string): SchemaNode | undefined {
    const c = this.child(node, field);
    return c === UNKNOWN_FIELD ? undefined : c;
  }

  /** The schema of list elements. */
  element(node: ListNode): SchemaNode {
    return this.resolve(node.e);
  }
}
