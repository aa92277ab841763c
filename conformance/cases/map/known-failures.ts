/**
 * The ledger of `celmap-map` cases (conformance/cases/map/*.yaml) that fail today. Every entry is a
 * case whose source-derived expectation celmap does not meet: the expectation stays as the
 * Kubernetes source says, the reason cites the source. Paths are `<file>/<section>/<case name>`.
 */
import type { KnownFailure } from "../../suite.js";

export const CELMAP_MAP_KNOWN_FAILURES: readonly KnownFailure[] = [];
