/**
 * Prometheus metrics of the webhook (prom-client), on a registry of its own so that several
 * servers can live in one process (tests) and `--workers` can aggregate them.
 *
 * Per policy, the apiserver's MutatingAdmissionPolicy metric names (map.md §6.4, kubernetes/apiserver
 * `pkg/admission/plugin/policy/mutating/metrics/metrics.go`) with the same labels and buckets:
 *
 * - `apiserver_mutating_admission_policy_check_total{policy, policy_binding, error_type}`: one per
 *   mutation evaluation; `error_type` ∈ `no_error`, `compile_error`, `out_of_budget`, `invalid_error`.
 * - `apiserver_mutating_admission_policy_check_duration_seconds{policy, policy_binding, error_type}`:
 *   the wall time of each mutation (evaluation, patch, defaulting), the apiserver's buckets.
 * - `apiserver_admission_match_condition_evaluation_seconds{name, kind, type, operation}`: the time
 *   of each invocation's matchConditions, the apiserver's buckets.
 * - `apiserver_admission_match_condition_evaluation_errors_total{name, kind, type, operation}` and
 *   `apiserver_admission_match_condition_exclusions_total{…}` (kubernetes/apiserver
 *   `pkg/admission/metrics`): per matchCondition error, and per invocation a false condition
 *   excluded; `name` the policy, `kind="policy"`, `type="validate"` (the apiserver's own constant for
 *   policies, MAP included).
 *
 * Per policy, celmap's own:
 *
 * - `celmap_webhook_policy_invocations_total{policy, policy_binding, outcome}`: one per invocation
 *   the pipeline considered (both passes); outcome ∈ `mutated`, `unchanged`, `excluded`
 *   (a matchCondition was false), `error` (a matchCondition or mutation errored), `not_reinvoked`.
 *
 * Series of a policy or binding that leaves the policy set are removed on the next reload, so the
 * label sets stay bounded by the active set.
 *
 * Webhook-level (celmap's own names, Gatekeeper-like 1 ms-granular buckets up to 10 ms):
 *
 * - `celmap_webhook_requests_total{outcome, dry_run}` and `celmap_webhook_request_duration_seconds{outcome}`:
 *   every /mutate request; outcome ∈ allowed, mutated, denied, error, timeout, invalid, too_large,
 *   skipped, not_ready.
 * - `celmap_webhook_client_errors_total{reason}`: connections closed before a request was read
 *   (header/request timeouts — slow clients —, parse errors, TLS handshake failures).
 * - `celmap_webhook_policy_reloads_total{result}`, `celmap_webhook_policies{kind}`,
 *   `celmap_webhook_policy_set_last_reload_success` (0 while a bad edit is pending),
 *   `celmap_webhook_policy_set_generation`.
 * - `celmap_webhook_certificate_reloads_total{result}`, `celmap_webhook_certificate_expiry_timestamp_seconds`.
 * - `celmap_webhook_inflight_requests`, and prom-client's default process metrics.
 *
 * With `--workers`, counters and histograms are summed over the workers; the policy-set and
 * certificate gauges take the max (min for success and expiry), since every worker loads the same files.
 */
import type { MutationErrorKind } from "../admission/index.js";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export type RequestOutcome =
  | "allowed"
  | "mutated"
  | "denied"
  | "error"
  | "timeout"
  | "invalid"
  | "too_large"
  | "skipped"
  | "not_ready";

export type InvocationOutcome = "mutated" | "unchanged" | "excluded" | "error" | "not_reinvoked";

export type PolicyErrorType = "no_error" | "compile_error" | "out_of_budget" | "invalid_error";

/**
 * The apiserver's classification of a mutation error for its metrics (mutating/errors.go
 * `ErrorType`), from the kind the pipeline recorded with the error (`MutationTrace.errorKind`),
 * never from the message text.
 */
export function policyErrorType(kind: MutationErrorKind | undefined): PolicyErrorType {
  switch (kind) {
    case undefined:
      return "no_error";
    case "compile":
      return "compile_error";
    case "out_of_budget":
      return "out_of_budget";
    case "invalid":
      return "invalid_error";
  }
}

/** The apiserver's MAP check-duration buckets: 0.5 µs, 1 ms, 10 ms, 100 ms, 1 s. */
export const POLICY_CHECK_BUCKETS = [0.0000005, 0.001, 0.01, 0.1, 1];
/** Request buckets: 1 ms steps to 10 ms, then coarser up to the 30 s webhook maximum. */
export const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.007, 0.008, 0.009, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

export class WebhookMetrics {
  readonly registry: Registry;
  readonly requests: Counter<"outcome" | "dry_run">;
  readonly requestDuration: Histogram<"outcome">;
  readonly policyChecks: Counter<"policy" | "policy_binding" | "error_type">;
  readonly policyCheckDuration: Histogram<"policy" | "policy_binding" | "error_type">;
  readonly matchConditionDuration: Histogram<"name" | "kind" | "type" | "operation">;
  readonly policyInvocations: Counter<"policy" | "policy_binding" | "outcome">;
  readonly matchConditionErrors: Counter<"name" | "kind" | "type" | "operation">;
  readonly matchConditionExclusions: Counter<"name" | "kind" | "type" | "operation">;
  /** Label sets of the per-policy series, by policy name (for removal when the policy goes). */
  readonly #policySeries = new Map<string, Map<string, () => void>>();
  readonly clientErrors: Counter<"reason">;
  readonly policyReloads: Counter<"result">;
  readonly policies: Gauge<"kind">;
  readonly policyReloadSuccess: Gauge;
  readonly policyGeneration: Gauge;
  readonly certificateReloads: Counter<"result">;
  readonly certificateExpiry: Gauge;
  readonly inflight: Gauge;

  constructor(options: { readonly defaultMetrics?: boolean } = {}) {
    const registry = new Registry();
    this.registry = registry;
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
    this.requests = new Counter({
      name: "celmap_webhook_requests_total",
      help: "AdmissionReview requests on /mutate, by outcome.",
      labelNames: ["outcome", "dry_run"],
      registers: [registry],
    });
    this.requestDuration = new Histogram({
      name: "celmap_webhook_request_duration_seconds",
      help: "Time from the request's arrival to its response on /mutate, by outcome.",
      labelNames: ["outcome"],
      buckets: REQUEST_BUCKETS,
      registers: [registry],
    });
    this.policyChecks = new Counter({
      name: "apiserver_mutating_admission_policy_check_total",
      help: "Admission policy mutation evaluations, by policy, binding and error type (as kube-apiserver counts them).",
      labelNames: ["policy", "policy_binding", "error_type"],
      registers: [registry],
    });
    this.policyCheckDuration = new Histogram({
      name: "apiserver_mutating_admission_policy_check_duration_seconds",
      help: "Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.",
      labelNames: ["policy", "policy_binding", "error_type"],
      // kube-apiserver's buckets (pkg/admission/plugin/policy/mutating/metrics/metrics.go).
      buckets: [0.0000005, 0.001, 0.01, 0.1, 1.0],
      registers: [registry],
    });
    this.matchConditionDuration = new Histogram({
      name: "apiserver_admission_match_condition_evaluation_seconds",
      help: "Admission match condition evaluation time in seconds, identified by name and broken out for each kind containing matchConditions (webhook or policy), operation and type (validate or admit).",
      labelNames: ["name", "kind", "type", "operation"],
      // kube-apiserver's buckets (pkg/admission/metrics/metrics.go).
      buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
      registers: [registry],
    });
    this.policyInvocations = new Counter({
      name: "celmap_webhook_policy_invocations_total",
      help: "Policy invocations (policy x binding x param) considered per request and pass, by outcome: mutated, unchanged, excluded (matchCondition false), error, not_reinvoked.",
      labelNames: ["policy", "policy_binding", "outcome"],
      registers: [registry],
    });
    this.matchConditionErrors = new Counter({
      name: "apiserver_admission_match_condition_evaluation_errors_total",
      help: "Admission match condition evaluation errors count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).",
      labelNames: ["name", "kind", "type", "operation"],
      registers: [registry],
    });
    this.matchConditionExclusions = new Counter({
      name: "apiserver_admission_match_condition_exclusions_total",
      help: "Admission match condition evaluation exclusions count, identified by name of resource containing the match condition and broken out for each kind containing matchConditions (webhook or policy), operation and admission type (validate or admit).",
      labelNames: ["name", "kind", "type", "operation"],
      registers: [registry],
    });
    this.clientErrors = new Counter({
      name: "celmap_webhook_client_errors_total",
      help: "Connections or requests dropped before an AdmissionReview was read (timeouts, bad HTTP, TLS failures).",
      labelNames: ["reason"],
      registers: [registry],
    });
    this.policyReloads = new Counter({
      name: "celmap_webhook_policy_reloads_total",
      help: "Policy set (re)loads: success, error (the last good set stays), unchanged.",
      labelNames: ["result"],
      registers: [registry],
    });
    this.policies = new Gauge({
      name: "celmap_webhook_policies",
      help: "Objects in the active policy set, by kind.",
      labelNames: ["kind"],
      aggregator: "max",
      registers: [registry],
    });
    this.policyReloadSuccess = new Gauge({
      name: "celmap_webhook_policy_set_last_reload_success",
      help: "1 when the last policy (re)load succeeded, 0 when the last good set is kept after a bad edit.",
      aggregator: "min",
      registers: [registry],
    });
    this.policyGeneration = new Gauge({
      name: "celmap_webhook_policy_set_generation",
      help: "Generation of the active policy set (increments on each successful change).",
      aggregator: "max",
      registers: [registry],
    });
    this.certificateReloads = new Counter({
      name: "celmap_webhook_certificate_reloads_total",
      help: "Serving certificate reloads: success or error (the previous certificate stays).",
      labelNames: ["result"],
      registers: [registry],
    });
    this.certificateExpiry = new Gauge({
      name: "celmap_webhook_certificate_expiry_timestamp_seconds",
      help: "notAfter of the serving certificate, as a Unix timestamp.",
      aggregator: "min",
      registers: [registry],
    });
    this.inflight = new Gauge({
      name: "celmap_webhook_inflight_requests",
      help: "/mutate requests being read or evaluated.",
      registers: [registry],
    });
  }

  /** Counts what the pipeline did per policy for one request (see review.ts `observationsOf`). */
  observePolicies(o: {
    readonly operation?: string | undefined;
    readonly checks: readonly { readonly policy: string; readonly binding: string; readonly errorType: PolicyErrorType; readonly seconds?: number }[];
    readonly invocations?: readonly { readonly policy: string; readonly binding: string; readonly outcome: InvocationOutcome }[];
    readonly matchConditions?: readonly { readonly policy: string; readonly result: "error" | "exclusion" | "timing"; readonly seconds?: number }[];
  }): void {
    for (const c of o.checks) {
      const labels = { policy: c.policy, policy_binding: c.binding, error_type: c.errorType };
      this.policyChecks.inc(labels);
      this.#track(c.policy, `c\0${c.binding}\0${c.errorType}`, () => this.policyChecks.remove(labels));
      if (c.seconds !== undefined) {
        this.policyCheckDuration.observe(labels, c.seconds);
        this.#track(c.policy, `d\0${c.binding}\0${c.errorType}`, () => this.policyCheckDuration.remove(labels));
      }
    }
    for (const i of o.invocations ?? []) {
      const labels = { policy: i.policy, policy_binding: i.binding, outcome: i.outcome };
      this.policyInvocations.inc(labels);
      this.#track(i.policy, `i\0${i.binding}\0${i.outcome}`, () => this.policyInvocations.remove(labels));
    }
    const operation = o.operation ?? "";
    for (const mc of o.matchConditions ?? []) {
      const labels = { name: mc.policy, kind: "policy", type: "validate", operation };
      if (mc.result === "timing") {
        if (mc.seconds !== undefined) this.matchConditionDuration.observe(labels, mc.seconds);
        this.#track(mc.policy, `t\0${operation}`, () => this.matchConditionDuration.remove(labels));
        continue;
      }
      const counter = mc.result === "error" ? this.matchConditionErrors : this.matchConditionExclusions;
      counter.inc(labels);
      this.#track(mc.policy, `${mc.result}\0${operation}`, () => counter.remove(labels));
    }
  }

  /** Removes the per-policy series of policies not in `active` (after a reload). */
  retainPolicies(active: ReadonlySet<string>): void {
    for (const [policy, series] of this.#policySeries) {
      if (active.has(policy)) continue;
      for (const remove of series.values()) remove();
      this.#policySeries.delete(policy);
    }
  }

  #track(policy: string, key: string, remove: () => void): void {
    let series = this.#policySeries.get(policy);
    if (series === undefined) this.#policySeries.set(policy, (series = new Map()));
    if (!series.has(key)) series.set(key, remove);
  }

  /** Prometheus text exposition of this registry. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }
}
