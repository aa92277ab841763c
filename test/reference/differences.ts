/**
 * Comparing celmap with a reference answer, and the ledger of known differences
 * (conformance/reference/known-differences.json): each entry names the suite, the aspect
 * that differs, a pattern over the case's input, and the upstream source line explaining it.
 */
import { readFileSync } from "node:fs";

export interface LedgerEntry {
  readonly id: string;
  readonly suite: string;
  /** `outcome` (ok/compile/eval/deny differs), `value`, `type`, `cost`; several joined by `|`. */
  readonly aspect: string;
  /** A regular expression the case's input text (expression, or JSON of the MAP case) must match. */
  readonly input: string;
  /** Optional regular expressions the JSON of the reference's / celmap's answer must match. */
  readonly reference?: string;
  readonly celmap?: string;
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

/** JSON text of an answer (celmap's objects may hold bigints). */
export function jsonText(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
}

export class Ledger {
  private readonly entries: readonly (LedgerEntry & { re: RegExp; ref?: RegExp; cm?: RegExp })[];
  readonly hits = new Map<string, number>();

  constructor(path: string) {
    const data = JSON.parse(readFileSync(path, "utf8")) as { entries: LedgerEntry[] };
    this.entries = data.entries.map((e) => ({
      ...e,
      re: new RegExp(e.input, "s"),
      ...(e.reference === undefined ? {} : { ref: new RegExp(e.reference, "s") }),
      ...(e.celmap === undefined ? {} : { cm: new RegExp(e.celmap, "s") }),
    }));
  }

  /** The entry explaining a difference, if any. */
  explain(suite: string, d: Difference): LedgerEntry | undefined {
    const ref = jsonText(d.reference);
    const cm = jsonText(d.celmap);
    const e = this.entries.find(
      (x) =>
        x.suite === suite &&
        x.aspect.split("|").includes(d.aspect) &&
        x.re.test(d.input) &&
        (x.ref === undefined || x.ref.test(ref)) &&
        (x.cm === undefined || x.cm.test(cm)),
    );
    if (e !== undefined) this.hits.set(e.id, (this.hits.get(e.id) ?? 0) + 1);
    return e;
  }
}
