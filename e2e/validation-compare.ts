/**
 * celmap's answer to a recorded validation case (validation-run.ts `conformanceCase`, with the
 * apiserver's full answer in `answer`), and its differences from the apiserver's: allowed or not,
 * the HTTP status code, the reason, the message (exactly), the causes (reason, field, message, in
 * order) and, when admitted, the stored object minus the server-set metadata (SERVER_METADATA:
 * uid, resourceVersion, creationTimestamp, managedFields, generation, selfLink — the only
 * normalisation). celmap runs as `celmap eval` does: `load` then `admit` with validation on, via
 * the conformance runner's own `apiserver` harness (src/conformance/map.ts).
 */
import { admit } from "../src/engine/index.js";
import { loadMapCase, mapCaseInputs, type MapCase } from "../src/conformance/map.js";
import { withoutServerMetadata, type StatusCause } from "./validation-run.js";
import type { Obj } from "./validation-cases.js";

export interface RecordedAnswer {
  readonly code: number;
  readonly reason?: string;
  readonly message?: string;
  readonly causes?: readonly StatusCause[];
}

export type RecordedCase = MapCase & { readonly answer: RecordedAnswer };

interface CelmapAnswer {
  readonly code: number;
  readonly reason?: string;
  readonly message?: string;
  readonly causes?: readonly StatusCause[];
  readonly object?: Obj;
}

export function celmapAnswer(c: MapCase): CelmapAnswer | { readonly harness: string } {
  const inputs = mapCaseInputs(c);
  if ("error" in inputs) return { harness: inputs.error };
  const loaded = loadMapCase(c, inputs);
  if ("outcome" in loaded) return { harness: loaded.outcome.ok ? "policy rejected as expected" : loaded.outcome.message };
  const a = admit(loaded.policySet, inputs.request, inputs.admit);
  if (!a.ok) return { harness: a.error.message };
  if (!a.result.allowed) {
    const s = a.result.status!;
    return { code: s.code, reason: s.reason, message: s.message, causes: (s.causes ?? []).map((x) => ({ reason: String((x as Obj).reason ?? ""), message: x.message, field: String((x as Obj).field ?? "") })) };
  }
  if (a.validation !== undefined && !a.validation.ok) {
    const s = a.validation.status;
    return { code: s.code, reason: s.reason, message: s.message, causes: s.details.causes.map((x) => ({ reason: x.reason, message: x.message, field: x.field })) };
  }
  return { code: c.operation === "UPDATE" ? 200 : 201, object: a.result.object as Obj };
}

/** JSON text; celmap's int64 values (bigint) as the numbers they are. */
const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? Number(x) : x));

/** Paths where two JSON values differ (at most `limit`). */
function jsonDiff(a: unknown, b: unknown, path = "", out: string[] = [], limit = 8): string[] {
  if (out.length >= limit || show(a) === show(b)) return out;
  const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) jsonDiff(a[k], b[k], `${path}.${k}`, out, limit);
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((e, i) => jsonDiff(e, b[i], `${path}[${i}]`, out, limit));
    return out;
  }
  out.push(`${path || "."}: apiserver ${show(a)}, celmap ${show(b)}`);
  return out;
}

/** The differences between the apiserver's recorded answer and celmap's (empty: none). */
export function differences(c: RecordedCase): string[] {
  const want = c.answer;
  const got = celmapAnswer(c);
  if ("harness" in got) return [`celmap: ${got.harness}`];
  const d: string[] = [];
  if (want.code !== got.code) d.push(`code: apiserver ${want.code}, celmap ${got.code}`);
  if (want.code >= 300 || got.code >= 300) {
    if ((want.reason ?? "") !== (got.reason ?? "")) d.push(`reason: apiserver ${show(want.reason)}, celmap ${show(got.reason)}`);
    if (want.message !== got.message) d.push(`message:\n    apiserver ${show(want.message)}\n    celmap    ${show(got.message)}`);
    if (want.code === 422 && show(want.causes ?? []) !== show(got.causes ?? [])) d.push(`causes:\n    apiserver ${show(want.causes)}\n    celmap    ${show(got.causes)}`);
    return d;
  }
  const wantObj = c.expect.object as Obj;
  const gotObj = withoutServerMetadata(got.object!);
  d.push(...jsonDiff(wantObj, gotObj).map((x) => `object ${x}`));
  return d;
}
