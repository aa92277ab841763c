/**
 * Comparing celmap with a reference answer, and the ledger of known differences
 * (conformance/reference/known-differences.json): each entry names the suite, the aspect
 * that differs, a pattern over the case's input, and the upstream source line explaining it.
 */
import { readFileSync } from "node:fs";

export interface LedgerEntry {
  readonly id: string;
  readonly suite: string;
  /** `outcome` (ok/compile/eval/deny differs), `value`, `type`, `cost`, `message`. */
  readonly aspect: string;
  /** A regular expression the case's input text (expression, or JSON of the MAP case) must match. */
  readonly input: string;
  readonly status: "upstream-behaviour" | "fixed-on-branch" | "open";
  readonly why: string;
  readonly upstream: string;
}

export interface Difference {
  readonly aspect: string;
  readonly input: string;
  readonly reference: unknown;
  readonly celmap: unknown;
}

export class Ledger {
  private readonly entries: readonly (LedgerEntry & { re: RegExp })[];
  readonly hits = new Map<string, number>();

  constructor(path: string) {
    const data = JSON.parse(readFileSync(path, "utf8")) as { entries: LedgerEntry[] };
    this.entries = data.entries.map((e) => ({ ...e, re: new RegExp(e.input, "s") }));
  }

  /** The entry explaining a difference, if any. */
  explain(suite: string, d: Difference): LedgerEntry | undefined {
    const e = this.entries.find((x) => x.suite === suite && x.aspect === d.aspect && x.re.test(d.input));
    if (e !== undefined) this.hits.set(e.id, (this.hits.get(e.id) ?? 0) + 1);
    return e;
  }
}
