/**
 * The CEL differential suite: random expressions (cel-gen.ts) compiled and evaluated by celmap
 * and by cel-go in the apiserver's environment (reference/bin/celref), compared on outcome
 * (ok / compile error / evaluation error), value, type and actual cost.
 */
import fc from "fast-check";
import { canonical, type Tagged } from "./cel-json.js";
import { celmapAnswer, type CelAnswer, type CelRequest } from "./cel-side.js";
import { celCaseArb, type CelCase } from "./cel-gen.js";
import type { Difference, Ledger } from "./differences.js";
import type { GoProcess } from "./go-process.js";

/** The first aspect on which the answers differ, or undefined when they agree. */
export function compareCel(input: string, ref: CelAnswer, cm: CelAnswer): Difference | undefined {
  const d = (aspect: string): Difference => ({ aspect, input, reference: ref, celmap: cm });
  if (ref.ok !== cm.ok) return d("outcome");
  if (!ref.ok) return ref.stage === cm.stage ? undefined : d("outcome");
  if (JSON.stringify(canonical(ref.value as Tagged)) !== JSON.stringify(canonical(cm.value as Tagged))) return d("value");
  if (ref.type !== cm.type) return d("type");
  if (ref.cost !== cm.cost) return d("cost");
  return undefined;
}

export const requestOf = (c: CelCase): CelRequest => ({ expr: c.expr, mode: c.mode, vars: c.vars });

export interface SuiteResult {
  readonly compared: number;
  readonly differ: number;
  readonly unexplained: readonly Difference[];
  readonly known: number;
}

export async function runCelSuite(celref: GoProcess, ledger: Ledger, seed: number, count: number, dump?: (d: Difference) => void): Promise<SuiteResult> {
  const cases = fc.sample(celCaseArb, { seed, numRuns: count });
  const requests = cases.map(requestOf);
  const answers = await celref.askAll<CelAnswer>(requests);
  const unexplained: (Difference & { index: number })[] = [];
  let differ = 0;
  let known = 0;
  for (let i = 0; i < cases.length; i++) {
    const diff = compareCel(cases[i]!.expr, answers[i]!, celmapAnswer(requests[i]!));
    if (diff === undefined) continue;
    differ++;
    dump?.(diff);
    if (ledger.explain("cel", diff) !== undefined) known++;
    else unexplained.push({ ...diff, index: i });
  }
  return { compared: cases.length, differ, known, unexplained };
}

/** Shrinks the first unexplained difference with fast-check and returns the minimal case. */
export async function shrinkCel(celref: GoProcess, ledger: Ledger, seed: number, count: number): Promise<string> {
  const result = await fc.check(
    fc.asyncProperty(celCaseArb, async (c) => {
      const req = requestOf(c);
      const diff = compareCel(c.expr, await celref.ask<CelAnswer>(req), celmapAnswer(req));
      return diff === undefined || ledger.explain("cel", diff) !== undefined;
    }),
    { seed, numRuns: count },
  );
  if (!result.failed || result.counterexample === null) return "(not reproduced while shrinking)";
  const [c] = result.counterexample;
  const req = requestOf(c);
  const ref = await celref.ask<CelAnswer>(req);
  return [
    `  seed ${seed}, run ${result.numRuns}, shrunk ${result.numShrinks} times, path ${result.counterexamplePath}`,
    `  expression: ${c.expr}`,
    `  mode: ${c.mode}  vars: ${JSON.stringify(c.vars)}`,
    `  reference:  ${JSON.stringify(ref)}`,
    `  celmap:     ${JSON.stringify(celmapAnswer(req))}`,
  ].join("\n");
}
