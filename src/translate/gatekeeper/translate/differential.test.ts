/**
 * Property-based differential test: translated MAPs through the pipeline == Gatekeeper's
 * reference semantics, on generated (mutator set, object) pairs over Pod, Deployment, Service,
 * ConfigMap, Namespace and a custom resource. Default size: 275 mutator sets × 40 objects (≥ 10,000 pairs compared after
 * skipping the few sets Gatekeeper rejects or that translate with a stated difference).
 *
 *   GK_PROP_RUNS=<sets>  GK_PROP_OBJECTS=<objects per set>  GK_PROP_SEED=<seed>  (to replay a failure)
 *
 * On failure fast-check reports the seed and the counterexample path; the seed is also printed
 * before the run.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildScenario, compareOne, KINDS, mutatorDoc, propertySeed, scenario, stats, type KindSpec } from "../../../../test/support/gatekeeper-differential.js";
import { jsonEqual } from "../../../gatekeeper/index.js";
import { mutate } from "../../../gatekeeper/index.js";
import { normalizeResult } from "./cases.js";
import { runTranslated } from "./run.js";

const RUNS = Number(process.env.GK_PROP_RUNS ?? 275);
const OBJECTS = Number(process.env.GK_PROP_OBJECTS ?? 40);
const SEED = propertySeed();

function pairs(k: KindSpec) {
  return fc.tuple(
    scenario(k),
    fc.array(fc.tuple(k.object, fc.constantFrom("CREATE" as const, "UPDATE" as const), fc.constantFrom({ tier: "prod" }, { tier: "dev" })), { minLength: OBJECTS, maxLength: OBJECTS }),
  );
}

describe("translated MAPs behave as Gatekeeper (differential, fast-check)", () => {
  it(`${RUNS} mutator sets × ${OBJECTS} objects`, () => {
    console.log(`gatekeeper differential: seed ${SEED} (replay with GK_PROP_SEED=${SEED})`);
    let compared = 0;
    let skipped = 0;
    const started = Date.now();
    fc.assert(
      fc.property(fc.constantFrom(...KINDS).chain(pairs), ([sc, objs]) => {
        const s = buildScenario(sc.kind, sc.docs);
        if (s === undefined) {
          skipped++;
          return true;
        }
        for (const [o, op, ns] of objs) {
          const d = compareOne(s, o, op, ns);
          compared++;
          if (d !== undefined) {
            throw new Error(`seed ${SEED} (GK_PROP_SEED=${SEED}): ${sc.kind} ${op}\n  mutators: ${JSON.stringify(sc.docs)}\n  object: ${JSON.stringify(o)}\n  ${d}`);
          }
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(
      `gatekeeper differential: ${compared} pairs compared (${skipped} sets skipped) in ${Date.now() - started} ms; ` +
        `Gatekeeper changed ${stats.changed}, left ${stats.unchanged} unchanged, failed ${stats.errors}; a group's fast path ran on ${stats.fast}`,
    );
    expect(compared).toBeGreaterThan(0);
  }, 300_000);
});

/**
 * The same comparison on larger sets (3–9 mutators of one kind) with the apiserver's
 * reinvocation turned off: grouped policies then get exactly the passes `passes.ts` proves
 * enough, so an under-estimate shows as a difference instead of being repaired by the second
 * round. (Gatekeeper's own iteration counts are tallied to show that multi-pass sets occur.)
 *
 *   GK_PASSES_RUNS=<sets> (default 120)  GK_PROP_SEED=<seed>
 */
const PASS_RUNS = Number(process.env.GK_PASSES_RUNS ?? 120);

function bigSets(k: KindSpec) {
  return fc.tuple(
    fc.array(mutatorDoc(k), { minLength: 3, maxLength: 9 }),
    fc.array(fc.tuple(k.object, fc.constantFrom("CREATE" as const, "UPDATE" as const), fc.constantFrom({ tier: "prod" }, { tier: "dev" })), { minLength: 15, maxLength: 15 }),
  );
}

describe("pass counts of grouped policies (no reinvocation)", () => {
  it(`${PASS_RUNS} sets of 3–9 mutators × 15 objects`, () => {
    console.log(`gatekeeper passes: seed ${SEED} (replay with GK_PROP_SEED=${SEED})`);
    let compared = 0;
    const iterations: number[] = [];
    fc.assert(
      fc.property(fc.constantFrom(...KINDS).chain((k) => bigSets(k).map((x) => [k, x] as const)), ([k, [docs0, objs]]) => {
        const docs = docs0.map((d, i) => ({ ...d, metadata: { name: `m${i}` } }));
        const s = buildScenario(k.kind, docs);
        if (s === undefined) return true;
        for (const [o, op, nsLabels] of objs) {
          const md = (o.metadata ?? {}) as Record<string, unknown>;
          const ns = typeof md.namespace === "string" ? { apiVersion: "v1", kind: "Namespace", metadata: { name: md.namespace, labels: nsLabels } } : undefined;
          const ref = mutate(o, s.mutators, { operation: op, ...(ns !== undefined ? { namespace: ns } : {}) });
          const got = runTranslated(s.translation, o, { operation: op, reinvocation: false, ...(ns !== undefined ? { namespace: ns } : {}) });
          compared++;
          iterations[ref.iterations] = (iterations[ref.iterations] ?? 0) + 1;
          let diff: string | undefined;
          if (ref.error !== undefined) diff = got.allowed ? `Gatekeeper: error ${ref.error}; MAP admitted` : undefined;
          else if (!got.allowed) diff = `MAP denied: ${got.message ?? ""}`;
          else if (!jsonEqual(normalizeResult(ref.object, o), normalizeResult(got.object, o))) {
            diff = `Gatekeeper: ${JSON.stringify(normalizeResult(ref.object, o))}\n      MAP: ${JSON.stringify(normalizeResult(got.object, o))}`;
          }
          if (diff !== undefined) throw new Error(`seed ${SEED} (GK_PROP_SEED=${SEED}): ${k.kind} ${op}\n  mutators: ${JSON.stringify(docs)}\n  object: ${JSON.stringify(o)}\n  ${diff}`);
        }
        return true;
      }),
      { numRuns: PASS_RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(`gatekeeper passes: ${compared} pairs compared; Gatekeeper's iterations (index = passes run) ${JSON.stringify(iterations)}`);
    expect(compared).toBeGreaterThan(0);
  }, 300_000);
});
