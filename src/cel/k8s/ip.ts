/**
 * The Kubernetes IP library (`library.IP()`, "kubernetes.net.ip", Kubernetes
 * 1.30+), as k8s.io/apiserver v0.36 implements it in `pkg/cel/library/ip.go`:
 *
 * - `ip(string) net.IP`, `isIP(string) bool`, `ip.isCanonical(string) bool`
 * - `IP.family() int`, `IP.isUnspecified()`, `IP.isLoopback()`,
 *   `IP.isLinkLocalMulticast()`, `IP.isLinkLocalUnicast()`, `IP.isGlobalUnicast()`
 * - `string(IP) string`, and `==` between IPs
 *
 * Parsing is Go's `netip.ParseAddr` plus two rules of the library: addresses
 * with a zone (`fe80::1%eth0`) and IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`)
 * are rejected. netip itself rejects IPv4 octets with leading zeros.
 *
 * The type `net.IP` is an opaque type. A `Library` cannot declare type names, so
 * for the identifier `net.IP` (as in `type(x) == net.IP`) the environment's
 * type provider must resolve it: {@link IP_TYPE} is the type to return.
 *
 * Difference from Kubernetes (engine equality): comparing a value of this type
 * with a value of another type through `dyn` (`dyn(x) == 'a'`) is false here;
 * in Kubernetes the type's `Equal` returns the error "no such overload".
 */
import { func, memberOverload, overload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { BOOL, INT, STRING, opaqueType } from "../types.js";
import { CelObject, type CelValue } from "../values.js";
import { goQuote } from "../ext/go-format.js";
import {
  FIXED_1,
  STRING_TRAVERSAL_COST_FACTOR,
  UNKNOWN_SIZE,
  actualSize,
  multiplyByCostFactor,
  scaleRange,
  type CostEntry,
} from "./cost-model.js";
import { Addr, GoParseError, parseAddr } from "./netip.js";

/** `net.IP` (cel-go `cel.OpaqueType("net.IP")`). */
export const IP_TYPE = opaqueType("net.IP");

/** A CEL `net.IP` value. */
export class CelIP extends CelObject {
  readonly celType = IP_TYPE;
  constructor(readonly addr: Addr) {
    super();
  }
  /** Go `netip.Addr` equality (family, bits, zone). */
  /** Go `IP.Equal`: another type is "no such overload" (cel-go asks the left operand). */
  override equals(other: CelValue): boolean {
    if (!(other instanceof CelIP)) throw new CelEvalError("no such overload");
    return this.addr.equals(other.addr);
  }
  override toString(): string {
    return this.addr.toString();
  }
  /** The size the Kubernetes cost model uses: bytes of the address (4 or 16). */
  size(): number {
    return Math.ceil(this.addr.bitLen / 8);
  }
}

/**
 * The library's `parseIPAddr`: netip parsing, then no zone and no IPv4-mapped
 * IPv6. Throws {@link CelEvalError} with the library's message.
 */
export function parseIPAddr(raw: string): Addr {
  let addr: Addr;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    if (e instanceof GoParseError) {
      throw new CelEvalError(`IP Address ${goQuote(raw)} parse error during conversion from string: ${e.message}`);
    }
    throw e;
  }
  if (addr.zone !== "") throw new CelEvalError(`IP address ${goQuote(raw)} with zone value is not allowed`);
  if (addr.is4In6) throw new CelEvalError(`IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`);
  return addr;
}

export function stringToIP(s: string): CelIP {
  return new CelIP(parseIPAddr(s));
}

export function isIP(s: string): boolean {
  try {
    parseIPAddr(s);
    return true;
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
}

/** `ip.isCanonical`: an error (not false) for an unparsable string, as in Kubernetes. */
export function ipIsCanonical(s: string): boolean {
  return parseIPAddr(s).toString() === s;
}

export const IP_LIBRARY: Library = {
  name: "kubernetes.net.ip",
  /** Cost rules for the estimator and run-time tracking (`cost` below; a getter, as it is defined later). */
  get costs() {
    return cost;
  },
  /** `cel.Types(IPType)`: `net.IP` is a type identifier. */
  types: [IP_TYPE],
  functions: [
    func("ip", overload("string_to_ip", [STRING], IP_TYPE, stringToIP)),
    func(
      "family",
      memberOverload("ip_family", [IP_TYPE], INT, (ip: CelIP) => (ip.addr.is4 ? 4n : 6n)),
    ),
    func("ip.isCanonical", overload("ip_is_canonical", [STRING], BOOL, ipIsCanonical)),
    func(
      "isUnspecified",
      memberOverload("ip_is_unspecified", [IP_TYPE], BOOL, (ip: CelIP) => ip.addr.isUnspecified()),
    ),
    func("isLoopback", memberOverload("ip_is_loopback", [IP_TYPE], BOOL, (ip: CelIP) => ip.addr.isLoopback())),
    func(
      "isLinkLocalMulticast",
      memberOverload("ip_is_link_local_multicast", [IP_TYPE], BOOL, (ip: CelIP) => ip.addr.isLinkLocalMulticast()),
    ),
    func(
      "isLinkLocalUnicast",
      memberOverload("ip_is_link_local_unicast", [IP_TYPE], BOOL, (ip: CelIP) => ip.addr.isLinkLocalUnicast()),
    ),
    func(
      "isGlobalUnicast",
      memberOverload("ip_is_global_unicast", [IP_TYPE], BOOL, (ip: CelIP) => ip.addr.isGlobalUnicast()),
    ),
    func("isIP", overload("is_ip", [STRING], BOOL, isIP)),
    func("string", overload("ip_to_string", [IP_TYPE], STRING, (ip: CelIP) => ip.addr.toString())),
  ],
};

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go), for the cost estimator.

const traversal = (args: readonly CelValue[]) => multiplyByCostFactor(actualSize(args[0]), STRING_TRAVERSAL_COST_FACTOR);
const nominal: Pick<CostEntry, "estimate" | "actual"> = { estimate: () => FIXED_1, actual: () => 1n };

/** Cost of every overload of the IP library, by overload id (`_==_` on two IPs under `equals_ip`). */
export const cost: Readonly<Record<string, CostEntry>> = {
  string_to_ip: {
    function: "ip",
    estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
    actual: traversal,
    note: "string traversal: ceil(size(s) × 0.1)",
  },
  is_ip: {
    function: "isIP",
    estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, STRING_TRAVERSAL_COST_FACTOR),
    actual: traversal,
    note: "string traversal: ceil(size(s) × 0.1)",
  },
  ip_is_canonical: {
    function: "ip.isCanonical",
    estimate: (args) => scaleRange(args[0] ?? UNKNOWN_SIZE, 2 * STRING_TRAVERSAL_COST_FACTOR),
    actual: (args) => multiplyByCostFactor(actualSize(args[0]), 2 * STRING_TRAVERSAL_COST_FACTOR),
    note: "parse and compare: ceil(size(s) × 0.2)",
  },
  ip_family: { function: "family", ...nominal, note: "accessor: 1" },
  ip_is_unspecified: { function: "isUnspecified", ...nominal, note: "accessor: 1" },
  ip_is_loopback: { function: "isLoopback", ...nominal, note: "accessor: 1" },
  ip_is_link_local_multicast: { function: "isLinkLocalMulticast", ...nominal, note: "accessor: 1" },
  ip_is_link_local_unicast: { function: "isLinkLocalUnicast", ...nominal, note: "accessor: 1" },
  ip_is_global_unicast: { function: "isGlobalUnicast", ...nominal, note: "accessor: 1" },
  equals_ip: { function: "_==_", ...nominal, note: "equality of two net.IP values: 1" },
};
