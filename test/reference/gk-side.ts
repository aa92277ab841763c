/**
 * celmap's two answers to a gkref request:
 * - `celmapGkAnswer`: celmap's own Gatekeeper semantics (src/translate/gatekeeper: compileMutator
 *   for every mutator, then one System run, source Original), with the webhook's namespace step;
 * - `celmapTranslatedAnswer`: the set as `celmap eval` runs it: `load` translates the mutators to
 *   MAPs and bindings, `admit` evaluates the request through the MAP pipeline (no defaulting:
 *   Gatekeeper's webhook sees the object as the request carries it).
 */
import { admit, load } from "../../src/engine/index.js";
import { compileMutator, mutate, type Mutator } from "../../src/gatekeeper/index.js";
import { normalizeResult } from "../../src/translate/gatekeeper/translate/cases.js";
import type { GkRequest } from "./gk-gen.js";

/** gkref's answer (and the shape of celmap's). */
export interface GkAnswer {
  readonly ok: boolean;
  /** `mutator` (a mutator refused), `mutate` (the System failed), `untranslatable`, `panic`, `request`, `crash`. */
  readonly stage?: string;
  readonly index?: number;
  readonly error?: string;
  readonly mutated?: boolean;
  readonly object?: unknown;
  readonly conflicts?: readonly string[];
  /** The translation: the differences from Gatekeeper the translator stated (verdict `difference`), if any. */
  readonly stated?: readonly string[];
}

const clone = <T>(v: T): T => structuredClone(v);

function nsName(req: GkRequest): string {
  const md = (req.namespace?.["metadata"] ?? {}) as { name?: string };
  return md.name ?? "";
}

export function celmapGkAnswer(req: GkRequest): GkAnswer {
  try {
    const mutators: Mutator[] = [];
    for (const [i, d] of req.mutators.entries()) {
      const r = compileMutator(clone(d));
      if (!r.ok) return { ok: false, stage: "mutator", index: i, error: r.issues.map((x) => x.message).join("; ") };
      mutators.push(r.mutator);
    }
    // pkg/webhook/mutation.go: the request's namespace is set on the object while mutating, then restored.
    const object = clone(req.object);
    const md = object["metadata"] as Record<string, unknown>;
    const oldNs = md["namespace"];
    md["namespace"] = nsName(req);
    const r = mutate(object, mutators, { namespace: req.namespace ?? undefined, source: "Original", operation: req.operation });
    const conflicts = r.conflicts.map((id) => `${id.kind}/${id.namespace}/${id.name}`).sort();
    if (r.error !== undefined) return { ok: false, stage: "mutate", error: r.error, conflicts };
    if (!r.changed) return { ok: true, mutated: false, object: req.object, conflicts };
    const out = r.object as Record<string, Record<string, unknown>>;
    if (oldNs === undefined) delete out["metadata"]!["namespace"];
    else out["metadata"]!["namespace"] = oldNs;
    return { ok: true, mutated: true, object: out, conflicts };
  } catch (e) {
    return { ok: false, stage: "crash", error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
}

export function celmapTranslatedAnswer(req: GkRequest): GkAnswer {
  try {
    const docs = [...req.mutators.map((m) => clone(m)), ...(req.namespace === null ? [] : [clone(req.namespace)])];
    const { policySet, errors } = load(docs.map((value) => ({ value })));
    const invalid = errors.find((e) => e.kind === "input");
    if (invalid !== undefined) return { ok: false, stage: "mutator", error: invalid.message };
    if (errors.length > 0) return { ok: false, stage: "crash", error: errors.map((e) => e.message).join("; ") };
    const refused = policySet.gatekeeper.verdicts.filter((v) => v.verdict === "refused");
    if (refused.length > 0) {
      return { ok: false, stage: "untranslatable", error: refused.map((v) => `${v.mutator}: ${v.reasons.map((x) => `${x.path}: ${x.message}`).join("; ")}`).join("; ") };
    }
    const stated = policySet.gatekeeper.verdicts.filter((v) => v.verdict === "difference").flatMap((v) => v.reasons.map((x) => `${v.mutator}: ${x.path}: ${x.message}`));
    const also = stated.length > 0 ? { stated } : {};
    const a = admit(policySet, { operation: req.operation, object: clone(req.object) as never }, { defaulting: false });
    if (!a.ok) return { ok: false, stage: "crash", error: a.error.message, ...also };
    if (!a.result.allowed) return { ok: false, stage: "mutate", error: a.result.status?.message ?? "", ...also };
    return { ok: true, object: normalizeResult(a.result.object, req.object), ...also };
  } catch (e) {
    return { ok: false, stage: "crash", error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
}
