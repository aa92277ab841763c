/**
 * The per-policy metrics from a pipeline trace (review.ts `observationsOf`) and their bounded
 * label sets (series of a policy that left the set are removed on reload).
 */
import { expect, it } from "vitest";
import type { Trace } from "../../src/admission/index.js";
import { WebhookMetrics } from "../../src/webhook/metrics.js";
import { observationsOf } from "../../src/webhook/review.js";
import { metricValue } from "./support.js";

const inv = (policy: string, extra: Record<string, unknown>) => ({
  pass: 1 as const,
  policy,
  binding: `${policy}-b`,
  matchedKind: "v1 Pod",
  matchedResource: "v1 pods",
  matchConditions: [],
  mutations: [],
  changed: false,
  ...extra,
});

const trace = {
  notes: [],
  passes: [
    {
      pass: 1,
      selection: [],
      reinvocationRequested: false,
      errors: [],
      invocations: [
        inv("mutates", { changed: true, mutations: [{ index: 0, patchType: "ApplyConfiguration", outcome: "applied", cost: 3, diff: [], seconds: 0.002 }] }),
        inv("same", { mutations: [{ index: 0, patchType: "JSONPatch", outcome: "applied", cost: 1, diff: [] }] }),
        inv("excluded", {
          matchConditionSeconds: 0.003,
          matchConditions: [
            { name: "a", result: "error", error: "no such key", cost: 1 },
            { name: "b", result: false, cost: 1 },
            { name: "c", result: "not-evaluated", cost: 0 },
          ],
          skipped: "matchCondition 'b' is false",
        }),
        inv("mc-error", { matchConditions: [{ name: "a", result: "error", error: "no such key", cost: 1 }], skipped: "matchConditions errored (failurePolicy Fail)" }),
        inv("budget", { mutations: [{ index: 0, patchType: "ApplyConfiguration", outcome: "error", error: "validation failed due to running out of cost budget, no further validation rules will be run", errorKind: "out_of_budget", cost: 9, diff: [] }] }),
      ],
    },
    { pass: 2, selection: [], reinvocationRequested: false, errors: [], invocations: [inv("same", { pass: 2, skipped: "not eligible for reinvocation" })] },
  ],
} as unknown as Trace;

it("observationsOf: one check per mutation run, one outcome per invocation, matchConditions as the apiserver's matcher counts them", () => {
  const o = observationsOf(trace);
  expect(o.checks).toEqual([
    { policy: "mutates", binding: "mutates-b", errorType: "no_error", seconds: 0.002 },
    { policy: "same", binding: "same-b", errorType: "no_error" },
    { policy: "budget", binding: "budget-b", errorType: "out_of_budget" },
  ]);
  expect(o.invocations.map((i) => `${i.policy}:${i.outcome}`)).toEqual(["mutates:mutated", "same:unchanged", "excluded:excluded", "mc-error:error", "budget:error", "same:not_reinvoked"]);
  expect(o.matchConditions).toEqual([
    { policy: "excluded", result: "timing", seconds: 0.003 },
    { policy: "excluded", result: "error" },
    { policy: "excluded", result: "exclusion" },
    { policy: "mc-error", result: "error" },
  ]);
});

it("WebhookMetrics: per-policy series, removed when the policy leaves the set", async () => {
  const m = new WebhookMetrics({ defaultMetrics: false });
  m.observePolicies({ operation: "CREATE", ...observationsOf(trace) });
  let text = await m.text();
  expect(metricValue(text, "celmap_webhook_policy_invocations_total", { policy: "same", outcome: "unchanged" })).toBe(1);
  expect(metricValue(text, "apiserver_admission_match_condition_evaluation_errors_total", { name: "excluded", kind: "policy", type: "validate", operation: "CREATE" })).toBe(1);
  expect(metricValue(text, "apiserver_admission_match_condition_exclusions_total", { name: "excluded", operation: "CREATE" })).toBe(1);
  expect(metricValue(text, "apiserver_mutating_admission_policy_check_total", { policy: "budget", policy_binding: "budget-b", error_type: "out_of_budget" })).toBe(1);
  // Latencies: the apiserver's histogram names and buckets (0.002 s falls in le="0.01", not le="0.001").
  expect(metricValue(text, "apiserver_mutating_admission_policy_check_duration_seconds_bucket", { policy: "mutates", error_type: "no_error", le: "0.001" })).toBe(0);
  expect(metricValue(text, "apiserver_mutating_admission_policy_check_duration_seconds_bucket", { policy: "mutates", error_type: "no_error", le: "0.01" })).toBe(1);
  expect(metricValue(text, "apiserver_admission_match_condition_evaluation_seconds_count", { name: "excluded", kind: "policy", operation: "CREATE" })).toBe(1);
  expect(metricValue(text, "apiserver_admission_match_condition_evaluation_seconds_bucket", { name: "excluded", le: "0.005" })).toBe(1);
  m.retainPolicies(new Set(["mutates", "same"]));
  text = await m.text();
  expect(text).toContain('policy="same"');
  expect(text).not.toContain('policy="budget"');
  expect(text).not.toContain('name="excluded"');
  expect(text).not.toContain('policy="mc-error"');
});
