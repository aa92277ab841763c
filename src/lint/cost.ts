/**
 * `cost`: expressions whose estimated cost is over the apiserver's budgets (map.md §6.3): every
 * CEL evaluation has a per-call limit of 1,000,000, matchConditions of one invocation share
 * 2,500,000. MAP checks no estimate when a policy is created, so such a policy is accepted and
 * fails at request time ("operation cancelled: actual cost limit exceeded"). The object is typed
 * `dyn` here, so only the cost every evaluation pays (the estimate's minimum) is held against the
 * budget: a finding is an expression that exceeds it on any object.
 */
import { isJsonObject, type JsonObject } from "../admission/json.js";
import { estimateCost } from "../cel/cost.js";
import { kubernetesCostEstimator } from "../cel/cost-k8s.js";
import { compileExpression, kubernetesEnv } from "../admission/environment.js";
import type { Finding, LintUnit } from "./model.js";

export const PER_CALL_LIMIT = 1_000_000n;
export const MATCH_CONDITIONS_BUDGET = 2_500_000n;

export function costFindings(policies: readonly { readonly unit: LintUnit; readonly source: string; readonly object: JsonObject }[]): Finding[] {
  const out: Finding[] = [];
  for (const p of policies) {
    const spec = isJsonObject(p.object.spec) ? p.object.spec : {};
    const hasParams = spec.paramKind !== undefined;
    const varNames = (Array.isArray(spec.variables) ? spec.variables : []).flatMap((v) => (isJsonObject(v) && typeof v.name === "string" ? [v.name] : []));
    const exprs: { path: string; text: string; kind: "mutation" | "variables" | "match"; budget: bigint }[] = [];
    (Array.isArray(spec.variables) ? spec.variables : []).forEach((v, i) => {
      if (isJsonObject(v) && typeof v.expression === "string") exprs.push({ path: `spec.variables[${i}].expression`, text: v.expression, kind: "variables", budget: PER_CALL_LIMIT });
    });
    (Array.isArray(spec.matchConditions) ? spec.matchConditions : []).forEach((v, i) => {
      if (isJsonObject(v) && typeof v.expression === "string") exprs.push({ path: `spec.matchConditions[${i}].expression`, text: v.expression, kind: "match", budget: PER_CALL_LIMIT });
    });
    (Array.isArray(spec.mutations) ? spec.mutations : []).forEach((m, i) => {
      if (!isJsonObject(m)) return;
      const holder = m.patchType === "JSONPatch" ? m.jsonPatch : m.applyConfiguration;
      if (isJsonObject(holder) && typeof holder.expression === "string") {
        exprs.push({ path: `spec.mutations[${i}].${m.patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration"}.expression`, text: holder.expression, kind: "mutation", budget: PER_CALL_LIMIT });
      }
    });
    for (const e of exprs) {
      const env = kubernetesEnv({ kind: e.kind, hasParams, variables: varNames });
      let c;
      try {
        c = compileExpression(env, e.text);
      } catch {
        continue;
      }
      if (!c.ok) continue; // Kyverno's libraries, or a compile error reported when loading
      let min: bigint;
      try {
        min = estimateCost(c.checked, env, { sizeEstimator: kubernetesCostEstimator(env) }).min;
      } catch {
        continue;
      }
      if (min > e.budget) {
        out.push({
          check: "cost",
          severity: "error",
          message: `${e.path}: estimated cost is at least ${min.toLocaleString("en-US")}, over the per-call limit of ${e.budget.toLocaleString("en-US")}: every evaluation fails with "operation cancelled: actual cost limit exceeded"`,
          policies: [{ ...p.unit, source: p.source }],
          path: e.path,
        });
      }
    }
  }
  return out;
}
