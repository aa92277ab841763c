/**
 * Kubernetes' cost estimator (k8s.io/apiserver `pkg/cel/library/cost.go`
 * `CostEstimator`) as a {@link SizeEstimator} for `estimateCost`: the parts
 * that are not a per-overload table entry — equality of Kubernetes types (by
 * the operands' type, for `_==_` only, as cost.go does), result sizes of the
 * string-producing functions — and the sizes of unknown inputs.
 *
 * Unknown sizes: Kubernetes bounds a list, map or string it knows nothing
 * about by what fits in the maximum request (3 MiB): a string of at most
 * 3 MiB - 2 (quotes), a list of at most (3 MiB - 2) / 2 elements (`[]`, one
 * byte and a comma each), as `pkg/cel/common` `estimateMaxArrayItemsFromMinSize`
 * and `estimateMaxStringLengthPerRequest` do. Schema-derived bounds
 * (maxItems/maxLength) come from the `schemaSizes` callback.
 */
import { add, byFactor, multiply, UNKNOWN_SIZE as UNKNOWN, type AstNode, type CostRange, type SizeEstimator } from "./cost.js";
import { actualSize, MAX_REQUEST_SIZE_BYTES, STRING_TRAVERSAL_COST_FACTOR, libraryCosts } from "./cost-runtime.js";
import type { Library, OverloadCost } from "./decls.js";
import type { Env } from "./env.js";
import type { CelValue } from "./values.js";

/** Bytes of `s` in UTF-8 (Go's `len(string)`). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** cost.go `traversalCost`: floor(bytes × 0.1) for strings and bytes, summed over lists and maps, 1 otherwise. */
export function traversalCost(v: CelValue): number {
  if (typeof v === "string") return Math.floor(utf8Length(v) * STRING_TRAVERSAL_COST_FACTOR);
  if (v instanceof Uint8Array) return Math.floor(v.length * STRING_TRAVERSAL_COST_FACTOR);
  if (Array.isArray(v)) {
    let c = 0;
    for (const x of v) c += traversalCost(x);
    return c;
  }
  if (v instanceof Map) {
    let c = 0;
    for (const [k, x] of v as ReadonlyMap<CelValue, CelValue>) c += traversalCost(k) + traversalCost(x);
    return c;
  }
  return 1;
}

const ceilT = (n: number, f = STRING_TRAVERSAL_COST_FACTOR): number => Math.ceil(n * f);

/**
 * cost.go's rules for the cel-go strings extension (which Kubernetes charges by
 * function name): `lowerAscii`, `upperAscii`, `substring`, `trim` one traversal;
 * `replace`, `split` two; `join` two of the result; `indexOf`/`lastIndexOf`
 * `traversalCost` of the receiver. Estimates are the libraries' (below) or
 * `kubernetesCostEstimator`'s.
 */
const receiverTimes =
  (f: number) =>
  (_args: readonly CostRange[], target?: CostRange): CostRange | undefined =>
    target === undefined ? undefined : byFactor(target, f);
const traverse1: OverloadCost = { actual: (a) => ceilT(actualSize(a[0])), estimate: receiverTimes(STRING_TRAVERSAL_COST_FACTOR) };
const traverse2: OverloadCost = {
  actual: (a) => ceilT(actualSize(a[0]), 2 * STRING_TRAVERSAL_COST_FACTOR),
  estimate: receiverTimes(2 * STRING_TRAVERSAL_COST_FACTOR),
};
const indexCost: OverloadCost = { actual: (a) => traversalCost(a[0]!), estimate: receiverTimes(STRING_TRAVERSAL_COST_FACTOR) };
export const KUBERNETES_STRINGS_COSTS: Readonly<Record<string, OverloadCost>> = {
  string_lower_ascii: traverse1,
  string_upper_ascii: traverse1,
  string_substring_int: traverse1,
  string_substring_int_int: traverse1,
  string_trim: traverse1,
  string_replace_string_string: traverse2,
  string_replace_string_string_int: traverse2,
  string_split_string: traverse2,
  string_split_string_int: traverse2,
  string_index_of_string: indexCost,
  string_index_of_string_int: indexCost,
  string_last_index_of_string: indexCost,
  string_last_index_of_string_int: indexCost,
  // join: two traversals of the result.
  list_join: { actual: (_a, r) => ceilT(actualSize(r), 2 * STRING_TRAVERSAL_COST_FACTOR) },
  list_join_string: { actual: (_a, r) => ceilT(actualSize(r), 2 * STRING_TRAVERSAL_COST_FACTOR) },
};

/**
 * The run-time costs Kubernetes adds to the strings extension, as a library
 * holding only cost rules: add it to a Kubernetes environment after the strings
 * extension. (`join` is charged on its result, which a rule on the arguments
 * is charged on its result.)
 */
export const KUBERNETES_STRINGS_COST_LIBRARY: Library = { name: "kubernetes.cost.strings", costs: KUBERNETES_STRINGS_COSTS };

/** Equality of these types costs what the named table entry says (cost.go `_==_`). */
const EQUALITY_ENTRIES: Readonly<Record<string, string>> = {
  "net.IP": "equals_ip",
  "net.CIDR": "equals_cidr",
  "kubernetes.Quantity": "equals_quantity",
  "kubernetes.Semver": "equals_semver",
  "kubernetes.URL": "equals_url",
  "kubernetes.NamedFormat": "equals_format",
};
const UNIT: CostRange = { min: 1n, max: 1n };

/** Functions whose result has the size of their string input (cost.go's `ResultSize: &sz`). */
const SAME_SIZE_OF_ARG = new Set(["url", "jsonpatch.escapeKey"]);
const SAME_SIZE_OF_TARGET = new Set(["lowerAscii", "upperAscii", "substring", "trim"]);

/** The maximum size of an unknown string in a request (bytes, so also code points). */
export const MAX_REQUEST_STRING_LENGTH = BigInt(MAX_REQUEST_SIZE_BYTES - 2);
/** The maximum number of elements of an unknown list in a request (each at least one byte plus a comma). */
export const MAX_REQUEST_LIST_ITEMS = BigInt(Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / 2));

export interface KubernetesEstimatorOptions {
  /** Bounds from the schema (maxItems, maxLength, maxProperties) by field path; undefined when unknown. */
  readonly schemaSizes?: (node: AstNode) => CostRange | undefined;
  /** Bound unknown strings/lists/maps by the maximum request size (default true). */
  readonly requestSizeBounds?: boolean;
}

function scale(r: CostRange, f: number): CostRange {
  return { min: BigInt(Math.ceil(Number(r.min) * f)), max: BigInt(Math.ceil(Number(r.max) * f)) };
}

export function kubernetesCostEstimator(env: Env, options: KubernetesEstimatorOptions = {}): SizeEstimator {
  const costs = libraryCosts(env.libraries);
  const bounds = options.requestSizeBounds ?? true;
  return {
    estimateSize(node: AstNode): CostRange | undefined {
      const s = options.schemaSizes?.(node);
      if (s !== undefined) return s;
      if (!bounds || node.path === undefined) return undefined;
      switch (node.type?.kind) {
        case "string":
        case "bytes":
          return { min: 0n, max: MAX_REQUEST_STRING_LENGTH };
        case "list":
        case "map":
          return { min: 0n, max: MAX_REQUEST_LIST_ITEMS };
        default:
          return undefined;
      }
    },
    estimateCallCost(fn, overloadId, target, args) {
      if (fn === "_==_" && args.length === 2) {
        const l = args[0]!.type;
        const r = args[1]!.type;
        if (l !== undefined && r !== undefined && l.name === r.name && (l.kind === "opaque" || l.kind === "message")) {
          if (l.name.startsWith("kubernetes.authorization.")) return { cost: UNIT };
          const id = EQUALITY_ENTRIES[l.name];
          const entry = id === undefined ? undefined : costs.get(id);
          if (entry?.estimate !== undefined) {
            const sizes = args.map((a) => a.computedSize ?? UNIT);
            const c = entry.estimate(sizes);
            if (c !== undefined) return { cost: c };
          }
        }
        return undefined;
      }
      if (fn === "join" && target !== undefined) {
        // size(list) × size(element) + size(separator) × (size(list) - 1), one traversal of that.
        const listSize = target.computedSize ?? this.estimateSize({ path: target.path, type: target.type, expr: target.expr, computedSize: undefined }) ?? UNKNOWN;
        const el = target.type?.params[0];
        const elSize =
          (el === undefined ? undefined : this.estimateSize({ path: target.path === undefined ? undefined : [...target.path, "@items"], type: el, expr: target.expr, computedSize: undefined })) ??
          UNKNOWN;
        let sz = multiply(listSize, elSize);
        if (args.length > 0) {
          const sep = args[0]!.computedSize ?? UNKNOWN;
          const seps = { min: listSize.min > 0n ? listSize.min - 1n : 0n, max: listSize.max > 0n ? listSize.max - 1n : 0n };
          sz = add(sz, multiply(sep, seps));
        }
        return { cost: byFactor(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
      }
      const entry = costs.get(overloadId);
      if (entry?.estimate === undefined) return undefined;
      if (SAME_SIZE_OF_ARG.has(fn) && args.length >= 1 && target === undefined) {
        const sz = args[0]!.computedSize ?? { min: 0n, max: 2n ** 64n - 1n };
        return { cost: scale(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
      }
      if (SAME_SIZE_OF_TARGET.has(fn) && target !== undefined) {
        const sz = target.computedSize ?? { min: 0n, max: 2n ** 64n - 1n };
        return { cost: scale(sz, STRING_TRAVERSAL_COST_FACTOR), resultSize: sz };
      }
      return undefined;
    },
  };
}
