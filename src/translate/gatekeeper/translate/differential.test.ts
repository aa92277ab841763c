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
import { buildScenario, compareOne, KINDS, scenario, stats, type KindSpec } from "../../../../test/support/gatekeeper-differential.js";

const RUNS = Number(process.env.GK_PROP_RUNS ?? 275);
const OBJECTS = Number(process.env.GK_PROP_OBJECTS ?? 40);
const SEED = process.env.GK_PROP_SEED !== undefined ? Number(process.env.GK_PROP_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);

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
            throw new Error(`${sc.kind} ${op}\n  mutators: ${JSON.stringify(sc.docs)}\n  object: ${JSON.stringify(o)}\n  ${d}`);
          }
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(
      `gatekeeper differential: ${compared} pairs compared (${skipped} sets skipped) in ${Date.now() - started} ms; ` +
        `Gatekeeper changed ${stats.changed}, left ${stats.unchanged} unchanged, failed ${stats.errors}`,
    );
    expect(compared).toBeGreaterThan(0);
  }, 300_000);
});
