/**
 * Which resources an audit lists: every served, listable resource that a policy of the set can
 * match for the audited operation. A MutatingAdmissionPolicy's (or a translated Gatekeeper
 * mutator's) `spec.matchConstraints.resourceRules`, and a Kyverno MutatingPolicy's, with its
 * pod-controller autogen variants (a policy on Pods also matches Deployments, Jobs, CronJobs...).
 * The rules are an upper bound (bindings and selectors narrow it per object, at admission); with
 * `matchPolicy: Equivalent` (the default) a rule matches a resource in any of its versions, so
 * resources are chosen by group and name and each is listed once, in its preferred served version.
 */
import { autogenVariants } from "../kyverno/index.js";
import { compareKubeVersions, type ResourceInfo } from "../admission/match/catalog.js";
import type { PolicySet } from "../engine/index.js";

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly operations?: readonly string[];
}

interface MatchConstraints {
  readonly resourceRules?: readonly Rule[];
  readonly matchPolicy?: string;
}

/** Built-in resources that cannot be listed (create-only reviews, the binding subresource's resource): never audited. */
const NOT_LISTABLE = new Set([
  "authentication.k8s.io/tokenreviews",
  "authentication.k8s.io/selfsubjectreviews",
  "authorization.k8s.io/subjectaccessreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/localsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
  "/bindings",
]);

const has = (list: readonly string[] | undefined, v: string): boolean => (list ?? []).includes("*") || (list ?? []).includes(v);

function ruleMatches(rule: Rule, r: ResourceInfo, operation: string, exactVersion: boolean): boolean {
  if (!has(rule.operations, operation)) return false;
  if (!has(rule.apiGroups, r.gvr.group)) return false;
  if (exactVersion && !has(rule.apiVersions, r.gvr.version)) return false;
  const res = rule.resources ?? [];
  return res.includes("*") || res.includes("*/*") || res.includes(r.gvr.resource);
}

function constraintsOf(spec: unknown): MatchConstraints | undefined {
  if (typeof spec !== "object" || spec === null) return undefined;
  return (spec as { matchConstraints?: MatchConstraints }).matchConstraints;
}

/** The match constraints of every policy of the set (Kyverno autogen variants included). */
export function policyConstraints(set: PolicySet): MatchConstraints[] {
  const out: MatchConstraints[] = [];
  for (const p of set.policies) {
    const c = constraintsOf((p as unknown as { spec?: unknown }).spec);
    if (c !== undefined) out.push(c);
  }
  for (const p of set.kyverno.policies) {
    for (const v of [p, ...autogenVariants(p).map((x) => x.policy)]) {
      const c = constraintsOf(v.spec);
      if (c !== undefined) out.push(c);
    }
  }
  return out;
}

/**
 * The resources to list, sorted by group and resource: served, with a `list`-able main resource
 * (subresources are never listed), matched by some policy's rules for `operation`.
 */
export function auditedResources(set: PolicySet, operation: "CREATE" | "UPDATE"): ResourceInfo[] {
  const constraints = policyConstraints(set);
  const chosen = new Map<string, ResourceInfo>();
  for (const r of set.catalog.all()) {
    if (!r.served || NOT_LISTABLE.has(`${r.gvr.group}/${r.gvr.resource}`)) continue;
    const matched = constraints.some((c) => (c.resourceRules ?? []).some((rule) => ruleMatches(rule, r, operation, c.matchPolicy === "Exact")));
    if (!matched) continue;
    const key = `${r.gvr.group}/${r.gvr.resource}`;
    const prev = chosen.get(key);
    if (prev === undefined || compareKubeVersions(r.gvr.version, prev.gvr.version) < 0) chosen.set(key, r);
  }
  return [...chosen.values()].sort((a, b) => (a.gvr.group + "/" + a.gvr.resource).localeCompare(b.gvr.group + "/" + b.gvr.resource));
}
