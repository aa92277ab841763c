/**
 * The one place lint touches the admission engine: a `LintSubject` over the policies `celmap
 * eval` loads (MAPs through `evaluate` with an explicit `policyOrder`, Kyverno MutatingPolicies
 * as the webhook stage after MAP, in the order given, Gatekeeper mutators through their System
 * after both). Everything else in src/lint sees only `LintSubject` (model.ts).
 *
 * Pure: the inputs come sorted already (the CLI's session); nothing is read here.
 */
import { evaluate, type EvaluateResult } from "../admission/pipeline.js";
import { gvkOfObject, newAdmissionRequest } from "../admission/request.js";
import type { Defaulter } from "../admission/dispatch.js";
import { isJsonObject, type JsonObject } from "../admission/json.js";
import type { ResourceCatalog, GroupVersionKind } from "../admission/match/catalog.js";
import type { ParamSource } from "../admission/params.js";
import { kyvernoWebhookStage, runsAtAdmission } from "../admission/kyverno/index.js";
import type { KyvernoProviders } from "../cel/kyverno/index.js";
import type { SchemaRegistry } from "../kube/schema.js";
import type { ValidMutatingAdmissionPolicy, ValidMutatingAdmissionPolicyBinding } from "../policy/index.js";
import type { MutatingPolicy, PolicyException } from "../policy/kyverno/index.js";
import type { System } from "../translate/gatekeeper/system.js";
import type { Admission, AdmitOptions, LintSubject, LintUnit } from "./model.js";

/** What lint needs of the loaded inputs (the CLI's `Session` has this shape). */
export interface LintInputs {
  readonly policies: readonly ValidMutatingAdmissionPolicy[];
  readonly bindings: readonly ValidMutatingAdmissionPolicyBinding[];
  readonly params: ParamSource;
  readonly namespaces: ReadonlyMap<string, JsonObject>;
  readonly catalog: ResourceCatalog;
  readonly schemas: SchemaRegistry;
  readonly defaulter: Defaulter | undefined;
  readonly kyverno: { readonly policies: readonly MutatingPolicy[]; readonly exceptions: readonly PolicyException[]; readonly providers: KyvernoProviders };
}

export interface SubjectOptions {
  /** Gatekeeper mutators, run by their System after MAP and Kyverno. */
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

function bareNamespace(name: string): JsonObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { "kubernetes.io/metadata.name": name } }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } };
}

/** A `LintSubject` over today's admission pipeline. */
export function lintSubject(inputs: LintInputs, options: SubjectOptions = {}): LintSubject {
  const sources = options.sources ?? new Map<string, string>();
  const units: LintUnit[] = [];
  const unit = (u: Omit<LintUnit, "source">): LintUnit => {
    const source = sources.get(u.id);
    const line = options.lines?.get(u.id);
    return { ...u, ...(source !== undefined ? { source } : {}), ...(line !== undefined ? { line } : {}) };
  };
  for (const p of inputs.policies) units.push(unit({ id: mapUnitId(p.metadata.name), group: "map", kind: "MutatingAdmissionPolicy", name: p.metadata.name }));
  const kyverno = inputs.kyverno.policies.filter(runsAtAdmission);
  for (const p of kyverno) units.push(unit({ id: kyvernoUnitId(p), group: "kyverno", kind: p.kind, name: p.metadata.name }));
  const gk = options.gatekeeper;
  for (const m of gk?.mutators() ?? []) units.push(unit({ id: gatekeeperUnitId(m.id.kind, m.id.name), group: "gatekeeper", kind: m.id.kind, name: m.id.name }));
  const ifNeeded = new Set(inputs.policies.filter((p) => p.spec.reinvocationPolicy === "IfNeeded").map((p) => mapUnitId(p.metadata.name)));
  const namespaces = (name: string): JsonObject => inputs.namespaces.get(name) ?? options.extraNamespaces?.get(name) ?? bareNamespace(name);
  const kyvernoCtx = {
    catalog: inputs.catalog,
    schemas: inputs.schemas,
    namespaces,
    providers: inputs.kyverno.providers,
    exceptions: inputs.kyverno.exceptions,
    ...(inputs.defaulter !== undefined ? { defaulter: inputs.defaulter } : {}),
  };

  const prepare: LintSubject["prepare"] = (object) => {
    const gvk = gvkOfObject(object);
    if ("error" in gvk) return { error: gvk.error };
    const info = inputs.catalog.resourceForKind(gvk);
    if (info === undefined) return { error: `kind: unknown kind ${JSON.stringify(`${String(object.apiVersion)} ${String(object.kind)}`)} (give its CRD with -f)` };
    let out = object;
    const md = isJsonObject(object.metadata) ? object.metadata : {};
    if (info.scope === "Namespaced" && (typeof md.namespace !== "string" || md.namespace === "")) out = { ...object, metadata: { ...md, namespace: "default" } };
    return { object: inputs.defaulter !== undefined ? inputs.defaulter(out, gvk as GroupVersionKind) : out };
  };

  const admit = (object: JsonObject, o: AdmitOptions): Admission => {
    const req = newAdmissionRequest({ operation: o.operation, object, oldObject: o.oldObject ?? null }, inputs.catalog);
    if (!req.ok) return { allowed: false, object, message: req.error, matched: [], changedBy: [] };
    const order = o.order ?? [];
    const mapOrder = order.filter((id) => id.startsWith("map:")).map((id) => id.slice(4));
    const rank = new Map(order.map((id, i) => [id, i]));
    const kyvernoOrdered = [...kyverno].sort((a, b) => (rank.get(kyvernoUnitId(a)) ?? order.length) - (rank.get(kyvernoUnitId(b)) ?? order.length));
    const webhooks = kyvernoOrdered.length > 0 ? [kyvernoWebhookStage(kyvernoOrdered, kyvernoCtx)] : [];
    const r: EvaluateResult = evaluate(req.request, {
      webhooks,
      policies: inputs.policies,
      bindings: inputs.bindings,
      params: inputs.params,
      namespaces,
      catalog: inputs.catalog,
      schemas: inputs.schemas,
      options: {
        ...(inputs.defaulter !== undefined ? { defaulter: inputs.defaulter } : {}),
        ...(o.singlePass === true ? { reinvocation: false } : {}),
        ...(mapOrder.length > 0 ? { policyOrder: mapOrder } : {}),
      },
    });
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
      const g = gk.mutate(out, { ...(nsName !== "" ? { namespace: namespaces(nsName) } : {}), operation: o.operation });
      if (g.error !== undefined) return { allowed: false, object: out, message: `gatekeeper: ${g.error}`, matched: [...matched], changedBy };
      for (const a of g.applied) {
        // `Kind/namespace/name:generation`
        const [kind = "", , nameGen = ""] = a.split("/");
        const id = gatekeeperUnitId(kind, nameGen.replace(/:[^:]*$/, ""));
        matched.add(id);
        changedBy.push(id);
      }
      if (g.changed) out = celNumbers(g.object) as JsonObject;
    }
    return { allowed: true, object: out, matched: [...matched], changedBy };
  };

  return { units, prepare, admit, reinvoked: (id) => ifNeeded.has(id) };
}
