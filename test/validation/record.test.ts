/**
 * Records the Go oracle's answers for the generated cases into oracle-expected.json (run with
 * CELMAP_RECORD_VALIDATION=1 after building e2e/validation-oracle), so that
 * test/validation-recorded.test.ts checks celmap against kube-apiserver's own answers on machines
 * without Go. The file holds what the apiserver's code answered, never celmap's output.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "vitest";
import { REPO_ROOT } from "../support/cli.js";
import { generateAllCases } from "./cases.js";
import { oracleOutcomes } from "./compare.js";

it.skipIf(process.env.CELMAP_RECORD_VALIDATION !== "1")("records the oracle's answers", () => {
  const cases = generateAllCases();
  const out = oracleOutcomes(cases, join(REPO_ROOT, "e2e/validation-oracle/validation-oracle"));
  const doc = {
    provenance:
      "Answers of e2e/validation-oracle (k8s.io/kubernetes v1.36.3 and k8s.io/apiextensions-apiserver v0.36.3: decode with defaulting, rest.BeforeCreate/BeforeUpdate with the registry strategies) for test/validation/cases.ts; regenerate with CELMAP_RECORD_VALIDATION=1 npx vitest run test/validation/record.test.ts",
    outcomes: out,
  };
  writeFileSync(join(REPO_ROOT, "test/validation/oracle-expected.json"), `${JSON.stringify(doc, null, 1)}\n`);
});
