/**
 * Kyverno MutatingPolicy translation: pod-controller autogen (syntax tree) and
 * MutatingAdmissionPolicy generation. Inputs are plain objects (decoded YAML);
 * the MutatingPolicy model in src/kyverno/policy.ts describes their shape.
 */
import { autogen, type AutogenConfigName, type Json, type Target } from "../../kyverno/index.js";
import { generateMap, type Dropped, type GenerateMapOptions } from "./generate-map.js";

export { autogen, canAutogen, rewrite, CONTROLLERS, TEMPLATE_PATH, type AutogenConfig, type AutogenConfigName, type AutogenResult, type Target } from "../../kyverno/index.js";
export { generateMap, type Dropped, type GenerateMapOptions, type GenerateMapResult } from "./generate-map.js";

/** One autogen variant as a whole policy, for evaluation next to the original (Kyverno's provider compiles both). */
export interface AutogenVariant {
  readonly config: AutogenConfigName;
  readonly targets: readonly Target[];
  readonly policy: Json;
}

/** The autogen variants of a (Namespaced)MutatingPolicy as whole policies (same name, kind, metadata; autogen'd spec). */
export function autogenVariants(policy: Json): AutogenVariant[] {
  const r = autogen(policy);
  return (Object.keys(r.configs) as AutogenConfigName[]).map((config) => {
    const c = r.configs[config]!;
    return { config, targets: c.targets, policy: { ...policy, spec: c.spec } };
  });
}

/**
 * Kyverno's `CreateMatchConditions` (pkg/cel/autogen/match.go): the webhook's
 * match conditions for an autogen config, each guarded by the target kinds and
 * named `autogen-<config>-<name>`.
 */
export function autogenWebhookMatchConditions(config: string, targets: readonly Target[], conditions: readonly { name: string; expression: string }[]): { name: string; expression: string }[] {
  if (targets.length === 0) return [];
  const pre = [...new Set(targets.map((t) => `(object.apiVersion == '${t.group === "" ? "" : `${t.group}/`}${t.version}' && object.kind =='${t.kind}')`))].sort().join(" || ");
  const prefix = config === "" ? "autogen" : `autogen-${config}`;
  return conditions.map((m) => ({ name: `${prefix}-${m.name}`, expression: `!(${pre}) || (${m.expression})` }));
}

export interface TranslateKyvernoResult {
  /** MutatingAdmissionPolicies and bindings, in input order. */
  readonly objects: Json[];
  /** Per policy: generated or not, why not, and what did not carry over. */
  readonly reports: { readonly policy: string; readonly generated: boolean; readonly reason?: string; readonly dropped: readonly Dropped[]; readonly explain?: string }[];
}

/** `--explain` for a generated MAP: what it holds and where it came from. */
function explainMap(map: Json, exceptionConditions: number): string {
  const spec = map?.spec ?? {};
  const muts: Json[] = spec.mutations ?? [];
  const kinds = [...new Set(muts.map((m) => m?.patchType))].join(", ");
  const n = (k: number, w: string) => `${k} ${w}${k === 1 ? "" : "s"}`;
  const conds = (spec.matchConditions ?? []).length;
  return (
    `MAP ${String(map?.metadata?.name)}: ${n(muts.length, "mutation")}${kinds !== "" ? ` (${kinds})` : ""}, ${n((spec.variables ?? []).length, "variable")}, ` +
    `${n(conds, "matchCondition")}${exceptionConditions > 0 ? ` (${exceptionConditions} negated from PolicyExceptions)` : ""}; ` +
    `why: the MutatingPolicy's own CEL, carried verbatim as Kyverno generates it: nothing is added but the exceptions' negated conditions`
  );
}

/** `celmap translate` for MutatingPolicies: the MAPs Kyverno would generate, and a statement per field that does not carry over. */
export function translateMutatingPolicies(policies: readonly Json[], options: GenerateMapOptions = {}): TranslateKyvernoResult {
  const objects: Json[] = [];
  const reports: TranslateKyvernoResult["reports"] = [];
  for (const p of policies) {
    const r = generateMap(p, options);
    if (r.generated) objects.push(r.policy, r.binding);
    const own = (p?.spec?.matchConditions ?? []).length;
    const explain = r.generated ? explainMap(r.policy, ((r.policy?.spec?.matchConditions ?? []) as unknown[]).length - own) : undefined;
    reports.push({
      policy: `${String(p?.kind)}/${String(p?.metadata?.name)}`,
      generated: r.generated,
      ...(r.reason !== undefined ? { reason: r.reason } : {}),
      dropped: r.dropped,
      ...(explain !== undefined ? { explain } : {}),
    });
  }
  return { objects, reports };
}
