/**
 * Matching a request against `MatchResources`, as the apiserver's policy matcher does
 * (`pkg/admission/plugin/policy/matching/matching.go`, with the namespace and object predicates
 * of `pkg/admission/plugin/webhook/predicates/{namespace,object}`):
 *
 * 1. namespaceSelector — a request without namespace that is not for the `namespaces` resource
 *    always matches (cluster-scoped resources are never exempted by it). Otherwise an empty
 *    selector matches; else the namespace's labels are compared: for CREATE/UPDATE of a
 *    `namespaces` object (no subresource) the labels of the new object, else the labels of the
 *    Namespace named by the request namespace ({@link MatchContext.getNamespace}; absent →
 *    404 `namespaces "x" not found`).
 * 2. objectSelector — empty matches; else the new object's or the old object's labels must
 *    match (a null object never matches).
 * 3. excludeResourceRules — any hit (with the same Exact/Equivalent procedure) → no match.
 * 4. resourceRules — none given → match (binding matchResources). Rules are first tried against
 *    the request's own resource (first hit wins: matched kind/resource are the request's); only
 *    if none hits and matchPolicy is `Equivalent` (absent means Exact at run time), each rule in
 *    turn is tried against each equivalent resource (registration order, skipping the request's
 *    own); the first hit gives the matched resource and its kind.
 * 5. Selector errors (namespace lookup, bad selectors) only surface when the rules match: an
 *    error with `matches: false`. A non-matching selector without error ends matching early.
 *
 * The result carries a human-readable `reason` for traces.
 */
import type { JsonObject } from "../json.js";
import type { LabelSelector, MatchResources, NamedRuleWithOperations } from "../../policy/schemas/common.js";
import { gvkDisplay, objectLabels, type AdmissionRequest } from "../request.js";
import {
  firstUnmetRequirement,
  labelSelectorAsSelector,
  requirementString,
  selectorIsEmpty,
  selectorMatches,
  selectorString,
  type Labels,
  type Selector,
} from "../selector.js";
import { gvrDisplay, gvrString, sameGVR, type GroupVersionKind, type GroupVersionResource, type ResourceCatalog } from "./catalog.js";
import { resourceNameMismatch, ruleMismatch, type RuleAttributes } from "./rules.js";

export interface MatchContext {
  /** Kinds, scopes and equivalent resources. */
  readonly catalog: ResourceCatalog;
  /**
   * The Namespace object named `name`, or undefined when there is none (→ 404). Called only when
   * a non-empty namespaceSelector must be evaluated. Absent: every namespace is "not found".
   * May throw to report another lookup failure (→ 500 with its message).
   */
  readonly getNamespace?: (name: string) => JsonObject | undefined;
}

/** A matcher error, as the apiserver's StatusError: its message and HTTP code. */
export interface MatchError {
  readonly message: string;
  readonly code: number;
}

export interface MatchResult {
  readonly matches: boolean;
  /** Why it matched or not, for traces. */
  readonly reason: string;
  /** When `matches`: the resource the rules matched (the request's, or an equivalent one). */
  readonly matchedResource?: GroupVersionResource;
  /** When `matches`: the kind of `matchedResource` (with its subresource). */
  readonly matchedKind?: GroupVersionKind;
  /** When matching failed with an error (then `matches` is false). */
  readonly error?: MatchError;
}

const internalError = (msg: string): MatchError => ({ message: `Internal error occurred: ${msg}`, code: 500 });

function describeSelector(sel: Selector): string {
  return sel.nothing ? "<nothing>" : `'${selectorString(sel)}'`;
}

function labelsDisplay(labels: Labels | undefined): string {
  const entries = Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${k}=${v}`).join(", ")}}`;
}

function whyNot(sel: Selector, labels: Labels | undefined): string {
  if (sel.nothing) return "a nil selector matches nothing";
  const r = firstUnmetRequirement(sel, labels);
  return r === undefined ? "" : `requirement '${requirementString(r)}' not met`;
}

interface SelectorOutcome {
  readonly matches: boolean;
  readonly reason: string;
  readonly error?: MatchError;
}

function matchNamespaceSelector(sel: LabelSelector | undefined, req: AdmissionRequest, ctx: MatchContext): SelectorOutcome {
  const isNamespaces = req.resource.resource === "namespaces";
  if (req.namespace === "" && !isNamespaces) {
    return { matches: true, reason: "namespaceSelector does not apply to a cluster-scoped request" };
  }
  const parsed = labelSelectorAsSelector(sel);
  if (!parsed.ok) return { matches: false, reason: `namespaceSelector is invalid: ${parsed.error}`, error: internalError(parsed.error) };
  const s = parsed.selector;
  if (selectorIsEmpty(s)) return { matches: true, reason: "namespaceSelector is empty" };
  let labels: Labels | undefined;
  let whose: string;
  if (isNamespaces && req.subResource === "" && (req.operation === "CREATE" || req.operation === "UPDATE")) {
    if (req.object === null) {
      const msg = "object does not implement the Object interfaces";
      return { matches: false, reason: `namespaceSelector: ${msg}`, error: internalError(msg) };
    }
    labels = objectLabels(req.object);
    whose = "the namespace object being admitted";
  } else {
    let ns: JsonObject | undefined;
    try {
      ns = ctx.getNamespace?.(req.namespace);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      return { matches: false, reason: `namespaceSelector: looking up namespace '${req.namespace}' failed: ${msg}`, error: internalError(msg) };
    }
    if (ns === undefined) {
      const msg = `namespaces ${JSON.stringify(req.namespace)} not found`;
      return { matches: false, reason: `namespaceSelector: ${msg}`, error: { message: msg, code: 404 } };
    }
    labels = objectLabels(ns);
    whose = `namespace '${req.namespace}'`;
  }
  if (selectorMatches(s, labels)) return { matches: true, reason: `namespaceSelector ${describeSelector(s)} matches ${whose}` };
  return {
    matches: false,
    reason: `namespaceSelector ${describeSelector(s)} does not match ${whose} labels ${labelsDisplay(labels)}: ${whyNot(s, labels)}`,
  };
}

function matchObjectSelector(sel: LabelSelector | undefined, req: AdmissionRequest): SelectorOutcome {
  const parsed = labelSelectorAsSelector(sel);
  if (!parsed.ok) return { matches: false, reason: `objectSelector is invalid: ${parsed.error}`, error: internalError(parsed.error) };
  const s = parsed.selector;
  if (selectorIsEmpty(s)) return { matches: true, reason: "objectSelector is empty" };
  const objLabels = req.object === null ? undefined : objectLabels(req.object);
  const oldLabels = req.oldObject === null ? undefined : objectLabels(req.oldObject);
  if (req.object !== null && selectorMatches(s, objLabels)) return { matches: true, reason: `objectSelector ${describeSelector(s)} matches the object` };
  if (req.oldObject !== null && selectorMatches(s, oldLabels)) {
    return { matches: true, reason: `objectSelector ${describeSelector(s)} matches the old object` };
  }
  const parts: string[] = [];
  parts.push(req.object === null ? "no object" : `object labels ${labelsDisplay(objLabels)}: ${whyNot(s, objLabels)}`);
  parts.push(req.oldObject === null ? "no old object" : `old object labels ${labelsDisplay(oldLabels)}: ${whyNot(s, oldLabels)}`);
  return { matches: false, reason: `objectSelector ${describeSelector(s)} does not match: ${parts.join("; ")}` };
}

interface RulesOutcome {
  readonly matched: boolean;
  readonly resource?: GroupVersionResource;
  readonly kind?: GroupVersionKind;
  /** Which rule matched (and through which equivalent), or why none did. */
  readonly reason: string;
  readonly error?: MatchError;
}

/** `matchesResourceRules`: the request's own resource first, then (Equivalent) the equivalents. */
export function matchResourceRules(
  rules: readonly NamedRuleWithOperations[],
  matchPolicy: string | undefined,
  req: AdmissionRequest,
  ctx: MatchContext,
  label = "resource rule",
): RulesOutcome {
  // No rules match nothing (an absent excludeResourceRules, on every request): no equivalents to list.
  if (rules.length === 0) return { matched: false, reason: `no ${label}s` };
  const own: RuleAttributes = { resource: req.resource, subResource: req.subResource, operation: req.operation, namespace: req.namespace };
  const misses: string[] = [];
  for (const [i, rule] of rules.entries()) {
    const why = ruleMismatch(rule, own) ?? resourceNameMismatch(rule, req.name);
    if (why === undefined) return { matched: true, resource: req.resource, kind: req.kind, reason: `${label} ${i} matches` };
    misses.push(`${label} ${i} does not match: ${why}`);
  }
  if (matchPolicy === undefined || matchPolicy === "Exact") {
    return { matched: false, reason: misses.join("; ") || `no ${label}s` };
  }
  const equivalents = ctx.catalog.equivalentResourcesFor(req.resource, req.subResource);
  for (const [i, rule] of rules.entries()) {
    for (const eq of equivalents) {
      if (sameGVR(eq, req.resource)) continue;
      if (ruleMismatch(rule, { ...own, resource: eq }) !== undefined) continue;
      const kind = ctx.catalog.kindFor(eq, req.subResource);
      if (kind === undefined) {
        const msg = `unable to convert to ${gvrString(eq)}: unknown kind`;
        return { matched: false, reason: msg, error: plainError(msg) };
      }
      if (resourceNameMismatch(rule, req.name) !== undefined) continue;
      return {
        matched: true,
        resource: eq,
        kind,
        reason: `${label} ${i} matches the equivalent resource ${gvrDisplay(eq, req.subResource)} (${gvkDisplay(kind)})`,
      };
    }
  }
  const others = equivalents.filter((e) => !sameGVR(e, req.resource)).map((e) => gvrDisplay(e, req.subResource));
  const base = misses.join("; ") || `no ${label}s`;
  if (others.length === 0) return { matched: false, reason: base };
  return { matched: false, reason: `${base} (Equivalent: nor do the equivalent resources ${others.join(", ")})` };
}

/** A plain error (not a StatusError): the dispatcher wraps it as a configuration error. */
function plainError(msg: string): MatchError {
  return { message: msg, code: 500 };
}

/** `Matcher.Matches`: whether the request matches the criteria, and the matched resource/kind. */
export function matchResources(req: AdmissionRequest, mr: MatchResources, ctx: MatchContext): MatchResult {
  const ns = matchNamespaceSelector(mr.namespaceSelector, req, ctx);
  if (!ns.matches && ns.error === undefined) return { matches: false, reason: ns.reason };
  const obj = matchObjectSelector(mr.objectSelector, req);
  if (!obj.matches && obj.error === undefined) return { matches: false, reason: obj.reason };

  const excluded = matchResourceRules(mr.excludeResourceRules ?? [], mr.matchPolicy, req, ctx, "excludeResourceRules");
  if (excluded.error !== undefined) return { matches: false, reason: excluded.reason, error: excluded.error };
  if (excluded.matched) return { matches: false, reason: `excluded: ${excluded.reason}` };

  let rules: RulesOutcome;
  const resourceRules = mr.resourceRules ?? [];
  if (resourceRules.length === 0) {
    rules = { matched: true, resource: req.resource, kind: req.kind, reason: "no resourceRules: every resource matches" };
  } else {
    rules = matchResourceRules(resourceRules, mr.matchPolicy, req, ctx);
  }
  if (rules.error !== undefined) return { matches: false, reason: rules.reason, error: rules.error };
  if (!rules.matched) return { matches: false, reason: rules.reason };

  if (ns.error !== undefined) return { matches: false, reason: ns.reason, error: ns.error };
  if (obj.error !== undefined) return { matches: false, reason: obj.reason, error: obj.error };
  return {
    matches: true,
    reason: [rules.reason, ns.reason, obj.reason].join("; "),
    matchedResource: rules.resource!,
    matchedKind: rules.kind!,
  };
}

const nilSelector = (which: string): string => `a nil ${which} selector was passed, please ensure selectors are initialized properly`;

/**
 * `DefinitionMatches`: a policy's `matchConstraints`. Missing constraints or selectors are errors
 * (`policy contained no match constraints, a required field`, `a nil namespace selector was
 * passed, ...`), which the dispatcher reports as `failed to configure policy: <message>`.
 */
export function matchPolicyConstraints(req: AdmissionRequest, constraints: MatchResources | undefined, ctx: MatchContext): MatchResult {
  if (constraints === undefined) {
    const msg = "policy contained no match constraints, a required field";
    return { matches: false, reason: msg, error: { message: msg, code: 500 } };
  }
  if (constraints.namespaceSelector === undefined) {
    return { matches: false, reason: nilSelector("namespace"), error: { message: nilSelector("namespace"), code: 500 } };
  }
  if (constraints.objectSelector === undefined) {
    return { matches: false, reason: nilSelector("object"), error: { message: nilSelector("object"), code: 500 } };
  }
  return matchResources(req, constraints, ctx);
}

/**
 * `BindingMatches`: a binding's `matchResources`; absent matches everything. The matched
 * resource/kind of a binding are not used (the policy's are).
 */
export function matchBindingResources(req: AdmissionRequest, mr: MatchResources | undefined, ctx: MatchContext): MatchResult {
  if (mr === undefined) return { matches: true, reason: "binding has no matchResources", matchedResource: req.resource, matchedKind: req.kind };
  if (mr.namespaceSelector === undefined) {
    return { matches: false, reason: nilSelector("namespace"), error: { message: nilSelector("namespace"), code: 500 } };
  }
  if (mr.objectSelector === undefined) {
    return { matches: false, reason: nilSelector("object"), error: { message: nilSelector("object"), code: 500 } };
  }
  return matchResources(req, mr, ctx);
}
