/**
 * Declarations: functions with their overloads, variables, type providers and
 * libraries. One declaration serves both the checker (signatures) and the
 * planner (implementations), so a function cannot type-check one way and run
 * another.
 */
import type { CelType } from "./types.js";
import type { CelValue } from "./values.js";

/**
 * An overload's implementation. Arguments are already evaluated and are never
 * errors (CEL functions are strict); for a member overload the receiver is the
 * first argument. Throw {@link CelEvalError} for a CEL error.
 */
// biome-ignore lint: implementations are typed per overload; the planner calls them by arity.
export type Impl = (...args: any[]) => CelValue;

export interface OverloadDecl {
  /** cel-go's overload id where one exists (`add_int64`, `contains_string`), else a unique name of ours. */
  readonly id: string;
  /** Parameter types; for a member overload the receiver type comes first. */
  readonly params: readonly CelType[];
  readonly result: CelType;
  /** Receiver-style (`x.f(y)`) rather than global (`f(x, y)`). */
  readonly member: boolean;
  /** Type parameter names used in params/result (`A`, `B`). */
  readonly typeParams?: readonly string[];
  /**
   * The implementation. Absent only for the operators the planner evaluates
   * itself (`_&&_`, `_||_`, `_?_:_`, `@not_strictly_false`, `_?._`, `_[?_]`).
   */
  readonly impl?: Impl;
}

export interface FunctionDecl {
  /** As called: `size`, `_+_`, `jsonpatch.escapeKey`, `optional.of`. */
  readonly name: string;
  readonly overloads: readonly OverloadDecl[];
}

export interface VariableDecl {
  readonly name: string;
  readonly type: CelType;
}

/**
 * Resolves type names used in message construction (`T{...}`), field
 * selection on message values and qualified identifiers such as enum constants.
 * celmap's Kubernetes environment implements it for `Object`/`JSONPatch`; the
 * conformance harness implements it over protobuf descriptors.
 */
export interface TypeProvider {
  /** The type named exactly `name` (already qualified by the container), or undefined. */
  findType(name: string): CelType | undefined;
  /** The declared type of `field` on message type `typeName`, or undefined when there is no such field. */
  findFieldType(typeName: string, field: string): CelType | undefined;
  /**
   * Builds a value of `typeName` from evaluated field values, in the order written.
   * Throws {@link CelEvalError} (e.g. wrong field type) when it cannot.
   */
  newValue(typeName: string, fields: ReadonlyMap<string, CelValue>): CelValue;
  /** A qualified identifier that is a constant, e.g. an enum value; undefined when not one. */
  findIdent?(name: string): { readonly type: CelType; readonly value: CelValue } | undefined;
}

/** Macro families the parser can expand. */
export type MacroSet =
  /** has, all, exists, exists_one, map (2 and 3 args), filter */
  | "standard"
  /** two-variable all, exists, existsOne, transformList, transformMap, transformMapEntry */
  | "twoVar"
  /** optMap, optFlatMap */
  | "optional"
  /** cel.bind */
  | "bind"
  /** `list.sortBy(x, key)` (cel-go lists extension, version 2+) */
  | "lists"
  /** `math.greatest(...)`, `math.least(...)` (cel-go math extension) */
  | "math";

/** A named bundle of declarations: the unit in which libraries are added to an environment. */
export interface Library {
  readonly name: string;
  readonly functions?: readonly FunctionDecl[];
  readonly variables?: readonly VariableDecl[];
  readonly macros?: readonly MacroSet[];
  /** Needs `a.?b`, `a[?b]`, `[?x]` and `{?k: v}` syntax. */
  readonly optionalSyntax?: boolean;
  /**
   * Types the library registers by name, as cel-go's `cel.Types(...)` does: their
   * names resolve as type identifiers (`type(x) == net.IP`). The environment
   * composes them into its {@link TypeProvider}; an explicit provider is asked first.
   * Only types a library really registers belong here (Kubernetes registers
   * `net.IP` and `net.CIDR`, but not `kubernetes.Quantity`, which stays undeclared).
   */
  readonly types?: readonly CelType[];
  /**
   * Cost rules of this library's overloads, by overload id (see `cost.ts`):
   * how the static estimator and run-time cost tracking charge a call. An
   * overload not listed costs as cel-go's default (1, or the standard rule).
   * The Kubernetes libraries' `cost` tables (`k8s/cost-model.ts` `CostEntry`) fit.
   */
  readonly costs?: Readonly<Record<string, OverloadCost>>;
  /**
   * Checks of constant arguments made when a program is planned, as cel-go's
   * `cel.OptimizeRegex` compiles constant patterns at program instantiation: for a
   * receiver call of `function` whose argument `argIndex` (0 = first after the receiver)
   * is a constant, `check` runs on its value and throws (an Error whose message is
   * the reason) to fail instantiation. See `instantiate.ts`.
   */
  readonly constantArgumentChecks?: readonly ConstantArgumentCheck[];
}

export interface ConstantArgumentCheck {
  readonly function: string;
  readonly argIndex: number;
  readonly check: (value: CelValue) => void;
}

/** A uint64 size or cost range as cel-go's checker tracks it (`max` saturates at 2^64-1). */
export interface CostRange {
  readonly min: bigint;
  readonly max: bigint;
}

/** How one overload is charged (cel-go `EstimateCallCost` / `CallCost`). */
export interface OverloadCost {
  /**
   * Compile time: the call's cost given the size estimates of its arguments
   * (without the receiver), the receiver's (`target`) and, for string/bytes
   * receivers, the element size. Undefined: the standard rule (or 1) applies.
   */
  readonly estimate?: (args: readonly CostRange[], target?: CostRange, element?: CostRange) => CostRange | undefined;
  /** Run time: the call's cost given its evaluated arguments (receiver first) and its result. */
  readonly actual?: (args: readonly CelValue[], result: CelValue) => bigint | number;
  /**
   * Run time: `actual` applies only when the checker resolved the call to this one overload,
   * as cel-go's `interpreter.OverloadCostTracker` is looked up by the call's overload id, which
   * is empty for a call dispatched at run time among several (interpreter/runtimecost.go
   * `costCall`); such a call costs 1. (Kubernetes' own `CallCost` goes by function name and
   * applies either way.)
   */
  readonly resolvedOnly?: boolean;
}

/** Shorthand for a global overload. */
export function overload(id: string, params: readonly CelType[], result: CelType, impl?: Impl): OverloadDecl {
  return impl === undefined ? { id, params, result, member: false } : { id, params, result, member: false, impl };
}

/** Shorthand for a receiver-style overload; `params[0]` is the receiver. */
export function memberOverload(id: string, params: readonly CelType[], result: CelType, impl?: Impl): OverloadDecl {
  return impl === undefined ? { id, params, result, member: true } : { id, params, result, member: true, impl };
}

export function func(name: string, ...overloads: OverloadDecl[]): FunctionDecl {
  return { name, overloads };
}
