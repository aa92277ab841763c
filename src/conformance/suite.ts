/**
 * The shape every conformance suite takes, so `npm run conformance` can run the
 * CEL suites today and MAP / Gatekeeper suites later: a suite yields cases, each
 * case runs to an outcome, and a ledger of known failures says which failures
 * are expected for now.
 */

/** A failure we know about and have not fixed yet. */
export interface KnownFailure {
  /** `section/suite/test` for the CEL suite; a prefix ending at a `/` covers every case under it. */
  readonly path: string;
  readonly reason: string;
}

/** A case's outcome; a pass may carry a note (e.g. the error it got when an error was expected). */
export type Outcome = { readonly ok: true; readonly note?: string } | { readonly ok: false; readonly message: string };

export interface SuiteCase {
  /** Path within the suite, `section/suite/test` for CEL; what the ledger matches against. */
  readonly path: string;
  /** Grouping for the per-section summary (first path segment for CEL). */
  readonly section: string;
  /** Runs the case. Must not throw: failures, crashes included, are outcomes. */
  run(): Outcome;
}

export interface Suite {
  /** Printed name and path prefix: `cel`, `cel-parse`, later `map`, `gatekeeper`. */
  readonly name: string;
  /** Sections that count toward the suite's headline line; others are reported separately. Absent: all. */
  readonly requiredSections?: readonly string[];
  /** Minimum pass rate over the required sections (0..1), reported against. */
  readonly requiredPassRate?: number;
  readonly ledger: readonly KnownFailure[];
  cases(): Iterable<SuiteCase>;
}

export type CaseStatus =
  /** Passed and not in the ledger. */
  | "pass"
  /** Failed and not in the ledger: fails the run. */
  | "fail"
  /** Failed and in the ledger. */
  | "known"
  /** Passed although the ledger lists it: fails the run (remove the entry). */
  | "fixed";

export interface CaseResult {
  readonly suite: string;
  readonly path: string;
  readonly section: string;
  readonly status: CaseStatus;
  /** What differed, for failures (known ones included); for passes, an optional note. */
  readonly message?: string;
  /** The ledger's reason, for known and fixed cases. */
  readonly reason?: string;
}

/** The ledger entry covering a path: the exact path, or a prefix of it ending at a segment boundary. */
export function findKnownFailure(ledger: readonly KnownFailure[], path: string): KnownFailure | undefined {
  let best: KnownFailure | undefined;
  for (const k of ledger) {
    const p = k.path.endsWith("/") ? k.path.slice(0, -1) : k.path;
    if (path === p || path.startsWith(`${p}/`)) {
      if (best === undefined || p.length > best.path.length) best = k;
    }
  }
  return best;
}

/** Combines an outcome with the ledger. */
export function classify(suite: string, c: Pick<SuiteCase, "path" | "section">, outcome: Outcome, ledger: readonly KnownFailure[]): CaseResult {
  const known = findKnownFailure(ledger, c.path);
  const base = { suite, path: c.path, section: c.section };
  if (outcome.ok) {
    const note = outcome.note === undefined ? {} : { message: outcome.note };
    return known === undefined ? { ...base, status: "pass", ...note } : { ...base, status: "fixed", reason: known.reason, ...note };
  }
  return known === undefined
    ? { ...base, status: "fail", message: outcome.message }
    : { ...base, status: "known", message: outcome.message, reason: known.reason };
}

/** Ledger entries that match no case at all: stale, and they fail the run too. */
export function unusedLedgerEntries(ledger: readonly KnownFailure[], paths: Iterable<string>): KnownFailure[] {
  const all = [...paths];
  return ledger.filter((k) => !all.some((p) => findKnownFailure([k], p) !== undefined));
}

/** Runs one case; anything it throws becomes a failed outcome. */
export function runCase(c: SuiteCase): Outcome {
  try {
    return c.run();
  } catch (e) {
    return { ok: false, message: `harness crash: ${describeError(e)}` };
  }
}

/** Runs every case of a suite in this thread, never letting one case abort the rest (but a hang hangs). */
export function runSuite(suite: Suite): CaseResult[] {
  const results: CaseResult[] = [];
  for (const c of suite.cases()) results.push(classify(suite.name, c, runCase(c), suite.ledger));
  return results;
}

export function describeError(e: unknown): string {
  if (e instanceof Error) {
    const where = e.stack?.split("\n").find((l) => l.trim().startsWith("at "))?.trim();
    return `${e.name}: ${e.message}${where !== undefined && !e.name.startsWith("Cel") ? ` (${where})` : ""}`;
  }
  return String(e);
}
