/**
 * The Kubernetes authorizer libraries, as k8s.io/apiserver v0.36 implements
 * them in `pkg/cel/library/authz.go`:
 *
 * - {@link AUTHZ_LIBRARY} ("kubernetes.authz", Kubernetes 1.27+):
 *   `Authorizer.path(string) PathCheck`, `Authorizer.group(string) GroupCheck`,
 *   `Authorizer.serviceAccount(namespace, name) Authorizer`,
 *   `GroupCheck.resource(string) ResourceCheck`,
 *   `ResourceCheck.subresource/namespace/name(string) ResourceCheck`,
 *   `PathCheck.check(verb) Decision`, `ResourceCheck.check(verb) Decision`,
 *   `Decision.allowed() bool`, `.reason() string`, `.errored() bool`, `.error() string`;
 * - {@link AUTHZ_SELECTORS_LIBRARY} ("kubernetes.authzSelectors", 1.31+; the
 *   AuthorizeWithSelectors gate is locked on since 1.34):
 *   `ResourceCheck.fieldSelector(string)`, `ResourceCheck.labelSelector(string)`.
 *
 * The types are the object types `kubernetes.authorization.Authorizer`,
 * `…PathCheck`, `…GroupCheck`, `…ResourceCheck` and `…Decision`; they expose
 * no fields, and `==` between two of them is the error "no such overload"
 * (as in Kubernetes, whose equality never matches these values).
 *
 * The library declares no variables: the admission plugin declares
 * `authorizer` (Authorizer) and `authorizer.requestResource` (ResourceCheck);
 * {@link AUTHORIZER_VARIABLES} and {@link authorizerBindings} provide both.
 *
 * Selectors are parsed when `check` runs. A selector that does not parse does
 * not fail the expression: the check goes to the authorizer with no
 * requirements and the parse error in the attributes, and the authorizer
 * decides (Kubernetes' webhook and RBAC authorizers ignore or reject it).
 *
 * Differences from Kubernetes: `authorize` is synchronous; an authorizer that
 * throws gives an errored "noOpinion" decision with the exception's message;
 * label requirements of a selector with only whitespace are `[]` where Go has
 * a nil slice.
 */
import { func, memberOverload, type Library, type VariableDecl } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { BOOL, STRING, messageType } from "../types.js";
import { CelObject, type CelValue } from "../values.js";
import {
  FIXED_1,
  STRING_TRAVERSAL_COST_FACTOR,
  UNKNOWN_SIZE,
  actualSize,
  addRanges,
  scaleRange,
  type CostEntry,
  type CostRange,
} from "./cost-model.js";
import {
  SelectorParseError,
  dns1123SubdomainErrors,
  isDNS1123Label,
  parseFieldSelector,
  parseLabelSelector,
  type FieldSelectorRequirement,
  type LabelSelectorRequirement,
} from "./selectors.js";

export type { FieldSelectorRequirement, LabelSelectorRequirement, LabelSelectorOperator } from "./selectors.js";

// ---------------------------------------------------------------------------
// The host interface: what callers implement.

/** The user a check is made for (`user.Info`; `username` is Go's `GetName()`). */
export interface UserInfo {
  readonly username: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/**
 * What is being authorized (`authorizer.AttributesRecord`). Path checks set
 * `path` and `verb` (the lower-case HTTP verb) and leave the resource fields
 * empty; resource checks set `resourceRequest`, `apiVersion: "*"` and the
 * resource fields. Field/label selector requirements are present only when the
 * expression gave a non-empty selector: then either the requirements or the
 * parse error is set.
 */
export interface AuthorizationAttributes {
  /** Undefined only when the caller bound no user (Go nil `user.Info`). */
  readonly user: UserInfo | undefined;
  readonly verb: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly resourceRequest: boolean;
  readonly path: string;
  readonly fieldSelectorRequirements?: readonly FieldSelectorRequirement[];
  readonly fieldSelectorParsingError?: string;
  readonly labelSelectorRequirements?: readonly LabelSelectorRequirement[];
  readonly labelSelectorParsingError?: string;
}

/** `AttributesRecord.IsReadOnly`: get, list and watch. */
export function isReadOnly(a: AuthorizationAttributes): boolean {
  return a.verb === "get" || a.verb === "list" || a.verb === "watch";
}

export type DecisionKind = "allow" | "deny" | "noOpinion";

/** An authorizer's answer (`Authorize`'s decision, reason, error). */
export interface AuthorizationResult {
  readonly decision: DecisionKind;
  readonly reason: string;
  /** Set when the authorizer failed (`err != nil`); `Decision.errored()` is then true. */
  readonly error?: string;
}

/** Answers authorization checks; implement it to give `authorizer` a policy. Must be synchronous. */
export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): AuthorizationResult;
}

/** The reason the {@link OFFLINE_AUTHORIZER} gives. */
export const OFFLINE_REASON = "celmap offline: no authorizer configured";

/** Denies everything (not an error: `errored()` is false), with {@link OFFLINE_REASON}. */
export const OFFLINE_AUTHORIZER: Authorizer = {
  authorize: () => ({ decision: "deny", reason: OFFLINE_REASON }),
};

/**
 * `admission/plugin/authorizer.NewCachingAuthorizer`: remembers each decision
 * of `inner` for the life of the returned authorizer, keyed by the attributes
 * (user with groups and extra values sorted; selector requirements only when
 * non-empty, parse errors not part of the key). Kubernetes wraps the
 * authorizer this way once per admission request for the policy plugins, so
 * repeated identical checks within a request reach `inner` once.
 */
export function cachingAuthorizer(inner: Authorizer): Authorizer {
  const decisions = new Map<string, AuthorizationResult>();
  return {
    authorize(a: AuthorizationAttributes): AuthorizationResult {
      const u = a.user;
      const key = JSON.stringify([
        a.verb,
        a.namespace,
        a.apiGroup,
        a.apiVersion,
        a.resource,
        a.subresource,
        a.name,
        a.resourceRequest,
        a.path,
        a.fieldSelectorRequirements !== undefined && a.fieldSelectorRequirements.length > 0 ? a.fieldSelectorRequirements : null,
        a.labelSelectorRequirements !== undefined && a.labelSelectorRequirements.length > 0 ? a.labelSelectorRequirements : null,
        u === undefined
          ? null
          : [
              u.username,
              u.uid,
              [...u.groups].sort(),
              Object.entries(u.extra)
                .filter(([, vs]) => vs !== undefined)
                .map(([k, vs]) => [k, [...vs].sort()])
                .sort(([x], [y]) => ((x as string) < (y as string) ? -1 : (x as string) > (y as string) ? 1 : 0)),
            ],
      ]);
      const cached = decisions.get(key);
      if (cached !== undefined) return cached;
      let result: AuthorizationResult;
      try {
        result = inner.authorize(a);
      } catch (e) {
        result = { decision: "noOpinion", reason: "", error: e instanceof Error ? e.message : String(e) };
      }
      decisions.set(key, result);
      return result;
    },
  };
}

// ---------------------------------------------------------------------------
// CEL types and values.

export const AUTHORIZER_TYPE = messageType("kubernetes.authorization.Authorizer");
export const PATH_CHECK_TYPE = messageType("kubernetes.authorization.PathCheck");
export const GROUP_CHECK_TYPE = messageType("kubernetes.authorization.GroupCheck");
export const RESOURCE_CHECK_TYPE = messageType("kubernetes.authorization.ResourceCheck");
export const DECISION_TYPE = messageType("kubernetes.authorization.Decision");

/** Receiver-only values: no fields, and `==` is "no such overload" as in Kubernetes. */
abstract class ReceiverOnly extends CelObject {
  override equals(_other: CelValue): boolean {
    throw new CelEvalError("no such overload");
  }
  /** Nominal size for the cost model. */
  size(): number {
    return 1;
  }
}

export class CelAuthorizer extends ReceiverOnly {
  readonly celType = AUTHORIZER_TYPE;
  constructor(
    readonly user: UserInfo | undefined,
    readonly authorizer: Authorizer,
  ) {
    super();
  }
}

export class CelPathCheck extends ReceiverOnly {
  readonly celType = PATH_CHECK_TYPE;
  constructor(
    readonly authz: CelAuthorizer,
    readonly path: string,
  ) {
    super();
  }
}

export class CelGroupCheck extends ReceiverOnly {
  readonly celType = GROUP_CHECK_TYPE;
  constructor(
    readonly authz: CelAuthorizer,
    readonly group: string,
  ) {
    super();
  }
}

export interface ResourceCheckFields {
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector: string;
  readonly labelSelector: string;
}

export class CelResourceCheck extends ReceiverOnly {
  readonly celType = RESOURCE_CHECK_TYPE;
  constructor(
    readonly groupCheck: CelGroupCheck,
    readonly fields: ResourceCheckFields,
  ) {
    super();
  }
  with(change: Partial<ResourceCheckFields>): CelResourceCheck {
    return new CelResourceCheck(this.groupCheck, { ...this.fields, ...change });
  }
}

export class CelDecision extends ReceiverOnly {
  readonly celType = DECISION_TYPE;
  constructor(readonly result: AuthorizationResult) {
    super();
  }
}

/** Go `strings.TrimSpace(s) == ""` (Unicode White_Space, which differs from JS `trim` at U+0085 and U+FEFF). */
function isBlank(s: string): boolean {
  return /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/.test(s);
}

function authorize(authz: CelAuthorizer, attributes: AuthorizationAttributes): CelDecision {
  let result: AuthorizationResult;
  try {
    result = authz.authorizer.authorize(attributes);
  } catch (e) {
    result = { decision: "noOpinion", reason: "", error: e instanceof Error ? e.message : String(e) };
  }
  return new CelDecision(result);
}

export function pathCheckCheck(p: CelPathCheck, verb: string): CelDecision {
  return authorize(p.authz, {
    user: p.authz.user,
    verb,
    namespace: "",
    apiGroup: "",
    apiVersion: "",
    resource: "",
    subresource: "",
    name: "",
    resourceRequest: false,
    path: p.path,
  });
}

export function resourceCheckCheck(r: CelResourceCheck, verb: string): CelDecision {
  const f = r.fields;
  const attributes: {
    -readonly [K in keyof AuthorizationAttributes]: AuthorizationAttributes[K];
  } = {
    user: r.groupCheck.authz.user,
    verb,
    namespace: f.namespace,
    apiGroup: r.groupCheck.group,
    apiVersion: "*",
    resource: f.resource,
    subresource: f.subresource,
    name: f.name,
    resourceRequest: true,
    path: "",
  };
  if (f.fieldSelector.length > 0) {
    try {
      attributes.fieldSelectorRequirements = parseFieldSelector(f.fieldSelector);
    } catch (e) {
      if (!(e instanceof SelectorParseError)) throw e;
      attributes.fieldSelectorParsingError = e.message;
    }
  }
  if (f.labelSelector.length > 0) {
    try {
      attributes.labelSelectorRequirements = parseLabelSelector(f.labelSelector);
    } catch (e) {
      if (!(e instanceof SelectorParseError)) throw e;
      attributes.labelSelectorParsingError = e.message;
    }
  }
  return authorize(r.groupCheck.authz, attributes);
}

/** `serviceaccount.ServiceAccountInfo{Namespace, Name}.UserInfo()`. */
export function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    uid: "",
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`],
    extra: {},
  };
}

export function authorizerServiceAccount(a: CelAuthorizer, namespace: string, name: string): CelAuthorizer {
  // Kubernetes checks the name first (DNS-1123 subdomain), then the namespace (DNS-1123 label).
  if (dns1123SubdomainErrors(name).length > 0) throw new CelEvalError("Invalid service account name");
  if (!isDNS1123Label(namespace)) throw new CelEvalError("Invalid service account namespace");
  return new CelAuthorizer(serviceAccountUser(namespace, name), a.authorizer);
}

export function authorizerPath(a: CelAuthorizer, path: string): CelPathCheck {
  if (isBlank(path)) throw new CelEvalError("path must not be empty");
  return new CelPathCheck(a, path);
}

export function groupCheckResource(g: CelGroupCheck, resource: string): CelResourceCheck {
  if (isBlank(resource)) throw new CelEvalError("resource must not be empty");
  return newResourceCheck(g, resource);
}

function newResourceCheck(g: CelGroupCheck, resource: string): CelResourceCheck {
  return new CelResourceCheck(g, {
    resource,
    subresource: "",
    namespace: "",
    name: "",
    fieldSelector: "",
    labelSelector: "",
  });
}

export const AUTHZ_LIBRARY: Library = {
  name: "kubernetes.authz",
  /** Cost rules for the estimator and run-time tracking (`cost` below; a getter, as it is defined later). */
  get costs() {
    return cost;
  },
  functions: [
    func("path", memberOverload("authorizer_path", [AUTHORIZER_TYPE, STRING], PATH_CHECK_TYPE, authorizerPath)),
    func(
      "group",
      memberOverload(
        "authorizer_group",
        [AUTHORIZER_TYPE, STRING],
        GROUP_CHECK_TYPE,
        (a: CelAuthorizer, group: string) => new CelGroupCheck(a, group),
      ),
    ),
    func(
      "serviceAccount",
      memberOverload("authorizer_serviceaccount", [AUTHORIZER_TYPE, STRING, STRING], AUTHORIZER_TYPE, authorizerServiceAccount),
    ),
    func("resource", memberOverload("groupcheck_resource", [GROUP_CHECK_TYPE, STRING], RESOURCE_CHECK_TYPE, groupCheckResource)),
    func(
      "subresource",
      memberOverload(
        "resourcecheck_subresource",
        [RESOURCE_CHECK_TYPE, STRING],
        RESOURCE_CHECK_TYPE,
        (r: CelResourceCheck, subresource: string) => r.with({ subresource }),
      ),
    ),
    func(
      "namespace",
      memberOverload(
        "resourcecheck_namespace",
        [RESOURCE_CHECK_TYPE, STRING],
        RESOURCE_CHECK_TYPE,
        (r: CelResourceCheck, namespace: string) => r.with({ namespace }),
      ),
    ),
    func(
      "name",
      memberOverload(
        "resourcecheck_name",
        [RESOURCE_CHECK_TYPE, STRING],
        RESOURCE_CHECK_TYPE,
        (r: CelResourceCheck, name: string) => r.with({ name }),
      ),
    ),
    func(
      "check",
      memberOverload("pathcheck_check", [PATH_CHECK_TYPE, STRING], DECISION_TYPE, pathCheckCheck),
      memberOverload("resourcecheck_check", [RESOURCE_CHECK_TYPE, STRING], DECISION_TYPE, resourceCheckCheck),
    ),
    func(
      "errored",
      memberOverload("decision_errored", [DECISION_TYPE], BOOL, (d: CelDecision) => d.result.error !== undefined),
    ),
    func("error", memberOverload("decision_error", [DECISION_TYPE], STRING, (d: CelDecision) => d.result.error ?? "")),
    func(
      "allowed",
      memberOverload("decision_allowed", [DECISION_TYPE], BOOL, (d: CelDecision) => d.result.decision === "allow"),
    ),
    func("reason", memberOverload("decision_reason", [DECISION_TYPE], STRING, (d: CelDecision) => d.result.reason)),
  ],
};

export const AUTHZ_SELECTORS_LIBRARY: Library = {
  name: "kubernetes.authzSelectors",
  /** Cost rules for the estimator and run-time tracking (`cost` below; a getter, as it is defined later). */
  get costs() {
    return cost;
  },
  functions: [
    func(
      "fieldSelector",
      memberOverload(
        "authorizer_fieldselector",
        [RESOURCE_CHECK_TYPE, STRING],
        RESOURCE_CHECK_TYPE,
        (r: CelResourceCheck, fieldSelector: string) => r.with({ fieldSelector }),
      ),
    ),
    func(
      "labelSelector",
      memberOverload(
        "authorizer_labelselector",
        [RESOURCE_CHECK_TYPE, STRING],
        RESOURCE_CHECK_TYPE,
        (r: CelResourceCheck, labelSelector: string) => r.with({ labelSelector }),
      ),
    ),
  ],
};

// ---------------------------------------------------------------------------
// Variables.

export const AUTHORIZER_VARIABLE = "authorizer";
export const REQUEST_RESOURCE_AUTHORIZER_VARIABLE = "authorizer.requestResource";

/** The declarations the admission plugin adds when it offers an authorizer. */
export const AUTHORIZER_VARIABLES: readonly VariableDecl[] = [
  { name: AUTHORIZER_VARIABLE, type: AUTHORIZER_TYPE },
  { name: REQUEST_RESOURCE_AUTHORIZER_VARIABLE, type: RESOURCE_CHECK_TYPE },
];

/**
 * The admission request's resource as `authorizer.requestResource` sees it
 * (`admission.Attributes` of the request: `GetResource()` group and resource,
 * `GetSubresource()`, `GetNamespace()`, `GetName()`). This is the resource the
 * API request named, also when the policy matched it through an equivalent
 * resource: Kubernetes' versioned attributes convert the objects only.
 */
export interface RequestResource {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** `library.NewAuthorizerVal`: the value of `authorizer` for a request's user. */
export function authorizerValue(user: UserInfo | undefined, authorizer: Authorizer = OFFLINE_AUTHORIZER): CelAuthorizer {
  return new CelAuthorizer(user, authorizer);
}

/** `library.NewResourceAuthorizerVal`: the value of `authorizer.requestResource`. */
export function requestResourceValue(
  user: UserInfo | undefined,
  authorizer: Authorizer,
  request: RequestResource,
): CelResourceCheck {
  const group = new CelGroupCheck(authorizerValue(user, authorizer), request.group);
  // No empty-resource check here, as in Kubernetes.
  return newResourceCheck(group, request.resource).with({
    subresource: request.subresource,
    namespace: request.namespace,
    name: request.name,
  });
}

/** Both variables, ready to merge into the activation. */
export function authorizerBindings(
  user: UserInfo | undefined,
  authorizer: Authorizer,
  request: RequestResource,
): Record<string, CelValue> {
  return {
    [AUTHORIZER_VARIABLE]: authorizerValue(user, authorizer),
    [REQUEST_RESOURCE_AUTHORIZER_VARIABLE]: requestResourceValue(user, authorizer, request),
  };
}

// ---------------------------------------------------------------------------
// Cost (k8s.io/apiserver pkg/cel/library/cost.go).

/** An authorization check costs a fixed 350,000 ("allows only two checks per expression"). */
export const AUTHORIZATION_CHECK_COST = 350_000n;
/** cel-go `common.ListCreateBaseCost` and `StructCreateBaseCost`. */
const LIST_CREATE_BASE_COST = 10n;
const COST_PER_REQUIREMENT = 10 + 40;

/** cost.go `selectorCostEstimate`: 10 + ceil(len × 0.1) + ceil(len × 0.5) × 50. */
export function selectorCost(length: CostRange): CostRange {
  const parse = scaleRange(length, STRING_TRAVERSAL_COST_FACTOR);
  const requirements = scaleRange(scaleRange(length, 0.5), COST_PER_REQUIREMENT);
  return addRanges(addRanges({ min: LIST_CREATE_BASE_COST, max: LIST_CREATE_BASE_COST }, parse), requirements);
}

const nominal = (fn: string): CostEntry => ({
  function: fn,
  estimate: () => FIXED_1,
  actual: () => 1n,
  note: "builder or accessor: 1",
});
const check = (fn: string): CostEntry => ({
  function: fn,
  estimate: () => ({ min: AUTHORIZATION_CHECK_COST, max: AUTHORIZATION_CHECK_COST }),
  actual: () => AUTHORIZATION_CHECK_COST,
  note: "authorization check: 350000",
});
const selector = (fn: string): CostEntry => ({
  function: fn,
  estimate: (args) => selectorCost(args[0] ?? UNKNOWN_SIZE),
  actual: (args) => {
    const n = actualSize(args[1]);
    return selectorCost({ min: n, max: n }).max;
  },
  note: "selector parse: 10 + ceil(len × 0.1) + ceil(len × 0.5) × 50",
});

/** Cost of every overload of the authz libraries, by overload id (`_==_` on two authz values under `equals_authz`). */
export const cost: Readonly<Record<string, CostEntry>> = {
  authorizer_path: nominal("path"),
  authorizer_group: nominal("group"),
  authorizer_serviceaccount: nominal("serviceAccount"),
  groupcheck_resource: nominal("resource"),
  resourcecheck_subresource: nominal("subresource"),
  resourcecheck_namespace: nominal("namespace"),
  resourcecheck_name: nominal("name"),
  pathcheck_check: check("check"),
  resourcecheck_check: check("check"),
  decision_allowed: nominal("allowed"),
  decision_reason: nominal("reason"),
  decision_errored: nominal("errored"),
  decision_error: nominal("error"),
  authorizer_fieldselector: selector("fieldSelector"),
  authorizer_labelselector: selector("labelSelector"),
  equals_authz: { ...nominal("_==_"), note: "equality of two authz values: 1 (it then fails at run time)" },
};
