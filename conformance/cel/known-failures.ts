/**
 * The ledger of CEL conformance cases that fail today, with the reason. It may
 * only shrink: a listed case that passes fails the run (delete its entry), and so
 * does an entry that matches no case.
 *
 * Paths are `section/suite/test` as printed by `npm run conformance`
 * (`FAIL cel/<path>`); a prefix such as `proto2_ext/` covers a whole section or suite.
 */
import type { KnownFailure } from "../suite.js";

export const CEL_KNOWN_FAILURES: readonly KnownFailure[] = [];

/** The cel-go parser suite must pass in full; keep this empty. */
export const CEL_PARSE_KNOWN_FAILURES: readonly KnownFailure[] = [];
