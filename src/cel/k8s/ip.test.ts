/**
 * The IP library through the whole engine. Expected values and messages come
 * from k8s.io/apiserver `pkg/cel/library/ip_test.go` (v0.36.3), the library's
 * doc comments, and Go's `net/netip` behaviour.
 */
import { describe, expect, it } from "vitest";
import type { TypeProvider } from "../decls.js";
import { Env } from "../env.js";
import { CelCompileError, CelEvalError } from "../errors.js";
import type { CelValue } from "../values.js";
import { CIDR_LIBRARY, CIDR_TYPE } from "./cidr.js";
import { CelIP, IP_LIBRARY, IP_TYPE, cost } from "./ip.js";
import { GoParseError, parseAddr, parsePrefix } from "./netip.js";

/** Resolves the type names `net.IP` and `net.CIDR`, as the Kubernetes environment does. */
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

type Expect = { value: CelValue } | { ip: string } | { error: string } | { compileError: RegExp };

const cases: [string, Expect][] = [
  // From ip_test.go.
  ['ip("192.168.0.1")', { ip: "192.168.0.1" }],
  [
    'ip("192.168.0.1.0")',
    { error: 'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long' },
  ],
  ['isIP("192.168.0.1")', { value: true }],
  ['isIP("192.168.0.1.0")', { value: false }],
  ['ip.isCanonical("127.0.0.1")', { value: true }],
  [
    'ip.isCanonical("127.0.0.1.0")',
    { error: 'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long' },
  ],
  ['ip("192.168.0.1").family()', { value: 4n }],
  ['ip("0.0.0.0").isUnspecified()', { value: true }],
  ['ip("127.0.0.1").isUnspecified()', { value: false }],
  ['ip("127.0.0.1").isLoopback()', { value: true }],
  ['ip("1.2.3.4").isLoopback()', { value: false }],
  ['ip("224.0.0.1").isLinkLocalMulticast()', { value: true }],
  ['ip("224.0.1.1").isLinkLocalMulticast()', { value: false }],
  ['ip("169.254.169.254").isLinkLocalUnicast()', { value: true }],
  ['ip("192.168.0.1").isLinkLocalUnicast()', { value: false }],
  ['ip("192.168.0.1").isGlobalUnicast()', { value: true }],
  ['ip("255.255.255.255").isGlobalUnicast()', { value: false }],
  ['ip("2001:db8::68")', { ip: "2001:db8::68" }],
  [
    'ip("2001:db8:::68")',
    {
      error:
        'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    },
  ],
  ['isIP("2001:db8::68")', { value: true }],
  ['isIP("2001:db8:::68")', { value: false }],
  ['ip.isCanonical("2001:db8::68")', { value: true }],
  ['ip.isCanonical("2001:DB8::68")', { value: false }],
  [
    'ip.isCanonical("2001:db8:::68")',
    {
      error:
        'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    },
  ],
  ['ip("2001:db8::68").family()', { value: 6n }],
  ['ip("::").isUnspecified()', { value: true }],
  ['ip("::1").isUnspecified()', { value: false }],
  ['ip("::1").isLoopback()', { value: true }],
  ['ip("2001:db8::abcd").isLoopback()', { value: false }],
  ['ip("ff02::1").isLinkLocalMulticast()', { value: true }],
  ['ip("fd00::1").isLinkLocalMulticast()', { value: false }],
  ['ip("fe80::1").isLinkLocalUnicast()', { value: true }],
  ['ip("fd80::1").isLinkLocalUnicast()', { value: false }],
  ['ip("2001:db8::abcd").isGlobalUnicast()', { value: true }],
  ['ip("ff00::1").isGlobalUnicast()', { value: false }],
  ['isIP(cidr("192.168.0.0/24"))', { compileError: /found no matching overload for 'isIP' applied to '\(net\.CIDR\)'/ }],
  ['string(ip("192.168.0.1"))', { value: "192.168.0.1" }],
  ['type(ip("192.168.0.1")) == net.IP', { value: true }],
  // The library's doc comments.
  ["ip('127.0.0.1').family() == 4", { value: true }],
  ["ip('::1').family() == 6", { value: true }],
  ["ip('192.168.0.1').isLoopback()", { value: false }],
  ["ip.isCanonical('2001:db8::abcd')", { value: true }],
  ["ip.isCanonical('2001:db8::0:0:0:abcd')", { value: false }],
  [
    "ip('127.0.0.256')",
    { error: 'IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255' },
  ],
  ["isIP(':::1')", { value: false }],
  // The library's extra rules: no zones, no IPv4-mapped IPv6; netip: no leading zeros.
  ["ip('fe80::1%eth0')", { error: 'IP address "fe80::1%eth0" with zone value is not allowed' }],
  ["ip('::ffff:1.2.3.4')", { error: 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed' }],
  ["isIP('::ffff:1.2.3.4')", { value: false }],
  ["isIP('fe80::1%eth0')", { value: false }],
  [
    "ip('01.2.3.4')",
    { error: 'IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero' },
  ],
  [
    "ip('::1.2.3.04')",
    { error: 'IP Address "::1.2.3.04" parse error during conversion from string: ParseAddr("::1.2.3.04"): IPv4 field has octet with leading zero' },
  ],
  [
    "ip('')",
    { error: 'IP Address "" parse error during conversion from string: ParseAddr(""): unable to parse IP' },
  ],
  [
    "ip('%eth0')",
    { error: 'IP Address "%eth0" parse error during conversion from string: ParseAddr("%eth0"): missing IPv6 address' },
  ],
  [
    "ip('1:2:3:4:5:6:7:8:9')",
    {
      error:
        'IP Address "1:2:3:4:5:6:7:8:9" parse error during conversion from string: ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")',
    },
  ],
  [
    "ip('12345::')",
    {
      error:
        'IP Address "12345::" parse error during conversion from string: ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")',
    },
  ],
  [
    "ip('1.2.3')",
    { error: 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short' },
  ],
  [
    "ip('1::2::3')",
    { error: 'IP Address "1::2::3" parse error during conversion from string: ParseAddr("1::2::3"): multiple :: in address (at ":3")' },
  ],
  [
    "ip('1:2:3:4:5:6:7::8')",
    {
      error:
        'IP Address "1:2:3:4:5:6:7::8" parse error during conversion from string: ParseAddr("1:2:3:4:5:6:7::8"): the :: must expand to at least one field of zeros',
    },
  ],
  // Canonical forms (netip Addr.String, RFC 5952).
  ["string(ip('2001:DB8:0:0:1:0:0:1'))", { value: "2001:db8::1:0:0:1" }],
  ["string(ip('0:0:0:0:0:0:0:1'))", { value: "::1" }],
  ["string(ip('1:0:0:0:0:0:0:0'))", { value: "1::" }],
  ["string(ip('1:0:2:3:4:5:6:7'))", { value: "1:0:2:3:4:5:6:7" }],
  ["string(ip('::1.2.3.4'))", { value: "::102:304" }],
  ["ip.isCanonical('::102:304')", { value: true }],
  // Equality is netip.Addr equality.
  ["ip('2001:db8::1') == ip('2001:DB8:0::1')", { value: true }],
  ["ip('10.0.0.1') != ip('10.0.0.2')", { value: true }],
  ["ip('0.0.0.0') == ip('::')", { value: false }],
  // Classifiers beyond the upstream table.
  ["ip('0.0.0.0').isGlobalUnicast()", { value: false }],
  ["ip('::').isGlobalUnicast()", { value: false }],
  ["ip('fe80::1').isGlobalUnicast()", { value: false }],
  ["ip('fd00::1').isGlobalUnicast()", { value: true }],
  ["ip('ff12::1').isLinkLocalMulticast()", { value: true }],
  ["ip('224.0.0.255').isLinkLocalMulticast()", { value: true }],
  ["ip('127.255.0.1').isLoopback()", { value: true }],
  // Wrong argument types are compile errors.
  ["ip(1)", { compileError: /found no matching overload for 'ip' applied to '\(int\)'/ }],
  ["'1.2.3.4'.family()", { compileError: /found no matching overload for 'family' applied to 'string\.\(\)'/ }],
  ["ip.isCanonical(ip('1.2.3.4'))", { compileError: /found no matching overload for 'ip.isCanonical' applied to '\(net\.IP\)'/ }],
  ["ip('1.2.3.4') == '1.2.3.4'", { compileError: /found no matching overload for '_==_' applied to '\(net\.IP, string\)'/ }],
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
  if ("ip" in want) {
    expect(got).toBeInstanceOf(CelIP);
    expect((got as CelIP).addr.toString()).toBe(want.ip);
  } else {
    expect(got).toEqual(want.value);
  }
}

describe("IP library", () => {
  it.each(cases)("%s", (expr, want) => check(expr, want, true));
});

describe("IP library, unchecked (dynamic dispatch)", () => {
  it.each(cases.filter(([, w]) => !("compileError" in w)))("%s", (expr, want) => check(expr, want, false));
});

describe("IP cost table", () => {
  it("charges parsing by string length and accessors 1", () => {
    expect(cost.string_to_ip!.actual(["192.168.0.1"])).toBe(2n);
    expect(cost.ip_is_canonical!.actual(["2001:db8::68"])).toBe(3n);
    // cost_test.go: ip.isCanonical costs 3, 8 and 3 for these.
    expect(["192.168.0.1", "2001:db8:3333:4444:5555:6666:7777:8888", "2001:db8::abcd"].map((s) => cost.ip_is_canonical!.actual([s]))).toEqual([3n, 8n, 3n]);
    expect(cost.ip_is_canonical!.estimate([{ min: 38n, max: 38n }])).toEqual({ min: 8n, max: 8n });
    expect(cost.string_to_ip!.estimate([{ min: 0n, max: 45n }])).toEqual({ min: 0n, max: 5n });
    expect(cost.ip_family!.actual([run("ip('::1')")])).toBe(1n);
  });
});

describe("netip port (Go net/netip test vectors)", () => {
  it.each<[string, string]>([
    ["0.0.0.0", "0.0.0.0"],
    ["192.168.140.255", "192.168.140.255"],
    ["::", "::"],
    ["::1", "::1"],
    ["fd7a:115c:a1e0:ab12:4843:cd96:626b:430b", "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b"],
    ["fd7a:115c::626b:430b", "fd7a:115c::626b:430b"],
    ["fd7a:115c:a1e0:ab12:4843:cd96::", "fd7a:115c:a1e0:ab12:4843:cd96::"],
    ["fd7a:115c:a1e0:ab12:4843:cd96:626b::", "fd7a:115c:a1e0:ab12:4843:cd96:626b:0"],
    ["fd7a:115c:a1e0::4843:cd96:626b:430b", "fd7a:115c:a1e0:0:4843:cd96:626b:430b"],
    ["::ffff:192.168.140.255", "::ffff:192.168.140.255"],
    ["fd7a:115c:a1e0:ab12:4843:cd96:626b:430b%eth0", "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b%eth0"],
    ["1:2::ffff:192.168.140.255%eth1", "1:2::ffff:c0a8:8cff%eth1"],
    ["::ffff:192.168.140.255%eth1", "::ffff:192.168.140.255%eth1"],
    ["FD9E:1A04:F01D::1", "fd9e:1a04:f01d::1"],
  ])("ParseAddr(%s).String() = %s", (input, want) => {
    expect(parseAddr(input).toString()).toBe(want);
  });

  it.each([
    "", "bad", "1234", "1.2.3.4%eth0", ".1.2.3", "1.2.3.", "1..2.3", "1.2.3.4.5", "0300.0250.0214.0377",
    "0xc0.0xa8.0x8c.0xff", "192.168.12345", "127.0.1", "192.1234567", "127.1", "192.168.300.1", "192.168.0.1.5.6",
    "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1:2:3:4::5:6:7:8", "fe801::1", "fe80:tail:scal:e::", "fe80::1%",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:192.168.140.255", "ffff::ffff:ffff:ffff:ffff:ffff:ffff:192.168.140.255",
    "::ffff:192.168.140.bad", "fe80::1::1", "fe80:1?:1", "fe80:", "010.000.015.001", "::ffff:1.2.03.4",
  ])("ParseAddr(%j) fails", (input) => {
    expect(() => parseAddr(input)).toThrow(GoParseError);
  });

  it.each<[string, string]>([
    ["1.2.3.4/24", "1.2.3.4/24"],
    ["fd7a:115c:a1e0:ab12:4843:cd96:626b:430b/118", "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b/118"],
    ["::ffff:c000:0280/96", "::ffff:192.0.2.128/96"],
  ])("ParsePrefix(%s).String() = %s", (input, want) => {
    expect(parsePrefix(input).toString()).toBe(want);
  });
});
