/**
 * The ledger of MAP conformance cases that fail today, with the reason. It may only shrink: a
 * listed case that passes fails the run (delete its entry), and so does an entry that matches no
 * case. Paths are `<section>/<case name>` as printed (`FAIL map/<path>`).
 */
import type { KnownFailure } from "../suite.js";

export const MAP_KNOWN_FAILURES: readonly KnownFailure[] = [];

export const MAP_ORACLE_KNOWN_FAILURES: readonly KnownFailure[] = [];
