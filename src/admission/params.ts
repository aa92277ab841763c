/**
 * From policies and bindings to the invocations of one admission request: pairing policies
 * with their bindings ("hooks"), matching, and resolving params — the generic policy
 * dispatcher of the apiserver up to (not including) the MAP delegate
 * (`pkg/admission/plugin/policy/generic/{policy_source,policy_dispatcher}.go`). Pure; no CEL:
 * matchConditions and mutations are evaluated later by the dispatcher.
 *
 * Pairing ({@link buildHooks}):
 * - a binding belongs to the policy named by `spec.policyName`; a binding whose policy does not
 *   exist is ignored; a policy without bindings does nothing (no hook);
 * - a policy whose `paramKind.apiVersion` does not parse is dropped (`failed to parse paramKind
 *   APIVersion: ...`); a paramKind the catalog does not know gives the hook a configuration error
 *   `failed to find resource referenced by paramKind: '<group>/<version>, Kind=<kind>'`, reported
 *   (subject to failurePolicy) only for requests the policy matches.
 *
 * Order. Kubernetes specifies none: hooks come from iterating a Go map keyed by policy name,
 * bindings in informer-list order and selector params in lister order, all unspecified (map.md
 * §2.2; the oracle notes show the policy order really varies between requests). We choose, and
 * tests pin: policies by name, then each policy's bindings by name, then a binding's params by
 * namespace then name — code-unit order throughout.
 *
 * Params ({@link collectParams}, `CollectParams`):
 * - no paramKind: one invocation, `params` undeclared (the binding's paramRef is ignored);
 * - paramKind but no paramRef: one invocation with `params == null`;
 * - namespaced paramKind: namespace = `paramRef.namespace`, else the request namespace; both
 *   empty → `cannot use namespaced paramRef in policy binding that matches cluster-scoped
 *   resources`; cluster-scoped paramKind with `paramRef.namespace` → ``paramRef.namespace must not
 *   be provided for a cluster-scoped `paramKind` ``;
 * - `name`: that object, none when not found; `selector`: every object whose labels match (`{}`
 *   selects all), each a separate invocation;
 * - nothing found: `Deny` → ``no params found for policy binding with `Deny`
 *   parameterNotFoundAction``; `Allow` (or absent) → no invocation for that binding.
 * Errors are configuration errors of the binding: `failed to configure binding: <message>`.
 */
import type { JsonObject } from "./json.js";
import type { MatchResources, ParamKind, ParamRef } from "../policy/schemas/common.js";
import { gvkString, parseGroupVersion, type GroupVersionKind, type GroupVersionResource, type ResourceScope } from "./match/catalog.js";
import { matchBindingResources, matchPolicyConstraints, type MatchContext } from "./match/match.js";
import { mapExemption, objectLabels, type AdmissionRequest } from "./request.js";
import { labelSelectorAsSelector, selectorMatches, selectorString, type Selector } from "./selector.js";

/** What of a MutatingAdmissionPolicy this module reads. */
export interface PolicyLike {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly paramKind?: ParamKind | undefined;
    readonly matchConstraints?: MatchResources | undefined;
    readonly failurePolicy?: string | undefined;
  };
}

/** What of a MutatingAdmissionPolicyBinding this module reads. */
export interface BindingLike {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly policyName: string;
    readonly paramRef?: ParamRef | undefined;
    readonly matchResources?: MatchResources | undefined;
  };
}

/** Where param objects come from: files offline, the cluster in webhook mode. */
export interface ParamSource {
  /**
   * The object of kind `apiVersion`/`kind` named `name` — in `namespace`, or cluster-scoped when
   * `namespace` is undefined. `undefined` when there is none (NotFound). Throw for other failures;
   * the error's message becomes the binding's configuration error.
   */
  get(query: { apiVersion: string; kind: string; namespace: string | undefined; name: string }): JsonObject | undefined;
  /**
   * The objects of that kind in `namespace` (all cluster-scoped ones when undefined) whose labels
   * match `selector` (`labelSelector` is its wire form, `""` = everything). Returning more is
   * harmless: results are filtered again. Throw for failures.
   */
  list(query: {
    apiVersion: string;
    kind: string;
    namespace: string | undefined;
    selector: Selector;
    labelSelector: string;
  }): readonly JsonObject[];
}

export interface PolicyHook<P extends PolicyLike = PolicyLike, B extends BindingLike = BindingLike> {
  readonly policy: P;
  /** Sorted by name. */
  readonly bindings: readonly B[];
  /** Parsed paramKind, when the policy has one. */
  readonly paramKind?: GroupVersionKind;
  /** Scope of the paramKind's resource, when resolved. */
  readonly paramScope?: ResourceScope;
  /** `failed to find resource referenced by paramKind: ...`: reported when the policy matches. */
  readonly configurationError?: string;
}

export interface HookSet<P extends PolicyLike, B extends BindingLike> {
  /** Sorted by policy name. */
  readonly hooks: PolicyHook<P, B>[];
  /** Bindings whose policy does not exist (ignored, as the apiserver does). */
  readonly orphanBindings: B[];
  /** Policies with no binding (no-ops). */
  readonly unboundPolicies: P[];
  /** Policies dropped because their paramKind apiVersion does not parse, with the message. */
  readonly dropped: { readonly policy: P; readonly message: string }[];
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Resolves a paramKind's scope: the catalog's resource for that GVK. */
export interface ParamKindResolver {
  /** Changes whenever resolution may change (ResourceCatalog counts its additions); absent: never. */
  readonly generation?: number;
  resourceForKind(
    gvk: GroupVersionKind,
  ): { readonly scope: ResourceScope; readonly gvr: GroupVersionResource; readonly served?: boolean } | undefined;
}

/** Pairs policies and bindings into hooks, in our documented order. */
export function buildHooks<P extends PolicyLike, B extends BindingLike>(
  policies: readonly P[],
  bindings: readonly B[],
  resolver: ParamKindResolver,
): HookSet<P, B> {
  // Every request of a policy set pairs the same arrays: pair them once per (policies, bindings,
  // resolver). Callers treat loaded policies and bindings as immutable.
  let byBindings = hookCache.get(policies);
  if (byBindings === undefined) hookCache.set(policies, (byBindings = new WeakMap()));
  let byResolver = byBindings.get(bindings);
  if (byResolver === undefined) byBindings.set(bindings, (byResolver = new WeakMap()));
  // Revalidated cheaply against the things that can change in place: array lengths and the
  // resolver's generation (a catalog gains CRDs).
  const generation = resolver.generation ?? 0;
  const hit = byResolver.get(resolver);
  if (hit !== undefined && hit.generation === generation && hit.policies === policies.length && hit.bindings === bindings.length) return hit.set as HookSet<P, B>;
  const set = pairHooks(policies, bindings, resolver);
  byResolver.set(resolver, { set: set as HookSet<PolicyLike, BindingLike>, generation, policies: policies.length, bindings: bindings.length });
  return set;
}

interface CachedHooks {
  readonly set: HookSet<PolicyLike, BindingLike>;
  readonly generation: number;
  readonly policies: number;
  readonly bindings: number;
}

const hookCache = new WeakMap<readonly PolicyLike[], WeakMap<readonly BindingLike[], WeakMap<ParamKindResolver, CachedHooks>>>();

function pairHooks<P extends PolicyLike, B extends BindingLike>(policies: readonly P[], bindings: readonly B[], resolver: ParamKindResolver): HookSet<P, B> {
  const byPolicy = new Map<string, B[]>();
  for (const b of bindings) {
    const list = byPolicy.get(b.spec.policyName) ?? [];
    list.push(b);
    byPolicy.set(b.spec.policyName, list);
  }
  const names = new Set(policies.map((p) => p.metadata.name));
  const set: HookSet<P, B> = {
    hooks: [],
    orphanBindings: bindings.filter((b) => !names.has(b.spec.policyName)).sort((a, b) => byCodeUnits(a.metadata.name, b.metadata.name)),
    unboundPolicies: [],
    dropped: [],
  };
  for (const policy of [...policies].sort((a, b) => byCodeUnits(a.metadata.name, b.metadata.name))) {
    const bs = byPolicy.get(policy.metadata.name);
    if (bs === undefined || bs.length === 0) {
      set.unboundPolicies.push(policy);
      continue;
    }
    const sorted = [...bs].sort((a, b) => byCodeUnits(a.metadata.name, b.metadata.name));
    const pk = policy.spec.paramKind;
    if (pk === undefined) {
      set.hooks.push({ policy, bindings: sorted });
      continue;
    }
    const gv = parseGroupVersion(pk.apiVersion ?? "");
    if ("error" in gv) {
      set.dropped.push({ policy, message: `failed to parse paramKind APIVersion: ${gv.error}` });
      continue;
    }
    const paramKind: GroupVersionKind = { group: gv.group, version: gv.version, kind: pk.kind ?? "" };
    const info = resolver.resourceForKind(paramKind);
    // The REST mapper knows served versions only (an alpha/beta version not enabled is unknown).
    if (info === undefined || info.served === false) {
      set.hooks.push({
        policy,
        bindings: sorted,
        paramKind,
        configurationError: `failed to find resource referenced by paramKind: '${gvkString(paramKind)}'`,
      });
      continue;
    }
    set.hooks.push({ policy, bindings: sorted, paramKind, paramScope: info.scope });
  }
  return set;
}

/** `v1.ParamKind.String()` (gogo-protobuf): `&ParamKind{APIVersion:v1,Kind:ConfigMap,}`. */
export function paramKindString(pk: ParamKind): string {
  return `&ParamKind{APIVersion:${pk.apiVersion ?? ""},Kind:${pk.kind ?? ""},}`;
}

export type ParamsResult =
  | { readonly ok: true; readonly params: readonly (JsonObject | null)[]; readonly reason: string }
  | { readonly ok: false; readonly error: string };

function metaOf(o: JsonObject, field: "name" | "namespace"): string {
  const md = o.metadata;
  if (typeof md !== "object" || md === null || Array.isArray(md)) return "";
  const v = (md as JsonObject)[field];
  return typeof v === "string" ? v : "";
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * `CollectParams`: the params of one binding for a request in `namespace`. `[null]` means one
 * invocation without param; `[]` means no invocation (not found with Allow).
 */
export function collectParams(
  paramKind: ParamKind | undefined,
  paramScope: ResourceScope | undefined,
  paramRef: ParamRef | undefined,
  namespace: string,
  source: ParamSource | undefined,
): ParamsResult {
  let paramsNamespace: string | undefined;
  if (paramKind !== undefined && paramRef !== undefined) {
    if (source === undefined || paramScope === undefined) {
      return { ok: false, error: `paramKind kind \`${paramKindString(paramKind)}\` not known` };
    }
    if (paramScope === "Namespaced") {
      paramsNamespace = namespace;
      if ((paramRef.namespace ?? "") !== "") paramsNamespace = paramRef.namespace!;
      else if (paramsNamespace === "") {
        return { ok: false, error: "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources" };
      }
    }
  }
  if (paramKind === undefined) return { ok: true, params: [null], reason: "policy has no paramKind" };
  if (paramRef === undefined) return { ok: true, params: [null], reason: "binding has no paramRef: params is null" };
  const apiVersion = paramKind.apiVersion ?? "";
  const kind = paramKind.kind ?? "";
  if ((paramRef.namespace ?? "") !== "" && paramScope === "Cluster") {
    return { ok: false, error: "paramRef.namespace must not be provided for a cluster-scoped `paramKind`" };
  }
  const where = paramsNamespace === undefined ? "cluster-scoped" : `in namespace '${paramsNamespace}'`;
  let params: JsonObject[];
  let reason: string;
  if ((paramRef.name ?? "") !== "") {
    if (paramRef.selector !== undefined) return { ok: false, error: "paramRef.name and paramRef.selector are mutually exclusive" };
    let found: JsonObject | undefined;
    try {
      found = source!.get({ apiVersion, kind, namespace: paramsNamespace, name: paramRef.name! });
    } catch (e) {
      return { ok: false, error: messageOf(e) };
    }
    params = found === undefined ? [] : [found];
    reason = found === undefined ? `${kind} '${paramRef.name}' ${where} not found` : `${kind} '${paramRef.name}' ${where}`;
  } else if (paramRef.selector !== undefined) {
    const parsed = labelSelectorAsSelector(paramRef.selector);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const selector = parsed.selector;
    let listed: readonly JsonObject[];
    try {
      listed = source!.list({ apiVersion, kind, namespace: paramsNamespace, selector, labelSelector: selectorString(selector) });
    } catch (e) {
      return { ok: false, error: messageOf(e) };
    }
    params = listed
      .filter((o) => (paramsNamespace === undefined || metaOf(o, "namespace") === paramsNamespace) && selectorMatches(selector, objectLabels(o)))
      .sort((a, b) => byCodeUnits(metaOf(a, "namespace"), metaOf(b, "namespace")) || byCodeUnits(metaOf(a, "name"), metaOf(b, "name")));
    const shown = selectorString(selector);
    reason = `${params.length} ${kind}(s) ${where} match selector ${shown === "" ? "<everything>" : `'${shown}'`}`;
    if (params.length > 0) reason += `: ${params.map((p) => metaOf(p, "name")).join(", ")}`;
  } else {
    return { ok: false, error: "one of name or selector must be provided" };
  }
  if (params.length === 0 && paramRef.parameterNotFoundAction === "Deny") {
    return { ok: false, error: "no params found for policy binding with `Deny` parameterNotFoundAction" };
  }
  if (params.length === 0) return { ok: true, params: [], reason: `${reason}; parameterNotFoundAction Allow: binding skipped` };
  return { ok: true, params, reason };
}

// ---------------------------------------------------------------------------------------------
// Selecting the invocations of a request

export interface Invocation<P extends PolicyLike = PolicyLike, B extends BindingLike = BindingLike> {
  readonly policy: P;
  readonly binding: B;
  /** The param object, or null (no paramKind, or no paramRef). */
  readonly param: JsonObject | null;
  /** The resource/kind the *policy's* matchConstraints matched (maybe an equivalent one). */
  readonly matchedResource: GroupVersionResource;
  readonly matchedKind: GroupVersionKind;
}

/** A configuration error: the apiserver's `PolicyError` with no reason. */
export interface PolicyConfigError<P extends PolicyLike = PolicyLike, B extends BindingLike = BindingLike> {
  readonly policy: P;
  /** Absent for policy-level errors. */
  readonly binding?: B;
  /** `failed to configure policy: ...` / `failed to configure binding: ...`. */
  readonly message: string;
}

export interface TraceEntry {
  readonly policy: string;
  readonly binding?: string;
  /** `policy`: matchConstraints; `binding`: matchResources; `params`: param resolution. */
  readonly step: "exempt" | "policy" | "binding" | "params";
  readonly ok: boolean;
  readonly reason: string;
}

export interface Selection<P extends PolicyLike, B extends BindingLike> {
  /** In order: hooks by policy name, bindings by name, params by namespace/name. */
  readonly invocations: Invocation<P, B>[];
  /** Configuration errors, in the same order (not yet filtered by failurePolicy). */
  readonly errors: PolicyConfigError<P, B>[];
  readonly trace: TraceEntry[];
}

export interface SelectContext extends MatchContext {
  readonly params?: ParamSource;
}

/** `PolicyError.Error()`: how a policy error reads in the 403 message and its causes. */
export function formatPolicyError(policyName: string, bindingName: string | undefined, message: string): string {
  return bindingName === undefined
    ? `policy ${JSON.stringify(policyName)} denied request: ${message}`
    : `policy '${policyName}' with binding '${bindingName}' denied request: ${message}`;
}

/**
 * The generic dispatcher's loop: for each hook, match the policy, then each binding, then
 * collect params; one invocation per (policy, binding, param). Requests MAP never handles
 * (DELETE, review resources, policy resources) select nothing.
 */
export function selectInvocations<P extends PolicyLike, B extends BindingLike>(
  req: AdmissionRequest,
  hooks: readonly PolicyHook<P, B>[],
  ctx: SelectContext,
): Selection<P, B> {
  const sel: Selection<P, B> = { invocations: [], errors: [], trace: [] };
  const exemption = mapExemption(req);
  if (exemption.exempt) {
    sel.trace.push({ policy: "", step: "exempt", ok: false, reason: exemption.reason });
    return sel;
  }
  for (const hook of hooks) {
    const policy = hook.policy;
    const pname = policy.metadata.name;
    const m = matchPolicyConstraints(req, policy.spec.matchConstraints, ctx);
    if (m.error !== undefined) {
      sel.errors.push({ policy, message: `failed to configure policy: ${m.error.message}` });
      sel.trace.push({ policy: pname, step: "policy", ok: false, reason: m.reason });
      continue;
    }
    if (!m.matches) {
      sel.trace.push({ policy: pname, step: "policy", ok: false, reason: m.reason });
      continue;
    }
    if (hook.configurationError !== undefined) {
      sel.errors.push({ policy, message: `failed to configure policy: ${hook.configurationError}` });
      sel.trace.push({ policy: pname, step: "policy", ok: false, reason: hook.configurationError });
      continue;
    }
    sel.trace.push({ policy: pname, step: "policy", ok: true, reason: m.reason });
    for (const binding of hook.bindings) {
      const bname = binding.metadata.name;
      const bm = matchBindingResources(req, binding.spec.matchResources, ctx);
      if (bm.error !== undefined) {
        sel.errors.push({ policy, binding, message: `failed to configure binding: ${bm.error.message}` });
        sel.trace.push({ policy: pname, binding: bname, step: "binding", ok: false, reason: bm.reason });
        continue;
      }
      if (!bm.matches) {
        sel.trace.push({ policy: pname, binding: bname, step: "binding", ok: false, reason: bm.reason });
        continue;
      }
      sel.trace.push({ policy: pname, binding: bname, step: "binding", ok: true, reason: bm.reason });
      const params = collectParams(policy.spec.paramKind, hook.paramScope, binding.spec.paramRef, req.namespace, ctx.params);
      if (!params.ok) {
        sel.errors.push({ policy, binding, message: `failed to configure binding: ${params.error}` });
        sel.trace.push({ policy: pname, binding: bname, step: "params", ok: false, reason: params.error });
        continue;
      }
      sel.trace.push({ policy: pname, binding: bname, step: "params", ok: params.params.length > 0, reason: params.reason });
      for (const param of params.params) {
        sel.invocations.push({ policy, binding, param, matchedResource: m.matchedResource!, matchedKind: m.matchedKind! });
      }
    }
  }
  return sel;
}

/**
 * A {@link ParamSource} over objects in memory (params given as files). Objects are matched by
 * `apiVersion` and `kind`; a cluster-scoped query matches objects regardless of namespace.
 */
export function inMemoryParamSource(objects: readonly JsonObject[]): ParamSource {
  const sameKind = (o: JsonObject, apiVersion: string, kind: string): boolean => o.apiVersion === apiVersion && o.kind === kind;
  const inNs = (o: JsonObject, ns: string | undefined): boolean => ns === undefined || metaOf(o, "namespace") === ns;
  return {
    get: ({ apiVersion, kind, namespace, name }) =>
      objects.find((o) => sameKind(o, apiVersion, kind) && inNs(o, namespace) && metaOf(o, "name") === name),
    list: ({ apiVersion, kind, namespace, selector }) =>
      objects.filter((o) => sameKind(o, apiVersion, kind) && inNs(o, namespace) && selectorMatches(selector, objectLabels(o))),
  };
}
