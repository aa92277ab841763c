/**
 * Issue 17's evidence against the real kube-apiserver: generated MAP + object cases whose admitted
 * result the apiserver defaults and validates (e2e/validation-cases.ts: every rule celmap
 * implements, built-in kinds and CRD schemas, a multi-version CRD matched with matchPolicy
 * Equivalent, seeded variation), run through the apiserver in batches (one policy per batch, many
 * objects per policy; e2e/validation-run.ts) and through celmap's engine as `celmap eval` runs it
 * (load + admit with validation on). Compared exactly (e2e/validation-compare.ts): allowed or not,
 * status code, reason, message, causes, and the stored object minus server-set metadata and what the
 * normalisation lists. Prints `apiserver validation: N compared, N differ (N known differences)`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApivalCases } from "../../e2e/validation-cases.js";
import { conformanceCase, runApival, type ApivalResult } from "../../e2e/validation-run.js";
import { differences, KNOWN_DIFFERENCES, type RecordedCase } from "../../e2e/validation-compare.js";
import { cluster } from "./support.js";

const kube = cluster();
const d = kube === undefined ? describe.skip : describe;

d("apiserver validation: generated cases, celmap vs kube-apiserver", () => {
  let results: ApivalResult[] = [];
  let version = "";
  const report: { compared: number; differ: string[]; known: string[] } = { compared: 0, differ: [], known: [] };

  beforeAll(async () => {
    version = String((await kube!.request("GET", "/version")).body.gitVersion);
    results = await runApival(kube!, generateApivalCases(), (l) => console.log(`[e2e] ${l}`));
  }, 600_000);

  afterAll(() => {
    console.log(`apiserver validation: ${report.compared} compared, ${report.differ.length} differ (${report.known.length} known differences)`);
  });

  it("runs at least 300 generated cases, invalid ones and valid controls", () => {
    expect(results.length).toBeGreaterThanOrEqual(300);
    const codes = new Set(results.map((r) => r.answer.code));
    expect(codes.has(422)).toBe(true);
    expect([...codes].some((c) => c < 300)).toBe(true);
    // Every batch's policy acted: no answer says the marker survived where a JSONPatch removes it.
    const unmutated = results.filter((r) => r.c.mutation.patchType === "JSONPatch" && r.answer.code < 300 && JSON.stringify(r.answer.object).includes('"apival-case"'));
    expect(unmutated.map((r) => r.c.id)).toEqual([]);
  });

  it("celmap answers every case as the apiserver did", () => {
    for (const r of results) {
      const rec = { ...conformanceCase(r, version), answer: r.answer } as unknown as RecordedCase;
      const diff = differences(rec);
      const name = `apival/${r.c.id}`;
      report.compared++;
      if (KNOWN_DIFFERENCES[name] !== undefined && diff.length > 0) report.known.push(name);
      else if (diff.length > 0) report.differ.push(`${name}\n  ${diff.join("\n  ")}`);
      else if (KNOWN_DIFFERENCES[name] !== undefined) report.differ.push(`${name}: listed as a known difference, but celmap now agrees (remove it from KNOWN_DIFFERENCES and the ledger)`);
    }
    expect(report.differ).toEqual([]);
  });
});
