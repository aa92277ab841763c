/**
 * Cost rules of the Kubernetes CEL libraries in a form the cost estimator can
 * run: the shape of each library file's exported `cost` table (from
 * k8s.io/apiserver `pkg/cel/library/cost.go`) and cel-go's saturating uint64
 * arithmetic. Shared by the k8s library files (ip, cidr, authz, quantity,
 * lists, …): change it compatibly.
 */
import { CelObject, type CelValue } from "../values.js";

/** A uint64 size or cost range as cel-go's checker tracks it (`max` saturates at 2^64-1). */
export interface CostRange {
  readonly min: bigint;
  readonly max: bigint;
}

/**
 * How the Kubernetes cost estimator charges one overload.
 *
 * - `estimate`: `EstimateCallCost` (compile time). `args` are the size
 *   estimates of the call's arguments **without** the receiver, as cel-go
 *   passes them (`target` is separate and no entry here needs it).
 * - `actual`: `CallCost` (run time). `args` are the evaluated arguments
 *   **with** the receiver first, as cel-go passes them.
 *
 * An overload not listed (e.g. `ip_to_string`) is not handled by the Kubernetes
 * estimator, so cel-go's default applies (call cost 1).
 */
export interface CostEntry {
  readonly function: string;
  readonly estimate: (args: readonly CostRange[]) => CostRange;
  readonly actual: (args: readonly CelValue[]) => bigint;
  /** The rule in words, as cost.go states it. */
  readonly note: string;
}

export const UINT64_MAX = 2n ** 64n - 1n;
/** cel-go `common.StringTraversalCostFactor`. */
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;

/** cel-go `multiplyByCostFactor`: ceil(x·f), saturating at 2^64-1. */
export function multiplyByCostFactor(x: bigint, f: number): bigint {
  if (x === 0n) return 0n;
  const xf = Number(x);
  if (f > 0 && xf > Number(UINT64_MAX) / f) return UINT64_MAX;
  const c = Math.ceil(xf * f);
  if (c >= 2 ** 64) return UINT64_MAX;
  return BigInt(c);
}

/** cel-go `addUint64NoOverflow`. */
export function addCost(a: bigint, b: bigint): bigint {
  const s = a + b;
  return s > UINT64_MAX ? UINT64_MAX : s;
}

export function scaleRange(r: CostRange, f: number): CostRange {
  return { min: multiplyByCostFactor(r.min, f), max: multiplyByCostFactor(r.max, f) };
}

export function addRanges(a: CostRange, b: CostRange): CostRange {
  return { min: addCost(a.min, b.min), max: addCost(a.max, b.max) };
}

export const FIXED_1: CostRange = { min: 1n, max: 1n };
/** A size nothing is known about. */
export const UNKNOWN_SIZE: CostRange = { min: 0n, max: UINT64_MAX };

/**
 * cost.go `actualSize`: the `Size()` of a sizer value (strings: code points;
 * bytes, lists, maps: length; IP: 4 or 16; CIDR: prefix length in bytes,
 * rounded up), else 1.
 */
export function actualSize(v: CelValue | undefined): bigint {
  if (typeof v === "string") {
    let n = 0;
    for (const _ of v) n++;
    return BigInt(n);
  }
  if (v instanceof CelObject) {
    const sized = v as CelObject & { size?: () => number };
    if (typeof sized.size === "function") return BigInt(sized.size());
  }
  if (v instanceof Uint8Array) return BigInt(v.length);
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof Map) return BigInt(v.size);
  return 1n;
}
