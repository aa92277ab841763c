/** Helpers shared by the engine tests: the webhook's AdmissionReview handler on a document set, and patch application. */
import type { AdmissionRequest, JsonObject, JsonValue } from "../../src/admission/index.js";
import { applyJsonPatch } from "../../src/admission/patch/json-patch.js";
import type { LoadedDocument } from "../../src/io/load.js";
import { contentFromDocuments, PolicyStore, type PolicySnapshot } from "../../src/webhook/policies.js";
import { handleReview, type ReviewReply } from "../../src/webhook/review.js";

/** A webhook snapshot from documents, as `celmap webhook -f` builds it (or the load errors). */
export function webhookSnapshot(docs: readonly LoadedDocument[]): PolicySnapshot | { errors: readonly string[] } {
  const update = contentFromDocuments(docs, "test", "digest");
  if (!update.ok) return { errors: update.errors };
  const store = new PolicyStore();
  store.apply(update);
  return store.current!;
}

const bigints = (_k: string, v: unknown): unknown => (typeof v === "bigint" ? Number(v) : v);

/** The AdmissionReview JSON the apiserver would send for a request. */
export function reviewJson(request: AdmissionRequest, uid = "0b5f2d7c-0000-4000-8000-000000000001"): string {
  return JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { ...request, uid } }, bigints);
}

/** Runs the review through `handleReview`, with a deadline far away. */
export function review(snapshot: PolicySnapshot, request: AdmissionRequest): ReviewReply {
  return handleReview(reviewJson(request), { settings: { failurePolicy: "Fail" }, snapshot, deadline: Number.MAX_SAFE_INTEGER, now: () => 0 });
}

export interface ReviewOutcome {
  readonly allowed: boolean;
  /** The object after the webhook's patch (the request's object when allowed without a patch). */
  readonly object: JsonObject | null;
  readonly status?: { readonly code: number; readonly message: string };
}

/** What the apiserver makes of the webhook's answer: the patched object, or the denial. */
export function reviewOutcome(reply: ReviewReply, request: AdmissionRequest): ReviewOutcome {
  const body = JSON.parse(reply.body) as { response?: { allowed: boolean; patch?: string; status?: { code: number; message: string } }; code?: number; message?: string };
  const r = body.response;
  if (r === undefined) return { allowed: false, object: null, status: { code: body.code ?? 0, message: body.message ?? reply.body } };
  if (!r.allowed) return { allowed: false, object: null, ...(r.status !== undefined ? { status: r.status } : {}) };
  const object = JSON.parse(JSON.stringify(request.object, bigints)) as JsonObject | null;
  if (r.patch === undefined) return { allowed: true, object };
  const ops = JSON.parse(Buffer.from(r.patch, "base64").toString("utf8")) as never;
  const applied = applyJsonPatch(object as JsonValue, ops);
  if (applied.ok !== true) throw new Error(`the webhook's patch does not apply: ${JSON.stringify(applied)}`);
  return { allowed: true, object: applied.doc as JsonObject };
}

/** Plain JSON (bigints as numbers), for comparing objects from different paths. */
export function plain<T>(v: T): T {
  return JSON.parse(JSON.stringify(v, bigints)) as T;
}
