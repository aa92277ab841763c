/**
 * MatchResources matching. Table-driven:
 * - `TestMatcher` of apiserver `pkg/admission/plugin/policy/matching/matching_test.go` (v0.36.3),
 *   with the same equivalence registrations (deployments co-located in extensions/v1beta1, apps/v1,
 *   apps/v1beta1, apps/v1alpha1; scale subresources with their kinds);
 * - the `kind: match` cases of shared/conformance/map-cases.yaml (read from the file);
 * - our own cases for rules, scopes, subresources, selectors, namespaces and the 1.36 catalog.
 * (Test-only: reads the shared YAML with node:fs and yaml.)
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { LabelSelector, MatchResources, NamedRuleWithOperations } from "../../policy/schemas/common.js";
import type { JsonObject } from "../json.js";
import type { AdmissionRequest, Operation } from "../request.js";
import { ResourceCatalog, type GroupVersionKind, type GroupVersionResource } from "./catalog.js";
import { matchBindingResources, matchPolicyConstraints, matchResources, type MatchContext } from "./match.js";

function splitGV(gv: string): [string, string] {
  const i = gv.indexOf("/");
  return i < 0 ? ["", gv] : [gv.slice(0, i), gv.slice(i + 1)];
}
/** `apps/v1 Deployment` */
function gvk(s: string): GroupVersionKind {
  const [gv, kind] = s.split(" ") as [string, string];
  const [group, version] = splitGV(gv);
  return { group, version, kind };
}
/** `apps/v1 deployments` */
function gvr(s: string): GroupVersionResource {
  const [gv, resource] = s.split(" ") as [string, string];
  const [group, version] = splitGV(gv);
  return { group, version, resource };
}

interface ReqSpec {
  kind: string;
  resource: string;
  sub?: string;
  ns?: string;
  name?: string;
  op?: Operation;
  object?: JsonObject | null;
  oldObject?: JsonObject | null;
}

function req(r: ReqSpec): AdmissionRequest {
  const k = gvk(r.kind);
  const res = gvr(r.resource);
  return {
    uid: "",
    kind: k,
    resource: res,
    subResource: r.sub ?? "",
    requestKind: k,
    requestResource: res,
    requestSubResource: r.sub ?? "",
    name: r.name ?? "name",
    namespace: r.ns ?? "ns",
    operation: r.op ?? "CREATE",
    userInfo: { username: "", uid: "", groups: [], extra: {} },
    object: r.object === undefined ? null : r.object,
    oldObject: r.oldObject === undefined ? null : r.oldObject,
    dryRun: false,
    options: null,
  };
}

function rule(groups: string[], versions: string[], resources: string[], more: Partial<NamedRuleWithOperations> = {}): NamedRuleWithOperations {
  return { operations: ["*"], apiGroups: groups, apiVersions: versions, resources, scope: "*", ...more };
}

const ALL: LabelSelector = {};

/** The mapper of TestMatcher. */
function testMatcherCatalog(): ResourceCatalog {
  const c = ResourceCatalog.empty();
  const dep = (gv: string, scaleKind: string) => {
    const [group, version] = splitGV(gv);
    c.add({
      gvr: { group, version, resource: "deployments" },
      kind: { group, version, kind: "Deployment" },
      scope: "Namespaced",
      subresources: new Map([["scale", gvk(scaleKind)]]),
      equivalenceKey: "/deployments",
      builtin: true,
      served: true,
    });
  };
  dep("extensions/v1beta1", "extensions/v1beta1 Scale");
  dep("apps/v1", "autoscaling/v1 Scale");
  dep("apps/v1beta1", "apps/v1beta1 Scale");
  dep("apps/v1alpha1", "apps/v1alpha1 Scale");
  for (const v of ["v1", "v2"]) {
    c.add({
      gvr: { group: "example.com", version: v, resource: "widgets" },
      kind: { group: "", version: "", kind: "" },
      scope: "Namespaced",
      subresources: new Map(),
      equivalenceKey: "example.com/widgets",
      builtin: false,
      served: true,
    });
  }
  return c;
}

interface Case {
  name: string;
  criteria: MatchResources;
  request: AdmissionRequest;
  matches: boolean;
  matchKind?: string;
  matchResource?: string;
  error?: string;
  /** Substring of the reason. */
  reason?: string;
}

const dep = { kind: "apps/v1 Deployment", resource: "apps/v1 deployments" };
const scaleReq = { kind: "autoscaling/v1 Scale", resource: "apps/v1 deployments", sub: "scale" };
const both = (r: string) => [r, `${r}/scale`];

const TEST_MATCHER: Case[] = [
  {
    name: "no rules, nil object selector (just write)",
    criteria: { namespaceSelector: ALL, resourceRules: [] },
    request: req(dep),
    matches: false,
  },
  {
    name: "wildcard rule, match as requested",
    criteria: { namespaceSelector: ALL, objectSelector: ALL, resourceRules: [rule(["*"], ["*"], ["*"])] },
    request: req(dep),
    matches: true,
    matchKind: "apps/v1 Deployment",
    matchResource: "apps/v1 deployments",
  },
  {
    name: "specific rules, prefer exact match",
    criteria: {
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["extensions"], ["v1"], ["deployments"]), rule(["apps"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1"], ["deployments"])],
    },
    request: req(dep),
    matches: true,
    matchKind: "apps/v1 Deployment",
    reason: "resource rule 2 matches",
  },
  {
    name: "specific rules, match miss (matchPolicy absent = Exact)",
    criteria: {
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["extensions"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1beta1"], ["deployments"])],
    },
    request: req(dep),
    matches: false,
    reason: "resource rule 0 does not match: group 'apps' not in apiGroups [extensions]; resource rule 1 does not match: version 'v1' not in apiVersions [v1beta1]",
  },
  {
    name: "specific rules, exact match miss",
    criteria: {
      matchPolicy: "Exact",
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["extensions"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1beta1"], ["deployments"])],
    },
    request: req(dep),
    matches: false,
  },
  {
    name: "specific rules, equivalent match, prefer extensions",
    criteria: {
      matchPolicy: "Equivalent",
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["extensions"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1beta1"], ["deployments"])],
    },
    request: req(dep),
    matches: true,
    matchResource: "extensions/v1beta1 deployments",
    matchKind: "extensions/v1beta1 Deployment",
    reason: "resource rule 0 matches the equivalent resource extensions/v1beta1 deployments (extensions/v1beta1 Deployment)",
  },
  {
    name: "specific rules, equivalent match, prefer apps",
    criteria: {
      matchPolicy: "Equivalent",
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["apps"], ["v1beta1"], ["deployments"]), rule(["extensions"], ["v1beta1"], ["deployments"])],
    },
    request: req(dep),
    matches: true,
    matchResource: "apps/v1beta1 deployments",
    matchKind: "apps/v1beta1 Deployment",
  },
  {
    name: "specific rules, subresource prefer exact match",
    criteria: {
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [
        rule(["extensions"], ["v1beta1"], both("deployments")),
        rule(["apps"], ["v1beta1"], both("deployments")),
        rule(["apps"], ["v1"], both("deployments")),
      ],
    },
    request: req(scaleReq),
    matches: true,
    matchKind: "autoscaling/v1 Scale",
    matchResource: "apps/v1 deployments",
  },
  {
    name: "specific rules, subresource match miss",
    criteria: {
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["extensions"], ["v1beta1"], both("deployments")), rule(["apps"], ["v1beta1"], both("deployments"))],
    },
    request: req(scaleReq),
    matches: false,
  },
  {
    name: "specific rules, subresource exact match miss",
    criteria: {
      matchPolicy: "Exact",
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["extensions"], ["v1beta1"], both("deployments")), rule(["apps"], ["v1beta1"], both("deployments"))],
    },
    request: req(scaleReq),
    matches: false,
  },
  {
    name: "specific rules, subresource equivalent match, prefer extensions",
    criteria: {
      matchPolicy: "Equivalent",
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["extensions"], ["v1beta1"], both("deployments")), rule(["apps"], ["v1beta1"], both("deployments"))],
    },
    request: req(scaleReq),
    matches: true,
    matchResource: "extensions/v1beta1 deployments",
    matchKind: "extensions/v1beta1 Scale",
  },
  {
    name: "specific rules, subresource equivalent match, prefer apps",
    criteria: {
      matchPolicy: "Equivalent",
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["apps"], ["v1beta1"], both("deployments")), rule(["extensions"], ["v1beta1"], both("deployments"))],
    },
    request: req(scaleReq),
    matches: true,
    matchResource: "apps/v1beta1 deployments",
    matchKind: "apps/v1beta1 Scale",
  },
  {
    name: "specific rules, prefer exact match and name match",
    criteria: { namespaceSelector: ALL, objectSelector: ALL, resourceRules: [rule(["apps"], ["v1"], ["deployments"], { resourceNames: ["name"] })] },
    request: req({ kind: "autoscaling/v1 Scale", resource: "apps/v1 deployments" }),
    matches: true,
    matchKind: "autoscaling/v1 Scale",
  },
  {
    name: "specific rules, prefer exact match and name match miss",
    criteria: { namespaceSelector: ALL, objectSelector: ALL, resourceRules: [rule(["apps"], ["v1"], ["deployments"], { resourceNames: ["wrong-name"] })] },
    request: req({ kind: "autoscaling/v1 Scale", resource: "apps/v1 deployments" }),
    matches: false,
    reason: "name 'name' not in resourceNames [wrong-name]",
  },
  {
    name: "specific rules, subresource equivalent match, prefer extensions and name match",
    criteria: {
      matchPolicy: "Equivalent",
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["apps"], ["v1"], both("deployments"), { resourceNames: ["name"] })],
    },
    request: req({ kind: "autoscaling/v1 Scale", resource: "extensions/v1beta1 deployments", sub: "scale" }),
    matches: true,
    matchResource: "apps/v1 deployments",
    matchKind: "autoscaling/v1 Scale",
  },
  {
    name: "specific rules, subresource equivalent match, prefer extensions and name match miss",
    criteria: {
      matchPolicy: "Equivalent",
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["apps"], ["v1"], both("deployments"), { resourceNames: ["wrong-name"] })],
    },
    request: req({ kind: "autoscaling/v1 Scale", resource: "extensions/v1beta1 deployments", sub: "scale" }),
    matches: false,
  },
  {
    name: "exclude resource match on miss",
    criteria: {
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["*"], ["*"], ["*"])],
      excludeResourceRules: [rule(["extensions"], ["v1beta1"], ["deployments"])],
    },
    request: req({ kind: "autoscaling/v1 Scale", resource: "apps/v1 deployments" }),
    matches: true,
    matchKind: "autoscaling/v1 Scale",
  },
  {
    name: "exclude resource miss on match",
    criteria: {
      namespaceSelector: ALL,
      objectSelector: ALL,
      resourceRules: [rule(["*"], ["*"], ["*"])],
      excludeResourceRules: [rule(["extensions"], ["v1beta1"], ["deployments"])],
    },
    request: req({ kind: "autoscaling/v1 Scale", resource: "extensions/v1beta1 deployments" }),
    matches: false,
    reason: "excluded: excludeResourceRules 0 matches",
  },
  {
    name: "treat empty ResourceRules as match",
    criteria: { namespaceSelector: ALL, objectSelector: ALL, excludeResourceRules: [rule(["extensions"], ["v1beta1"], ["deployments"])] },
    request: req({ kind: "autoscaling/v1 Scale", resource: "apps/v1 deployments" }),
    matches: true,
  },
  {
    name: "treat non-empty ResourceRules as no match",
    criteria: { namespaceSelector: ALL, objectSelector: ALL, resourceRules: [{}] },
    request: req({ kind: "autoscaling/v1 Scale", resource: "apps/v1 deployments" }),
    matches: false,
  },
  {
    name: "erroring namespace selector on otherwise non-matching rule doesn't error",
    criteria: {
      namespaceSelector: { matchExpressions: [{ key: "key ", operator: "In", values: ["bad value"] }] },
      objectSelector: ALL,
      resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["deployments"], operations: ["*"] }],
    },
    request: req({ kind: "example.apiserver.k8s.io/v1 Pod", resource: "example.apiserver.k8s.io/v1 pods", object: {} }),
    matches: false,
  },
  {
    name: "erroring namespace selector on otherwise matching rule errors",
    criteria: {
      namespaceSelector: { matchExpressions: [{ key: "key", operator: "In", values: ["bad value"] }] },
      objectSelector: ALL,
      resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["pods"], operations: ["*"] }],
    },
    request: req({ kind: "example.apiserver.k8s.io/v1 Pod", resource: "example.apiserver.k8s.io/v1 pods", object: {} }),
    matches: false,
    error: "bad value",
  },
  {
    name: "erroring object selector on otherwise non-matching rule doesn't error",
    criteria: {
      namespaceSelector: ALL,
      objectSelector: { matchExpressions: [{ key: "key", operator: "In", values: ["bad value"] }] },
      resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["deployments"], operations: ["*"] }],
    },
    request: req({ kind: "example.apiserver.k8s.io/v1 Pod", resource: "example.apiserver.k8s.io/v1 pods", object: {} }),
    matches: false,
  },
  {
    name: "erroring object selector on otherwise matching rule errors",
    criteria: {
      namespaceSelector: ALL,
      objectSelector: { matchExpressions: [{ key: "key", operator: "In", values: ["bad value"] }] },
      resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["pods"], operations: ["*"] }],
    },
    request: req({ kind: "example.apiserver.k8s.io/v1 Pod", resource: "example.apiserver.k8s.io/v1 pods", object: {} }),
    matches: false,
    error: "bad value",
  },
  {
    name: "equivalent resource without a kind is an error (unable to convert)",
    criteria: { matchPolicy: "Equivalent", namespaceSelector: ALL, objectSelector: ALL, resourceRules: [rule(["example.com"], ["v2"], ["widgets"])] },
    request: req({ kind: "example.com/v1 Widget", resource: "example.com/v1 widgets" }),
    matches: false,
    error: "unable to convert to example.com/v2, Resource=widgets: unknown kind",
  },
];

function check(c: Case, ctx: MatchContext) {
  const r = matchResources(c.request, c.criteria, ctx);
  if (c.error !== undefined) {
    expect(r.error?.message).toContain(c.error);
    expect(r.matches).toBe(false);
    return;
  }
  expect(r.error).toBeUndefined();
  expect(r.matches).toBe(c.matches);
  if (c.matchKind !== undefined) expect(r.matchedKind).toEqual(gvk(c.matchKind));
  if (c.matchResource !== undefined) expect(r.matchedResource).toEqual(gvr(c.matchResource));
  if (c.reason !== undefined) expect(r.reason).toContain(c.reason);
}

describe("TestMatcher (apiserver matching_test.go)", () => {
  const ctx: MatchContext = { catalog: testMatcherCatalog() };
  for (const c of TEST_MATCHER) it(c.name, () => check(c, ctx));
});

describe("map-cases.yaml kind: match", () => {
  const file = fileURLToPath(new URL("../../../conformance/data/map-cases.yaml", import.meta.url));
  const cases = (
    parse(readFileSync(file, "utf8")) as {
      cases: {
        name: string;
        kind?: string;
        request: { kind: string; resource: string; name?: string; operation: Operation; subResource?: string };
        criteria: MatchResources;
        expect: { matches: boolean; matchKind?: string; matchResource?: string };
      }[];
    }
  ).cases.filter((c) => c.kind === "match");
  it("has the five cases", () => expect(cases.length).toBe(5));
  const ctx: MatchContext = { catalog: testMatcherCatalog() };
  for (const c of cases) {
    it(c.name, () => {
      const r = matchResources(
        req({ kind: c.request.kind, resource: c.request.resource, op: c.request.operation, name: c.request.name ?? "" }),
        c.criteria,
        ctx,
      );
      expect(r.error).toBeUndefined();
      expect(r.matches).toBe(c.expect.matches);
      if (c.expect.matchKind !== undefined) expect(r.matchedKind).toEqual(gvk(c.expect.matchKind));
      if (c.expect.matchResource !== undefined) expect(r.matchedResource).toEqual(gvr(c.expect.matchResource));
    });
  }
});

// ---------------------------------------------------------------------------------------------

const pod = (labels?: Record<string, string>): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "team-a", ...(labels !== undefined ? { labels } : {}) },
});
const podReq = (more: Partial<ReqSpec> = {}) => req({ kind: "v1 Pod", resource: "v1 pods", ns: "team-a", name: "p", object: pod(), ...more });
const podRule = (more: Partial<NamedRuleWithOperations> = {}) => rule([""], ["v1"], ["pods"], more);
const crit = (more: Partial<MatchResources>): MatchResources => ({
  namespaceSelector: ALL,
  objectSelector: ALL,
  matchPolicy: "Equivalent",
  resourceRules: [podRule()],
  ...more,
});

const NAMESPACES: Record<string, JsonObject> = {
  "team-a": { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a", labels: { env: "prod", "kubernetes.io/metadata.name": "team-a" } } },
  "team-b": { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-b" } },
};
const builtinCtx: MatchContext = { catalog: ResourceCatalog.builtin(), getNamespace: (n) => NAMESPACES[n] };

const OURS: Case[] = [
  // operations
  { name: "operation listed", criteria: crit({ resourceRules: [podRule({ operations: ["CREATE"] })] }), request: podReq(), matches: true },
  {
    name: "operation not listed",
    criteria: crit({ resourceRules: [podRule({ operations: ["UPDATE"] })] }),
    request: podReq(),
    matches: false,
    reason: "resource rule 0 does not match: operation 'CREATE' not in [UPDATE]",
  },
  { name: "operation wildcard", criteria: crit({ resourceRules: [podRule({ operations: ["*"] })] }), request: podReq({ op: "CONNECT" }), matches: true },
  // groups and versions
  { name: "core group is the empty string", criteria: crit({ resourceRules: [rule(["apps"], ["v1"], ["pods"])] }), request: podReq(), matches: false, reason: "group '' not in apiGroups [apps]" },
  { name: "group wildcard", criteria: crit({ resourceRules: [rule(["*"], ["v1"], ["pods"])] }), request: podReq(), matches: true },
  { name: "version mismatch", criteria: crit({ resourceRules: [rule([""], ["v2"], ["pods"])] }), request: podReq(), matches: false, reason: "version 'v1' not in apiVersions [v2]" },
  // resources and subresources
  {
    name: "resource mismatch reads well",
    criteria: crit({ resourceRules: [rule([""], ["v1"], ["pods"])] }),
    request: req({ kind: "v1 Service", resource: "v1 services", ns: "team-a" }),
    matches: false,
    reason: "resource rule 0 does not match: resource 'services' not in [pods]",
  },
  {
    name: "pods does not match pods/status",
    criteria: crit({}),
    request: podReq({ sub: "status", op: "UPDATE" }),
    matches: false,
    reason: "resource 'pods/status' not in [pods]",
  },
  { name: "pods/status matches pods/status", criteria: crit({ resourceRules: [podRule({ resources: ["pods/status"] })] }), request: podReq({ sub: "status" }), matches: true },
  { name: "pods/* matches pods/exec", criteria: crit({ resourceRules: [podRule({ resources: ["pods/*"] })] }), request: podReq({ sub: "exec", op: "CONNECT" }), matches: true },
  { name: "pods/* matches pods itself", criteria: crit({ resourceRules: [podRule({ resources: ["pods/*"] })] }), request: podReq(), matches: true },
  { name: "*/status matches pods/status", criteria: crit({ resourceRules: [podRule({ resources: ["*/status"] })] }), request: podReq({ sub: "status" }), matches: true },
  { name: "*/status does not match pods", criteria: crit({ resourceRules: [podRule({ resources: ["*/status"] })] }), request: podReq(), matches: false },
  { name: "* does not match subresources", criteria: crit({ resourceRules: [podRule({ resources: ["*"] })] }), request: podReq({ sub: "status" }), matches: false },
  { name: "*/* matches subresources", criteria: crit({ resourceRules: [podRule({ resources: ["*/*"] })] }), request: podReq({ sub: "ephemeralcontainers" }), matches: true },
  { name: "*/* matches main resources", criteria: crit({ resourceRules: [podRule({ resources: ["*/*"] })] }), request: podReq(), matches: true },
  { name: "subresource with a slash splits at the first slash", criteria: crit({ resourceRules: [podRule({ resources: ["pods/proxy/x"] })] }), request: podReq({ sub: "proxy/x" }), matches: true },
  // scope
  { name: "scope Namespaced matches a namespaced request", criteria: crit({ resourceRules: [podRule({ scope: "Namespaced" })] }), request: podReq(), matches: true },
  {
    name: "scope Cluster does not match a namespaced request",
    criteria: crit({ resourceRules: [podRule({ scope: "Cluster" })] }),
    request: podReq(),
    matches: false,
    reason: "scope 'Cluster' does not match a namespaced request (namespace 'team-a')",
  },
  {
    name: "scope Cluster matches a cluster-scoped request",
    criteria: crit({ resourceRules: [rule([""], ["v1"], ["nodes"], { scope: "Cluster" })] }),
    request: req({ kind: "v1 Node", resource: "v1 nodes", ns: "" }),
    matches: true,
  },
  {
    name: "scope Namespaced does not match a cluster-scoped request",
    criteria: crit({ resourceRules: [rule([""], ["v1"], ["nodes"], { scope: "Namespaced" })] }),
    request: req({ kind: "v1 Node", resource: "v1 nodes", ns: "" }),
    matches: false,
    reason: "scope 'Namespaced' does not match a cluster-scoped request",
  },
  {
    name: "namespaces are cluster-scoped even when the request carries their name",
    criteria: crit({ resourceRules: [rule([""], ["v1"], ["namespaces"], { scope: "Cluster" })] }),
    request: req({ kind: "v1 Namespace", resource: "v1 namespaces", ns: "team-a", op: "UPDATE", object: NAMESPACES["team-a"]! }),
    matches: true,
  },
  {
    name: "scope Namespaced never matches namespaces",
    criteria: crit({ resourceRules: [rule([""], ["v1"], ["namespaces"], { scope: "Namespaced" })] }),
    request: req({ kind: "v1 Namespace", resource: "v1 namespaces", ns: "team-a", op: "UPDATE", object: NAMESPACES["team-a"]! }),
    matches: false,
    reason: "scope 'Namespaced' does not match the cluster-scoped 'namespaces' resource",
  },
  { name: "scope absent is *", criteria: crit({ resourceRules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] }), request: podReq(), matches: true },
  // resourceNames
  { name: "resourceNames hit", criteria: crit({ resourceRules: [podRule({ resourceNames: ["x", "p"] })] }), request: podReq(), matches: true },
  {
    name: "resourceNames with generateName (empty name) never match",
    criteria: crit({ resourceRules: [podRule({ resourceNames: ["p"] })] }),
    request: podReq({ name: "" }),
    matches: false,
    reason: "the request has no name (generateName)",
  },
  {
    name: "a later rule can match when an earlier one misses on names",
    criteria: crit({ resourceRules: [podRule({ resourceNames: ["x"] }), podRule()] }),
    request: podReq(),
    matches: true,
    reason: "resource rule 1 matches",
  },
  // exclusion
  {
    name: "exclusion wins over a matching rule",
    criteria: crit({ excludeResourceRules: [podRule({ resourceNames: ["p"] })] }),
    request: podReq(),
    matches: false,
    reason: "excluded: excludeResourceRules 0 matches",
  },
  { name: "exclusion of another name does not exclude", criteria: crit({ excludeResourceRules: [podRule({ resourceNames: ["q"] })] }), request: podReq(), matches: true },
  {
    name: "exclusion applies through an equivalent resource (Equivalent)",
    criteria: crit({
      resourceRules: [rule(["autoscaling"], ["*"], ["horizontalpodautoscalers"])],
      excludeResourceRules: [rule(["autoscaling"], ["v1"], ["horizontalpodautoscalers"])],
    }),
    request: req({ kind: "autoscaling/v2 HorizontalPodAutoscaler", resource: "autoscaling/v2 horizontalpodautoscalers", ns: "team-a" }),
    matches: false,
    reason: "excluded: excludeResourceRules 0 matches the equivalent resource autoscaling/v1 horizontalpodautoscalers",
  },
  {
    name: "exclusion does not apply through an equivalent resource (Exact)",
    criteria: crit({
      matchPolicy: "Exact",
      resourceRules: [rule(["autoscaling"], ["*"], ["horizontalpodautoscalers"])],
      excludeResourceRules: [rule(["autoscaling"], ["v1"], ["horizontalpodautoscalers"])],
    }),
    request: req({ kind: "autoscaling/v2 HorizontalPodAutoscaler", resource: "autoscaling/v2 horizontalpodautoscalers", ns: "team-a" }),
    matches: true,
  },
  // Equivalent on the 1.36 catalog
  {
    name: "HPA v2 request matched by a v1 rule under Equivalent",
    criteria: crit({ resourceRules: [rule(["autoscaling"], ["v1"], ["horizontalpodautoscalers"])] }),
    request: req({ kind: "autoscaling/v2 HorizontalPodAutoscaler", resource: "autoscaling/v2 horizontalpodautoscalers", ns: "team-a" }),
    matches: true,
    matchResource: "autoscaling/v1 horizontalpodautoscalers",
    matchKind: "autoscaling/v1 HorizontalPodAutoscaler",
  },
  {
    name: "HPA status subresource is equivalent too",
    criteria: crit({ resourceRules: [rule(["autoscaling"], ["v1"], ["horizontalpodautoscalers/status"])] }),
    request: req({ kind: "autoscaling/v2 HorizontalPodAutoscaler", resource: "autoscaling/v2 horizontalpodautoscalers", sub: "status", ns: "team-a" }),
    matches: true,
    matchResource: "autoscaling/v1 horizontalpodautoscalers",
  },
  {
    name: "core events matched by an events.k8s.io rule under Equivalent",
    criteria: crit({ resourceRules: [rule(["events.k8s.io"], ["v1"], ["events"])] }),
    request: req({ kind: "v1 Event", resource: "v1 events", ns: "team-a" }),
    matches: true,
    matchResource: "events.k8s.io/v1 events",
    matchKind: "events.k8s.io/v1 Event",
  },
  {
    name: "apps/v1 deployments: extensions rules cannot match in 1.36 (no served equivalent)",
    criteria: crit({ resourceRules: [rule(["extensions"], ["v1beta1"], ["deployments"])] }),
    request: req({ kind: "apps/v1 Deployment", resource: "apps/v1 deployments", ns: "team-a" }),
    matches: false,
    reason: "resource rule 0 does not match: group 'apps' not in apiGroups [extensions]",
  },
  {
    name: "Equivalent miss lists the equivalents tried",
    criteria: crit({ resourceRules: [rule(["autoscaling"], ["v1"], ["horizontalpodautoscalers"], { operations: ["UPDATE"] })] }),
    request: req({ kind: "autoscaling/v2 HorizontalPodAutoscaler", resource: "autoscaling/v2 horizontalpodautoscalers", ns: "team-a" }),
    matches: false,
    reason:
      "resource rule 0 does not match: operation 'CREATE' not in [UPDATE] (Equivalent: nor do the equivalent resources autoscaling/v1 horizontalpodautoscalers)",
  },
  {
    name: "Exact does not look at equivalents",
    criteria: crit({ matchPolicy: "Exact", resourceRules: [rule(["autoscaling"], ["v1"], ["horizontalpodautoscalers"])] }),
    request: req({ kind: "autoscaling/v2 HorizontalPodAutoscaler", resource: "autoscaling/v2 horizontalpodautoscalers", ns: "team-a" }),
    matches: false,
  },
  // namespaceSelector
  {
    name: "namespaceSelector matches the namespace's labels",
    criteria: crit({ namespaceSelector: { matchLabels: { env: "prod" } } }),
    request: podReq(),
    matches: true,
    reason: "namespaceSelector 'env=prod' matches namespace 'team-a'",
  },
  {
    name: "namespaceSelector miss explains",
    criteria: crit({ namespaceSelector: { matchLabels: { env: "dev" } } }),
    request: podReq(),
    matches: false,
    reason: "namespaceSelector 'env=dev' does not match namespace 'team-a' labels {env=prod, kubernetes.io/metadata.name=team-a}: requirement 'env=dev' not met",
  },
  {
    name: "namespaceSelector on a namespace without labels",
    criteria: crit({ namespaceSelector: { matchExpressions: [{ key: "env", operator: "DoesNotExist" }] } }),
    request: podReq({ ns: "team-b" }),
    matches: true,
  },
  {
    name: "namespaceSelector with an unknown namespace: 404 error",
    criteria: crit({ namespaceSelector: { matchLabels: { env: "prod" } } }),
    request: podReq({ ns: "ghost" }),
    matches: false,
    error: 'namespaces "ghost" not found',
  },
  {
    name: "namespace lookup failure is not reported when the rules do not match",
    criteria: crit({ namespaceSelector: { matchLabels: { env: "prod" } }, resourceRules: [rule([""], ["v1"], ["services"])] }),
    request: podReq({ ns: "ghost" }),
    matches: false,
  },
  {
    name: "empty namespaceSelector needs no namespace lookup",
    criteria: crit({}),
    request: podReq({ ns: "ghost" }),
    matches: true,
  },
  {
    name: "namespaceSelector never exempts cluster-scoped resources",
    criteria: crit({ namespaceSelector: { matchLabels: { env: "prod" } }, resourceRules: [rule([""], ["v1"], ["nodes"])] }),
    request: req({ kind: "v1 Node", resource: "v1 nodes", ns: "" }),
    matches: true,
    reason: "namespaceSelector does not apply to a cluster-scoped request",
  },
  {
    name: "namespaceSelector on a Namespace CREATE uses the new object's labels",
    criteria: crit({ namespaceSelector: { matchLabels: { team: "x" } }, resourceRules: [rule([""], ["v1"], ["namespaces"])] }),
    request: req({
      kind: "v1 Namespace",
      resource: "v1 namespaces",
      ns: "",
      name: "new-ns",
      object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "new-ns", labels: { team: "x" } } },
    }),
    matches: true,
    reason: "matches the namespace object being admitted",
  },
  {
    name: "namespaceSelector on a Namespace UPDATE uses the new object's labels, not the stored ones",
    criteria: crit({ namespaceSelector: { matchLabels: { env: "dev" } }, resourceRules: [rule([""], ["v1"], ["namespaces"])] }),
    request: req({
      kind: "v1 Namespace",
      resource: "v1 namespaces",
      ns: "team-a",
      name: "team-a",
      op: "UPDATE",
      object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a", labels: { env: "dev" } } },
      oldObject: NAMESPACES["team-a"]!,
    }),
    matches: true,
  },
  {
    name: "namespaceSelector on namespaces/status uses the stored namespace",
    criteria: crit({ namespaceSelector: { matchLabels: { env: "prod" } }, resourceRules: [rule([""], ["v1"], ["namespaces/status"])] }),
    request: req({
      kind: "v1 Namespace",
      resource: "v1 namespaces",
      sub: "status",
      ns: "team-a",
      name: "team-a",
      op: "UPDATE",
      object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } },
    }),
    matches: true,
    reason: "matches namespace 'team-a'",
  },
  // objectSelector
  { name: "objectSelector matches the object", criteria: crit({ objectSelector: { matchLabels: { app: "web" } } }), request: podReq({ object: pod({ app: "web" }) }), matches: true },
  {
    name: "objectSelector matches the old object on UPDATE",
    criteria: crit({ objectSelector: { matchLabels: { app: "web" } } }),
    request: podReq({ op: "UPDATE", object: pod({ app: "db" }), oldObject: pod({ app: "web" }) }),
    matches: true,
    reason: "matches the old object",
  },
  {
    name: "objectSelector matches neither",
    criteria: crit({ objectSelector: { matchLabels: { app: "web" } } }),
    request: podReq({ op: "UPDATE", object: pod({ app: "db" }), oldObject: pod() }),
    matches: false,
    reason: "objectSelector 'app=web' does not match: object labels {app=db}: requirement 'app=web' not met; old object labels {}: requirement 'app=web' not met",
  },
  {
    name: "objectSelector NotIn matches an unlabelled object",
    criteria: crit({ objectSelector: { matchExpressions: [{ key: "skip", operator: "NotIn", values: ["true"] }] } }),
    request: podReq(),
    matches: true,
  },
  {
    name: "objectSelector never matches a null object",
    criteria: crit({ objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] } }),
    request: podReq({ object: null }),
    matches: false,
    reason: "no object; no old object",
  },
];

describe("matching (our cases, 1.36 catalog)", () => {
  for (const c of OURS) it(c.name, () => check(c, builtinCtx));
});

describe("policy and binding wrappers", () => {
  it("policy without matchConstraints is an error", () => {
    const r = matchPolicyConstraints(podReq(), undefined, builtinCtx);
    expect(r.error?.message).toBe("policy contained no match constraints, a required field");
  });
  it("policy with a nil namespaceSelector is an error", () => {
    const r = matchPolicyConstraints(podReq(), { objectSelector: ALL, resourceRules: [podRule()] }, builtinCtx);
    expect(r.error?.message).toBe("a nil namespace selector was passed, please ensure selectors are initialized properly");
  });
  it("policy with a nil objectSelector is an error", () => {
    const r = matchPolicyConstraints(podReq(), { namespaceSelector: ALL, resourceRules: [podRule()] }, builtinCtx);
    expect(r.error?.message).toBe("a nil object selector was passed, please ensure selectors are initialized properly");
  });
  it("binding without matchResources matches", () => {
    expect(matchBindingResources(podReq(), undefined, builtinCtx).matches).toBe(true);
  });
  it("binding with empty resourceRules matches every resource", () => {
    const r = matchBindingResources(req({ kind: "v1 Service", resource: "v1 services", ns: "team-a" }), { namespaceSelector: ALL, objectSelector: ALL }, builtinCtx);
    expect(r.matches).toBe(true);
    expect(r.reason).toContain("no resourceRules: every resource matches");
  });
  it("binding with a nil objectSelector is an error", () => {
    const r = matchBindingResources(podReq(), { namespaceSelector: ALL }, builtinCtx);
    expect(r.error?.message).toContain("a nil object selector");
  });
  it("a throwing namespace lookup is an internal error", () => {
    const r = matchResources(podReq(), crit({ namespaceSelector: { matchLabels: { a: "b" } } }), {
      catalog: ResourceCatalog.builtin(),
      getNamespace: () => {
        throw new Error("connection refused");
      },
    });
    expect(r.error).toEqual({ message: "Internal error occurred: connection refused", code: 500 });
  });
});
