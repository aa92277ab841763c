/** The extension and time libraries through the whole engine: parse (and check), plan, evaluate. */
import { describe, expect, it } from "vitest";
import { Env } from "../env.js";
import { CelEvalError } from "../errors.js";
import { DYN } from "../types.js";
import { CelUint, type CelValue } from "../values.js";
import { ENCODERS_LIBRARY } from "./encoders.js";
import { listsLibrary } from "./lists.js";
import { mathLibrary } from "./math.js";
import { SETS_LIBRARY } from "./sets.js";
import { stringsLibrary } from "./strings.js";

const k8s = new Env({
  libraries: [stringsLibrary(2), listsLibrary(3), SETS_LIBRARY],
  variables: { obj: DYN },
  homogeneousAggregateLiterals: true,
  crossTypeNumericComparisons: true,
});
const latest = new Env({ libraries: [stringsLibrary(), listsLibrary(), SETS_LIBRARY, mathLibrary(), ENCODERS_LIBRARY], variables: { obj: DYN } });

const obj = new Map<string, CelValue>([
  ["name", "web-frontend"],
  ["labels", new Map<string, CelValue>([["app", "web"], ["tier", "frontend"]])],
  ["ports", [8080n, 443n, 80n, 443n]],
  ["created", "2024-03-10T12:30:00-08:00"],
]);

function run(env: Env, expr: string, checked: boolean): CelValue {
  const ast = checked ? env.compile(expr) : env.parse(expr);
  return env.program(ast).eval({ obj });
}

function errorOf(env: Env, expr: string, checked: boolean): string {
  try {
    run(env, expr, checked);
  } catch (e) {
    if (e instanceof CelEvalError) return e.message;
    throw e;
  }
  return "no error";
}

describe.each([false, true])("evaluation (checked: %s)", (checked) => {
  it.each<[string, CelValue]>([
    ["obj.name.split('-')", ["web", "frontend"]],
    ["obj.name.substring(4).upperAscii()", "FRONTEND"],
    ["obj.name.indexOf('front') + obj.name.lastIndexOf('e')", 13n],
    ["'  x  '.trim() + obj.name.charAt(0)", "xw"],
    ["['a', 'b'].join(',')", "a,b"],
    ["'%s runs %d ports: %s'.format([obj.name, size(obj.ports), obj.ports])", "web-frontend runs 4 ports: [8080, 443, 80, 443]"],
    ["'%.2f'.format([1234.5])", "1,234.50"],
    ["strings.quote('a\"b')", '"a\\"b"'],
    ["obj.name.replace('-', '_', 1)", "web_frontend"],
    ["obj.ports.distinct().sort()", [80n, 443n, 8080n]],
    ["obj.ports.slice(1, 3).reverse()", [80n, 443n]],
    ["[[1, 2], [3]].flatten()", [1n, 2n, 3n]],
    ["lists.range(3)", [0n, 1n, 2n]],
    ["sets.contains(obj.ports, [80, 443])", true],
    ["sets.intersects([1, 2], [dyn(2.0)])", true],
    ["sets.equivalent(['a'], ['a', 'a'])", true],
    ["timestamp(obj.created).getHours()", 20n],
    ["timestamp(obj.created).getHours('America/Los_Angeles')", 13n],
    ["string(timestamp(obj.created))", "2024-03-10T12:30:00-08:00"],
    ["string(timestamp(obj.created) + duration('1h30m'))", "2024-03-10T14:00:00-08:00"],
    ["timestamp('2024-01-01T00:00:00Z') - timestamp('2023-12-31T00:00:00Z') == duration('24h')", true],
    ["duration('90m').getHours()", 1n],
    ["string(duration('1h30m'))", "5400s"],
    ["int(timestamp('1970-01-01T00:00:10Z'))", 10n],
    ["timestamp(0) < timestamp('2000-01-01T00:00:00Z')", true],
  ])("%s", (expr, want) => {
    expect(run(k8s, expr, checked)).toEqual(want);
  });

  it.each<[string, CelValue]>([
    ["'gums'.reverse()", "smug"],
    ["'%s'.format([[1.5, 'a']])", "[1.5, a]"],
    ["'%e'.format([1234.5])", "1.234500e+03"],
    ["math.abs(-5)", 5n],
    ["math.bitNot(0u)", new CelUint(18446744073709551615n)],
    ["math.round(-2.5)", -3],
    ["math.bitShiftRight(-1024, 3)", 2305843009213693824n],
    ["math.sqrt(16)", 4],
    ["base64.encode(b'hello')", "aGVsbG8="],
    ["base64.decode('aGVsbG8')", new TextEncoder().encode("hello")],
  ])("latest: %s", (expr, want) => {
    expect(run(latest, expr, checked)).toEqual(want);
  });

  it.each<[string, string]>([
    ["'abc'.charAt(5)", "index out of range: 5"],
    ["'%d'.format(['x'])", "error during formatting: decimal clause can only be used on integers, was given string"],
    ["[1].slice(0, 2)", "cannot slice(0, 2), list is length 1"],
    ["timestamp('2024-13-01T00:00:00Z')", "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ["timestamp('9999-12-31T23:59:59Z') + duration('1s')", "timestamp overflow"],
    ["duration('1d')", "type conversion error from 'string' to 'google.protobuf.Duration'"],
    ["timestamp('2024-01-01T00:00:00Z').getHours('Nowhere/Land')", "unknown time zone Nowhere/Land"],
  ])("error: %s", (expr, want) => {
    expect(errorOf(k8s, expr, checked && !expr.includes("format"))).toBe(want);
  });
});

describe("versions are enforced by the environment", () => {
  it("Kubernetes' strings version 2 has no reverse()", () => {
    expect(() => k8s.compile("'abc'.reverse()")).toThrow(/found no matching overload|undeclared/);
  });
});
