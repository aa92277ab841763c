/**
 * The shared Gatekeeper cases run through translation + the MAP pipeline: every mutator of the
 * case is translated, the policies are evaluated on the case's object with `evaluate`, and the
 * outcome is compared with the case's expectation:
 *
 * - `phase: validation` → the translator must refuse the mutator with Gatekeeper's message;
 * - `error` (phase mutate) → the request must be denied (Gatekeeper's webhook error);
 * - `unchanged` / `object` → admitted with that object.
 *
 * Cases the MAP model cannot express (expansion `source: Generated` runs, the
 * `--mutation-annotations` flag, external data) fail with the reason.
 */
import { compareObjects, jsonEqual, type CaseOutcome, type GatekeeperCase } from "../../../gatekeeper/index.js";
import { translate, type TranslateResult } from "./index.js";
import { runTranslated } from "./run.js";

/** The object as MAP hands it back, without the fields the apiserver's Go serialisation adds. */
export function normalizeResult(v: unknown, input: unknown): unknown {
  // JSON has one number type: the pipeline keeps an integer an apply configuration wrote as
  // an int64 (bigint); within 2^53 it is the same JSON number as Gatekeeper's.
  if (typeof v === "bigint") return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map((x, i) => normalizeResult(x, Array.isArray(input) ? input[i] : undefined));
  const out: Record<string, unknown> = {};
  const inp = typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const had = Object.prototype.hasOwnProperty.call(inp, k);
    if (!had && (x === null || (typeof x === "object" && !Array.isArray(x) && Object.keys(x as object).length === 0))) {
      // creationTimestamp: null, status: {}, … added by the typed round trip (not by a mutation).
      continue;
    }
    out[k] = normalizeResult(x, inp[k]);
  }
  return out;
}

export function runCaseTranslated(c: GatekeeperCase): CaseOutcome & { translation?: TranslateResult } {
  const name = c.name;
  const exp = c.expect;
  const docs = c.mutators ?? [c.mutator];
  const t = translate(docs);
  const refused = t.verdicts.filter((v) => v.verdict === "refused");
  if (exp.phase === "validation") {
    const msgs = refused.flatMap((v) => v.reasons.map((r) => r.message));
    return msgs.some((m) => m.includes(exp.error ?? "\u0000"))
      ? { name, passed: true, detail: `refused: ${msgs.join("; ")}`, translation: t }
      : { name, passed: false, detail: `not refused with ${JSON.stringify(exp.error)}: ${msgs.join("; ") || "translated"}`, translation: t };
  }
  if (t.issues.length > 0) return { name, passed: false, detail: `translation does not validate: ${t.issues.join("; ")}`, translation: t };
  if (refused.length > 0) {
    return { name, passed: false, detail: `refused: ${refused.map((v) => `${v.mutator}: ${v.reasons.map((r) => `${r.path}: ${r.message}`).join("; ")}`).join("; ")}`, translation: t };
  }
  if (c.request?.source === "Generated") return { name, passed: false, detail: "not expressible: an expansion (source Generated) run never happens at admission", translation: t };
  if (c.flags?.mutationAnnotations === true) return { name, passed: false, detail: "not expressible: --mutation-annotations (random UUID, applied-mutator list)", translation: t };
  // Gatekeeper's matcher needs the Namespace object only for a namespaceSelector (the case
  // files give one when the webhook would have found it); MAP's namespace lookup fails (404)
  // exactly when it is missing.
  const needsNs = docs.some((d) => JSON.stringify((d as { spec?: { match?: unknown } })?.spec?.match ?? {}).includes('"namespaceSelector"'));
  const r = runTranslated(t, c.object, { namespace: c.namespace, operation: c.request?.operation === "UPDATE" ? "UPDATE" : "CREATE", bareNamespace: !needsNs });
  if (exp.error !== undefined) {
    return r.allowed
      ? { name, passed: false, detail: `admitted; expected Gatekeeper's error ${JSON.stringify(exp.error)}`, translation: t }
      : { name, passed: true, detail: `denied: ${r.message ?? ""}`, translation: t };
  }
  if (!r.allowed) return { name, passed: false, detail: `denied: ${r.message ?? ""}`, translation: t };
  const got = normalizeResult(r.object, c.object);
  if (exp.unchanged === true) {
    return jsonEqual(got, c.object)
      ? { name, passed: true, detail: "unchanged", translation: t }
      : { name, passed: false, detail: `changed: ${JSON.stringify(got)}`, translation: t };
  }
  if (exp.object !== undefined) {
    const diff = compareObjects(got, exp.object, exp.ignore_values_at ?? []);
    return diff === undefined ? { name, passed: true, detail: "object matches", translation: t } : { name, passed: false, detail: diff, translation: t };
  }
  return { name, passed: false, detail: "the case has no expectation", translation: t };
}
