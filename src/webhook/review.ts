/**
 * AdmissionReview `admission.k8s.io/v1` in and out: decode and validate the review, convert its
 * `request` to celmap's {@link AdmissionRequest}, run the MAP pipeline (`evaluate`) against the
 * active policy snapshot, encode the response.
 *
 * Bad input:
 * - not JSON, not an object, or no `request` (so no uid to echo): HTTP 400 with a `metav1.Status`;
 * - a review of the wrong apiVersion/kind, or a request that is malformed (no uid, unknown
 *   operation, missing kind/resource): HTTP 400 with an AdmissionReview whose response echoes the
 *   uid (when there is one) with `allowed: false` and a 400 status.
 *
 * Never mutated: requests in the webhook's own namespace (and for that namespace object itself),
 * the kinds MutatingAdmissionPolicy never sees (`mapExemption`, in the pipeline), and
 * {@link EXEMPT_RESOURCES}.
 *
 * Server-side failures (the per-request deadline passed, an exception in celmap, no policy set
 * loaded yet) follow the webhook's `failurePolicy`: `Fail` denies with the status (504 Timeout, 500,
 * 503), `Ignore` admits unchanged with a warning. Policy outcomes follow each policy's own
 * failurePolicy, exactly as in the apiserver (pipeline.ts); policy errors a policy's `Ignore` dropped
 * are logged (`ignoredErrors`) but not returned as warnings: native MAP admission sends no Warning
 * header for them, and a real kube-apiserver was seen to (test/e2e/map-parity.test.ts), so the
 * client sees the same answer either way (`ignoredErrorsAsWarnings` opts in).
 *
 * Pure apart from the clock and, with the cluster source, Kyverno's `http.*` calls (live.ts: a
 * synchronous bridge that blocks this thread for the call, bounded by the request's deadline).
 */
import {
  OPERATIONS,
  type AdmissionRequest,
  type GroupVersionKind,
  type GroupVersionResource,
  type Operation,
  type UserInfo,
} from "../admission/request.js";
import { withEvalLimits } from "../cel/index.js";
import type { EvaluateResult, JsonObject, JsonValue, Trace } from "../admission/index.js";
import type { KyvernoOutcome } from "../kyverno/index.js";
import { admit } from "../engine/index.js";
import { MAX_VALUE_SIZE } from "./defaults.js";
import { policyErrorType, type InvocationOutcome, type PolicyErrorType, type RequestOutcome } from "./metrics.js";
import type { PolicySnapshot } from "./policies.js";

export const REVIEW_API_VERSION = "admission.k8s.io/v1";
export const REVIEW_KIND = "AdmissionReview";

/** group/resource pairs never mutated by the webhook (the apiserver never sends most of them anyway). */
export const EXEMPT_RESOURCES: readonly string[] = [
  "admissionregistration.k8s.io/mutatingwebhookconfigurations",
  "admissionregistration.k8s.io/validatingwebhookconfigurations",
  "coordination.k8s.io/leases",
  "authentication.k8s.io/tokenreviews",
  "authorization.k8s.io/subjectaccessreviews",
];

export type FailurePolicy = "Fail" | "Ignore";

export interface ReviewSettings {
  /** The webhook's own namespace: never mutated. */
  readonly ownNamespace?: string;
  /** What server-side failures (deadline, internal error, not ready) answer. */
  readonly failurePolicy: FailurePolicy;
  /** Extra group/resource pairs to leave alone (added to {@link EXEMPT_RESOURCES}). */
  readonly exemptResources?: readonly string[];
  /**
   * Return policy errors dropped by a policy's failurePolicy Ignore as warnings. Default false:
   * native MAP admission sends none (they are logged as `ignoredErrors` either way).
   */
  readonly ignoredErrorsAsWarnings?: boolean;
}

export interface PolicyCheck {
  readonly policy: string;
  readonly binding: string;
  readonly errorType: PolicyErrorType;
  /** Wall time of the mutation (`check_duration_seconds`), when the pipeline measured it. */
  readonly seconds?: number;
}

/** One policy invocation (policy × binding × param) of a pass, as the trace records it. */
export interface PolicyInvocation {
  readonly policy: string;
  readonly binding: string;
  readonly outcome: InvocationOutcome;
}

/** A matchCondition observation as kube-apiserver's matcher makes them (admission/plugin/webhook/matchconditions). */
export interface MatchConditionObservation {
  readonly policy: string;
  /** `error`: a condition errored; `exclusion`: a condition was false (the invocation did not run); `timing`: only the time. */
  readonly result: "error" | "exclusion" | "timing";
  /** Wall time of the invocation's matchConditions (`match_condition_evaluation_seconds`), on one observation per invocation. */
  readonly seconds?: number;
}

export interface ReviewReply {
  readonly httpStatus: number;
  /** The JSON response body. */
  readonly body: string;
  readonly outcome: RequestOutcome;
  readonly dryRun: boolean;
  /** Structured log fields (uid, kind, namespace, name, operation, message, ...). */
  readonly log: Readonly<Record<string, unknown>>;
  /** One per mutation evaluated (for the per-policy metrics). */
  readonly checks: readonly PolicyCheck[];
  /** One per invocation the pipeline considered (both passes). */
  readonly invocations: readonly PolicyInvocation[];
  readonly matchConditions: readonly MatchConditionObservation[];
  /** The request's operation, once decoded. */
  readonly operation?: string;
}

/** A Kyverno policy's name in metrics: `name`, or `namespace/name` for a NamespacedMutatingPolicy. */
export function kyvernoPolicyName(p: { readonly policy?: string; readonly namespace?: string | undefined; readonly metadata?: { readonly name?: string; readonly namespace?: string } }): string {
  const name = p.policy ?? p.metadata?.name ?? "";
  const ns = p.namespace ?? p.metadata?.namespace;
  return ns !== undefined && ns !== "" && !name.includes("/") ? `${ns}/${name}` : name;
}

/** What the metrics need from a trace: per-mutation checks, per-invocation outcomes, matchCondition errors and exclusions. */
export function observationsOf(trace: Trace): Pick<ReviewReply, "checks" | "invocations" | "matchConditions"> {
  const checks: PolicyCheck[] = [];
  const invocations: PolicyInvocation[] = [];
  const matchConditions: MatchConditionObservation[] = [];
  for (const pass of trace.passes) {
    for (const inv of pass.invocations) {
      // As the apiserver's matcher: every errored condition before the first false one is an
      // error, the first false one an exclusion (later ones are not evaluated).
      let excluded = false;
      let mcError = false;
      if (inv.matchConditionSeconds !== undefined) matchConditions.push({ policy: inv.policy, result: "timing", seconds: inv.matchConditionSeconds });
      for (const mc of inv.matchConditions) {
        if (mc.result === "error") {
          mcError = true;
          matchConditions.push({ policy: inv.policy, result: "error" });
        } else if (mc.result === false) {
          excluded = true;
          matchConditions.push({ policy: inv.policy, result: "exclusion" });
          break;
        }
      }
      let mutationError = false;
      for (const m of inv.mutations) {
        if (m.outcome === "skipped") continue;
        const errorType = m.outcome === "error" || m.outcome === "aborted" ? policyErrorType(m.errorKind ?? "invalid") : "no_error";
        if (errorType !== "no_error") mutationError = true;
        checks.push({ policy: inv.policy, binding: inv.binding, errorType, ...(m.seconds !== undefined ? { seconds: m.seconds } : {}) });
      }
      let outcome: InvocationOutcome;
      if (inv.skipped !== undefined) outcome = excluded ? "excluded" : mcError || inv.skipped.startsWith("matchConditions") ? "error" : "not_reinvoked";
      else if (mutationError) outcome = "error";
      else outcome = inv.changed ? "mutated" : "unchanged";
      invocations.push({ policy: inv.policy, binding: inv.binding, outcome });
    }
    // Kyverno MutatingPolicies (the webhook stage's outcomes): binding "" (they have none).
    for (const w of pass.webhooks ?? []) {
      if (w.name !== "kyverno" || !Array.isArray(w.data)) continue;
      for (const o of w.data as readonly Omit<KyvernoOutcome, "object">[]) {
        if (o.result === "nomatch") continue;
        const outcome: InvocationOutcome = o.result === "error" ? "error" : o.result === "skip" ? "excluded" : o.changed ? "mutated" : "unchanged";
        invocations.push({ policy: kyvernoPolicyName(o), binding: "", outcome });
      }
    }
  }
  return { checks, invocations, matchConditions };
}

// ---------------------------------------------------------------------------------------------
// JSON out (objects may hold bigint integers from CEL)

/** JSON text of a value that may contain `bigint`s (written as plain integers). */
export function jsonText(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? { [BIG]: x.toString() } : x)).replace(BIG_RE, "$1");
}
const BIG = "\u0000celmap:bigint";
const BIG_RE = /\{"\\u0000celmap:bigint":"(-?\d+)"\}/g;

function statusBody(code: number, reason: string, message: string): string {
  return JSON.stringify({ apiVersion: "v1", kind: "Status", metadata: {}, status: "Failure", message, reason, code });
}

interface ResponseFields {
  readonly uid: string;
  readonly allowed: boolean;
  readonly patch?: string;
  readonly status?: JsonObject;
  readonly warnings?: readonly string[];
}

function reviewBody(r: ResponseFields): string {
  const response: Record<string, unknown> = { uid: r.uid, allowed: r.allowed };
  if (r.patch !== undefined) {
    response.patchType = "JSONPatch";
    response.patch = r.patch;
  }
  if (r.status !== undefined) response.status = r.status;
  if (r.warnings !== undefined && r.warnings.length > 0) response.warnings = r.warnings;
  return JSON.stringify({ apiVersion: REVIEW_API_VERSION, kind: REVIEW_KIND, response });
}

function failureStatus(code: number, reason: string, message: string): JsonObject {
  return { status: "Failure", code, reason, message };
}

// ---------------------------------------------------------------------------------------------
// Decoding

type Decoded =
  | { readonly ok: true; readonly request: AdmissionRequest }
  | { readonly ok: false; readonly message: string; readonly uid?: string };

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function gvk(v: unknown, field: string): GroupVersionKind | string {
  if (!isObj(v)) return `request.${field} is required`;
  const group = v.group ?? "";
  const version = v.version;
  const kind = v.kind;
  if (typeof group !== "string" || typeof version !== "string" || version === "" || typeof kind !== "string" || kind === "") {
    return `request.${field} must have string group, version and kind`;
  }
  return { group, version, kind };
}

function gvr(v: unknown, field: string): GroupVersionResource | string {
  if (!isObj(v)) return `request.${field} is required`;
  const group = v.group ?? "";
  const version = v.version;
  const resource = v.resource;
  if (typeof group !== "string" || typeof version !== "string" || version === "" || typeof resource !== "string" || resource === "") {
    return `request.${field} must have string group, version and resource`;
  }
  return { group, version, resource };
}

function objectOrNull(v: unknown, field: string): JsonObject | null | string {
  if (v === undefined || v === null) return null;
  if (!isObj(v)) return `request.${field} must be an object`;
  return v as JsonObject;
}

function userInfo(v: unknown): UserInfo {
  const u = isObj(v) ? v : {};
  const groups = Array.isArray(u.groups) ? u.groups.filter((g): g is string => typeof g === "string") : [];
  const extra: Record<string, readonly string[]> = {};
  if (isObj(u.extra)) {
    for (const [k, x] of Object.entries(u.extra)) if (Array.isArray(x)) extra[k] = x.filter((e): e is string => typeof e === "string");
  }
  return { username: str(u.username) ?? "", uid: str(u.uid) ?? "", groups, extra };
}

/** Decodes the AdmissionReview text (already size-limited) into a request. */
export function decodeReview(text: string): Decoded | { readonly ok: false; readonly message: string; readonly http400: true } {
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch (e) {
    return { ok: false, http400: true, message: `malformed JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isObj(review)) return { ok: false, http400: true, message: "the body is not an AdmissionReview object" };
  const req = review.request;
  const uid = isObj(req) ? str(req.uid) : undefined;
  const withUid = uid !== undefined && uid !== "" ? { uid } : {};
  if (review.apiVersion !== REVIEW_API_VERSION || review.kind !== REVIEW_KIND) {
    return {
      ok: false,
      ...withUid,
      message: `expected ${REVIEW_API_VERSION} ${REVIEW_KIND}, got ${JSON.stringify(review.apiVersion ?? "")} ${JSON.stringify(review.kind ?? "")}`,
    };
  }
  if (!isObj(req)) return { ok: false, http400: true, message: "AdmissionReview has no request" };
  if (uid === undefined || uid === "") return { ok: false, message: "request.uid is required" };
  const fail = (message: string): Decoded => ({ ok: false, uid, message });
  const operation = req.operation;
  if (typeof operation !== "string" || !OPERATIONS.includes(operation as Operation)) {
    return fail(`request.operation must be one of ${OPERATIONS.join(", ")}, got ${JSON.stringify(operation ?? null)}`);
  }
  const kind = gvk(req.kind, "kind");
  if (typeof kind === "string") return fail(kind);
  const resource = gvr(req.resource, "resource");
  if (typeof resource === "string") return fail(resource);
  const requestKind = req.requestKind === undefined ? kind : gvk(req.requestKind, "requestKind");
  if (typeof requestKind === "string") return fail(requestKind);
  const requestResource = req.requestResource === undefined ? resource : gvr(req.requestResource, "requestResource");
  if (typeof requestResource === "string") return fail(requestResource);
  const object = objectOrNull(req.object, "object");
  if (typeof object === "string") return fail(object);
  const oldObject = objectOrNull(req.oldObject, "oldObject");
  if (typeof oldObject === "string") return fail(oldObject);
  const options = objectOrNull(req.options, "options");
  if (typeof options === "string") return fail(options);
  if (req.dryRun !== undefined && req.dryRun !== null && typeof req.dryRun !== "boolean") return fail("request.dryRun must be a boolean");
  const subResource = str(req.subResource) ?? "";
  const request: AdmissionRequest = {
    uid,
    kind,
    resource,
    subResource,
    requestKind,
    requestResource,
    requestSubResource: str(req.requestSubResource) ?? subResource,
    name: str(req.name) ?? "",
    namespace: str(req.namespace) ?? "",
    operation: operation as Operation,
    userInfo: userInfo(req.userInfo),
    object,
    oldObject,
    dryRun: req.dryRun === true,
    options,
  };
  return { ok: true, request };
}

// ---------------------------------------------------------------------------------------------
// Handling

export interface ReviewEnv {
  readonly settings: ReviewSettings;
  /** The snapshot to evaluate against (picked up once, at the request's start). */
  readonly snapshot: PolicySnapshot | undefined;
  /** Absolute deadline (`performance.now()` scale); past it, the answer is the failure policy's. */
  readonly deadline: number;
  readonly now: () => number;
}

function ownNamespaceRequest(req: AdmissionRequest, own: string | undefined): boolean {
  if (own === undefined || own === "") return false;
  if (req.namespace === own) return true;
  return req.resource.group === "" && req.resource.resource === "namespaces" && req.name === own;
}

/** Handles one AdmissionReview body. Never throws. */
export function handleReview(text: string, env: ReviewEnv): ReviewReply {
  const decoded = decodeReview(text);
  if (!decoded.ok) {
    const base = { outcome: "invalid" as const, dryRun: false, checks: [], invocations: [], matchConditions: [], log: { error: decoded.message, ...("uid" in decoded && decoded.uid !== undefined ? { uid: decoded.uid } : {}) } };
    if ("uid" in decoded && decoded.uid !== undefined) {
      return {
        ...base,
        httpStatus: 400,
        body: reviewBody({ uid: decoded.uid, allowed: false, status: failureStatus(400, "BadRequest", decoded.message) }),
      };
    }
    return { ...base, httpStatus: 400, body: statusBody(400, "BadRequest", decoded.message) };
  }
  const request = decoded.request;
  const log = {
    uid: request.uid,
    operation: request.operation,
    kind: `${request.kind.group === "" ? "" : `${request.kind.group}/`}${request.kind.version}/${request.kind.kind}`,
    namespace: request.namespace,
    name: request.name,
    dryRun: request.dryRun,
  };
  const s = env.settings;
  const none: Pick<ReviewReply, "checks" | "invocations" | "matchConditions"> = { checks: [], invocations: [], matchConditions: [] };
  const reply = (outcome: RequestOutcome, r: ResponseFields, extra: Record<string, unknown> = {}, observed = none): ReviewReply => ({
    httpStatus: 200,
    body: reviewBody(r),
    outcome,
    dryRun: request.dryRun,
    operation: request.operation,
    log: { ...log, ...extra },
    ...observed,
  });
  /** `logExtra`: more for the log line only (an internal error's stack), never for the response. */
  const serverFailure = (outcome: RequestOutcome, code: number, reason: string, message: string, logExtra: Record<string, unknown> = {}): ReviewReply => {
    if (s.failurePolicy === "Ignore") {
      return reply(outcome, { uid: request.uid, allowed: true, warnings: [`celmap webhook: ${message} (failure policy Ignore: admitted unchanged)`] }, { error: message, ...logExtra });
    }
    return reply(outcome, { uid: request.uid, allowed: false, status: failureStatus(code, reason, `celmap webhook: ${message}`) }, { error: message, ...logExtra });
  };

  if (ownNamespaceRequest(request, s.ownNamespace)) {
    return reply("skipped", { uid: request.uid, allowed: true }, { skipped: "the webhook's own namespace" });
  }
  const gr = `${request.resource.group}/${request.resource.resource}`;
  if (EXEMPT_RESOURCES.includes(gr) || (s.exemptResources ?? []).includes(gr)) {
    return reply("skipped", { uid: request.uid, allowed: true }, { skipped: `exempt resource ${gr}` });
  }
  const snapshot = env.snapshot;
  if (snapshot === undefined) return serverFailure("not_ready", 503, "ServiceUnavailable", "no policy set loaded yet");
  if (env.now() > env.deadline) return serverFailure("timeout", 504, "Timeout", "request deadline exceeded before evaluation");

  let result: EvaluateResult;
  try {
    // The engine (src/engine `admit`) with the request as the apiserver sent it: already defaulted
    // by the apiserver, so not defaulted again; namespaces not in the policy set are seen as bare
    // namespaces (the engine's one rule). With the cluster source, Kyverno's libraries read the live
    // cluster (live.ts); `during` bounds their http.* calls by this request's deadline.
    const live = snapshot.kyvernoLive;
    const run = (): EvaluateResult => {
      const a = admit(
        snapshot.policySet,
        { review: request },
        {
          // The pipeline gives up between invocations and mutations once the deadline passed.
          expired: () => env.now() > env.deadline,
          ...(live !== undefined ? { kyvernoProviders: live.providers } : {}),
        },
      );
      if (!a.ok) throw new Error(a.error.message);
      return a.result;
    };
    const guarded = (): EvaluateResult => withEvalLimits(evalLimits(env), run);
    result = live !== undefined && snapshot.kyvernoPolicies.length > 0 ? live.during(env.deadline, env.now, guarded) : guarded();
  } catch (e) {
    // A celmap bug (the engine never throws for bad input): the log gets the stack, the response only the message.
    return serverFailure("error", 500, "InternalError", `internal error: ${e instanceof Error ? e.message : String(e)}`, e instanceof Error && e.stack !== undefined ? { stack: e.stack } : {});
  }
  const observed = observationsOf(result.trace);
  // A call cut at the deadline (an http.* call bounded by what was left of it) may return a hair
  // before it by timer rounding: within 1 ms of the deadline counts as past it.
  if (result.status?.code === 504 || env.now() > env.deadline - 1) {
    return { ...serverFailure("timeout", 504, "Timeout", `request deadline exceeded during evaluation`), ...observed };
  }
  const warnings = [...result.warnings, ...(s.ignoredErrorsAsWarnings === true ? result.ignoredErrors : [])];
  const generation = { policySet: snapshot.generation, ...(result.ignoredErrors.length > 0 ? { ignoredErrors: result.ignoredErrors } : {}) };
  if (!result.allowed) {
    const st = result.status!;
    const status: JsonObject = { status: "Failure", code: st.code, reason: st.reason, message: st.message };
    if (st.details !== undefined) status.details = { name: st.details.name, group: st.details.group, kind: st.details.kind, causes: st.details.causes.map((c) => ({ message: c.message })) } as JsonObject;
    return reply("denied", { uid: request.uid, allowed: false, status, warnings }, { ...generation, code: st.code, message: st.message }, observed);
  }
  if (result.patch.length === 0) {
    return reply("allowed", { uid: request.uid, allowed: true, warnings }, { ...generation, ...(warnings.length > 0 ? { warnings } : {}) }, observed);
  }
  const patch = Buffer.from(jsonText(result.patch as unknown as JsonValue), "utf8").toString("base64");
  return reply(
    "mutated",
    { uid: request.uid, allowed: true, patch, warnings },
    { ...generation, patchOperations: result.patch.length, ...(warnings.length > 0 ? { warnings } : {}) },
    observed,
  );
}

/**
 * What bounds every CEL evaluation of a request (see `src/cel/eval-limits.ts`): running
 * expressions are interrupted once the deadline has passed (checked every 100 comprehension
 * iterations, as the apiserver's `InterruptCheckFrequency`), and no concatenation builds a value
 * over {@link MAX_VALUE_SIZE}, so no request takes the process down.
 */
function evalLimits(env: ReviewEnv): { interrupt: () => boolean; maxSize: number } {
  return { interrupt: () => env.now() > env.deadline, maxSize: MAX_VALUE_SIZE };
}

/** The AdmissionReview-or-Status body for a request rejected before it was read (size, deadline). */
export function earlyFailureBody(code: number, reason: string, message: string): string {
  return statusBody(code, reason, message);
}
