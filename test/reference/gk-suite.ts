/**
 * The Gatekeeper differential suite: random mutator sets (gk-gen.ts) run by Gatekeeper's
 * mutation System (reference/gatekeeper/bin/gkref) and by celmap twice: its own Gatekeeper
 * semantics (`gatekeeper`) and the translation into MAPs through the engine
 * (`gatekeeper-translated`; a set the translator refuses is counted apart, not compared).
 */
import fc from "fast-check";
import type { Difference, Ledger } from "./differences.js";
import { GoProcess } from "./go-process.js";
import { gkCaseArb, type GkRequest } from "./gk-gen.js";
import { celmapGkAnswer, celmapTranslatedAnswer, type GkAnswer } from "./gk-side.js";
import { canonicalJson } from "./map-suite.js";
import { normalizeResult } from "../../src/translate/gatekeeper/translate/cases.js";

const HARNESS = new Set(["panic", "request", "crash", "marshal"]);

/** celmap's own semantics against gkref: refusal, error, then the object and the schema conflicts. */
export function compareGk(input: string, ref: GkAnswer, cm: GkAnswer): Difference | undefined {
  const d = (aspect: string): Difference => ({ aspect, input, reference: ref, celmap: cm });
  if (HARNESS.has(ref.stage ?? "") || HARNESS.has(cm.stage ?? "")) return d("harness");
  if (ref.ok !== cm.ok || ref.stage !== cm.stage) return d("outcome");
  if (!ref.ok) return undefined;
  if (canonicalJson(ref.object) !== canonicalJson(cm.object)) return d("object");
  if (canonicalJson(ref.conflicts ?? []) !== canonicalJson(cm.conflicts ?? [])) return d("conflicts");
  return undefined;
}

/** The translation against gkref: refused (invalid) / denied (Gatekeeper's error) / the admitted object. */
export function compareTranslated(input: string, ref: GkAnswer, cm: GkAnswer): Difference | undefined {
  const d = (aspect: string): Difference => ({ aspect, input, reference: ref, celmap: cm });
  if (HARNESS.has(ref.stage ?? "") || HARNESS.has(cm.stage ?? "")) return d("harness");
  if (ref.ok !== cm.ok || ref.stage !== cm.stage) return d("outcome");
  if (!ref.ok) return undefined;
  // celmap's side went through normalizeResult (gk-side.ts: empty objects and nulls that were not
  // in the input are what the typed round trip adds); gkref's answer gets the same, so a mutator
  // that assigns `{}` is compared the same way on both sides.
  const input0 = (JSON.parse(input) as { object: unknown }).object;
  return canonicalJson(normalizeResult(ref.object, input0)) === canonicalJson(cm.object) ? undefined : d("object");
}

export interface GkSuiteResult {
  readonly compared: number;
  readonly differ: number;
  readonly known: number;
  readonly unexplained: Difference[];
  readonly untranslatable?: number;
  /** Differences the translator itself stated for the set (verdict `difference`): explained, not a finding. */
  readonly stated?: number;
  readonly shrunk?: string;
}

type Side = (req: GkRequest) => GkAnswer;
type Compare = (input: string, ref: GkAnswer, cm: GkAnswer) => Difference | undefined;

async function runOne(
  gkref: GoProcess,
  suite: string,
  side: Side,
  compare: Compare,
  cases: readonly GkRequest[],
  answers: readonly GkAnswer[],
  ledger: Ledger,
  seed: number,
  dump?: (d: Difference) => void,
): Promise<GkSuiteResult> {
  const unexplained: Difference[] = [];
  let differ = 0;
  let known = 0;
  let untranslatable = 0;
  let stated = 0;
  let compared = 0;
  for (let i = 0; i < cases.length; i++) {
    const cm = side(cases[i]!);
    const ref = answers[i]!;
    if (cm.stage === "untranslatable" && (ref.ok || ref.stage === "mutate")) {
      untranslatable++;
      continue;
    }
    compared++;
    const diff = compare(canonicalJson(cases[i]), ref, cm);
    if (diff === undefined) continue;
    differ++;
    dump?.(diff);
    if (cm.stated !== undefined && cm.stated.length > 0) stated++;
    else if (ledger.explain(suite, diff) !== undefined) known++;
    else unexplained.push(diff);
  }
  let shrunk: string | undefined;
  if (unexplained.length > 0) {
    const r = await fc.check(
      fc.asyncProperty(gkCaseArb, async (c) => {
        const cm = side(c);
        const ref = await gkref.ask<GkAnswer>(c);
        if (cm.stage === "untranslatable" || (cm.stated !== undefined && cm.stated.length > 0)) return true;
        const diff = compare(canonicalJson(c), ref, cm);
        return diff === undefined || ledger.explain(suite, diff) !== undefined;
      }),
      { seed, numRuns: cases.length },
    );
    if (r.failed && r.counterexample !== null) {
      const c = r.counterexample[0];
      shrunk = [
        `  seed ${seed}, shrunk ${r.numShrinks} times, path ${r.counterexamplePath}`,
        `  case: ${canonicalJson(c)}`,
        `  reference: ${canonicalJson(await gkref.ask(c))}`,
        `  celmap:    ${canonicalJson(side(c))}`,
      ].join("\n");
    }
  }
  return { compared, differ, known, unexplained, ...(suite === "gatekeeper-translated" ? { untranslatable, stated } : {}), ...(shrunk !== undefined ? { shrunk } : {}) };
}

/** Both Gatekeeper suites over the same cases (gkref asked once per case). */
export async function runGkSuites(binary: string, ledger: Ledger, seed: number, count: number, dump?: (d: Difference) => void) {
  const gkref = new GoProcess(binary);
  try {
    const cases = fc.sample(gkCaseArb, { seed, numRuns: count });
    const answers = await gkref.askAll<GkAnswer>(cases);
    const own = await runOne(gkref, "gatekeeper", celmapGkAnswer, compareGk, cases, answers, ledger, seed, dump);
    const translated = await runOne(gkref, "gatekeeper-translated", celmapTranslatedAnswer, compareTranslated, cases, answers, ledger, seed, dump);
    return { own, translated };
  } finally {
    gkref.close();
  }
}
