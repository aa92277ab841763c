/**
 * The Gatekeeper cases (conformance/data) through translation + the MAP pipeline (`evaluate`). Bar:
 * ≥ 95% per file; every failure is in the `gatekeeper` suite's ledger,
 * `conformance/gatekeeper/known-failures.yaml` (the one list `npm run conformance` reads too; paths
 * `<section>/<case name>`, section `oracle` for the second file).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadLedger } from "../../../conformance/ledger.js";
import { findKnownFailure } from "../../../conformance/suite.js";
import { isReferenceCase, loadCases } from "../../../gatekeeper/index.js";
import { runCaseTranslated } from "./cases.js";

const shared = fileURLToPath(new URL("../../../../conformance/data/", import.meta.url));
const LEDGER = loadLedger(fileURLToPath(new URL("../../../../conformance/gatekeeper/known-failures.yaml", import.meta.url)));

for (const file of ["gatekeeper-cases.yaml", "gatekeeper-oracle-cases.yaml"]) {
  describe(`${file} through translation + MAP pipeline`, () => {
    const cases = loadCases(parse(readFileSync(shared + file, "utf8"))).filter(isReferenceCase);
    it("≥ 95% pass, the rest explained", () => {
      const outcomes = cases.map((c) => runCaseTranslated(c));
      const failed = outcomes.filter((o) => !o.passed);
      const section = (name: string): string => (file === "gatekeeper-oracle-cases.yaml" ? "oracle" : (name.split("/")[0] ?? "other"));
      for (const f of failed) expect(findKnownFailure(LEDGER, `${section(f.name)}/${f.name}`), `${f.name}: ${f.detail}`).toBeDefined();
      expect(outcomes.filter((o) => o.passed).length / outcomes.length).toBeGreaterThanOrEqual(0.95);
    }, 120_000);
  });
}
