import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isReferenceCase, loadCases, runCase, runCaseFile } from "./cases.js";

const shared = fileURLToPath(new URL("../../conformance/data/", import.meta.url));

// Neither file carries a `harness` field today: every case targets the reference semantics
// (MutatorFor* + System.Mutate), so every case runs here.
for (const file of ["gatekeeper-cases.yaml", "gatekeeper-oracle-cases.yaml"]) {
  describe(file, () => {
    const cases = loadCases(parse(readFileSync(shared + file, "utf8")));
    it("has cases, all passing", () => {
      expect(cases.length).toBeGreaterThan(0);
      const report = runCaseFile(parse(readFileSync(shared + file, "utf8")));
      expect(report.passed).toBe(report.run);
    });
    for (const c of cases.filter(isReferenceCase)) {
      it(c.name, () => {
        const out = runCase(c);
        expect(out.passed, out.detail).toBe(true);
      });
    }
  });
}
