/**
 * The one place lint touches the admission engine: a `LintSubject` over an engine policy set
 * (src/engine `load` / `admit`): MAPs in an explicit `policyOrder`, Kyverno MutatingPolicies (the
 * webhook stage after MAP) in the order of the set's `kyverno.policies`, Gatekeeper mutators through
 * their own System after both (in its fixed order, to its own fixpoint). Everything else in src/lint
 * sees only `LintSubject` (model.ts).
 *
 * Pure: the policy set comes loaded; nothing is read here.
 */
import { newAdmissionRequest } from "../admission/request.js";
import { isJsonObject, type JsonObject } from "../admission/json.js";
import { runsAtAdmission } from "../kyverno/index.js";
import { admit, bareNamespace, unknownKind, type PolicySet } from "../engine/index.js";
import type { System } from "../gatekeeper/index.js";
import type { Admission, AdmitOptions, LintSubject, LintUnit } from "./model.js";

export interface SubjectOptions {
  /** Gatekeeper mutators, run by their System after MAP and Kyverno (kept out of the engine's set, which would translate them). */
  readonly gatekeeper?: System;
  /** `file#doc` by unit id. */
  readonly sources?: ReadonlyMap<string, string>;
  /** The line each unit's document starts at, by unit id. */
  readonly lines?: ReadonlyMap<string, number>;
  /** Namespaces lint made up for generated objects (a namespaceSelector's labels), besides the given ones. */
  readonly extraNamespaces?: ReadonlyMap<string, JsonObject>;
}

export function mapUnitId(name: string): string {
  return `map:${name}`;
}

export function kyvernoUnitId(p: { readonly metadata: { readonly name: string; readonly namespace?: string } }): string {
  return `kyverno:${p.metadata.namespace !== undefined && p.metadata.namespace !== "" ? `${p.metadata.namespace}/` : ""}${p.metadata.name}`;
}

export function gatekeeperUnitId(kind: string, name: string): string {
  return `gatekeeper:${kind}/${name}`;
}

/** Gatekeeper's System speaks plain JSON numbers; the pipeline keeps integers as bigint. */
function celNumbers(v: unknown): unknown {
  if (typeof v === "number") return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(celNumbers);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = celNumbers(x);
    return out;
  }
  return v;
}

/** A `LintSubject` over an engine policy set. */
export function lintSubject(set: PolicySet, options: SubjectOptions = {}): LintSubject {
  const extra = options.extraNamespaces;
  const base: PolicySet = extra !== undefined && extra.size > 0 ? { ...set, namespaces: new Map([...extra, ...set.namespaces]) } : set;
  // The same set without policies: admitting through it gives the object as admission receives it.
  const bare: PolicySet = { ...base, policies: [], bindings: [], kyverno: { ...base.kyverno, policies: [] } };
  const units: LintUnit[] = [];
  const unit = (u: Omit<LintUnit, "source">): LintUnit => {
    const source = options.sources?.get(u.id);
    const line = options.lines?.get(u.id);
    return { ...u, ...(source !== undefined ? { source } : {}), ...(line !== undefined ? { line } : {}) };
  };
  for (const p of base.policies) units.push(unit({ id: mapUnitId(p.metadata.name), group: "map", kind: "MutatingAdmissionPolicy", name: p.metadata.name }));
  const kyverno = base.kyverno.policies.filter(runsAtAdmission);
  for (const p of kyverno) units.push(unit({ id: kyvernoUnitId(p), group: "kyverno", kind: p.kind, name: p.metadata.name }));
  const gk = options.gatekeeper;
  for (const m of gk?.mutators() ?? []) units.push(unit({ id: gatekeeperUnitId(m.id.kind, m.id.name), group: "gatekeeper", kind: m.id.kind, name: m.id.name }));
  const ifNeeded = new Set(base.policies.filter((p) => p.spec.reinvocationPolicy === "IfNeeded").map((p) => mapUnitId(p.metadata.name)));
  const namespaceOf = (name: string): JsonObject => base.namespaces.get(name) ?? bareNamespace(name);

  const prepare: LintSubject["prepare"] = (object) => {
    const problem = unknownKind(base, object);
    if (problem !== undefined) return { error: problem };
    const a = admit(bare, { operation: "CREATE", object });
    if (!a.ok) return { error: a.error.message };
    return { object: a.input ?? object };
  };

  const admitOne = (object: JsonObject, o: AdmitOptions): Admission => {
    // The object is prepared already (namespace, defaults): sent as the apiserver would send it on.
    const req = newAdmissionRequest({ operation: o.operation, object, oldObject: o.oldObject ?? null }, base.catalog);
    if (!req.ok) return { allowed: false, object, message: req.error, matched: [], changedBy: [] };
    const order = o.order ?? [];
    const rank = new Map(order.map((id, i) => [id, i]));
    const at = (id: string): number => rank.get(id) ?? order.length;
    const mapOrder = order.filter((id) => id.startsWith("map:")).map((id) => id.slice(4));
    const ordered = rank.size === 0 ? base : { ...base, kyverno: { ...base.kyverno, policies: [...base.kyverno.policies].sort((a, b) => at(kyvernoUnitId(a)) - at(kyvernoUnitId(b))) } };
    const a = admit(ordered, { review: req.request }, { ...(o.singlePass === true ? { reinvocation: false } : {}), ...(mapOrder.length > 0 ? { policyOrder: mapOrder } : {}) });
    if (!a.ok) return { allowed: false, object, message: a.error.message, matched: [], changedBy: [] };
    const r = a.result;
    const matched = new Set<string>();
    const changedBy: string[] = [];
    for (const pass of r.trace.passes) {
      for (const inv of pass.invocations) {
        matched.add(mapUnitId(inv.policy));
        if (inv.changed) changedBy.push(mapUnitId(inv.policy));
      }
      for (const w of pass.webhooks ?? []) {
        for (const d of Array.isArray(w.data) ? (w.data as { policy: string; namespace?: string; result: string; changed: boolean }[]) : []) {
          if (d.result === "nomatch") continue;
          const id = kyvernoUnitId({ metadata: { name: d.policy, ...(d.namespace !== undefined ? { namespace: d.namespace } : {}) } });
          matched.add(id);
          if (d.result === "pass" && d.changed) changedBy.push(id);
        }
      }
    }
    let out = r.object ?? object;
    if (!r.allowed) return { allowed: false, object: out, message: r.status?.message ?? "denied", matched: [...matched], changedBy };
    if (gk !== undefined && gk.mutators().length > 0) {
      const nsName = req.request.namespace;
      const g = gk.mutate(out, { ...(nsName !== "" ? { namespace: namespaceOf(nsName) } : {}), operation: o.operation });
      if (g.error !== undefined) return { allowed: false, object: out, message: `gatekeeper: ${g.error}`, matched: [...matched], changedBy };
      for (const applied of g.applied) {
        // `Kind/namespace/name:generation`
        const [kind = "", , nameGen = ""] = applied.split("/");
        const id = gatekeeperUnitId(kind, nameGen.replace(/:[^:]*$/, ""));
        matched.add(id);
        changedBy.push(id);
      }
      if (g.changed && isJsonObject(g.object)) out = celNumbers(g.object) as JsonObject;
    }
    return { allowed: true, object: out, matched: [...matched], changedBy };
  };

  return { units, prepare, admit: admitOne, reinvoked: (id) => ifNeeded.has(id) };
}
