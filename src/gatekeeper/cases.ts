/**
 * The shared Gatekeeper conformance cases (`gatekeeper-cases.yaml`,
 * `gatekeeper-oracle-cases.yaml`): their shape, and running one case on the reference
 * semantics (compile every mutator, then one System run) with the comparison the files
 * define. Pure: takes parsed documents; reading the files is the caller's business.
 */
import { compileMutator, type Mutator } from "./mutators/index.js";
import { mutate, type MutateResult } from "./system.js";
import type { Operation, Source } from "./match.js";

export interface GatekeeperCase {
  readonly name: string;
  /**
   * Which harness a case is meant for. Neither shared file sets it today (every case was
   * produced by Gatekeeper's own MutatorFor* + System.Mutate, i.e. the reference semantics);
   * absent means the reference harness.
   */
  readonly harness?: string;
  readonly source_test?: string;
  readonly basis?: string;
  readonly mutator?: unknown;
  readonly mutators?: readonly unknown[];
  readonly request?: { readonly operation?: Operation; readonly source?: Source };
  readonly flags?: { readonly mutationAnnotations?: boolean };
  readonly namespace?: unknown;
  readonly object?: unknown;
  readonly expect: {
    readonly object?: unknown;
    readonly unchanged?: boolean;
    readonly error?: string;
    readonly phase?: "validation" | "mutate";
    readonly ignore_values_at?: readonly string[];
  };
  readonly notes?: string;
}

export interface CaseOutcome {
  readonly name: string;
  readonly passed: boolean;
  /** What happened, for a failure report. */
  readonly detail: string;
  /** The System result, when the case got that far. */
  readonly result?: MutateResult;
}

/** Validates the top level of a parsed case file: a list of cases with names and expectations. */
export function loadCases(doc: unknown): GatekeeperCase[] {
  if (!Array.isArray(doc)) throw new Error("a Gatekeeper case file is a YAML list of cases");
  return doc.map((c, i) => {
    if (typeof c !== "object" || c === null) throw new Error(`case ${i} is not a mapping`);
    const r = c as Record<string, unknown>;
    if (typeof r["name"] !== "string") throw new Error(`case ${i} has no name`);
    if (typeof r["expect"] !== "object" || r["expect"] === null) throw new Error(`case ${r["name"]} has no expect`);
    if (r["mutator"] === undefined && !Array.isArray(r["mutators"])) throw new Error(`case ${r["name"]} has no mutator`);
    return r as unknown as GatekeeperCase;
  });
}

type Seg = string | number;

/** `metadata.annotations["gatekeeper.sh/mutation-id"]`, `spec.containers[0].image`. */
export function parseResultPath(p: string): Seg[] {
  const out: Seg[] = [];
  const re = /\s*(?:\.?([A-Za-z_$][\w$-]*)|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*(\d+)\s*\])/y;
  let i = 0;
  while (i < p.length) {
    re.lastIndex = i;
    const m = re.exec(p);
    if (m === null) throw new Error(`bad result path ${JSON.stringify(p)} at ${i}`);
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(m[2].replace(/\\(.)/g, "$1"));
    else if (m[3] !== undefined) out.push(m[3].replace(/\\(.)/g, "$1"));
    else out.push(Number(m[4]));
    i = re.lastIndex;
  }
  return out;
}

function getAt(v: unknown, path: readonly Seg[]): { found: boolean; value?: unknown } {
  let cur = v;
  for (const s of path) {
    if (typeof s === "number") {
      if (!Array.isArray(cur) || s >= cur.length) return { found: false };
      cur = cur[s];
    } else {
      if (typeof cur !== "object" || cur === null || Array.isArray(cur) || !Object.prototype.hasOwnProperty.call(cur, s)) {
        return { found: false };
      }
      cur = (cur as Record<string, unknown>)[s];
    }
  }
  return { found: true, value: cur };
}

function setAt(v: unknown, path: readonly Seg[], value: unknown): void {
  let cur = v as Record<string | number, unknown>;
  for (const s of path.slice(0, -1)) cur = cur[s] as Record<string | number, unknown>;
  cur[path[path.length - 1]!] = value;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Exact JSON equality (maps by key set, lists by position, numbers by value). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return false;
}

/**
 * Compares a result object with the expected one; paths in `ignore` must exist in both and
 * their values are not compared.
 */
export function compareObjects(actual: unknown, expected: unknown, ignore: readonly string[] = []): string | undefined {
  const a = clone(actual);
  const e = clone(expected);
  for (const p of ignore) {
    const segs = parseResultPath(p);
    if (!getAt(a, segs).found) return `expected a value at ${p}`;
    if (!getAt(e, segs).found) return `the expectation has no value at ${p}`;
    setAt(a, segs, null);
    setAt(e, segs, null);
  }
  return jsonEqual(a, e) ? undefined : `object differs:\n  got      ${JSON.stringify(a)}\n  expected ${JSON.stringify(e)}`;
}

/** The harness name of the reference semantics. */
export const REFERENCE_HARNESS = "reference";

/** Whether a case is for the reference semantics (no `harness`, or `harness: reference`). */
export function isReferenceCase(c: GatekeeperCase): boolean {
  return c.harness === undefined || c.harness === REFERENCE_HARNESS;
}

export interface CaseFileReport {
  readonly total: number;
  readonly run: number;
  readonly passed: number;
  readonly outcomes: readonly CaseOutcome[];
}

/** Loads a parsed case file and runs its reference cases. */
export function runCaseFile(doc: unknown): CaseFileReport {
  const cases = loadCases(doc);
  const outcomes = cases.filter(isReferenceCase).map(runCase);
  return { total: cases.length, run: outcomes.length, passed: outcomes.filter((o) => o.passed).length, outcomes };
}

/** Runs one case on the reference semantics. */
export function runCase(c: GatekeeperCase): CaseOutcome {
  const name = c.name;
  const exp = c.expect;
  const docs = c.mutators ?? [c.mutator];
  const mutators: Mutator[] = [];
  for (const d of docs) {
    const r = compileMutator(d);
    if (!r.ok) {
      const msg = r.issues.map((i) => i.message).join("; ");
      if (exp.error !== undefined && exp.phase === "validation") {
        return msg.includes(exp.error)
          ? { name, passed: true, detail: `rejected: ${msg}` }
          : { name, passed: false, detail: `rejected with ${JSON.stringify(msg)}, expected ${JSON.stringify(exp.error)}` };
      }
      return { name, passed: false, detail: `mutator rejected: ${msg}` };
    }
    mutators.push(r.mutator);
  }
  if (exp.phase === "validation") return { name, passed: false, detail: `accepted; expected rejection ${JSON.stringify(exp.error)}` };
  const result = mutate(c.object, mutators, {
    namespace: c.namespace,
    source: c.request?.source ?? "Original",
    operation: c.request?.operation ?? "CREATE",
    mutationAnnotations: c.flags?.mutationAnnotations === true,
  });
  if (exp.error !== undefined) {
    if (result.error === undefined) return { name, passed: false, detail: `no error; expected ${JSON.stringify(exp.error)}`, result };
    return result.error.includes(exp.error)
      ? { name, passed: true, detail: `error: ${result.error}`, result }
      : { name, passed: false, detail: `error ${JSON.stringify(result.error)}, expected ${JSON.stringify(exp.error)}`, result };
  }
  if (result.error !== undefined) return { name, passed: false, detail: `unexpected error: ${result.error}`, result };
  if (exp.unchanged === true) {
    return result.changed
      ? { name, passed: false, detail: `changed, expected unchanged: ${JSON.stringify(result.object)}`, result }
      : { name, passed: true, detail: "unchanged", result };
  }
  if (exp.object !== undefined) {
    const diff = compareObjects(result.object, exp.object, exp.ignore_values_at ?? []);
    return diff === undefined ? { name, passed: true, detail: "object matches", result } : { name, passed: false, detail: diff, result };
  }
  return { name, passed: false, detail: "the case has no expectation" };
}
