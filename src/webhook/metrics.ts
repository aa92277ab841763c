/**
 * Prometheus metrics of the webhook (prom-client), on a registry of its own so that several
 * servers can live in one process (tests) and `--workers` can aggregate them.
 *
 * Per policy, the apiserver's MutatingAdmissionPolicy metric names (map.md §6.4, kubernetes/apiserver
 * `pkg/admission/plugin/policy/mutating/metrics/metrics.go`) with the same labels and buckets:
 *
 * - `apiserver_mutating_admission_policy_check_total{policy, policy_binding, error_type}`: one per
 *   mutation evaluation; `error_type` ∈ `no_error`, `compile_error`, `out_of_budget`, `invalid_error`.
 *   (`apiserver_mutating_admission_policy_check_duration_seconds` needs per-invocation timings in the
 *   pipeline's trace, which it does not record yet; the request histogram below has the latency.)
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

export type PolicyErrorType = "no_error" | "compile_error" | "out_of_budget" | "invalid_error";

/** The apiserver's classification of a mutation error (metrics.go / dispatcher.go). */
export function policyErrorType(error: string | undefined): PolicyErrorType {
  if (error === undefined) return "no_error";
  if (error.startsWith("compilation") || error.includes("compilation failed")) return "compile_error";
  if (error.includes("running out of cost budget") || error.includes("cost limit exceeded") || error.includes("cost budget exceeded")) {
    return "out_of_budget";
  }
  return "invalid_error";
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

  /** Prometheus text exposition of this registry. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }
}
