/**
 * Per-request memo tables for the dispatcher. One admission request runs many mutations over
 * versions of one object that share every subtree a mutation did not touch (the patchers build new
 * objects only along the paths they change). Keyed by identity, these tables let each mutation pay
 * only for what changed: the CEL view of the object, the live-object validation of server-side
 * apply and the typed round trip of built-ins.
 *
 * Sound only because nothing in the pipeline modifies a JSON value in place once built (json.ts:
 * every helper is pure); a table lives for one `evaluate` call, so callers that modify their own
 * objects between calls are not affected.
 */
import type { CelValue } from "../cel/index.js";
import type { SchemaNode } from "../kube/schema.js";
import type { JsonObject } from "./json.js";

/** A table keyed by object identity: a `Map` or a `WeakMap`. */
export interface IdentityTable<V> {
  get(key: object): V | undefined;
  set(key: object, value: V): unknown;
}

/**
 * The tables are plain `Map`s, not `WeakMap`s: they live for one request, and weak tables with
 * many entries are expensive for the garbage collector (ephemerons are traced at every scavenge).
 */
export class RequestMemo {
  /** JSON → CEL conversions (`fromJson`'s cache). */
  readonly cel = new Map<object, CelValue>();
  /** How CEL sees an object (and a built-in's metadata): dispatch.ts `celView`. */
  readonly views = new Map<JsonObject, CelValue>();
  /** Live values that validated without errors against the schema node stored. */
  readonly validLive = new Map<object, SchemaNode>();
  /** Values that strictly decode unchanged at the schema node stored (`strictTypedDecode`). */
  readonly decoded = new Map<object, SchemaNode>();
  /** Values in the normal form of the typed round trip (`normalizeTyped`) at the schema node stored. */
  readonly normalized = new Map<object, SchemaNode>();
}
