/**
 * The MAP conformance suites of `npm run conformance`: `map` (conformance/data/map-cases.yaml)
 * and `map-oracle` (map-oracle-cases.yaml). The case runner is src/conformance/map.ts (shipped, so
 * `celmap conformance` runs the same code); the ledgers are this directory's known-failures.yaml
 * and oracle-known-failures.yaml (`celmap conformance --known-failures` reads the same files).
 */
import { fileURLToPath } from "node:url";
import { loadLedger } from "../../src/conformance/ledger.js";
import { mapCaseFileSuite } from "../../src/conformance/map.js";
import type { Suite } from "../suite.js";

const DATA = (file: string) => fileURLToPath(new URL(`../../../conformance/data/${file}`, import.meta.url));
/** A ledger of this directory in the source tree (dist/conformance/map/ -> conformance/map/). */
const LEDGER = (file: string) => loadLedger(fileURLToPath(new URL(`../../../conformance/map/${file}`, import.meta.url)));

/** `map` (map-cases.yaml) and `map-oracle` (map-oracle-cases.yaml). */
export function mapSuites(): Suite[] {
  return [
    mapCaseFileSuite("map", DATA("map-cases.yaml"), LEDGER("known-failures.yaml"), 0.95),
    mapCaseFileSuite("map-oracle", DATA("map-oracle-cases.yaml"), LEDGER("oracle-known-failures.yaml"), 0.9),
  ];
}
