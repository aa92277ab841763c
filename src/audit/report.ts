/**
 * The audit report: what the policy set would do to the existing objects, built one admitted
 * object at a time ({@link ReportBuilder}) and merged across shards ({@link mergeReports}).
 *
 * Plain JSON (`-o json` prints it as is; `celmap audit merge` reads it back). Every list is sorted
 * by a canonical key and every count is a sum, so the merge of the shards of an audit equals the
 * unsharded audit (apart from `shard`), whatever the order objects were admitted in.
 */
import type { Shard } from "./shard.js";

export const REPORT_API_VERSION = "celmap.io/v1alpha1";
export const REPORT_KIND = "AuditReport";

/** An object: `apiVersion`, `kind`, `namespace` (omitted when cluster-scoped), `name`. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

export interface Counts {
  /** Objects admitted. */
  objects: number;
  /** Admitted with a change (a non-empty patch). */
  changed: number;
  unchanged: number;
  /** Rejected by admission (a policy, failurePolicy Fail, a 404/500/503). */
  denied: number;
  /** Admitted, then rejected by the apiserver's validation (422 Invalid). */
  invalid: number;
}

export interface KindCounts extends Counts {
  /** `v1/pods`, `apps/v1/deployments`. */
  readonly resource: string;
  readonly kind: string;
}

export interface PolicyCounts {
  /** `MutatingAdmissionPolicy/name`, `MutatingPolicy/name` (Kyverno), `kyverno` for a denial by Kyverno's webhook. */
  readonly policy: string;
  /** Objects this policy changed. */
  changed: number;
  /** Objects this policy denied. */
  denied: number;
}

/** A change: the object, the policies that changed it, and the RFC 6902 patch from the stored object. */
export interface Change {
  readonly object: ObjectRef;
  readonly policies: readonly string[];
  readonly patch: readonly unknown[];
}

export interface Denial {
  readonly object: ObjectRef;
  /** `admission` (a policy) or `validation` (422 after admission). */
  readonly stage: "admission" | "validation";
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  /** The policies named in the message, when any. */
  readonly policies: readonly string[];
}

/** A problem that kept something from being audited: a list that failed, a malformed object. */
export interface AuditError {
  /** `v1/pods` when it is about a resource. */
  readonly resource?: string;
  /** The object, when it is about one. */
  readonly object?: ObjectRef;
  readonly message: string;
}

export interface AuditReport {
  readonly apiVersion: typeof REPORT_API_VERSION;
  readonly kind: typeof REPORT_KIND;
  /** The request each object was admitted as. */
  readonly operation: "CREATE" | "UPDATE";
  /** Identifies the policy set (a digest of its documents): shards of one audit share it. */
  readonly policySet: string;
  /** Where the objects came from (the API server URL). */
  readonly cluster: string;
  /** `namespace`/`selector` restrictions, when given. */
  readonly scope: { readonly namespace?: string; readonly selector?: string };
  /** The shard count and the shards this report covers (all of them: complete). */
  readonly shard: { readonly count: number; readonly indexes: readonly number[] };
  /** The resources listed. */
  readonly resources: readonly string[];
  readonly totals: Counts;
  readonly kinds: readonly KindCounts[];
  readonly policies: readonly PolicyCounts[];
  readonly changes: readonly Change[];
  readonly denials: readonly Denial[];
  readonly errors: readonly AuditError[];
}

export function refKey(r: ObjectRef): string {
  return `${r.apiVersion}\u0000${r.kind}\u0000${r.namespace ?? ""}\u0000${r.name}`;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function zero(): Counts {
  return { objects: 0, changed: 0, unchanged: 0, denied: 0, invalid: 0 };
}

function add(into: Counts, c: Counts): void {
  into.objects += c.objects;
  into.changed += c.changed;
  into.unchanged += c.unchanged;
  into.denied += c.denied;
  into.invalid += c.invalid;
}

/** One admitted object's outcome. */
export type Outcome =
  | { readonly outcome: "unchanged" }
  | { readonly outcome: "changed"; readonly policies: readonly string[]; readonly patch: readonly unknown[] }
  | { readonly outcome: "denied" | "invalid"; readonly code: number; readonly reason: string; readonly message: string; readonly policies: readonly string[] };

function errorKey(e: AuditError): string {
  return `${e.resource ?? ""}\u0000${e.object !== undefined ? refKey(e.object) : ""}\u0000${e.message}`;
}

/** Accumulates one report; `finish` sorts everything into an {@link AuditReport}. */
export class ReportBuilder {
  readonly #totals = zero();
  readonly #kinds = new Map<string, KindCounts>();
  readonly #policies = new Map<string, PolicyCounts>();
  readonly #changes: Change[] = [];
  readonly #denials: Denial[] = [];
  readonly #errors = new Map<string, AuditError>();
  readonly #resources = new Set<string>();

  constructor(
    readonly head: Pick<AuditReport, "operation" | "policySet" | "cluster" | "scope">,
    readonly shard: Shard,
  ) {}

  /** A resource that was (or was to be) listed. */
  resource(resource: string): void {
    this.#resources.add(resource);
  }

  #kind(resource: string, kind: string): KindCounts {
    let k = this.#kinds.get(resource);
    if (k === undefined) {
      k = { resource, kind, ...zero() };
      this.#kinds.set(resource, k);
    }
    return k;
  }

  #policy(name: string): PolicyCounts {
    let p = this.#policies.get(name);
    if (p === undefined) {
      p = { policy: name, changed: 0, denied: 0 };
      this.#policies.set(name, p);
    }
    return p;
  }

  add(resource: string, object: ObjectRef, o: Outcome): void {
    const c = zero();
    c.objects = 1;
    switch (o.outcome) {
      case "unchanged":
        c.unchanged = 1;
        break;
      case "changed":
        c.changed = 1;
        for (const p of o.policies) this.#policy(p).changed++;
        this.#changes.push({ object, policies: [...o.policies].sort(cmp), patch: o.patch });
        break;
      case "denied":
      case "invalid":
        if (o.outcome === "denied") c.denied = 1;
        else c.invalid = 1;
        for (const p of o.policies) this.#policy(p).denied++;
        this.#denials.push({ object, stage: o.outcome === "denied" ? "admission" : "validation", code: o.code, reason: o.reason, message: o.message, policies: [...o.policies].sort(cmp) });
        break;
    }
    add(this.#totals, c);
    add(this.#kind(resource, object.kind), c);
  }

  error(e: AuditError): void {
    this.#errors.set(errorKey(e), e);
  }

  get errorCount(): number {
    return this.#errors.size;
  }

  get totals(): Readonly<Counts> {
    return this.#totals;
  }

  finish(): AuditReport {
    return normalize({
      apiVersion: REPORT_API_VERSION,
      kind: REPORT_KIND,
      ...this.head,
      shard: { count: this.shard.count, indexes: [this.shard.index] },
      resources: [...this.#resources],
      totals: { ...this.#totals },
      kinds: [...this.#kinds.values()].map((k) => ({ ...k })),
      policies: [...this.#policies.values()].map((p) => ({ ...p })),
      changes: this.#changes,
      denials: this.#denials,
      errors: [...this.#errors.values()],
    });
  }
}

/** Sorts every list by its canonical key (the form reports are compared and merged in). */
function normalize(r: AuditReport): AuditReport {
  return {
    ...r,
    shard: { count: r.shard.count, indexes: [...r.shard.indexes].sort((a, b) => a - b) },
    resources: [...new Set(r.resources)].sort(cmp),
    kinds: [...r.kinds].sort((a, b) => cmp(a.resource, b.resource)),
    policies: [...r.policies].sort((a, b) => cmp(a.policy, b.policy)),
    changes: [...r.changes].sort((a, b) => cmp(refKey(a.object), refKey(b.object))),
    denials: [...r.denials].sort((a, b) => cmp(refKey(a.object), refKey(b.object))),
    errors: [...new Map(r.errors.map((e) => [errorKey(e), e])).values()].sort((a, b) => cmp(errorKey(a), errorKey(b))),
  };
}

/** Why a value is not an audit report (`undefined` when it is one). */
export function reportProblem(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "not a JSON object";
  const r = v as Partial<AuditReport>;
  if (r.apiVersion !== REPORT_API_VERSION || r.kind !== REPORT_KIND) return `not an audit report (apiVersion ${JSON.stringify(r.apiVersion)}, kind ${JSON.stringify(r.kind)}; expected ${REPORT_API_VERSION} ${REPORT_KIND}, as celmap audit -o json writes)`;
  for (const f of ["totals", "shard", "scope"] as const) if (typeof r[f] !== "object" || r[f] === null) return `${f}: missing`;
  for (const f of ["resources", "kinds", "policies", "changes", "denials", "errors"] as const) if (!Array.isArray(r[f])) return `${f}: must be a list`;
  if (!Array.isArray(r.shard!.indexes) || typeof r.shard!.count !== "number") return "shard: must be {count, indexes}";
  return undefined;
}

/**
 * Combines shard reports of one audit into one. Refuses reports of different audits (operation,
 * policy set, cluster, scope or shard count differ) and a shard given twice; a shard missing is
 * not an error here (the result's `shard.indexes` say which are covered: see {@link missingShards}).
 */
export function mergeReports(reports: readonly AuditReport[]): { ok: true; report: AuditReport } | { ok: false; error: string } {
  if (reports.length === 0) return { ok: false, error: "no reports to merge" };
  const first = reports[0]!;
  const same = (a: AuditReport, f: "operation" | "policySet" | "cluster"): boolean => a[f] === first[f];
  const seen = new Set<number>();
  for (const [i, r] of reports.entries()) {
    for (const f of ["operation", "policySet", "cluster"] as const) {
      if (!same(r, f)) return { ok: false, error: `report ${i + 1}: ${f} ${JSON.stringify(r[f])} differs from report 1's ${JSON.stringify(first[f])}: not shards of one audit` };
    }
    if (JSON.stringify(r.scope) !== JSON.stringify(first.scope)) return { ok: false, error: `report ${i + 1}: scope ${JSON.stringify(r.scope)} differs from report 1's ${JSON.stringify(first.scope)}` };
    if (r.shard.count !== first.shard.count) return { ok: false, error: `report ${i + 1}: ${r.shard.count} shards, report 1: ${first.shard.count}` };
    for (const s of r.shard.indexes) {
      if (seen.has(s)) return { ok: false, error: `shard ${s}/${r.shard.count} is given twice` };
      seen.add(s);
    }
  }
  const totals = zero();
  const kinds = new Map<string, KindCounts>();
  const policies = new Map<string, PolicyCounts>();
  for (const r of reports) {
    add(totals, r.totals);
    for (const k of r.kinds) {
      const into = kinds.get(k.resource) ?? { resource: k.resource, kind: k.kind, ...zero() };
      add(into, k);
      kinds.set(k.resource, into);
    }
    for (const p of r.policies) {
      const into = policies.get(p.policy) ?? { policy: p.policy, changed: 0, denied: 0 };
      into.changed += p.changed;
      into.denied += p.denied;
      policies.set(p.policy, into);
    }
  }
  return {
    ok: true,
    report: normalize({
      ...first,
      shard: { count: first.shard.count, indexes: [...seen] },
      resources: reports.flatMap((r) => r.resources),
      totals,
      kinds: [...kinds.values()],
      policies: [...policies.values()],
      changes: reports.flatMap((r) => r.changes),
      denials: reports.flatMap((r) => r.denials),
      errors: reports.flatMap((r) => r.errors),
    }),
  };
}

/** The shards (0-based) a report does not cover. */
export function missingShards(r: AuditReport): number[] {
  const have = new Set(r.shard.indexes);
  const out: number[] = [];
  for (let i = 0; i < r.shard.count; i++) if (!have.has(i)) out.push(i);
  return out;
}
