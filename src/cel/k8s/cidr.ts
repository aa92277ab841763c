/**
 * The Kubernetes CIDR library (`library.CIDR()`, "kubernetes.net.cidr",
 * Kubernetes 1.30+), as k8s.io/apiserver v0.36 implements it in
 * `pkg/cel/library/cidr.go`:
 *
 * - `cidr(string) net.CIDR`, `isCIDR(string) bool`
 * - `CIDR.containsIP(string | net.IP) bool`, `CIDR.containsCIDR(string | net.CIDR) bool`
 * - `CIDR.ip() net.IP`, `CIDR.prefixLength() int`, `CIDR.masked() net.CIDR`
 * - `string(CIDR) string`, and `==` between CIDRs
 *
 * Parsing is Go's `netip.ParsePrefix` (host bits kept: `cidr('10.0.0.1/8')` is
 * valid and `ip()` returns `10.0.0.1`; zones rejected by netip) plus the
 * library's rule against IPv4-mapped IPv6 addresses. Quirks kept on purpose:
 *
 * - a parse error is wrapped twice: "network address parse error during
 *   conversion from string: network address parse error during conversion
 *   from string: netip.ParsePrefix(…)…";
 * - `containsIP('<not an IP>')` fails with "no such overload" (the library
 *   drops the parse error), while `containsCIDR('<not a CIDR>')` fails with
 *   the parse error.
 *
 * Uses the `net.IP` type of the IP library; an environment with this library
 * should also have {@link IP_LIBRARY} (Kubernetes always installs both). The
 * type name `net.CIDR` must be resolved by the environment's type provider
 * ({@link CIDR_TYPE}), as for `net.IP`.
 *
 * Difference from Kubernetes (engine equality): comparing a value of this type
 * with a value of another type through `dyn` (`dyn(x) == 'a'`) is false here;
 * in Kubernetes the type's `Equal` returns the error "no such overload".
 */
import { func, memberOverload, overload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { goQuote } from "../ext/go-format.js";
import { BOOL, INT, STRING, opaqueType } from "../types.js";
import { CelObject, type CelValue } from "../values.js";
import { CelIP, IP_TYPE, parseIPAddr } from "./ip.js";
import {
  FIXED_1,
  STRING_TRAVERSAL_COST_FACTOR,
  UNKNOWN_SIZE,
  addCost,
  addRanges,
  actualSize,
  multiplyByCostFactor,
  scaleRange,
  type CostEntry,
  type CostRange,
} from "./cost-model.js";
import { GoParseError, parsePrefix, type Prefix } from "./netip.js";

/** `net.CIDR` (cel-go `cel.OpaqueType("net.CIDR")`). */
export const CIDR_TYPE = opaqueType("net.CIDR");

/** A CEL `net.CIDR` value. */
export class CelCIDR extends CelObject {
  readonly celType = CIDR_TYPE;
  constructor(readonly prefix: Prefix) {
    super();
  }
  /** Go `netip.Prefix` equality: same address (host bits included) and length. */
  /** Go `CIDR.Equal`: another type is "no such overload". */
  override equals(other: CelValue): boolean {
    if (!(other instanceof CelCIDR)) throw new CelEvalError("no such overload");
    return this.prefix.equals(other.prefix);
  }
  override toString(): string {
    return this.prefix.toString();
  }
  /** The size the Kubernetes cost model uses: the prefix length in bytes, rounded up. */
  size(): number {
    return Math.ceil(this.prefix.bits / 8);
  }
}

const PARSE_ERROR_PREFIX = "network address parse error during conversion from string: ";

/** The library's `parseCIDR`; its message is the inner part of `cidr()`'s error. */
function parseCIDR(raw: string): Prefix {
  let p: Prefix;
  try {
    p = parsePrefix(raw);
  } catch (e) {
    if (e instanceof GoParseError) throw new CelEvalError(PARSE_ERROR_PREFIX + e.message);
    throw e;
  }
  if (p.addr.is4In6) throw new CelEvalError(`IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`);
  return p;
}

export function stringToCIDR(s: string): CelCIDR {
  try {
    return new CelCIDR(parseCIDR(s));
  } catch (e) {
    if (e instanceof CelEvalError) throw new CelEvalError(PARSE_ERROR_PREFIX + e.message);
    throw e;
  }
}

export function isCIDR(s: string): boolean {
  try {
    parseCIDR(s);
    return true;
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
}

export function cidrContainsIP(c: CelCIDR, ip: CelIP): boolean {
  return c.prefix.contains(ip.addr);
}

/** The string overload: a string that is not an IP gives "no such overload", as in Kubernetes. */
export function cidrContainsIPString(c: CelCIDR, s: string): boolean {
  let ip: CelIP;
  try {
    ip = new CelIP(parseIPAddr(s));
  } catch (e) {
    if (e instanceof CelEvalError) throw new CelEvalError("no such overload");
    throw e;
  }
  return cidrContainsIP(c, ip);
}

/** `other` lies within `c`: the prefixes overlap and `c` is no longer than `other`. */
export function cidrContainsCIDR(c: CelCIDR, other: CelCIDR): boolean {
  return c.prefix.overlaps(other.prefix) && c.prefix.bits <= other.prefix.bits;
}

export function cidrContainsCIDRString(c: CelCIDR, s: string): boolean {
  return cidrContainsCIDR(c, stringToCIDR(s));
}

export const CIDR_LIBRARY: Library = {
  name: "kubernetes.net.cidr",
  /** Cost rules for the estimator and run-time tracking (`cost` below; a getter, as it is defined later). */
  get costs() {
    return cost;
  },
  /** `cel.Types(CIDRType)`: `net.CIDR` is a type identifier. */
  types: [CIDR_TYPE],
  functions: [
    func("cidr", overload("string_to_cidr", [STRING], CIDR_TYPE, stringToCIDR)),
    func(
      "containsIP",
      memberOverload("cidr_contains_ip_string", [CIDR_TYPE, STRING], BOOL, cidrContainsIPString),
      memberOverload("cidr_contains_ip_ip", [CIDR_TYPE, IP_TYPE], BOOL, cidrContainsIP),
    ),
    func(
      "containsCIDR",
      memberOverload("cidr_contains_cidr_string", [CIDR_TYPE, STRING], BOOL, cidrContainsCIDRString),
      memberOverload("cidr_contains_cidr", [CIDR_TYPE, CIDR_TYPE], BOOL, cidrContainsCIDR),
    ),
    func("ip", memberOverload("cidr_ip", [CIDR_TYPE], IP_TYPE, (c: CelCIDR) => new CelIP(c.prefix.addr))),
    func(
      "prefixLength",
      memberOverload("cidr_prefix_length", [CIDR_TYPE], INT, (c: CelCIDR) => BigInt(c.prefix.bits)),
    ),
    func("masked", memberOverload("cidr_masked", [CIDR_TYPE], CIDR_TYPE, (c: CelCIDR) => new CelCIDR(c.prefix.masked()))),
    func("isCIDR", overload("is_cidr", [STRING], BOOL, isCIDR)),
    func("string", overload("cidr_to_string", [CIDR_TYPE], STRING, (c: CelCIDR) => c.prefix.toString())),
  ],
};

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go).

/** Bytes of an IPv4 or IPv6 address: the estimator's size for both sides of a comparison. */
const IP_BYTES: CostRange = { min: 4n, max: 16n };
/** (4..16 + 4..16) × 0.1 → 1..4: comparing two byte lists. */
const IP_COMPARE = scaleRange(addRanges(IP_BYTES, IP_BYTES), STRING_TRAVERSAL_COST_FACTOR);
const t = (n: bigint, f = STRING_TRAVERSAL_COST_FACTOR) => multiplyByCostFactor(n, f);

/** Cost of every overload of the CIDR library, by overload id (`_==_` on two CIDRs under `equals_cidr`). */
export const cost: Readonly<Record<string, CostEntry>> = {
  string_to_cidr: {
    function: "cidr",
    estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
    actual: (args) => t(actualSize(args[0])),
    note: "string traversal: ceil(size(s) × 0.1)",
  },
  is_cidr: {
    function: "isCIDR",
    estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
    actual: (args) => t(actualSize(args[0])),
    note: "string traversal: ceil(size(s) × 0.1)",
  },
  cidr_contains_ip_ip: {
    function: "containsIP",
    estimate: () => IP_COMPARE,
    actual: (args) => t(2n * actualSize(args[0])),
    note: "estimate ceil((4..16)·2 × 0.1) = 1..4; actual ceil(2·cidrBytes × 0.1), cidrBytes = ceil(prefixLength/8)",
  },
  cidr_contains_ip_string: {
    function: "containsIP",
    estimate: (args) => addRanges(IP_COMPARE, scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR)),
    actual: (args) => addCost(t(2n * actualSize(args[0])), t(actualSize(args[1]))),
    note: "as cidr_contains_ip_ip plus ceil(size(s) × 0.1) to parse the string",
  },
  cidr_contains_cidr: {
    function: "containsCIDR",
    estimate: () => addRanges(addRanges(IP_COMPARE, scaleRange(IP_BYTES, STRING_TRAVERSAL_COST_FACTOR)), FIXED_1),
    actual: (args) => {
      const c = actualSize(args[0]);
      return addCost(t(2n * c), addCost(t(c), 1n));
    },
    note: "estimate 1..4 + ceil((4..16) × 0.1) + 1 = 3..7; actual ceil(2c × 0.1) + ceil(c × 0.1) + 1, c = cidrBytes",
  },
  cidr_contains_cidr_string: {
    function: "containsCIDR",
    estimate: (args) =>
      addRanges(
        addRanges(addRanges(IP_COMPARE, scaleRange(IP_BYTES, STRING_TRAVERSAL_COST_FACTOR)), FIXED_1),
        scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
      ),
    actual: (args) => {
      const c = actualSize(args[0]);
      return addCost(addCost(t(2n * c), addCost(t(c), 1n)), t(actualSize(args[1])));
    },
    note: "as cidr_contains_cidr plus ceil(size(s) × 0.1) to parse the string",
  },
  cidr_ip: { function: "ip", estimate: () => FIXED_1, actual: () => 1n, note: "field access: 1" },
  cidr_prefix_length: { function: "prefixLength", estimate: () => FIXED_1, actual: () => 1n, note: "accessor: 1" },
  cidr_masked: { function: "masked", estimate: () => FIXED_1, actual: () => 1n, note: "accessor: 1" },
  equals_cidr: { function: "_==_", estimate: () => FIXED_1, actual: () => 1n, note: "equality of two net.CIDR values: 1" },
};
