/**
 * The shared Gatekeeper cases through translation + the MAP pipeline (`evaluate`). Bar: ≥ 95%
 * per file; every failure is one of the explained differences below (also the conformance
 * ledger, `conformance/gatekeeper/known-failures.ts`).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isReferenceCase, loadCases } from "../cases.js";
import { runCaseTranslated } from "./cases.js";

const shared = fileURLToPath(new URL("../../../../conformance/data/", import.meta.url));

/** Case → why MAP cannot give Gatekeeper's outcome. */
const EXPLAINED: Record<string, string> = {
  "assign/keyed-terminal/append": "unknown field on a built-in Pod: MAP's strict decoding answers 500",
  "assign/create-deep-object-path": "unknown field on a built-in Pod: MAP's strict decoding answers 500",
  "assign/create-missing-list-and-keyed-element": "unknown field on a built-in Pod: MAP's strict decoding answers 500",
  "assign/quoted-integer-key-is-string": "a string containerPort does not decode into a Pod",
  "system/mutation-annotations": "--mutation-annotations (UUID, applied list) has no MAP counterpart",
  "match/source-generated-both": "source Generated (expansion) never happens at admission",
  "match/source-original-vs-generated": "source Generated (expansion) never happens at admission",
};

for (const file of ["gatekeeper-cases.yaml", "gatekeeper-oracle-cases.yaml"]) {
  describe(`${file} through translation + MAP pipeline`, () => {
    const cases = loadCases(parse(readFileSync(shared + file, "utf8"))).filter(isReferenceCase);
    it("≥ 95% pass, the rest explained", () => {
      const outcomes = cases.map((c) => runCaseTranslated(c));
      const failed = outcomes.filter((o) => !o.passed);
      for (const f of failed) expect(EXPLAINED[f.name], `${f.name}: ${f.detail}`).toBeDefined();
      expect(outcomes.filter((o) => o.passed).length / outcomes.length).toBeGreaterThanOrEqual(0.95);
    }, 120_000);
  });
}
