/**
 * Webhook stages: admission that runs after the MutatingAdmissionPolicy plugin in every pass of
 * `evaluate` (pipeline.ts), as kube-apiserver's MutatingAdmissionWebhook plugin does: the
 * recommended plugin order (`pkg/kubeapiserver/options/plugins.go` AllOrderedPlugins) puts
 * MutatingAdmissionPolicy immediately before MutatingAdmissionWebhook, so a webhook sees the
 * object MAP produced, and MAP sees a webhook's changes only when the chain is reinvoked.
 *
 * A stage models one webhook (or the webhooks of one server, called in order). Per pass, the
 * pipeline hands it the request and the current object and takes back the object after it.
 * The stage keeps its own reinvocation bookkeeping (the webhook plugin's
 * `webhookReinvokeContext`: in pass 2 a webhook runs only if it is IfNeeded and the object
 * changed since it last ran); the pipeline does the chain's part: a stage that changed the object
 * in pass 1 requests the second pass (`reinvokeCtx.SetShouldReinvoke`), and in pass 2 the MAP
 * plugin reinvokes its IfNeeded invocations because the object differs from its last output.
 *
 * Pure, like the rest of src/admission: the stage gets everything through its closure.
 */
import type { JsonObject } from "./json.js";
import type { AdmissionRequest } from "./request.js";

export interface WebhookStageInput {
  readonly pass: 1 | 2;
  /** The request, with `object` the object as it stands (after MAP in this pass). */
  readonly request: AdmissionRequest;
  readonly object: JsonObject | null;
}

/** What the trace shows of a stage in a pass: plain lines (uncoloured) and data for JSON output. */
export interface WebhookStageTrace {
  readonly name: string;
  /** Why the stage did not run in this pass, when it did not. */
  readonly skipped?: string;
  readonly changed: boolean;
  readonly lines: readonly string[];
  readonly data?: unknown;
}

export interface WebhookStageResult {
  readonly object: JsonObject | null;
  /** Whether the object differs after the stage (the chain is then reinvoked, once). */
  readonly changed: boolean;
  /** The webhook denied the request: the apiserver's 403 message (`admission webhook "<name>" denied the request: …`). */
  readonly denied?: string;
  /** Errors the webhook swallowed (its failurePolicy Ignore), for diagnostics. */
  readonly ignoredErrors?: readonly string[];
  readonly trace: WebhookStageTrace;
}

export interface WebhookStage {
  readonly name: string;
  run(input: WebhookStageInput): WebhookStageResult;
}
