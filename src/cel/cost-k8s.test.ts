/**
 * Costs with the Kubernetes libraries, against k8s.io/apiserver
 * `pkg/cel/library/cost_test.go` (`testCost`: cel-go defaults — no constant
 * folding — with the libraries' estimator; estimated and actual cost).
 */
import { describe, expect, test } from "vitest";
import { estimateCost } from "./cost.js";
import { kubernetesCostEstimator, KUBERNETES_STRINGS_COST_LIBRARY } from "./cost-k8s.js";
import { Env } from "./env.js";
import { listsLibrary } from "./ext/lists.js";
import { OPTIONAL_LIBRARY } from "./ext/optionals.js";
import { SETS_LIBRARY } from "./ext/sets.js";
import { stringsLibrary } from "./ext/strings.js";
import { AUTHORIZER_VARIABLES, AUTHZ_LIBRARY, AUTHZ_SELECTORS_LIBRARY, authorizerBindings, type Authorizer } from "./k8s/authz.js";
import { CIDR_LIBRARY } from "./k8s/cidr.js";
import { FORMAT_LIBRARY } from "./k8s/format.js";
import { IP_LIBRARY } from "./k8s/ip.js";
import { K8S_LISTS_LIBRARY } from "./k8s/lists.js";
import { QUANTITY_LIBRARY } from "./k8s/quantity.js";
import { REGEX_LIBRARY } from "./k8s/regex.js";
import { SEMVER_LIBRARY } from "./k8s/semver.js";
import { URLS_LIBRARY } from "./k8s/urls.js";

const env = new Env({
  libraries: [
    stringsLibrary(2),
    listsLibrary(3),
    SETS_LIBRARY,
    OPTIONAL_LIBRARY,
    URLS_LIBRARY,
    REGEX_LIBRARY,
    K8S_LISTS_LIBRARY,
    AUTHZ_LIBRARY,
    AUTHZ_SELECTORS_LIBRARY,
    QUANTITY_LIBRARY,
    IP_LIBRARY,
    CIDR_LIBRARY,
    FORMAT_LIBRARY,
    SEMVER_LIBRARY,
    KUBERNETES_STRINGS_COST_LIBRARY,
    { name: "vars", variables: AUTHORIZER_VARIABLES },
  ],
  homogeneousAggregateLiterals: true,
  crossTypeNumericComparisons: true,
  cost: { presenceTestHasCost: false },
});

const allowAll: Authorizer = { authorize: () => ({ decision: "allow", reason: "" }) };
const bindings = authorizerBindings(undefined, allowAll, { group: "", resource: "pods", subresource: "", namespace: "default", name: "p" });

/** [expression, estimated min, estimated max, actual] from cost_test.go. */
const CASES: [string, number, number, number][] = [
  // TestURLsCost
  ["url('https:://kubernetes.io/').getScheme()", 4, 4, 4],
  ["url('https:://kubernetes.io/').getHostname()", 4, 4, 4],
  ["url('https:://kubernetes.io/').getHost()", 4, 4, 4],
  ["url('https:://kubernetes.io/').getPort()", 4, 4, 4],
  ["url('https:://kubernetes.io/').getEscapedPath()", 4, 4, 4],
  ["url('https:://kubernetes.io/').getQuery()", 4, 4, 4],
  ["url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", 7, 9, 7],
  ["url('https:://kubernetes.io/') == url('http://x.b')", 5, 5, 5],
  // TestAuthzLibraryCost
  ["authorizer.path('/healthz')", 2, 2, 2],
  ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')", 6, 6, 6],
  [
    "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')",
    1821,
    1821,
    1821,
  ],
  [
    "authorizer.group('').resource('pods').labelSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')",
    1821,
    1821,
    1821,
  ],
  ["authorizer.path('/healthz').check('get').allowed()", 350003, 350003, 350003],
  [
    "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()",
    350007,
    350007,
    350007,
  ],
  [
    "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').errored()",
    350007,
    350007,
    350007,
  ],
  // TestQuantityCost
  [`quantity("12Mi")`, 1, 1, 1],
  [`isQuantity("20")`, 1, 1, 1],
  [`quantity("200M") == quantity("200M")`, 3, 3, 3],
  [`quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")`, 3, 6, 6],
  [`quantity("50M").isLessThan(quantity("50Mi"))`, 3, 3, 3],
  [`quantity("200M").compareTo(quantity("0.2G")) > 0`, 4, 4, 4],
  [`quantity("50k").add(quantity("20")) == quantity("50.02k")`, 5, 5, 5],
  [`quantity("50k").sub(20) == quantity("49980")`, 4, 4, 4],
  [`quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0`, 7, 7, 7],
  [`quantity("50").isInteger()`, 2, 2, 2],
  [`quantity("50.703k").asApproximateFloat() > 0.0`, 3, 3, 3],
  // TestStringLibrary
  ["'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3, 3, 3],
  ["'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 7, 9, 9],
  ["'ABCDEFGHIJ abcdefghij'.upperAscii()", 3, 3, 3],
  ["'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", 7, 9, 9],
  ["strings.quote('ABCDEFGHIJ abcdefghij')", 3, 3, 3],
  ["strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", 7, 11, 9],
  ["'abc 123 def 123'.replace('123', '456')", 3, 3, 3],
  ["'abc 123 def 123'.replace('', 'x')", 3, 3, 3],
  ["'abc 123 def 123'.replace('123', '')", 3, 3, 3],
  ["'abc 123 def 123'.replace('123', '456', 1)", 3, 3, 3],
  ["'abc 123 def 123'.split(' ')", 3, 3, 3],
  ["'abc 123 def 123'.split(' ', 1)", 3, 3, 3],
  ["'abc 123 def 123'.substring(5)", 2, 2, 2],
  ["'abc 123 def 123'.substring(5, 8)", 2, 2, 2],
  ["'  abc 123 def 123  '.trim()", 2, 2, 2],
  ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 11, 23, 15],
  ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 10, 22, 13],
  ["'abc 123 def 123'.find('123')", 2, 2, 2],
  ["'abc 123 def 123'.findAll('123')", 2, 2, 2],
  ["'abc 123 def 123'.findAll('123', 1)", 2, 2, 2],
  // TestFormatCost
  [`format.named("dns1123subdomain")`, 1, 1, 1],
];

// TestListsCost / TestIndexOfCost: [literal, op, estimated min, max, actual].
const INT = "[1, 2, 3, 4, 5]";
const UINT = "[uint(1), uint(2), uint(3), uint(4), uint(5)]";
const DOUBLE = "[1.0, 2.0, 3.0, 4.0, 5.0]";
const BOOLS = "[false, true, false, true, false]";
const STRS = "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']";
const BYTES = "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901')]";
const DURS = "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]";
const TSS =
  "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), " +
  "timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), " +
  "timestamp('2011-01-05T00:00:00.000+01:00')]";
for (const [lit, min, max, actual] of [
  [INT, 15, 15, 15],
  [UINT, 20, 20, 20],
  [DOUBLE, 15, 15, 15],
  [DURS, 20, 20, 20],
] as const) {
  CASES.push([`${lit}.sum()`, min, max, actual]);
}
for (const op of [".isSorted()", ".max()", ".min()"]) {
  for (const [lit, min, max, actual] of [
    [INT, 15, 15, 15],
    [UINT, 20, 20, 20],
    [DOUBLE, 15, 15, 15],
    [BOOLS, 15, 15, 15],
    [STRS, 15, 25, 15],
    [BYTES, 25, 35, 25],
    [DURS, 20, 20, 20],
    [TSS, 20, 20, 20],
  ] as const) {
    CASES.push([`${lit}${op}`, min, max, actual]);
  }
}
for (const op of ["indexOf", "lastIndexOf"]) {
  for (const [lit, param, min, max, actual] of [
    [INT, "3", 15, 15, 15],
    [UINT, "uint(3)", 21, 21, 21],
    [DOUBLE, "3.0", 15, 15, 15],
    [BOOLS, "true", 15, 15, 15],
    [STRS, "'x'", 15, 25, 15],
    [BYTES, "bytes('x')", 26, 36, 26],
    [DURS, "duration('3s')", 21, 21, 21],
    [TSS, "timestamp('2011-01-03T00:00:00.000+01:00')", 21, 21, 21],
    ["'01234567890123456789012345678901234567890123456789'", "'123'", 5, 5, 5],
  ] as const) {
    CASES.push([`${lit}.${op}(${param})`, min, max, actual]);
  }
}

// cost_test.go's testCostEstimator: any string or bytes node it is asked about has size [0, 12].
const sizeEstimator = kubernetesCostEstimator(env, {
  requestSizeBounds: false,
  schemaSizes: (n) => (n.type?.kind === "string" || n.type?.kind === "bytes" ? { min: 0n, max: 12n } : undefined),
});

describe("Kubernetes library costs equal cost_test.go's", () => {
  for (const [expr, min, max, actual] of CASES) {
    test(expr, () => {
      const checked = env.compile(expr);
      expect(env.program(checked).evalWithCost(bindings).cost, "actual").toBe(actual);
      const est = estimateCost(checked, env, { sizeEstimator });
      expect([est.min, est.max], "estimate").toEqual([BigInt(min), BigInt(max)]);
    });
  }
});
