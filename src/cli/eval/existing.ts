/**
 * Kyverno mutateExisting in `celmap eval`: -r resources are triggers, --target-resources the existing
 * objects. Stateful (each trigger sees the targets as earlier triggers left them), so it runs in the
 * main thread, in input order.
 */
import { jsonDiff, newAdmissionRequest, type JsonObject, type PatchOperation } from "../../admission/index.js";
import { describePatchOp, mutateExisting, type KyvernoOutcome, type MutatingPolicy } from "../../kyverno/index.js";
import { kyvernoContext, type Admission, type AdmitOptions, type ObjectRequest, type PolicySet } from "../../engine/index.js";
import type { Palette } from "../render/color.js";
import { describeObject } from "../render/session.js";

export interface Target {
  readonly source: string;
  /** The target as it stands (after the triggers so far). */
  object: JsonObject;
  readonly original: JsonObject;
  /** `policy (trigger source)` for each run that mutated it. */
  readonly runs: string[];
}

export interface ExistingRun {
  readonly policy: string;
  /** Why the trigger did not fire the policy, when it did not. */
  readonly notFired?: string;
  readonly targets: readonly { readonly target: Target; readonly outcome: KyvernoOutcome; readonly patch: readonly PatchOperation[] }[];
  readonly errors: readonly string[];
}

/**
 * Each mutateExisting policy on one admitted trigger (src/kyverno `mutateExisting`, as
 * `celmap test` runs targetResources): the trigger request carries the admitted object (Kyverno's
 * background controller re-reads the live trigger); each target is evaluated with an UPDATE request
 * for it and, when the policy mutated it, updated in place so later triggers see the new state.
 */
export function runMutateExisting(session: PolicySet, policies: readonly MutatingPolicy[], ev: Extract<Admission, { ok: true }>, targets: Target[], spec: ObjectRequest, options: AdmitOptions): ExistingRun[] {
  const ctx = kyvernoContext(session, options);
  const userInfo = spec.userInfo !== undefined ? { userInfo: spec.userInfo } : {};
  const out: ExistingRun[] = [];
  for (const p of policies) {
    const byObject = new Map(targets.map((t) => [t.object, t]));
    const r = mutateExisting(p, { request: { ...ev.request, object: ev.result.object }, object: ev.result.object }, targets.map((t) => t.object), ctx, (target) => {
      const req = newAdmissionRequest({ operation: "UPDATE", object: target, oldObject: target, ...userInfo }, session.catalog);
      return req.ok ? req.request : undefined;
    });
    if (!r.fired) {
      if (!/^nomatch/.test(r.reason)) out.push({ policy: p.metadata.name, notFired: r.reason, targets: [], errors: [] });
      continue;
    }
    const runs: ExistingRun["targets"][number][] = [];
    for (const t of r.targets) {
      const target = byObject.get(t.target)!;
      const before = target.object;
      const after = t.outcome.result === "pass" && t.outcome.object !== null ? t.outcome.object : before;
      const patch = jsonDiff(before, after);
      if (patch.length > 0) {
        target.object = after;
        target.runs.push(`${p.metadata.name} (trigger ${describeObject(ev.input!)})`);
      }
      runs.push({ target, outcome: t.outcome, patch });
    }
    out.push({ policy: p.metadata.name, targets: runs, errors: r.errors });
  }
  return out;
}

export function renderExistingTrace(source: string, runs: readonly ExistingRun[], p: Palette): string {
  const lines = [p.bold(`${source}: mutateExisting (Kyverno background controller)`)];
  for (const r of runs) {
    if (r.notFired !== undefined) {
      lines.push(`  policy ${r.policy}: not triggered — ${r.notFired}`);
      continue;
    }
    lines.push(`  policy ${r.policy}: triggered, ${r.targets.length} target${r.targets.length === 1 ? "" : "s"} selected${r.targets.length === 0 ? " (give the existing resources with --target-resources)" : ""}`);
    for (const t of r.targets) {
      const o = t.outcome;
      const what = o.result === "pass" ? (t.patch.length > 0 ? p.green("mutated") : "no change") : o.result === "error" ? p.red(`error — ${o.message ?? ""}`) : p.yellow(`${o.result} — ${o.message ?? ""}`);
      lines.push(`    target ${describeObject(t.target.original)} (${t.target.source}): ${what}`);
      for (const d of t.patch) lines.push(`      ${p.dim(describePatchOp(d))}`);
    }
    for (const e of r.errors) lines.push(`    ${p.red("error")}: ${e}`);
  }
  return `${lines.join("\n")}\n\n`;
}

export function existingJson(r: ExistingRun): unknown {
  return {
    policy: r.policy,
    triggered: r.notFired === undefined,
    ...(r.notFired !== undefined ? { reason: r.notFired } : {}),
    targets: r.targets.map((t) => ({
      source: t.target.source,
      resource: { apiVersion: t.target.original.apiVersion, kind: t.target.original.kind, namespace: (t.target.original.metadata as JsonObject | undefined)?.namespace ?? "", name: (t.target.original.metadata as JsonObject | undefined)?.name ?? "" },
      result: t.outcome.result,
      ...(t.outcome.message !== undefined ? { message: t.outcome.message } : {}),
      object: t.outcome.object,
      patch: t.patch,
    })),
    errors: r.errors,
  };
}
