/**
 * Run-time representation of CEL values. Chosen for speed on Kubernetes objects:
 * most values are plain JavaScript values, so a JSON document needs only its
 * integers turned into `bigint` before evaluation.
 *
 * | CEL type     | JavaScript value                                  |
 * |--------------|---------------------------------------------------|
 * | null_type    | `null`                                            |
 * | bool         | `boolean`                                         |
 * | int          | `bigint` (always within int64; ops check overflow) |
 * | uint         | {@link CelUint}                                   |
 * | double       | `number`                                          |
 * | string       | `string`                                          |
 * | bytes        | `Uint8Array`                                      |
 * | list         | `readonly CelValue[]` (never mutated once built)  |
 * | map          | `ReadonlyMap<CelMapKey, CelValue>` (see below)    |
 * | timestamp    | {@link CelTimestamp}                              |
 * | duration     | {@link CelDuration}                               |
 * | type         | {@link CelType}                                   |
 * | optional     | {@link CelOptional}                               |
 * | messages and custom types | subclasses of {@link CelObject}      |
 *
 * Map keys are `string`, `bigint` (int), `boolean` or {@link CelUint}. Because a
 * `CelUint` key is an object, lookups go through `mapGet`/`mapHas` in
 * `runtime/map.ts`, which also implement CEL's cross-type numeric key lookups
 * (`{1: 'a'}[1u]`, `{1: 'a'}[1.0]`).
 *
 * Errors are not values here: evaluation throws {@link CelEvalError}, and the
 * evaluator catches it where CEL absorbs errors (`&&`, `||`, comprehensions
 * built from them).
 */
import { CelType } from "./types.js";

export type CelMapKey = string | bigint | boolean | CelUint;

export type CelValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | CelUint
  | readonly CelValue[]
  | ReadonlyMap<CelMapKey, CelValue>
  | CelTimestamp
  | CelDuration
  | CelType
  | CelOptional
  | CelObject;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;

/** An unsigned 64-bit integer. Immutable; compare with `value`. */
export class CelUint {
  constructor(readonly value: bigint) {}
  toString(): string {
    return `${this.value}u`;
  }
}

/**
 * A point in time with nanosecond precision, as nanoseconds since the Unix epoch.
 * Valid range (CEL): 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
 */
export class CelTimestamp {
  constructor(readonly nanos: bigint) {}
}

/** A signed span of time in nanoseconds. Valid range: ±(315,576,000,000 s + 999,999,999 ns). */
export class CelDuration {
  constructor(readonly nanos: bigint) {}
}

/** `optional_type(T)`: `value` is `undefined` for `optional.none()`. */
export class CelOptional {
  static readonly NONE = new CelOptional(undefined);
  private constructor(readonly value: CelValue | undefined) {}
  static of(value: CelValue): CelOptional {
    return new CelOptional(value);
  }
  hasValue(): this is { value: CelValue } {
    return this.value !== undefined;
  }
}

/**
 * Base of every value whose type the host defines: protobuf messages in the
 * conformance harness, Kubernetes `Object{...}` apply configurations,
 * `JSONPatch`, quantities, IPs and so on.
 *
 * Field access (`x.f`) and presence (`has(x.f)`) work on objects that implement
 * `getField`/`hasField`; opaque values leave them undefined and get
 * "no such field" errors. `equals` defines `==`; the default is identity.
 */
export abstract class CelObject {
  abstract readonly celType: CelType;
  /** The field's value (its default when unset), or `undefined` when the type has no such field. */
  getField?(name: string): CelValue | undefined;
  /** Whether the field is set; `undefined` when the type has no such field. */
  hasField?(name: string): boolean | undefined;
  /**
   * Whether this is its type's zero value (a message with no field set), as
   * `optional.ofNonZeroValue` asks; absent means "never zero".
   */
  isZeroValue?(): boolean;
  /**
   * CEL `==` with this value on the left: `other` is any non-null value, possibly
   * of another type and possibly this very instance (cel-go's `ref.Val.Equal`).
   * Return false for a value of another type, or throw {@link CelEvalError}
   * ("no such overload") where the Go type does. The default is identity.
   */
  equals(other: CelValue): boolean {
    return this === other;
  }
}

/**
 * Lists whose `==` and `+` differ from CEL's ordered semantics when they are the
 * left operand — Kubernetes lists of `x-kubernetes-list-type: set` or `map`
 * (order-insensitive equality; `+` as set union or merge by keys). A list gets
 * them as a non-enumerable own property under {@link LIST_SEMANTICS}, so lists
 * derived from it (`map`, `filter`, slicing) are ordinary lists again.
 */
export interface ListSemantics {
  /** `self == other`; may throw {@link CelEvalError}. */
  equals(self: readonly CelValue[], other: readonly CelValue[]): boolean;
  /** `self + other`. */
  concat(self: readonly CelValue[], other: readonly CelValue[]): readonly CelValue[];
}
export const LIST_SEMANTICS: unique symbol = Symbol("celmap.listSemantics");

/** The list's own `==`/`+` semantics, if it has any. */
export function listSemantics(list: readonly CelValue[]): ListSemantics | undefined {
  return (list as { [LIST_SEMANTICS]?: ListSemantics })[LIST_SEMANTICS];
}

/** Gives `list` its own `==`/`+` semantics (see {@link ListSemantics}); returns the list. */
export function withListSemantics<T extends readonly CelValue[]>(list: T, semantics: ListSemantics): T {
  Object.defineProperty(list, LIST_SEMANTICS, { value: semantics, enumerable: false });
  return list;
}

/** A list that is known to be a list at run time (arrays only). */
export function isList(v: CelValue): v is readonly CelValue[] {
  return Array.isArray(v);
}

export function isMap(v: CelValue): v is ReadonlyMap<CelMapKey, CelValue> {
  return v instanceof Map;
}
