/**
 * The audit loop: list every audited resource page by page (`limit`/`continue`), keep the objects
 * of this shard, admit each through the engine as the request the next write of it would be, and
 * add the outcome to the report. A list that fails (403, 404, a connection lost, an expired
 * continue token) is an error in the report naming the resource and the API server's words; the
 * objects admitted before it stay reported, and the audit goes on with the next resource. A
 * malformed object is an error naming it; the audit goes on.
 *
 * The request (`operation`):
 * - `UPDATE` (default): `object` and `oldObject` both the stored object, as the next
 *   `kubectl apply`, controller update or label change of an unchanged object sends it: the
 *   policies that match UPDATE show what the next write of each object would do to it.
 * - `CREATE`: the stored object without its server-set metadata (uid, resourceVersion,
 *   creationTimestamp, generation, managedFields), as a re-creation sends it (a Pod recreated by its
 *   controller, a restore from backup, a GitOps re-sync into a new cluster): for policies that match
 *   only CREATE.
 */
import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import type { DenialSource, JsonObject } from "../admission/index.js";
import type { ResourceInfo } from "../admission/match/catalog.js";
import { listFailure } from "../cluster/policies.js";
import { ClusterError, listPages } from "../cluster/rest.js";
import { resourcePath, withTypeMeta } from "../cluster/resources.js";
import { admit, objectProblem, unknownKind, type Admission, type AdmitOptions, type PolicySet } from "../engine/index.js";
import { type ObjectRef, type Outcome, type ReportBuilder } from "./report.js";
import { inShard, shardKey, type Shard } from "./shard.js";

export interface AuditOptions {
  readonly operation: "CREATE" | "UPDATE";
  /** One namespace (namespaced resources only then), else all. */
  readonly namespace?: string;
  /** A label selector for the lists. */
  readonly selector?: string;
  readonly shard: Shard;
  /** Page size. Default 500. */
  readonly limit?: number;
  readonly admit: AdmitOptions;
  /** Called after every page. */
  readonly progress?: (p: Progress) => void;
}

export interface Progress {
  readonly resource: string;
  /** Resources done, of all. */
  readonly resourceIndex: number;
  readonly resourceCount: number;
  /** Objects listed so far (all shards) and admitted (this shard). */
  readonly listed: number;
  readonly admitted: number;
}

export function resourceText(r: ResourceInfo): string {
  return r.gvr.group === "" ? `${r.gvr.version}/${r.gvr.resource}` : `${r.gvr.group}/${r.gvr.version}/${r.gvr.resource}`;
}

export function refOf(o: KubernetesObject): ObjectRef {
  const ns = o.metadata?.namespace;
  return { apiVersion: String(o.apiVersion ?? ""), kind: String(o.kind ?? ""), ...(ns !== undefined && ns !== "" ? { namespace: ns } : {}), name: String(o.metadata?.name ?? "") };
}

const SERVER_SET = ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"];

/** The object as a re-creation would send it: without the metadata the server sets. */
export function forCreate(o: JsonObject): JsonObject {
  const md = { ...((o.metadata ?? {}) as JsonObject) };
  for (const k of SERVER_SET) delete md[k];
  return { ...o, metadata: md };
}

/** Who changed the object: MAP invocations that changed it, Kyverno policies that did. */
function changers(ev: Extract<Admission, { ok: true }>): string[] {
  const out = new Set<string>();
  for (const pass of ev.result.trace.passes) {
    for (const inv of pass.invocations) if (inv.changed) out.add(`MutatingAdmissionPolicy/${inv.policy}`);
    for (const w of pass.webhooks ?? []) {
      if (!w.changed || !Array.isArray(w.data)) continue;
      for (const o of w.data as { policy?: string; namespace?: string; result?: string; changed?: boolean }[]) {
        if (o.result === "pass" && o.changed === true) out.add(`MutatingPolicy/${o.namespace !== undefined ? `${o.namespace}/` : ""}${o.policy ?? "?"}`);
      }
    }
  }
  return [...out];
}

/** Who denied it, from the engine's record (never from the message): MAPs by name, the Kyverno stage as `kyverno`. */
function deniers(by: readonly DenialSource[]): string[] {
  return [...new Set(by.map((d) => (d.kind === "policy" ? `MutatingAdmissionPolicy/${d.policy}` : "kyverno")))];
}

/** The outcome of one admission, for the report. */
export function outcomeOf(ev: Extract<Admission, { ok: true }>): Outcome {
  const r = ev.result;
  if (!r.allowed) {
    const s = r.status!;
    return { outcome: "denied", code: s.code, reason: s.reason, message: s.message, policies: deniers(r.deniedBy ?? []) };
  }
  if (ev.validation !== undefined && !ev.validation.ok) {
    const s = ev.validation.status;
    return { outcome: "invalid", code: s.code, reason: s.reason, message: s.message, policies: changers(ev) };
  }
  if (r.patch.length === 0) return { outcome: "unchanged" };
  const who = changers(ev);
  return { outcome: "changed", policies: who.length > 0 ? who : ["(defaulting)"], patch: r.patch };
}

/** Admits one stored object (already typed) and adds it to the report. */
export function auditObject(set: PolicySet, resource: string, object: KubernetesObject, options: AuditOptions, report: ReportBuilder): void {
  const ref = refOf(object);
  const problem = objectProblem(object);
  if (problem !== undefined) {
    report.error({ resource, object: ref, message: `malformed object: ${problem}` });
    return;
  }
  const o = object as unknown as JsonObject;
  const k = unknownKind(set, o);
  if (k !== undefined) {
    report.error({ resource, object: ref, message: k });
    return;
  }
  let ev: Admission;
  try {
    ev = admit(set, options.operation === "UPDATE" ? { operation: "UPDATE", object: o, oldObject: o } : { operation: "CREATE", object: forCreate(o) }, options.admit);
  } catch (e) {
    report.error({ resource, object: ref, message: `celmap could not admit it (please report): ${e instanceof Error ? e.message : String(e)}` });
    return;
  }
  if (!ev.ok) {
    report.error({ resource, object: ref, message: ev.error.message });
    return;
  }
  report.add(resource, ref, outcomeOf(ev));
}

/** Lists and admits every object of `resources` in this shard (see the module comment). */
export async function runAudit(kc: KubeConfig, set: PolicySet, resources: readonly ResourceInfo[], options: AuditOptions, report: ReportBuilder): Promise<void> {
  let listed = 0;
  let admitted = 0;
  for (const [i, r] of resources.entries()) {
    const text = resourceText(r);
    if (options.namespace !== undefined && r.scope !== "Namespaced") continue;
    report.resource(text);
    const path = resourcePath(r.gvr, options.namespace);
    try {
      for await (const page of listPages(kc, path, { ...(options.limit !== undefined ? { limit: options.limit } : {}), ...(options.selector !== undefined ? { labelSelector: options.selector } : {}) })) {
        for (const item of page.items) {
          listed++;
          const typed = withTypeMeta(item, { group: r.gvr.group, version: r.gvr.version, kind: r.kind.kind });
          if (!inShard(shardKey(typed), options.shard)) continue;
          admitted++;
          auditObject(set, text, typed, options, report);
        }
        options.progress?.({ resource: text, resourceIndex: i, resourceCount: resources.length, listed, admitted });
      }
    } catch (e) {
      if (e instanceof ClusterError && e.status === 405) {
        report.error({ resource: text, message: `${text} cannot be listed (HTTP 405: the API server does not support list for it); not audited` });
        continue;
      }
      report.error({ resource: text, message: listFailure(r.gvr, e, options.namespace) });
      // Not reached at all (status 0): the next lists would fail the same way; one error says it.
      if (e instanceof ClusterError && e.status === 0) return;
    }
  }
}
