/**
 * `celmap lint`: proves a policy set order-independent, idempotent and convergent on the objects
 * it is given and on objects generated from the schemas of the kinds it matches, or shows the
 * (shrunk) object that breaks it; plus static checks on the policies themselves.
 *
 *     const subject = lintSubject(policySet);                      // adapter.ts, over src/engine
 *     const report = lint({ subject, samples, generated, staticFindings }, { seed: 1 });
 *
 * Pure: no files, no network; the CLI loads, generates the plan (hints.ts, generate.ts) and renders.
 */
import type { JsonObject } from "../admission/json.js";
import { checkObject, signature, type ObjectContext } from "./dynamic.js";
import type { CheckName, Finding, LintOptions, LintReport, LintSubject, LintUnit } from "./model.js";
import { seededRandom } from "./orders.js";
import { shrink } from "./shrink.js";

export * from "./model.js";
export { lintSubject, type SubjectOptions, mapUnitId, kyvernoUnitId, gatekeeperUnitId } from "./adapter.js";
export { harvest, type Hints } from "./hints.js";
export { generate, plan, type GenerationPlan } from "./generate.js";
export { staticChecks, type StaticInputs } from "./static.js";
export { toSarif } from "./sarif.js";
export { fieldPath, canonical } from "./dynamic.js";

export interface LintInput {
  readonly subject: LintSubject;
  /** The `-r` resources. */
  readonly samples: readonly { readonly source: string; readonly object: JsonObject }[];
  /** Objects generated from the schemas (generate.ts). */
  readonly generated: readonly JsonObject[];
  /** Findings of the static checks (static.ts), already filtered by `disable`. */
  readonly staticFindings?: readonly Finding[];
}

/** Runs the dynamic checks over every sample and generated object; findings deduplicated by check and policies, each with a shrunk witness. */
export function lint(input: LintInput, options: LintOptions = {}): LintReport {
  const disabled = options.disable ?? new Set<CheckName>();
  const enabled = (c: CheckName): boolean => !disabled.has(c);
  const notes = new Set<string>();
  const units = new Map<string, LintUnit>(input.subject.units.map((u) => [u.id, u]));
  const ctx: ObjectContext = {
    subject: input.subject,
    units,
    random: seededRandom(options.seed ?? 1),
    maxPasses: options.maxPasses ?? 8,
    note: (t) => notes.add(t),
  };
  const found = new Map<string, Finding>();
  const objects = [
    ...input.samples.map((s) => ({ origin: "sample" as const, source: s.source, object: s.object })),
    ...input.generated.map((object) => ({ origin: "generated" as const, source: undefined, object })),
  ];
  const dynamic = enabled("order") || enabled("idempotence") || enabled("convergence");
  if (dynamic) {
    objects.forEach((o, i) => {
      options.progress?.(i, objects.length, o.source ?? "generated objects");
      const prepared = input.subject.prepare(o.object);
      if ("error" in prepared) return;
      for (const f of checkObject(ctx, prepared.object, enabled)) {
        const sig = signature(f);
        if (found.has(sig)) continue;
        // A smaller object must show the same finding the same way (not, say, a denial in one order
        // where both orders admitted the original).
        const shape = (g: Finding): string => `${signature(g)}\u0000${(g.results ?? []).map((r) => r.allowed).join()}`;
        const want = shape(f);
        const still = (candidate: JsonObject): Finding | undefined => {
          const p = input.subject.prepare(candidate);
          if ("error" in p) return undefined;
          return checkObject(ctx, p.object, (c) => c === f.check).find((g) => shape(g) === want);
        };
        const witness = shrink(o.object, (c) => still(c) !== undefined);
        const final = (witness !== o.object ? still(witness) : undefined) ?? f;
        found.set(sig, { ...final, witness: { origin: o.origin, ...(o.source !== undefined ? { source: o.source } : {}), object: witness } });
      }
    });
    options.progress?.(objects.length, objects.length, "done");
  }
  const findings = [...(input.staticFindings ?? []).filter((f) => enabled(f.check)), ...found.values()];
  return { findings, samples: input.samples.length, generated: input.generated.length, notes: [...notes] };
}
