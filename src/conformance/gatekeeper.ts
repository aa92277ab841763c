/**
 * Running a Gatekeeper case file (the format of `shared/conformance/gatekeeper-cases.yaml`: a YAML
 * list of cases with `mutator`/`mutators`) through translation into MutatingAdmissionPolicies and
 * the MAP pipeline (src/translate/gatekeeper/translate), for `celmap conformance`. Sections are the
 * case-name prefix (`assign`, `match`, …). `npm run conformance` runs the same cases
 * (conformance/gatekeeper/runner.ts) plus the reference semantics.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { isReferenceCase, loadCases, type GatekeeperCase } from "../gatekeeper/index.js";
import { runCaseTranslated } from "../translate/gatekeeper/translate/cases.js";
import type { KnownFailure, Suite, SuiteCase } from "./suite.js";

/** Whether a parsed case file is in the Gatekeeper format (a list of cases with mutators). */
export function isGatekeeperCaseFile(doc: unknown): boolean {
  return Array.isArray(doc) && doc.length > 0 && doc.every((c) => typeof c === "object" && c !== null && ("mutator" in c || "mutators" in c));
}

/** A suite over one Gatekeeper case file; `section` overrides the name-prefix sections (e.g. `oracle`). */
export function gatekeeperCaseFileSuite(name: string, path: string, ledger: readonly KnownFailure[], section?: string): Suite {
  let cached: GatekeeperCase[] | undefined;
  return {
    name,
    ledger,
    *cases(): Iterable<SuiteCase> {
      cached ??= loadCases(parse(readFileSync(path, "utf8")));
      for (const c of cached) {
        if (!isReferenceCase(c)) continue;
        const s = section ?? c.name.split("/")[0] ?? "other";
        yield {
          path: `${s}/${c.name}`,
          section: s,
          run: () => {
            const o = runCaseTranslated(c);
            return o.passed ? { ok: true } : { ok: false, message: o.detail };
          },
        };
      }
    },
  };
}

/** Cases of a Gatekeeper case file meant for another harness (reported as skipped). */
export function gatekeeperSkippedCases(path: string): string[] {
  return loadCases(parse(readFileSync(path, "utf8")))
    .filter((c) => !isReferenceCase(c))
    .map((c) => c.name);
}
