/**
 * `evaluate`: one admission request through the MutatingAdmissionPolicy plugin, as kube-apiserver
 * 1.36 runs it (map.md §2.8; the generic dispatcher `pkg/admission/plugin/policy/generic/
 * policy_dispatcher.go` around the MAP dispatcher, dispatch.ts), including the second pass of the
 * admission chain when reinvocation is requested (§5).
 *
 *     const r = evaluate(request, { policies, bindings, params, namespaces, schemas, catalog });
 *     if (r.allowed) use(r.object, r.patch) else report(r.status.code, r.status.message);
 *
 * Per pass: exemptions (operation, review and policy resources) → hooks (policies paired with
 * their bindings, in our documented order: policy name, binding name, param namespace/name —
 * Kubernetes specifies none; `options.policyOrder` sets another) → per hook: policy matchConstraints, configuration error, per
 * binding: matchResources, params → invocations → the MAP dispatcher (namespaceObject lookup,
 * then per invocation matchConditions and mutations). Policy errors are then filtered by each
 * policy's failurePolicy (Ignore drops them silently); any left deny the request with HTTP 403:
 * message = the first error as `policy '<p>' with binding '<b>' denied request: <msg>` (or
 * `policy "<p>" denied request: <msg>` without binding), reason = the first error's reason
 * (`Invalid` for matchCondition and mutation errors) or `Forbidden`, causes = every error.
 * Status errors (500 strict decoding, 503 no schema, 404 namespace) abort at once, whatever the
 * failure policies.
 *
 * Reinvocation: when pass 1 asked for it (any successful mutation does, see reinvocation.ts) and
 * pass 1 admitted the request, pass 2 runs the whole selection again on the mutated object, but
 * only invocations in the reinvoke set run their mutations. There is never a third pass.
 *
 * Webhook stages (`ctx.webhooks`, webhook-stage.ts) model the MutatingAdmissionWebhook plugin,
 * which kube-apiserver runs right after the MAP plugin: in each pass, once MAP admitted the
 * request, each stage runs in order on the object; a denial is final; a stage that changed the
 * object requests the second pass, in which MAP reinvokes its IfNeeded invocations (the object
 * differs from MAP's last output) and each stage decides by its own reinvocation policy.
 *
 * MAP emits no warnings and no audit annotations: `warnings` is always empty (kept for the API).
 * Objects are never modified in place: the result shares the subtrees no mutation touched with the
 * request's object, so treat both as immutable (copy before modifying either).
 * Numbers: objects are plain JSON in which an integer may be a `bigint` (exact int64, e.g. from
 * `loadPaths(..., {numbers: "cel"})`); results keep whatever the inputs and CEL produced, so
 * serialise them with a bigint-aware writer.
 * Pure: no file or network access; everything comes in through the context.
 */
import { cachingAuthorizer, OFFLINE_AUTHORIZER, type Authorizer } from "../cel/k8s/authz.js";
import { SchemaRegistry } from "../kube/schema.js";
import { DEADLINE_EXCEEDED, dispatchPass, type Converter, type Defaulter, type DispatchPolicy, type PolicyError, type StatusError } from "./dispatch.js";
import { jsonDiff, type PatchOperation } from "./diff.js";
import { deepEqual, isJsonObject, type JsonObject } from "./json.js";
import { RequestMemo } from "./memo.js";
import { ResourceCatalog } from "./match/catalog.js";
import { buildHooks, formatPolicyError, selectInvocations, type BindingLike, type ParamSource } from "./params.js";
import { ReinvocationState } from "./reinvocation.js";
import { mapExemption, type AdmissionRequest } from "./request.js";
import type { PassTrace, Trace } from "./trace.js";
import type { WebhookStage } from "./webhook-stage.js";

export interface EvaluateOptions {
  /** Run the second pass when reinvocation is requested (a real apiserver does). Default true. */
  readonly reinvocation?: boolean;
  /**
   * Applied after every successful mutation, as the apiserver's defaulter is (built-in scheme
   * defaults, CRD schema defaults). Default: none — celmap does not know Kubernetes' defaulting,
   * so results differ where defaulting would fill fields (see the conformance ledger).
   */
  readonly defaulter?: Defaulter;
  /**
   * Converts the object to the version of an equivalent resource a policy matched
   * (`matchPolicy: Equivalent`) and back. Default: none — such a policy sees the request's version.
   */
  readonly converter?: Converter;
  /**
   * Asked before every invocation and every mutation; once it answers true the request is
   * abandoned with 504 Timeout (the apiserver's answer when a request outlives its deadline),
   * so that a webhook can answer before the apiserver's webhook timeout. A running CEL expression
   * is not interrupted (its cost limit bounds it).
   */
  readonly expired?: () => boolean;
  /**
   * The order the policies run in, by policy name, instead of celmap's default (policy name,
   * binding name, param). Kubernetes specifies no order (it changes as policies are reloaded);
   * `celmap lint` evaluates a set in several orders to find order dependence. Policies not
   * listed run after the listed ones, in the default order; a policy's bindings and params keep
   * their default order.
   */
  readonly policyOrder?: readonly string[];
}

export interface EvaluateContext<P extends DispatchPolicy = DispatchPolicy, B extends BindingLike = BindingLike> {
  /** Validated policies (see `src/policy`: prepare/collect with `policyCompileHook`). */
  readonly policies: readonly P[];
  readonly bindings: readonly B[];
  /** Param objects for paramRefs; absent: any paramRef is ``paramKind kind `…` not known``. */
  readonly params?: ParamSource;
  /** Namespace objects by name (for namespaceSelector and `namespaceObject`); a missing one is a 404. */
  readonly namespaces?: readonly JsonObject[] | ((name: string) => JsonObject | undefined);
  /** Schemas of the kinds (built-ins plus registered CRDs). Default: the built-in ones. */
  readonly schemas?: SchemaRegistry;
  /** Resources (built-ins plus registered CRDs). Default: the built-in 1.36 catalog. */
  readonly catalog?: ResourceCatalog;
  /** Answers `authorizer` checks; default denies everything (offline). Wrapped in a per-request cache. */
  readonly authorizer?: Authorizer;
  readonly options?: EvaluateOptions;
  /** Mutating webhooks run after the MAP plugin in each pass (webhook-stage.ts). */
  readonly webhooks?: readonly WebhookStage[];
}

/** The apiserver's answer when MAP denies or aborts the request (a metav1.Status). */
export interface AdmissionStatus {
  /** 400 with reason "" (unknown): a webhook denied the request (apiserver `webhookerrors.ToStatusErr`). */
  readonly code: 400 | 403 | 404 | 500 | 503 | 504;
  readonly reason: "Forbidden" | "Invalid" | "NotFound" | "InternalError" | "ServiceUnavailable" | "Timeout" | "";
  readonly message: string;
  /** 403 only: one message per remaining policy error. */
  readonly causes?: readonly { readonly message: string }[];
  /**
   * 403 only: the Forbidden error's details as `admission.NewForbidden` builds them — the
   * request's name, resource group and resource (as `kind`), and the causes.
   */
  readonly details?: { readonly name: string; readonly group: string; readonly kind: string; readonly causes: readonly { readonly message: string }[] };
}

export interface EvaluateResult {
  readonly allowed: boolean;
  /** The admitted object (the mutated one); on denial, the object as far as MAP got. */
  readonly object: JsonObject | null;
  /** RFC 6902 operations from the request's object to `object` (empty when denied). */
  readonly patch: readonly PatchOperation[];
  /** Set when `allowed` is false. */
  readonly status?: AdmissionStatus;
  /** Policy errors dropped by failurePolicy Ignore (the apiserver drops them silently), for diagnostics. */
  readonly ignoredErrors: readonly string[];
  /** Always empty: MAP emits no warnings. */
  readonly warnings: readonly string[];
  /** Whether a second pass ran. */
  readonly reinvoked: boolean;
  /**
   * Who denied the request, when it was denied: the policies (with their bindings) whose errors
   * make up `status`, or the webhook stage that answered it. Absent when allowed, and for denials no
   * policy caused (a missing namespace, the request's deadline).
   */
  readonly deniedBy?: readonly DenialSource[];
  readonly trace: Trace;
}

/** A policy invocation or a webhook stage that denied a request ({@link EvaluateResult.deniedBy}). */
export type DenialSource =
  | { readonly kind: "policy"; readonly policy: string; readonly binding?: string }
  | { readonly kind: "webhook"; readonly name: string };

function namespaceLookup(ns: EvaluateContext["namespaces"]): (name: string) => JsonObject | undefined {
  if (ns === undefined) return () => undefined;
  if (typeof ns === "function") return ns;
  const byName = new Map<string, JsonObject>();
  for (const o of ns) {
    const md = o.metadata as JsonObject | undefined;
    if (typeof md?.name === "string") byName.set(md.name, o);
  }
  return (name) => byName.get(name);
}

function denial<P extends DispatchPolicy, B extends BindingLike>(request: AdmissionRequest, errors: readonly PolicyError<P, B>[]): AdmissionStatus {
  const messages = errors.map((e) => formatPolicyError(e.policy.metadata.name, e.binding?.metadata.name, e.message));
  const causes = messages.map((message) => ({ message }));
  return {
    code: 403,
    reason: errors[0]!.reason ?? "Forbidden",
    message: messages[0]!,
    causes,
    details: { name: request.name, group: request.resource.group, kind: request.resource.resource, causes },
  };
}

/** Evaluates the MutatingAdmissionPolicies of `ctx` on `request`; see the module comment. */
export function evaluate<P extends DispatchPolicy, B extends BindingLike>(request: AdmissionRequest, ctx: EvaluateContext<P, B>): EvaluateResult {
  const catalog = ctx.catalog ?? ResourceCatalog.builtin();
  const schemas = ctx.schemas ?? SchemaRegistry.builtin();
  const getNamespace = namespaceLookup(ctx.namespaces);
  const reinvocationEnabled = ctx.options?.reinvocation !== false;
  const input = request.object;
  const notes: string[] = [];
  const passes: PassTrace[] = [];
  const ignoredErrors: string[] = [];

  const exemption = mapExemption(request);
  if (exemption.exempt) {
    return { allowed: true, object: input, patch: [], ignoredErrors, warnings: [], reinvoked: false, trace: { exempt: exemption.reason, passes, notes } };
  }

  const hookSet = buildHooks(ctx.policies, ctx.bindings, catalog);
  const hooks = ctx.options?.policyOrder !== undefined ? orderHooks(hookSet.hooks, ctx.options.policyOrder) : hookSet.hooks;
  for (const p of hookSet.unboundPolicies) notes.push(`policy '${p.metadata.name}' has no binding: it does nothing`);
  for (const b of hookSet.orphanBindings) notes.push(`binding '${b.metadata.name}' refers to policy '${b.spec.policyName}', which does not exist: ignored`);
  for (const d of hookSet.dropped) notes.push(`policy '${d.policy.metadata.name}' is not used: ${d.message}`);

  const reinvocation = new ReinvocationState();
  const memo = new RequestMemo();
  // Not copied: nothing in the pipeline modifies a value in place, so the result shares every
  // subtree no mutation touched with the request's object.
  let object = input;
  let reinvoked = false;
  const finish = (allowed: boolean, status?: AdmissionStatus, deniedBy?: readonly DenialSource[]): EvaluateResult => ({
    allowed,
    object,
    patch: allowed && input !== null && object !== null ? jsonDiff(input, object) : [],
    ...(status !== undefined ? { status } : {}),
    ignoredErrors,
    warnings: [],
    reinvoked,
    ...(deniedBy !== undefined && deniedBy.length > 0 ? { deniedBy } : {}),
    trace: { passes, notes },
  });

  let previous: { readonly labels: JsonObject | undefined; readonly selection: ReturnType<typeof selectInvocations<P, B>> } | undefined;
  for (const pass of [1, 2] as const) {
    if (pass === 2) {
      if (!reinvocationEnabled) break;
      reinvoked = true;
    }
    const req: AdmissionRequest = { ...request, object };
    // Selection reads the request's attributes, which do not change, and the object only through its
    // labels (objectSelector; namespaceSelector of a Namespace): with equal labels, pass 2 selects
    // exactly what pass 1 did.
    const labels = labelsOf(object);
    const selection =
      previous !== undefined && (previous.labels === labels || (previous.labels !== undefined && labels !== undefined && deepEqual(previous.labels, labels)))
        ? previous.selection
        : selectInvocations(req, hooks, { catalog, getNamespace, ...(ctx.params !== undefined ? { params: ctx.params } : {}) });
    previous = { labels, selection };
    const errors: PolicyError<P, B>[] = selection.errors.map((e) => ({ policy: e.policy, ...(e.binding !== undefined ? { binding: e.binding } : {}), message: e.message }));
    let requested = false;
    const passTrace: { invocations: PassTrace["invocations"] } = { invocations: [] };
    if (selection.invocations.length > 0) {
      // namespaceObject: the request's namespace, blanked for Namespace objects; lookup failure aborts.
      let namespaceName = request.namespace;
      if (request.kind.group === "" && request.kind.version === "v1" && request.kind.kind === "Namespace") namespaceName = "";
      let namespaceObject: JsonObject | null = null;
      if (namespaceName !== "") {
        let ns: JsonObject | undefined;
        let failure: string | undefined;
        try {
          ns = getNamespace(namespaceName);
        } catch (e) {
          failure = e instanceof Error ? e.message : String(e);
        }
        if (ns === undefined) {
          const status: AdmissionStatus =
            failure !== undefined
              ? { code: 500, reason: "InternalError", message: `Internal error occurred: ${failure}` }
              : { code: 404, reason: "NotFound", message: `namespaces ${JSON.stringify(namespaceName)} not found` };
          passes.push({ pass, selection: selection.trace, invocations: [], reinvocationRequested: false, errors: [] });
          return finish(false, status);
        }
        namespaceObject = ns;
      }
      let r: ReturnType<typeof dispatchPass<P, B>>;
      try {
        r = dispatchPass<P, B>({
          request: req,
          object,
          invocations: selection.invocations,
          namespaceObject,
          schemas,
          catalog,
          authorizer: cachingAuthorizer(ctx.authorizer ?? OFFLINE_AUTHORIZER),
          defaulter: ctx.options?.defaulter,
          converter: ctx.options?.converter,
          expired: ctx.options?.expired,
          reinvocation,
          pass,
          memo,
        });
      } catch (e) {
        // A defect in celmap (never a policy outcome): reported as the apiserver reports panics.
        const message = `Internal error occurred: celmap: ${e instanceof Error ? e.message : String(e)}`;
        notes.push(message);
        passes.push({ pass, selection: selection.trace, invocations: [], reinvocationRequested: false, errors: [] });
        return finish(false, { code: 500, reason: "InternalError", message });
      }
      passTrace.invocations = r.invocations;
      object = r.object;
      requested = r.reinvocationRequested;
      if (r.status !== undefined) {
        passes.push({ pass, selection: selection.trace, invocations: r.invocations, reinvocationRequested: false, errors: [] });
        // The invocation whose mutation aborted the request, if one did (not a deadline or a conversion failure).
        const last = r.invocations.at(-1);
        const aborted = last !== undefined && r.status !== DEADLINE_EXCEEDED && last.mutations.some((m) => m.outcome === "aborted");
        const by: DenialSource[] = aborted ? [{ kind: "policy", policy: last.policy, binding: last.binding }] : [];
        return finish(false, statusOf(r.status), by);
      }
      errors.push(...r.errors);
      // The deferred SetLastPolicyInvocationOutput of the dispatcher.
      reinvocation.setLastOutput(object);
    }
    const kept: PolicyError<P, B>[] = [];
    const passErrors: { message: string; ignored: boolean }[] = [];
    for (const e of errors) {
      const message = formatPolicyError(e.policy.metadata.name, e.binding?.metadata.name, e.message);
      const ignored = e.policy.spec.failurePolicy === "Ignore";
      passErrors.push({ message, ignored });
      if (ignored) ignoredErrors.push(message);
      else kept.push(e);
    }
    if (kept.length > 0) {
      passes.push({ pass, selection: selection.trace, invocations: passTrace.invocations, reinvocationRequested: requested, errors: passErrors });
      return finish(
        false,
        denial(request, kept),
        kept.map((e) => ({ kind: "policy" as const, policy: e.policy.metadata.name, ...(e.binding !== undefined ? { binding: e.binding.metadata.name } : {}) })),
      );
    }
    const webhooks: NonNullable<PassTrace["webhooks"]>[number][] = [];
    for (const stage of ctx.webhooks ?? []) {
      if (ctx.options?.expired?.() === true) {
        passes.push({ pass, selection: selection.trace, invocations: passTrace.invocations, reinvocationRequested: requested, errors: passErrors, webhooks });
        return finish(false, statusOf(DEADLINE_EXCEEDED));
      }
      const r = stage.run({ pass, request: { ...request, object }, object });
      webhooks.push(r.trace);
      ignoredErrors.push(...(r.ignoredErrors ?? []));
      if (r.denied !== undefined) {
        passes.push({ pass, selection: selection.trace, invocations: passTrace.invocations, reinvocationRequested: requested, errors: passErrors, webhooks });
        return finish(false, { code: 400, reason: "", message: r.denied }, [{ kind: "webhook", name: stage.name }]);
      }
      object = r.object;
      if (r.changed) requested = true;
    }
    passes.push({ pass, selection: selection.trace, invocations: passTrace.invocations, reinvocationRequested: requested, errors: passErrors, ...(webhooks.length > 0 ? { webhooks } : {}) });
    if (!requested) break;
  }
  return finish(true);
}

/** `hooks` with the policies named in `order` first, in that order; the rest keep theirs (a stable sort; a new array). */
function orderHooks<H extends { readonly policy: { readonly metadata: { readonly name: string } } }>(hooks: readonly H[], order: readonly string[]): readonly H[] {
  const rank = new Map(order.map((name, i) => [name, i]));
  const at = (h: H): number => rank.get(h.policy.metadata.name) ?? order.length;
  return [...hooks].sort((a, b) => at(a) - at(b));
}

function statusOf(s: StatusError): AdmissionStatus {
  return { code: s.code, reason: s.reason, message: s.message };
}

/** `metadata.labels` of an object, as it is (selection compares them between passes). */
function labelsOf(o: JsonObject | null): JsonObject | undefined {
  const md = o?.metadata;
  if (!isJsonObject(md)) return undefined;
  return isJsonObject(md.labels) ? md.labels : undefined;
}
