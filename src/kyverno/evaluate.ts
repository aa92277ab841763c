/**
 * Kyverno MutatingPolicy / NamespacedMutatingPolicy as first-class policies of celmap's admission
 * pipeline (kyverno.md §1.4): the same request model, matcher (`matchPolicyConstraints`), patchers
 * (server-side apply by schema, RFC 6902 JSON Patch) as MAPs, with Kyverno's environment
 * (`kyvernoEnv`: its libraries and offline providers), lazy variables visible to matchConditions,
 * PolicyExceptions (full exemptions and the `exceptions` variable) and namespaced policies scoped
 * to their own namespace (the webhook's behaviour; Kyverno's CLI does not scope them offline).
 *
 *     const run = evaluateMutatingPolicies(request, policies, { catalog, schemas, namespaces, providers, exceptions });
 *     run.outcomes   // per policy, in order: pass | skip | error | nomatch (+ object after it)
 *     run.object     // the final object; run.allowed false when a Fail policy errored
 *
 * Pure: no file or network access.
 */
import { BOOL, CelEvalError, fromJson, toJson, type CelValue } from "../cel/index.js";
import { applyConfigurationJson, ObjectValue, typeNameMismatches } from "../cel/k8s/object.js";
import { jsonPatchOperations } from "../cel/k8s/jsonpatch.js";
import { APPLY_CONFIGURATION_TYPE, compileExpression, JSON_PATCH_LIST_TYPE, LazyVariables, type CompiledVariable } from "../admission/environment.js";
import { compileKyvernoVariables, ExceptionsValue, kyvernoEnv, type KyvernoProviders } from "./cel/index.js";
import type { Program } from "../cel/planner.js";
import type { SchemaRegistry } from "../kube/schema.js";
import { defaultMutatingPolicy, type MutatingPolicy, type PolicyException } from "./policy.js";
import { autogen, type AutogenConfigName } from "./autogen.js";
import { admissionRequestValue, type Defaulter } from "../admission/dispatch.js";
import { isJsonObject, type JsonObject } from "../admission/json.js";
import { matchPolicyConstraints } from "../admission/match/match.js";
import type { ResourceCatalog } from "../admission/match/catalog.js";
import { applyJsonPatch } from "../admission/patch/json-patch.js";
import type { AdmissionRequest } from "../admission/request.js";
import { applyConfiguration } from "../admission/ssa/apply.js";
import { pruneUnknownFields } from "../admission/typed-decode.js";
import type { WebhookStage } from "../admission/webhook-stage.js";
import { jsonDiff, type PatchOperation } from "../admission/diff.js";

export interface KyvernoContext {
  readonly catalog: ResourceCatalog;
  readonly schemas: SchemaRegistry;
  /** Namespace objects (namespaceSelector, `namespaceObject`); a missing one reads as a bare namespace. */
  readonly namespaces?: (name: string) => JsonObject | undefined;
  /** Library providers (resource, http, globalContext, imageData, yaml); compiled programs are cached per providers object. */
  readonly providers?: KyvernoProviders;
  readonly exceptions?: readonly PolicyException[];
  readonly defaulter?: Defaulter;
  /**
   * Scope NamespacedMutatingPolicies to their namespace (the webhook does; default true). False
   * reproduces Kyverno's CLI, which does not scope them offline (kyverno.md §1.5, §5.2 quirk 2).
   */
  readonly scopeNamespaced?: boolean;
  /** Evaluate policies with admission disabled / with targetMatchConstraints too (mutateExisting on the given object). */
  readonly includeNonAdmission?: boolean;
}

export type KyvernoResult = "pass" | "skip" | "error" | "nomatch";

export interface KyvernoOutcome {
  readonly policy: string;
  readonly namespace?: string;
  readonly result: KyvernoResult;
  readonly message?: string;
  /** The object after this policy (the input when it did not run). */
  readonly object: JsonObject | null;
  readonly changed: boolean;
  /** The exception that exempted it, if any. */
  readonly exception?: string;
  /** Non-empty auditAnnotations, evaluated on the final object (Kyverno reports them as result properties). */
  readonly properties?: Readonly<Record<string, string>>;
  /** The pod-controller autogen variant that ran (`defaults`, `cronjobs`), when not the policy as written. */
  readonly autogen?: AutogenConfigName;
}

export interface KyvernoRun {
  readonly allowed: boolean;
  readonly object: JsonObject | null;
  readonly outcomes: readonly KyvernoOutcome[];
  readonly errors: readonly string[];
  readonly ignoredErrors: readonly string[];
}

type Compiled = { ok: true; program: Program; expression: string } | { ok: false; detail: string; expression: string };

interface CompiledMpol {
  readonly variables: readonly CompiledVariable[];
  readonly matchConditions: readonly { name: string; c: Compiled }[];
  readonly mutations: readonly { patchType: "ApplyConfiguration" | "JSONPatch"; c: Compiled }[];
  readonly env: ReturnType<typeof kyvernoEnv>;
  readonly exceptionEnv: ReturnType<typeof kyvernoEnv>;
}

const cache = new WeakMap<object, WeakMap<object, CompiledMpol>>();
const NO_PROVIDERS: KyvernoProviders = {};

function comp(env: ReturnType<typeof kyvernoEnv>["env"], expression: string, type?: Parameters<typeof compileExpression>[2]): Compiled {
  const r = compileExpression(env, expression, type);
  return r.ok ? { ok: true, program: r.program, expression } : { ok: false, detail: r.detail, expression };
}

/** Compiles a policy in Kyverno's environment (cached per policy and providers). */
export function compileMutatingPolicy(policy: MutatingPolicy, providers: KyvernoProviders = NO_PROVIDERS): CompiledMpol {
  let byProv = cache.get(policy);
  if (byProv === undefined) cache.set(policy, (byProv = new WeakMap()));
  const hit = byProv.get(providers);
  if (hit !== undefined) return hit;
  const namespace = policy.kind === "NamespacedMutatingPolicy" ? (policy.metadata.namespace ?? "default") : "";
  const opts = { ...providers, namespace };
  const variables = compileKyvernoVariables((policy.spec.variables ?? []).map((v) => ({ name: v.name ?? "", expression: v.expression ?? "" })), opts);
  const env = kyvernoEnv({ ...opts, variables });
  const exceptionEnv = kyvernoEnv(opts);
  const compiled: CompiledMpol = {
    variables,
    env,
    exceptionEnv,
    matchConditions: (policy.spec.matchConditions ?? []).map((c) => ({ name: c.name ?? "", c: comp(env.env, c.expression ?? "", BOOL) })),
    mutations: (policy.spec.mutations ?? []).flatMap((m): { patchType: "ApplyConfiguration" | "JSONPatch"; c: Compiled }[] => {
      if (m.patchType === "JSONPatch" && m.jsonPatch !== undefined) return [{ patchType: "JSONPatch" as const, c: comp(env.env, m.jsonPatch.expression ?? "", JSON_PATCH_LIST_TYPE) }];
      if (m.patchType === "ApplyConfiguration" && m.applyConfiguration !== undefined) {
        return [{ patchType: "ApplyConfiguration" as const, c: comp(env.env, m.applyConfiguration.expression ?? "", APPLY_CONFIGURATION_TYPE) }];
      }
      return [];
    }),
  };
  byProv.set(providers, compiled);
  return compiled;
}

function run(c: Compiled, activation: Parameters<Program["eval"]>[0]): { value: CelValue } | { error: string } {
  if (!c.ok) return { error: c.detail };
  try {
    return { value: c.program.eval(activation) };
  } catch (e) {
    if (e instanceof CelEvalError) return { error: `expression '${c.expression}' resulted in error: ${e.message}` };
    if (e instanceof Error && e.name === "ProviderError") return { error: e.message };
    throw e;
  }
}

function bareNamespace(name: string): JsonObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { "kubernetes.io/metadata.name": name } } };
}

function policyLabel(p: MutatingPolicy): string {
  return p.kind === "NamespacedMutatingPolicy" ? `${p.metadata.namespace ?? "default"}/${p.metadata.name}` : p.metadata.name;
}

/** Whether the policy is evaluated at admission (admission enabled, no targetMatchConstraints). */
export function runsAtAdmission(p: MutatingPolicy): boolean {
  return p.spec.evaluation?.admission?.enabled !== false && p.spec.targetMatchConstraints === undefined;
}

/** One policy on one object (kyverno.md §1.4 steps 1–7). */
export function evaluateMutatingPolicy(
  policy: MutatingPolicy,
  request: AdmissionRequest,
  object: JsonObject | null,
  ctx: KyvernoContext,
  /**
   * mutateExisting's target phase: `request` (matched against the constraints) describes the
   * target, but CEL sees the trigger's admission request as `request` and a null `oldObject`
   * (kyverno.md §4: the background controller passes the UR's admission request).
   */
  targetPhase?: { readonly triggerRequest: AdmissionRequest },
): KyvernoOutcome {
  const base = { policy: policy.metadata.name, ...(policy.kind === "NamespacedMutatingPolicy" ? { namespace: policy.metadata.namespace ?? "default" } : {}) };
  const none = (result: KyvernoResult, message?: string, extra: Partial<KyvernoOutcome> = {}): KyvernoOutcome => ({
    ...base,
    result,
    object,
    changed: false,
    ...(message !== undefined ? { message } : {}),
    ...extra,
  });
  if (policy.kind === "NamespacedMutatingPolicy" && ctx.scopeNamespaced !== false) {
    if (request.namespace === "" || request.namespace !== (policy.metadata.namespace ?? "default")) return none("nomatch", "namespaced policy: the request is not in its namespace");
  }
  const getNamespace = (n: string): JsonObject | undefined => ctx.namespaces?.(n) ?? bareNamespace(n);
  const m = matchPolicyConstraints(request, policy.spec.matchConstraints as never, { catalog: ctx.catalog, getNamespace });
  if (m.error !== undefined) return none("error", m.error.message);
  if (!m.matches) return none("nomatch", m.reason);
  const compiled = compileMutatingPolicy(policy, ctx.providers ?? NO_PROVIDERS);
  const celReq = targetPhase?.triggerRequest;
  const reqValue: JsonObject =
    celReq !== undefined
      ? { ...admissionRequestValue(celReq, celReq.resource, celReq.kind), object: celReq.object, oldObject: celReq.oldObject }
      : { ...admissionRequestValue(request, m.matchedResource!, m.matchedKind!), object: request.object, oldObject: request.oldObject };
  const nsObject = request.namespace !== "" ? (getNamespace(request.namespace) ?? null) : null;
  const fixed: Record<string, CelValue> = {
    oldObject: fromJson(celReq !== undefined ? null : request.oldObject),
    request: fromJson(reqValue),
    namespaceObject: fromJson(nsObject),
  };

  // Exceptions (no variables): full ones exempt, partial ones feed `exceptions`.
  const images: string[] = [];
  const values: string[] = [];
  let fullBest: { name: string; priority: number; report: string } | undefined;
  const excErrors: string[] = [];
  for (const ex of ctx.exceptions ?? []) {
    if (!ex.spec.policyRefs.some((r) => r.name === policy.metadata.name && r.kind === policy.kind)) continue;
    let all = true;
    for (const c of ex.spec.matchConditions ?? []) {
      const r = run(comp(compiled.exceptionEnv.env, c.expression ?? "", BOOL), compiled.exceptionEnv.activation({ ...fixed, object: fromJson(object) }));
      if ("error" in r) {
        excErrors.push(r.error);
        all = false;
        break;
      }
      if (r.value !== true) {
        all = false;
        break;
      }
    }
    if (!all) continue;
    const partial = (ex.spec.images ?? []).length > 0 || (ex.spec.allowedValues ?? []).length > 0;
    if (partial) {
      images.push(...(ex.spec.images ?? []));
      values.push(...(ex.spec.allowedValues ?? []));
      continue;
    }
    const priority = Number.parseInt(ex.metadata.labels?.["polex.kyverno.io/priority"] ?? "0", 10) || 0;
    if (fullBest === undefined || priority > fullBest.priority) fullBest = { name: ex.metadata.name, priority, report: ex.spec.reportResult ?? "skip" };
  }
  if (fullBest !== undefined) return none(fullBest.report === "pass" ? "pass" : "skip", `exempted by PolicyException ${fullBest.name}`, { exception: fullBest.name });
  if (excErrors.length > 0) return none("error", excErrors[0]);
  const exceptions = new ExceptionsValue(images, values);

  // Variables bound lazily before matchConditions (Kyverno deviation from MAP).
  const bindingsFor = (obj: JsonObject | null): LazyVariables =>
    new LazyVariables(compiled.variables, compiled.env.activation({ ...fixed, object: fromJson(obj), exceptions }));
  const condVars = bindingsFor(object);
  const condErrors: string[] = [];
  for (const mc of compiled.matchConditions) {
    const r = run(mc.c, condVars.bindings);
    if ("error" in r) condErrors.push(r.error);
    else if (r.value === false) return none("skip", `match condition ${JSON.stringify(mc.name)} is false`);
  }
  if (condErrors.length > 0) return none("error", condErrors.join("; "));
  if (object === null) return none("skip", "no object (DELETE)");

  let current: JsonObject = object;
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const kind = typeof object.kind === "string" ? object.kind : "";
  const schema = ctx.schemas.forKind(apiVersion, kind);
  for (const [i, mu] of compiled.mutations.entries()) {
    const vars = bindingsFor(current);
    const r = run(mu.c, vars.bindings);
    if ("error" in r) return { ...none("error", `mutation ${i}: ${r.error}`), object: current };
    let next: JsonObject;
    try {
      if (mu.patchType === "ApplyConfiguration") {
        if (!(r.value instanceof ObjectValue)) return { ...none("error", "unsupported return type from ApplyConfiguration expression"), object: current };
        const mismatches = typeNameMismatches(r.value);
        if (mismatches.length > 0) return { ...none("error", `type mismatch: ${mismatches.join("\n")}`), object: current };
        const patch = applyConfigurationJson(r.value) as JsonObject;
        const applied = applyConfiguration(current, patch, schema, ctx.schemas, { allowAtomic: policy.spec.evaluation?.useServerSideApply === true });
        if (!applied.ok) {
          const msg = applied.error.kind === "no-schema" ? "type converter must not be nil (no schema for the kind: give its CRD)" : applied.error.message;
          return { ...none("error", msg), object: current };
        }
        next = applied.object;
      } else {
        const ops = jsonPatchOperations(r.value);
        const res = applyJsonPatch(current, ops as never);
        if (res.ok === "test-failed") continue;
        if (res.ok === false) return { ...none("error", `JSON Patch: ${res.error}`), object: current };
        if (!isJsonObject(res.doc)) return { ...none("error", "JSON Patch: result is not an object"), object: current };
        next = schema !== undefined ? pruneUnknownFields(res.doc, schema, ctx.schemas) : res.doc;
      }
    } catch (e) {
      if (e instanceof CelEvalError) return { ...none("error", e.message), object: current };
      throw e;
    }
    current = ctx.defaulter !== undefined ? ctx.defaulter(next, { group: apiVersion.includes("/") ? apiVersion.split("/")[0]! : "", version: apiVersion.split("/").pop()!, kind }) : next;
  }
  const properties: Record<string, string> = {};
  const finalVars = bindingsFor(current);
  for (const a of policy.spec.auditAnnotations ?? []) {
    const r = run(comp(compiled.env.env, a.valueExpression), finalVars.bindings);
    if ("error" in r) return { ...none("error", `auditAnnotations ${JSON.stringify(a.key)}: ${r.error}`), object: current };
    if (typeof r.value === "string" && r.value !== "") properties[a.key] = r.value;
    else if (r.value !== null && typeof r.value !== "string") return { ...none("error", `auditAnnotations ${JSON.stringify(a.key)}: must evaluate to string or null`), object: current };
  }
  return {
    ...base,
    result: "pass",
    object: current,
    changed: JSON.stringify(current, big) !== JSON.stringify(object, big),
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
  };
}

function big(_k: string, v: unknown): unknown {
  return typeof v === "bigint" ? `${v}n` : v;
}

const variantCache = new WeakMap<MutatingPolicy, readonly { config: AutogenConfigName; policy: MutatingPolicy }[]>();

/**
 * The pod-controller autogen variants of a policy (kyverno.md §3.1; rewritten on the syntax tree,
 * src/kyverno/autogen.ts): same name, kind and metadata, the autogen'd spec. Kyverno's
 * provider compiles the policy and one copy per config and evaluates all of them; a controller
 * request matches only its copy. Cached per policy object.
 */
export function autogenVariants(policy: MutatingPolicy): readonly { config: AutogenConfigName; policy: MutatingPolicy }[] {
  let v = variantCache.get(policy);
  if (v === undefined) {
    const r = autogen(policy);
    v = (Object.keys(r.configs) as AutogenConfigName[]).map((config) => ({ config, policy: defaultMutatingPolicy({ ...policy, spec: r.configs[config]!.spec as MutatingPolicy["spec"] }) }));
    variantCache.set(policy, v);
  }
  return v;
}

/**
 * One policy with its autogen variants on one object: the outcome of the first of them (the
 * policy as written, then `defaults`, then `cronjobs`) whose constraints match, else the policy's
 * own `nomatch`. At most one of them matches a given kind.
 */
export function evaluateWithAutogen(policy: MutatingPolicy, request: AdmissionRequest, object: JsonObject | null, ctx: KyvernoContext): KyvernoOutcome {
  const own = evaluateMutatingPolicy(policy, request, object, ctx);
  if (own.result !== "nomatch") return own;
  for (const v of autogenVariants(policy)) {
    const o = evaluateMutatingPolicy(v.policy, request, object, ctx);
    if (o.result !== "nomatch") return { ...o, autogen: v.config };
  }
  return own;
}

/**
 * Policies in order on one request, each seeing the previous one's output (the CLI's load order;
 * in-cluster order across policies is unspecified). Errors of Fail policies deny; Ignore ones are
 * reported in `ignoredErrors`.
 */
export function evaluateMutatingPolicies(request: AdmissionRequest, policies: readonly MutatingPolicy[], ctx: KyvernoContext): KyvernoRun {
  let object = request.object;
  const outcomes: KyvernoOutcome[] = [];
  const errors: string[] = [];
  const ignoredErrors: string[] = [];
  for (const p of policies) {
    if (ctx.includeNonAdmission !== true && !runsAtAdmission(p)) continue;
    const o = evaluateWithAutogen(p, { ...request, object }, object, ctx);
    outcomes.push(o);
    if (o.result === "error") {
      const msg = `Policy ${policyLabel(p)}: failed to evaluate policy: ${o.message ?? ""}`;
      if (p.spec.failurePolicy === "Ignore") ignoredErrors.push(msg);
      else errors.push(msg);
      continue;
    }
    object = o.object;
  }
  return { allowed: errors.length === 0, object, outcomes, errors, ignoredErrors };
}

/**
 * mutateExisting: the targets named by `targetMatchConstraints.expression`, evaluated with `object`
 * bound to the trigger (and variables): one object, or a List's `items`. Undefined when the policy
 * has no expression (targets are then matched by the constraints).
 */
export function targetsFromExpression(policy: MutatingPolicy, request: AdmissionRequest, trigger: JsonObject, ctx: KyvernoContext): JsonObject[] | { error: string } | undefined {
  const expression = policy.spec.targetMatchConstraints?.expression;
  if (expression === undefined || expression === "") return undefined;
  const compiled = compileMutatingPolicy(policy, ctx.providers ?? NO_PROVIDERS);
  const c = comp(compiled.env.env, expression);
  const nsObject = request.namespace !== "" ? (ctx.namespaces?.(request.namespace) ?? bareNamespace(request.namespace)) : null;
  const vars = new LazyVariables(
    compiled.variables,
    compiled.env.activation({ object: fromJson(trigger), oldObject: fromJson(request.oldObject), request: fromJson({ operation: request.operation, namespace: request.namespace, name: request.name }), namespaceObject: fromJson(nsObject) }),
  );
  const r = run(c, vars.bindings);
  if ("error" in r) return { error: r.error };
  const json = toJson(r.value) as unknown as JsonObject | null;
  if (!isJsonObject(json)) return [];
  if (Array.isArray(json.items)) return json.items.filter((x): x is JsonObject => isJsonObject(x));
  return Object.keys(json).length === 0 ? [] : [json];
}

// ---------------------------------------------------------------------------
// mutateExisting

/** The policy as it runs on targets: targetMatchConstraints (operations wildcarded) or matchConstraints; targetMatchConditions. */
export function targetPhasePolicy(p: MutatingPolicy): MutatingPolicy {
  const tmc = p.spec.targetMatchConstraints;
  return {
    ...p,
    spec: {
      ...p.spec,
      matchConstraints:
        tmc !== undefined
          ? { namespaceSelector: {}, objectSelector: {}, matchPolicy: "Equivalent", ...tmc, resourceRules: (tmc.resourceRules ?? []).map((r) => ({ ...r, operations: ["*"] })) }
          : p.spec.matchConstraints,
      matchConditions: p.spec.targetMatchConditions ?? (tmc !== undefined ? [] : p.spec.matchConditions),
    },
  };
}

export interface MutateExistingTarget {
  readonly target: JsonObject;
  readonly outcome: KyvernoOutcome;
}

export type MutateExistingResult =
  | { readonly fired: false; readonly reason: string }
  | { readonly fired: true; readonly targets: readonly MutateExistingTarget[]; readonly errors: readonly string[] };

/**
 * mutateExisting for one trigger (kyverno.md §4): whether the trigger fires the policy (its
 * constraints, exceptions and matchConditions on the trigger request), then the target phase on
 * each candidate — the candidates named by `targetMatchConstraints.expression` (object = the
 * trigger) when there is one, else those the target constraints select — with `object` = the
 * target and an UPDATE request for it built by `targetRequest`. Targets the policy does not
 * select are left out.
 */
export function mutateExisting(
  policy: MutatingPolicy,
  trigger: { readonly request: AdmissionRequest; readonly object: JsonObject | null },
  candidates: readonly JsonObject[],
  ctx: KyvernoContext,
  targetRequest: (target: JsonObject) => AdmissionRequest | undefined,
): MutateExistingResult {
  const fired = evaluateMutatingPolicy({ ...policy, spec: { ...policy.spec, mutations: [] } }, trigger.request, trigger.object, ctx);
  if (fired.result !== "pass") return { fired: false, reason: `${fired.result}${fired.message !== undefined ? `: ${fired.message}` : ""}` };
  let pool = candidates;
  const errors: string[] = [];
  const triggerObject = trigger.object ?? trigger.request.oldObject; // DELETE: the deleted object
  if (triggerObject !== null) {
    const named = targetsFromExpression(policy, trigger.request, triggerObject, ctx);
    if (named !== undefined) {
      if ("error" in named) return { fired: true, targets: [], errors: [`targetMatchConstraints.expression: ${named.error}`] };
      const key = (o: JsonObject): string => {
        const md = isJsonObject(o.metadata) ? o.metadata : {};
        return `${String(o.kind)}/${String(md.namespace ?? "")}/${String(md.name ?? "")}`;
      };
      const keys = new Set(named.map(key));
      pool = pool.filter((o) => keys.has(key(o)));
    }
  }
  const tp = targetPhasePolicy(policy);
  const targets: MutateExistingTarget[] = [];
  for (const target of pool) {
    const req = targetRequest(target);
    if (req === undefined) continue;
    let o = evaluateMutatingPolicy(tp, req, target, ctx, { triggerRequest: trigger.request });
    // Target rules naming a subresource (`pods/resize`): the target is mutated through it, so it is
    // matched as a request on that subresource.
    for (const sub of o.result === "nomatch" ? targetSubresources(policy, req.resource.resource) : []) {
      o = evaluateMutatingPolicy(tp, { ...req, subResource: sub, requestSubResource: sub }, target, ctx, { triggerRequest: trigger.request });
      if (o.result !== "nomatch") break;
    }
    if (o.result === "nomatch") continue;
    if (o.result === "error") errors.push(`Policy ${policyLabel(policy)}: target ${String(target.kind)} ${key2(target)}: ${o.message ?? ""}`);
    targets.push({ target, outcome: o });
  }
  return { fired: true, targets, errors };
}

/** The subresources of `resource` that the policy's targetMatchConstraints.resourceRules name (`pods/resize` → resize). */
function targetSubresources(policy: MutatingPolicy, resource: string): string[] {
  const out = new Set<string>();
  for (const rule of policy.spec.targetMatchConstraints?.resourceRules ?? []) {
    for (const r of rule.resources ?? []) {
      const slash = r.indexOf("/");
      if (slash <= 0) continue;
      const [res, sub] = [r.slice(0, slash), r.slice(slash + 1)];
      if ((res === resource || res === "*") && sub !== "*" && sub !== "") out.add(sub);
    }
  }
  return [...out];
}

function key2(o: JsonObject): string {
  const md = isJsonObject(o.metadata) ? o.metadata : {};
  return `${md.namespace !== undefined && md.namespace !== "" ? `${String(md.namespace)}/` : ""}${String(md.name ?? "")}`;
}

// ---------------------------------------------------------------------------
// Kyverno as a webhook stage of the admission pipeline

export interface KyvernoStageOptions {
  /**
   * The webhook's reinvocationPolicy. Kyverno v1.19 registers its webhooks without one, so Never
   * (kyverno.md §1.7; #17282, PR #17324 would honour the policies' spec.reinvocationPolicy).
   */
  readonly reinvocationPolicy?: "Never" | "IfNeeded";
  /** The webhook's name in messages (default `mpol.validate.kyverno.svc-fail`, Kyverno's). */
  readonly webhookName?: string;
}

/** `add /metadata/labels {"a":"b"}`, values clipped, integers exact. */
export function describePatchOp(d: PatchOperation): string {
  const value = "value" in d && d.value !== undefined ? ` ${exactJson(d.value)}` : "";
  const from = "from" in d && d.from !== undefined ? ` from ${d.from}` : "";
  const line = `${d.op} ${d.path}${from}${value}`;
  return line.length <= 120 ? line : `${line.slice(0, 119)}…`;
}

function exactJson(v: unknown): string {
  return (JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `\u0000${x}\u0000` : x)) ?? "").replace(/"\\u0000(-?\d+)\\u0000"/g, "$1");
}

function describeOutcome(o: KyvernoOutcome): string {
  const who = `policy ${o.namespace !== undefined ? `${o.namespace}/` : ""}${o.policy}${o.autogen !== undefined ? ` (autogen ${o.autogen})` : ""}`;
  switch (o.result) {
    case "nomatch":
      return `${who}: does not match${o.message !== undefined ? ` — ${o.message}` : ""}`;
    case "skip":
      return `${who}: skip — ${o.message ?? ""}`;
    case "error":
      return `${who}: error — ${o.message ?? ""}`;
    default:
      return `${who}: pass — ${o.changed ? "mutated" : "no change"}${o.properties !== undefined ? `; properties ${JSON.stringify(o.properties)}` : ""}`;
  }
}

/**
 * Kyverno's mutating webhook as a stage after the MAP plugin (src/admission/webhook-stage.ts):
 * the admission-time MutatingPolicies and NamespacedMutatingPolicies (with their autogen
 * variants), in the given order, each seeing the previous one's output; errors of Fail policies
 * deny the request (`admission webhook "<name>" denied the request: …`), Ignore ones are
 * reported. The trace says what each policy did and how the object changed.
 */
export function kyvernoWebhookStage(policies: readonly MutatingPolicy[], ctx: KyvernoContext, options: KyvernoStageOptions = {}): WebhookStage {
  const name = options.webhookName ?? "mpol.validate.kyverno.svc-fail";
  const ifNeeded = options.reinvocationPolicy === "IfNeeded";
  let lastOutput: string | undefined;
  let previouslyInvoked = false;
  let reinvoke = false;
  const admission = policies.filter(runsAtAdmission);
  return {
    name: "kyverno",
    run({ pass, request, object }) {
      const snapshot = JSON.stringify(object, big);
      if (pass === 2) {
        if (lastOutput !== undefined && snapshot !== lastOutput && previouslyInvoked) reinvoke = true;
        if (!ifNeeded || !reinvoke) {
          lastOutput = snapshot;
          const skipped = !ifNeeded
            ? "not reinvoked: reinvocationPolicy Never (Kyverno v1.19 registers its webhooks without one; #17282)"
            : "not reinvoked: the object did not change since Kyverno ran";
          return { object, changed: false, trace: { name: "kyverno", skipped, changed: false, lines: [] } };
        }
      }
      const run = evaluateMutatingPolicies({ ...request, object }, admission, ctx);
      const lines: string[] = [];
      let prev = object;
      for (const o of run.outcomes) {
        if (o.result !== "nomatch" || admission.length <= 20) lines.push(describeOutcome(o));
        if (o.result === "pass" && o.changed && prev !== null && o.object !== null) {
          for (const d of jsonDiff(prev, o.object)) lines.push(`  ${describePatchOp(d)}`);
        }
        if (o.result === "pass") prev = o.object;
      }
      if (admission.length === 0) lines.push("no admission-time MutatingPolicy");
      const after = run.allowed ? run.object : object;
      const changed = run.allowed && JSON.stringify(after, big) !== snapshot;
      if (ifNeeded) previouslyInvoked = true;
      lastOutput = JSON.stringify(after, big);
      const data = run.outcomes.map(({ object: _o, ...rest }) => rest);
      const trace = { name: "kyverno", changed, lines, data };
      if (!run.allowed) return { object, changed: false, denied: `admission webhook ${JSON.stringify(name)} denied the request: ${run.errors.join("; ")}`, ignoredErrors: run.ignoredErrors, trace };
      return { object: after, changed, ignoredErrors: run.ignoredErrors, trace };
    },
  };
}

/**
 * CEL compile errors of a policy in Kyverno's environment (and of its autogen variants), with
 * field paths (`spec.mutations[0].applyConfiguration.expression: Invalid value: …`), as Kyverno's
 * admission validation rejects them. Empty when everything compiles.
 */
export function mutatingPolicyCompileErrors(policy: MutatingPolicy, providers: KyvernoProviders = NO_PROVIDERS): string[] {
  const out: string[] = [];
  const check = (p: MutatingPolicy, where: string): void => {
    const c = compileMutatingPolicy(p, providers);
    c.variables.forEach((v, i) => {
      if (!v.ok) out.push(`${where}spec.variables[${i}].expression: Invalid value: ${v.detail}`);
    });
    c.matchConditions.forEach((m, i) => {
      if (!m.c.ok) out.push(`${where}spec.matchConditions[${i}].expression: Invalid value: ${m.c.detail}`);
    });
    let i = 0;
    for (const m of p.spec.mutations ?? []) {
      const compiled = c.mutations[i];
      if (compiled !== undefined && !compiled.c.ok) out.push(`${where}spec.mutations[${i}].${m.patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration"}.expression: Invalid value: ${compiled.c.detail}`);
      i++;
    }
  };
  check(policy, "");
  if (out.length === 0) for (const v of autogenVariants(policy)) check(v.policy, `(autogen ${v.config}) `);
  return out;
}
