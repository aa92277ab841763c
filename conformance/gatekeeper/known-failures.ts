/** The Gatekeeper ledgers live in src/conformance (shipped: `celmap conformance` uses them too). */
export { GATEKEEPER_KNOWN_FAILURES, GATEKEEPER_ORACLE_KNOWN_FAILURES } from "../../src/conformance/gatekeeper-known-failures.js";
