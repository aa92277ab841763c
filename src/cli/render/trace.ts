/**
 * `celmap eval --trace`: the admission trace (src/admission/trace.ts) as readable text — for every
 * policy, binding and param whether it matched and why, each matchCondition's result, each
 * mutation's outcome with its changes and cost, the policy errors and the final decision.
 */
import type { EvaluateResult, PatchOperation } from "../../admission/index.js";
import type { Palette } from "./color.js";
import { toExactJson } from "./serialize.js";

export interface TraceHeader {
  /** `pod.yaml#0` */
  readonly source: string;
  /** `v1 Pod default/web` */
  readonly resource: string;
  readonly operation: string;
  readonly user: string;
}

function op(o: PatchOperation): string {
  const value = "value" in o && o.value !== undefined ? ` ${clip(toExactJson(o.value))}` : "";
  const from = "from" in o && o.from !== undefined ? ` from ${o.from}` : "";
  return `${o.op} ${o.path}${from}${value}`;
}

function clip(s: string, max = 120): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

export function renderTrace(h: TraceHeader, r: EvaluateResult, p: Palette): string {
  const out: string[] = [];
  const yes = (s: string) => p.green(s);
  const no = (s: string) => p.yellow(s);
  out.push(p.bold(`${h.source}: ${h.resource} (${h.operation}${h.user !== "" ? ` as ${h.user}` : ""})`));
  const t = r.trace;
  if (t.exempt !== undefined) out.push(`  not evaluated: ${t.exempt}`);
  for (const n of t.notes) out.push(`  note: ${n}`);
  for (const pass of t.passes) {
    if (t.passes.length > 1 || pass.pass === 2) out.push(`  pass ${pass.pass}${pass.pass === 2 ? " (reinvocation)" : ""}:`);
    const ind = t.passes.length > 1 ? "    " : "  ";
    for (const e of pass.selection) {
      if (e.step === "params" && e.ok && /no paramKind/.test(e.reason)) continue;
      const who =
        e.step === "exempt"
          ? "request"
          : e.step === "policy"
            ? `policy ${e.policy}`
            : e.step === "binding"
              ? `binding ${e.binding ?? "?"} (policy ${e.policy})`
              : `params for binding ${e.binding ?? "?"}`;
      const verdict = e.step === "params" ? (e.ok ? yes("found") : no("none")) : e.ok ? yes("matches") : no("does not match");
      out.push(`${ind}${who}: ${verdict}${e.reason !== "" ? ` — ${e.reason}` : ""}`);
    }
    for (const inv of pass.invocations) {
      out.push(`${ind}${p.bold(`invocation ${inv.policy} / ${inv.binding}${inv.param !== undefined ? ` / param ${inv.param}` : ""}`)} (as ${inv.matchedKind}, ${inv.matchedResource})`);
      for (const mc of inv.matchConditions) {
        const res = mc.result === true ? yes("true") : mc.result === false ? no("false") : mc.result === "error" ? p.red("error") : p.dim("not evaluated");
        out.push(`${ind}  matchCondition ${mc.name}: ${res} (cost ${mc.cost})${mc.error !== undefined ? `: ${mc.error}` : ""}`);
      }
      if (inv.skipped !== undefined) out.push(`${ind}  ${no("mutations skipped")}: ${inv.skipped}`);
      for (const m of inv.mutations) {
        const outcome =
          m.outcome === "applied"
            ? m.diff.length > 0
              ? yes(`applied, ${m.diff.length} change${m.diff.length === 1 ? "" : "s"}`)
              : no("applied, no change")
            : m.outcome === "test-failed"
              ? no("skipped: a JSONPatch test operation failed (no-op, not an error)")
              : m.outcome === "error" || m.outcome === "aborted"
                ? p.red(m.outcome)
                : p.dim(m.outcome);
        out.push(`${ind}  mutation ${m.index} (${m.patchType}): ${outcome} (cost ${m.cost})${m.error !== undefined ? `: ${m.error}` : ""}`);
        for (const d of m.diff) out.push(`${ind}    ${p.dim(op(d))}`);
      }
    }
    for (const e of pass.errors) out.push(`${ind}${e.ignored ? no("error ignored (failurePolicy Ignore)") : p.red("error")}: ${e.message}`);
    for (const w of pass.webhooks ?? []) {
      out.push(`${ind}${p.bold(`webhook ${w.name}`)}: ${w.skipped !== undefined ? no(w.skipped) : w.changed ? yes("changed the object") : "no change"}`);
      for (const l of w.lines) out.push(`${ind}  ${l}`);
    }
    if (pass.reinvocationRequested && t.passes.length === 1) out.push(`${ind}reinvocation requested, but reinvocation is off`);
  }
  if (r.allowed) {
    out.push(`  result: ${yes("admitted")}, ${r.patch.length === 0 ? "unchanged" : `${r.patch.length} patch operation${r.patch.length === 1 ? "" : "s"}`}${r.reinvoked ? " (after reinvocation)" : ""}`);
  } else {
    out.push(`  result: ${p.red(`denied (${r.status!.code} ${r.status!.reason})`)}: ${r.status!.message}`);
  }
  return `${out.join("\n")}\n`;
}
