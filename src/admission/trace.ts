/**
 * The record of one admission evaluation: for every policy, binding and param, whether it matched
 * and why; each matchCondition's result; each mutation's effect, error and cost. Plain data (JSON
 * serialisable apart from `bigint` numbers inside objects and patches), built by dispatch.ts and
 * pipeline.ts; stable for the CLI to print.
 */
import type { PatchOperation } from "./diff.js";
import type { TraceEntry } from "./params.js";
import type { WebhookStageTrace } from "./webhook-stage.js";

export type { TraceEntry as SelectionTraceEntry } from "./params.js";

export interface MatchConditionTrace {
  readonly name: string;
  /** `true`/`false`, or `error` (the condition errored), or `not-evaluated` (after the budget ran out). */
  readonly result: boolean | "error" | "not-evaluated";
  readonly error?: string;
  /** Actual cost of the condition (variables it read included). */
  readonly cost: number;
}

export type MutationOutcome =
  /** The patch applied (possibly without changing anything). */
  | "applied"
  /** A JSON Patch `test` op failed: the mutation is a silent no-op. */
  | "test-failed"
  /** A policy error (failurePolicy decides). */
  | "error"
  /** A hard failure (500/503) that aborted the request. */
  | "aborted"
  /** Not run: the object is null (never for CREATE/UPDATE). */
  | "skipped";

/**
 * What kind of policy error a mutation had, as the apiserver's dispatcher classifies it for its
 * metrics: the expression did not compile, the request ran out of cost budget, or anything else
 * (a CEL runtime error, a patch that does not apply, a type mismatch, an abort). Edges (metrics,
 * exit codes) classify by it, never by the message text.
 */
export type MutationErrorKind = "compile" | "out_of_budget" | "invalid";

export interface MutationTrace {
  readonly index: number;
  readonly patchType: "ApplyConfiguration" | "JSONPatch";
  readonly outcome: MutationOutcome;
  readonly error?: string;
  /** With `error`: its kind. */
  readonly errorKind?: MutationErrorKind;
  /** Expression cost plus the variables it read lazily. */
  readonly cost: number;
  /** What this mutation changed (defaulting included), as RFC 6902 operations. */
  readonly diff: readonly PatchOperation[];
  /**
   * Wall time of the mutation (evaluation, patch, typed round trip, defaulting), the span of the
   * apiserver's `apiserver_mutating_admission_policy_check_duration_seconds`. Absent when not run.
   */
  readonly seconds?: number;
}

export interface InvocationTrace {
  readonly pass: 1 | 2;
  readonly policy: string;
  readonly binding: string;
  /** `namespace/name` of the param, or absent when the invocation has none. */
  readonly param?: string;
  readonly matchedKind: string;
  readonly matchedResource: string;
  readonly matchConditions: readonly MatchConditionTrace[];
  /** Why the mutations did not run, when they did not. */
  readonly skipped?: string;
  /** Wall time of the matchConditions, when there are any. */
  readonly matchConditionSeconds?: number;
  readonly mutations: readonly MutationTrace[];
  /** Whether the object differs after this invocation. */
  readonly changed: boolean;
}

export interface PassTrace {
  readonly pass: 1 | 2;
  /** Policy / binding matching and params, in evaluation order (from `selectInvocations`). */
  readonly selection: readonly TraceEntry[];
  readonly invocations: readonly InvocationTrace[];
  /** Whether this pass asked for the chain to be reinvoked. */
  readonly reinvocationRequested: boolean;
  /**
   * The policy errors of this pass, formatted as in the 403 (`policy 'p' with binding 'b' denied
   * request: …`), in order; `ignored` when the policy's failurePolicy is Ignore.
   */
  readonly errors: readonly { readonly message: string; readonly ignored: boolean }[];
  /** The webhook stages that ran after MAP in this pass (webhook-stage.ts), in order. */
  readonly webhooks?: readonly WebhookStageTrace[];
}

export interface Trace {
  /** Why MAP did not look at the request at all, when it did not. */
  readonly exempt?: string;
  readonly passes: readonly PassTrace[];
  /** Policies with no binding, bindings with no policy, policies dropped for a bad paramKind. */
  readonly notes: readonly string[];
}
