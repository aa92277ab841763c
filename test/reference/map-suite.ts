/**
 * The MAP differential suite: random policies and objects (map-gen.ts) admitted by celmap's
 * pipeline and by the apiserver's MutatingAdmissionPolicy dispatcher (reference/bin/mapref),
 * compared on the admitted object, or on the denial's status code.
 */
import fc from "fast-check";
import type { Difference, Ledger } from "./differences.js";
import { GoProcess } from "./go-process.js";
import { mapCaseArb } from "./map-gen.js";
import { celmapMapAnswer, type MapAnswer, type MapRequest } from "./map-side.js";

/** JSON with object keys sorted (bigints as numbers), for comparison. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === "bigint") return Number(x);
    return x !== null && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x;
  });
}

/**
 * What the comparison reads of an admitted object. mapref's object went through the typed Go
 * struct (client-go scheme), which adds what an empty struct serializes to: empty objects
 * (`resources: {}`, `status: {}`) and a zero `targetPort`; apiVersion/kind are dropped by the
 * decoder. Both sides lose those here.
 */
function normalized(o: unknown): unknown {
  if (Array.isArray(o)) return o.map(normalized);
  if (o === null || typeof o !== "object") return o;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
    if (k === "apiVersion" || k === "kind" || k === "creationTimestamp" && v === null) continue;
    if (k === "targetPort" && v === 0) continue;
    const n = normalized(v);
    if (n !== null && typeof n === "object" && !Array.isArray(n) && Object.keys(n).length === 0) continue;
    out[k] = n;
  }
  return out;
}

export function compareMap(input: string, ref: MapAnswer, cm: MapAnswer): Difference | undefined {
  const d = (aspect: string): Difference => ({ aspect, input, reference: ref, celmap: cm });
  if (ref.error !== undefined || cm.error !== undefined) return d("harness");
  if (ref.allowed !== cm.allowed) return d("outcome");
  if (!ref.allowed) return ref.code === cm.code ? undefined : d("code");
  return canonicalJson(normalized(ref.object)) === canonicalJson(normalized(cm.object)) ? undefined : d("object");
}

export async function runMapSuite(binary: string, ledger: Ledger, seed: number, count: number, dump?: (d: Difference) => void) {
  const mapref = new GoProcess(binary);
  try {
    const cases = fc.sample(mapCaseArb, { seed, numRuns: count }) as unknown as MapRequest[];
    const answers = await mapref.askAll<MapAnswer>(cases);
    const unexplained: Difference[] = [];
    let differ = 0;
    let known = 0;
    for (let i = 0; i < cases.length; i++) {
      const input = canonicalJson(cases[i]);
      const diff = compareMap(input, answers[i]!, celmapMapAnswer(cases[i]!));
      if (diff === undefined) continue;
      differ++;
      dump?.(diff);
      if (ledger.explain("map", diff) !== undefined) known++;
      else unexplained.push(diff);
    }
    let shrunk: string | undefined;
    if (unexplained.length > 0) {
      const r = await fc.check(
        fc.asyncProperty(mapCaseArb, async (c) => {
          const diff = compareMap(canonicalJson(c), await mapref.ask<MapAnswer>(c), celmapMapAnswer(c as unknown as MapRequest));
          return diff === undefined || ledger.explain("map", diff) !== undefined;
        }),
        { seed, numRuns: count },
      );
      if (r.failed && r.counterexample !== null) {
        const c = r.counterexample[0] as unknown as MapRequest;
        shrunk = [
          `  seed ${seed}, shrunk ${r.numShrinks} times, path ${r.counterexamplePath}`,
          `  case: ${canonicalJson(c)}`,
          `  reference: ${canonicalJson(await mapref.ask(c))}`,
          `  celmap:    ${canonicalJson(celmapMapAnswer(c))}`,
        ].join("\n");
      }
    }
    return { compared: cases.length, differ, known, unexplained, shrunk };
  } finally {
    mapref.close();
  }
}
