/**
 * The Gatekeeper conformance suites (`conformance/data/gatekeeper-cases.yaml`,
 * `gatekeeper-oracle-cases.yaml`, and `conformance/reference/gatekeeper-regressions.yaml` found by
 * `npm run test:reference`), with the ledger `known-failures.yaml` of this directory:
 *
 * - `gatekeeper`: every case through translation (`src/translate/gatekeeper/translate`) and
 *   the MAP admission pipeline (`evaluate`), compared with Gatekeeper's expected outcome;
 * - `gatekeeper-reference`: the same cases on celmap's reference semantics of Gatekeeper
 *   (`src/translate/gatekeeper`: MutatorFor* + System.Mutate).
 *
 * Sections are the case-name prefix (`assign`, `match`, …) plus `oracle` for the second file.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { loadLedger } from "../../src/conformance/ledger.js";
import { isReferenceCase, loadCases, runCase, type GatekeeperCase } from "../../src/gatekeeper/index.js";
import { runCaseTranslated } from "../../src/translate/gatekeeper/translate/cases.js";
import type { Outcome, Suite, SuiteCase } from "../suite.js";

const SHARED = (file: string) => fileURLToPath(new URL(`../../../conformance/data/${file}`, import.meta.url));
/** The ledger of the `gatekeeper` suite (dist/conformance/gatekeeper/ -> conformance/gatekeeper/ in the source tree). */
export const GATEKEEPER_LEDGER_FILE = fileURLToPath(new URL("../../../conformance/gatekeeper/known-failures.yaml", import.meta.url));
const FILES = ["gatekeeper-cases.yaml", "gatekeeper-oracle-cases.yaml"] as const;
/** Regression cases found by `npm run test:reference` (expectations from gkref), section `reference`. */
const REGRESSIONS = fileURLToPath(new URL("../../../conformance/reference/gatekeeper-regressions.yaml", import.meta.url));

let cached: { file: string; c: GatekeeperCase }[] | undefined;

function allCases(): { file: string; c: GatekeeperCase }[] {
  cached ??= [
    ...FILES.flatMap((file) => loadCases(parse(readFileSync(SHARED(file), "utf8"))).map((c) => ({ file, c }))),
    ...loadCases(parse(readFileSync(REGRESSIONS, "utf8"))).map((c) => ({ file: "gatekeeper-regressions.yaml", c })),
  ];
  return cached;
}

function sectionOf(file: string, c: GatekeeperCase): string {
  return file === "gatekeeper-oracle-cases.yaml" ? "oracle" : (c.name.split("/")[0] ?? "other");
}

function suite(name: string, run: (c: GatekeeperCase) => Outcome, requiredPassRate: number): Suite {
  return {
    name,
    requiredPassRate,
    ledger: name === "gatekeeper" ? loadLedger(GATEKEEPER_LEDGER_FILE) : [],
    *cases(): Iterable<SuiteCase> {
      for (const { file, c } of allCases()) {
        if (!isReferenceCase(c)) continue;
        const section = sectionOf(file, c);
        yield { path: `${section}/${c.name}`, section, run: () => run(c) };
      }
    },
  };
}

function outcome(o: { passed: boolean; detail: string }): Outcome {
  return o.passed ? { ok: true } : { ok: false, message: o.detail };
}

/** `gatekeeper` (translation + MAP pipeline) and `gatekeeper-reference` (reference semantics). */
export function gatekeeperSuites(): Suite[] {
  return [suite("gatekeeper", (c) => outcome(runCaseTranslated(c)), 0.95), suite("gatekeeper-reference", (c) => outcome(runCase(c)), 1)];
}
