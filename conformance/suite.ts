/** The suite shape and ledger logic, shipped in src/conformance (the `celmap conformance` command uses them too). */
export * from "../src/conformance/suite.js";
