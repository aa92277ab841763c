/**
 * The MAP conformance suites of `npm run conformance`: `map` (../shared/conformance/map-cases.yaml)
 * and `map-oracle` (map-oracle-cases.yaml). The case runner is src/conformance/map.ts (shipped, so
 * `celmap conformance` runs the same code); the ledgers are src/conformance/map-known-failures.ts.
 */
import { fileURLToPath } from "node:url";
import { mapCaseFileSuite } from "../../src/conformance/map.js";
import type { Suite } from "../suite.js";
import { MAP_KNOWN_FAILURES, MAP_ORACLE_KNOWN_FAILURES } from "./known-failures.js";

const SHARED = (file: string) => fileURLToPath(new URL(`../../../conformance/data/${file}`, import.meta.url));

/** `map` (map-cases.yaml) and `map-oracle` (map-oracle-cases.yaml). */
export function mapSuites(): Suite[] {
  return [
    mapCaseFileSuite("map", SHARED("map-cases.yaml"), MAP_KNOWN_FAILURES, 0.95),
    mapCaseFileSuite("map-oracle", SHARED("map-oracle-cases.yaml"), MAP_ORACLE_KNOWN_FAILURES, 0.9),
  ];
}
