/**
 * The ordered, windowed batch pipeline on generated inputs: results come out in input order whatever
 * order the batches finish in, every item exactly once, and never more than `window` items read and
 * not yet emitted (the implementation's own counter, and the source's view of it). No timing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { orderedMap } from "./ordered.js";

/** Resolves after `n` turns of the event loop (scrambles completion order without clocks). */
function after<T>(n: number, value: T): Promise<T> {
  return new Promise((resolve) => {
    const step = (k: number) => (k <= 0 ? resolve(value) : setImmediate(() => step(k - 1)));
    step(n);
  });
}

describe("orderedMap", () => {
  it("emits in input order, each item once, with at most `window` in flight", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer(), { maxLength: 300 }),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.nat(20), { minLength: 1, maxLength: 50 }),
        async (items, batch, windowBatches, delays) => {
          const window = batch * windowBatches;
          let pulled = 0;
          let emitted = 0;
          let maxAhead = 0;
          async function* source() {
            for (const x of items) {
              pulled++;
              maxAhead = Math.max(maxAhead, pulled - emitted);
              yield x;
            }
          }
          let calls = 0;
          const out: number[] = [];
          const stats = await orderedMap(
            source(),
            (b) => after(delays[calls++ % delays.length]!, b.map((x) => x * 2)),
            (r, x) => {
              expect(r).toBe(x * 2);
              out.push(x);
              emitted++;
            },
            { batch, window },
          );
          expect(out).toEqual(items);
          expect(stats.items).toBe(items.length);
          expect(stats.maxInFlight).toBeLessThanOrEqual(window);
          expect(maxAhead).toBeLessThanOrEqual(window);
          expect(stats.batches).toBeGreaterThanOrEqual(Math.ceil(items.length / batch));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("a failing batch fails the run (no result is skipped silently)", async () => {
    const out: number[] = [];
    await expect(
      orderedMap([1, 2, 3, 4, 5], async (b) => (b.includes(3) ? Promise.reject(new Error("boom")) : b), (r) => void out.push(r), { batch: 1, window: 2 }),
    ).rejects.toThrow("boom");
    expect(out).toEqual([1, 2]);
  });
});
