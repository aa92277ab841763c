/**
 * The CIDR library through the whole engine. Expected values and messages come
 * from k8s.io/apiserver `pkg/cel/library/cidr_test.go` (v0.36.3), the library's
 * source (its error wrapping and `containsIP` quirk) and Go's `net/netip`.
 */
import { describe, expect, it } from "vitest";
import type { TypeProvider } from "../decls.js";
import { Env } from "../env.js";
import { CelCompileError, CelEvalError } from "../errors.js";
import type { CelValue } from "../values.js";
import { CIDR_LIBRARY, CIDR_TYPE, CelCIDR, cost } from "./cidr.js";
import { CelIP, IP_LIBRARY, IP_TYPE } from "./ip.js";

const netTypes: TypeProvider = {
  findType: (name) => (name === "net.IP" ? IP_TYPE : name === "net.CIDR" ? CIDR_TYPE : undefined),
  findFieldType: () => undefined,
  newValue: () => {
    throw new CelEvalError("not constructible");
  },
};

const env = new Env({
  libraries: [IP_LIBRARY, CIDR_LIBRARY],
  typeProvider: netTypes,
  homogeneousAggregateLiterals: true,
  crossTypeNumericComparisons: true,
});

function run(expr: string, checked = true): CelValue {
  return env.program(checked ? env.compile(expr) : env.parse(expr)).eval({});
}

const P = "network address parse error during conversion from string: ";
type Expect = { value: CelValue } | { cidr: string } | { ip: string } | { error: string } | { compileError: RegExp };

const cases: [string, Expect][] = [
  // From cidr_test.go.
  ['cidr("192.168.0.0/24")', { cidr: "192.168.0.0/24" }],
  ['cidr("192.168.0.0/")', { error: `${P}${P}netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""` }],
  ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', { value: true }],
  ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', { value: false }],
  ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', { value: true }],
  ['cidr("192.168.0.0/24").containsIP("192.168.1.1")', { value: false }],
  ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', { value: true }],
  ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', { value: true }],
  ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', { value: false }],
  ['cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))', { value: false }],
  ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', { value: true }],
  ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', { value: false }],
  ['cidr("192.168.0.0/24").ip()', { ip: "192.168.0.0" }],
  ['cidr("192.168.0.0/24").masked()', { cidr: "192.168.0.0/24" }],
  ['cidr("192.168.0.1/24").masked()', { cidr: "192.168.0.0/24" }],
  ['cidr("192.168.0.0/24").prefixLength()', { value: 24n }],
  ['cidr("2001:db8::/32")', { cidr: "2001:db8::/32" }],
  ['cidr("2001:db8::/")', { error: `${P}${P}netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""` }],
  ['cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', { value: true }],
  ['cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', { value: false }],
  ['cidr("2001:db8::/32").containsIP("2001:db8::1")', { value: true }],
  ['cidr("2001:db8::/32").containsIP("2001:dc8::1")', { value: false }],
  ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', { value: true }],
  ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', { value: false }],
  ['cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', { value: true }],
  ['cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', { value: false }],
  ['cidr("2001:db8::/32").ip()', { ip: "2001:db8::" }],
  ['cidr("2001:db8::/32").masked()', { cidr: "2001:db8::/32" }],
  ['cidr("2001:db8:1::/32").masked()', { cidr: "2001:db8::/32" }],
  ['cidr("2001:db8::/32").prefixLength()', { value: 32n }],
  ['string(cidr("192.168.0.0/24"))', { value: "192.168.0.0/24" }],
  ['type(cidr("192.168.0.0/24")) == net.CIDR', { value: true }],
  // Host bits are kept until masked(); equality compares them.
  ["string(cidr('10.1.2.3/8'))", { value: "10.1.2.3/8" }],
  ["cidr('10.1.2.3/8').ip() == ip('10.1.2.3')", { value: true }],
  ["cidr('10.1.2.3/8') == cidr('10.0.0.0/8')", { value: false }],
  ["cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", { value: true }],
  ["string(cidr('2001:DB8::1/128'))", { value: "2001:db8::1/128" }],
  ["cidr('0.0.0.0/0').containsIP('255.255.255.255')", { value: true }],
  ["cidr('0.0.0.0/0').containsCIDR('10.0.0.0/8')", { value: true }],
  ["cidr('::/0').containsIP('10.0.0.1')", { value: false }],
  ["cidr('10.0.0.0/8').containsCIDR('10.0.0.0/8')", { value: true }],
  ["cidr('10.0.0.0/8').containsCIDR('2001:db8::/32')", { value: false }],
  ["cidr('10.0.0.1/8').containsCIDR('10.255.0.0/16')", { value: true }],
  ["isCIDR('10.0.0.0/8')", { value: true }],
  ["isCIDR('10.0.0.0')", { value: false }],
  ["isCIDR('::ffff:1.2.3.4/128')", { value: false }],
  // Errors, with the library's double wrapping and netip's messages.
  ["cidr('10.0.0.0')", { error: `${P}${P}netip.ParsePrefix("10.0.0.0"): no '/'` }],
  ["cidr('10.0.0.0/33')", { error: `${P}${P}netip.ParsePrefix("10.0.0.0/33"): prefix length out of range` }],
  ["cidr('10.0.0.0/024')", { error: `${P}${P}netip.ParsePrefix("10.0.0.0/024"): bad bits after slash: "024"` }],
  ["cidr('10.0.0.0/+8')", { error: `${P}${P}netip.ParsePrefix("10.0.0.0/+8"): bad bits after slash: "+8"` }],
  ["cidr('::/129')", { error: `${P}${P}netip.ParsePrefix("::/129"): prefix length out of range` }],
  [
    "cidr('fe80::1%eth0/64')",
    { error: `${P}${P}netip.ParsePrefix("fe80::1%eth0/64"): IPv6 zones cannot be present in a prefix` },
  ],
  [
    "cidr('10.0.0.01/8')",
    {
      error: `${P}${P}netip.ParsePrefix("10.0.0.01/8"): ParseAddr("10.0.0.01"): IPv4 field has octet with leading zero`,
    },
  ],
  ["cidr('::ffff:1.2.3.4/128')", { error: `${P}IPv4-mapped IPv6 address "::ffff:1.2.3.4/128" is not allowed` }],
  // containsIP drops the parse error of its string argument; containsCIDR keeps it.
  ["cidr('10.0.0.0/8').containsIP('10.0.0.300')", { error: "no such overload" }],
  ["cidr('10.0.0.0/8').containsIP('fe80::1%eth0')", { error: "no such overload" }],
  ["cidr('10.0.0.0/8').containsCIDR('10.0.0.0')", { error: `${P}${P}netip.ParsePrefix("10.0.0.0"): no '/'` }],
  // Wrong argument types are compile errors.
  ["cidr(ip('10.0.0.1'))", { compileError: /found no matching overload for 'cidr' applied to '\(net\.IP\)'/ }],
  [
    "cidr('10.0.0.0/8').containsIP(1)",
    { compileError: /found no matching overload for 'containsIP' applied to 'net\.CIDR\.\(int\)'/ },
  ],
  [
    "cidr('10.0.0.0/8').containsCIDR(ip('10.0.0.1'))",
    { compileError: /found no matching overload for 'containsCIDR' applied to 'net\.CIDR\.\(net\.IP\)'/ },
  ],
  ["ip('10.0.0.1').prefixLength()", { compileError: /found no matching overload for 'prefixLength' applied to 'net\.IP\.\(\)'/ }],
  ["cidr('10.0.0.0/8') == ip('10.0.0.0')", { compileError: /found no matching overload for '_==_'/ }],
];

function check(expr: string, want: Expect, checked: boolean): void {
  if ("compileError" in want) {
    let err: unknown;
    try {
      env.compile(expr);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CelCompileError);
    expect((err as Error).message).toMatch(want.compileError);
    return;
  }
  if ("error" in want) {
    expect(() => run(expr, checked)).toThrow(new CelEvalError(want.error));
    return;
  }
  const got = run(expr, checked);
  if ("cidr" in want) {
    expect(got).toBeInstanceOf(CelCIDR);
    expect((got as CelCIDR).prefix.toString()).toBe(want.cidr);
  } else if ("ip" in want) {
    expect(got).toBeInstanceOf(CelIP);
    expect((got as CelIP).addr.toString()).toBe(want.ip);
  } else {
    expect(got).toEqual(want.value);
  }
}

describe("CIDR library", () => {
  it.each(cases)("%s", (expr, want) => check(expr, want, true));
});

describe("CIDR library, unchecked (dynamic dispatch)", () => {
  it.each(cases.filter(([, w]) => !("compileError" in w)))("%s", (expr, want) => check(expr, want, false));
});

describe("CIDR cost table", () => {
  it("follows cost.go", () => {
    const c24 = run("cidr('192.168.0.0/24')");
    const c32 = run("cidr('2001:db8::/32')");
    // cidrSize = ceil(24/8) = 3: ceil(6 × 0.1) = 1; plus ceil(11 × 0.1) = 2 for the string.
    expect(cost.cidr_contains_ip_ip!.actual([c24, run("ip('192.168.0.1')")])).toBe(1n);
    expect(cost.cidr_contains_ip_string!.actual([c24, "192.168.0.1"])).toBe(3n);
    // cidrSize 4: ceil(0.8) + ceil(0.4) + 1 = 3.
    expect(cost.cidr_contains_cidr!.actual([c32, c32])).toBe(3n);
    expect(cost.cidr_contains_ip_ip!.estimate([])).toEqual({ min: 1n, max: 4n });
    expect(cost.cidr_contains_cidr!.estimate([])).toEqual({ min: 3n, max: 7n });
    expect(cost.cidr_contains_cidr_string!.estimate([{ min: 10n, max: 43n }])).toEqual({ min: 4n, max: 12n });
    expect(cost.string_to_cidr!.actual(["2001:db8::/32"])).toBe(2n);
  });
});
