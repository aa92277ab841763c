/**
 * `celmap-map`: celmap's own MAP conformance cases (this directory's *.yaml, in the format of
 * shared/conformance/map-cases.yaml), run by the same runner as the `map` suite. Expectations are
 * derived from the Kubernetes sources each case cites, never regenerated from celmap's output
 * (see conformance/README.md). Case paths are `<file>/<section>/<case name>`.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mapCaseFileSuite } from "../../../src/conformance/map.js";
import type { Suite, SuiteCase } from "../../suite.js";
import { CELMAP_MAP_KNOWN_FAILURES } from "./known-failures.js";

/** The YAML case files (dist/conformance/cases/map/ -> conformance/cases/map/ in the source tree). */
const CASE_DIR = fileURLToPath(new URL("../../../../conformance/cases/map/", import.meta.url));

export function celmapMapSuite(): Suite {
  const files = readdirSync(CASE_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  const parts = files.map((f) => ({ stem: f.slice(0, -".yaml".length), suite: mapCaseFileSuite("celmap-map", join(CASE_DIR, f), []) }));
  return {
    name: "celmap-map",
    ledger: CELMAP_MAP_KNOWN_FAILURES,
    requiredPassRate: 0.9,
    *cases(): Iterable<SuiteCase> {
      for (const p of parts) {
        for (const c of p.suite.cases()) yield { path: `${p.stem}/${c.path}`, section: p.stem, run: () => c.run() };
      }
    },
  };
}
