/** The MAP ledgers live in src/conformance (shipped: `celmap conformance` uses them too). */
export { MAP_KNOWN_FAILURES, MAP_ORACLE_KNOWN_FAILURES } from "../../src/conformance/map-known-failures.js";
