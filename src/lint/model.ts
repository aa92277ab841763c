/**
 * The vocabulary of `celmap lint`: the policies it reasons about (units), the one operation it
 * needs from the admission engine (`admit` a object with the policies in a given order), and the
 * findings it reports. Plain data; the analyses live beside this file, the adapter to the engine
 * in `adapter.ts`, the rendering in the CLI.
 */
import type { JsonObject } from "../admission/json.js";

/** The checks, as `--disable` names them. */
export const CHECKS = ["order", "idempotence", "convergence", "schema", "atomic", "filter", "jsonpatch-path", "binding", "params", "match", "cost"] as const;
export type CheckName = (typeof CHECKS)[number];

/** What each check proves or finds, one line (for --help, docs and SARIF rule descriptions). */
export const CHECK_SUMMARY: Readonly<Record<CheckName, string>> = {
  order: "the admitted object does not depend on the order the policies run in (the apiserver and Kyverno fix none)",
  idempotence: "admitting the admitted object again (UPDATE with oldObject, and re-CREATE) changes nothing",
  convergence: "the set settles within the passes the apiserver runs (1, or 2 with reinvocationPolicy IfNeeded); Gatekeeper's System converges within its iteration limit",
  schema: "Object{...} field names and value types exist in the schema of the matched kinds (built-ins and the CRDs given)",
  atomic: "no ApplyConfiguration writes into an atomic list, map or struct (the apiserver denies: may not mutate atomic arrays, maps or structs)",
  filter: "no ApplyConfiguration tries to remove list items with filter() (server-side apply merges: the items stay)",
  "jsonpatch-path": "every constant JSONPatch path exists in the schema of some matched kind",
  binding: "every MutatingAdmissionPolicy has a binding and every binding a policy",
  params: "every param a binding names is among the inputs",
  match: "every policy's matchConstraints match some known resource (built-in or a given CRD)",
  cost: "no expression's estimated cost exceeds the apiserver's per-expression budget",
};

/** A policy as lint names it: `map:<name>`, `kyverno:<namespace>/<name>` or `gatekeeper:<Kind>/<name>`. */
export interface LintUnit {
  readonly id: string;
  /** MAPs run in the MAP plugin, in an unspecified order; Kyverno's policies in its webhook, after MAP, in an unspecified order; Gatekeeper's mutators in its System's fixed order. */
  readonly group: "map" | "kyverno" | "gatekeeper";
  readonly kind: string;
  readonly name: string;
  /** `file#doc` of the document, when known. */
  readonly source?: string;
  /** 1-based line where the document starts in its file, when known (SARIF regions). */
  readonly line?: number;
}

export interface AdmitOptions {
  readonly operation: "CREATE" | "UPDATE";
  readonly oldObject?: JsonObject | null;
  /** Unit ids in the order to run them (per group; the others after, in the default order). */
  readonly order?: readonly string[];
  /** One pass of the chain without reinvocation (default: the apiserver's chain, reinvocation included). */
  readonly singlePass?: boolean;
}

export interface Admission {
  readonly allowed: boolean;
  /** The admitted object (the input when denied). */
  readonly object: JsonObject;
  /** The denial's message. */
  readonly message?: string;
  /** Units whose constraints selected the request (they ran, or their matchConditions were asked). */
  readonly matched: readonly string[];
  /** Units that changed the object, in the order they did. */
  readonly changedBy: readonly string[];
}

/** The policy set as lint sees it: its units and a way to admit an object. */
export interface LintSubject {
  readonly units: readonly LintUnit[];
  /**
   * The object as the apiserver hands it to admission (namespace filled, defaulted), or a
   * message saying why it cannot be admitted (unknown kind).
   */
  prepare(object: JsonObject): { readonly object: JsonObject } | { readonly error: string };
  /** Admits a prepared object. Never throws for a policy outcome. */
  admit(object: JsonObject, options: AdmitOptions): Admission;
  /** Units that run only the first pass (no reinvocation); the rest may run a second pass (IfNeeded). */
  reinvoked(unit: string): boolean;
}

export type Severity = "error" | "warning";

export interface Witness {
  /** `sample` (a -r resource, `source` says which) or `generated` (shrunk to a minimal object). */
  readonly origin: "sample" | "generated";
  readonly source?: string;
  readonly object: JsonObject;
}

export interface DivergingResult {
  /** What produced it: `order: a, b` or `first admission`. */
  readonly label: string;
  readonly allowed: boolean;
  readonly object: JsonObject;
  readonly message?: string;
}

export interface Finding {
  readonly check: CheckName;
  readonly severity: Severity;
  readonly message: string;
  /** The policies concerned, in the order the message names them. */
  readonly policies: readonly LintUnit[];
  /** The field concerned (`spec.containers[0].image`), when there is one. */
  readonly path?: string;
  readonly witness?: Witness;
  /** Two results that should be equal and are not (order, idempotence, convergence). */
  readonly results?: readonly [DivergingResult, DivergingResult];
}

export interface LintOptions {
  readonly disable?: ReadonlySet<CheckName>;
  /** Seed of the generator and of the sampled orders (default 1). */
  readonly seed?: number;
  /** Objects generated per matched kind, before shrinking (default 48). */
  readonly generated?: number;
  /** Passes tried before a set is said not to converge (default 8). */
  readonly maxPasses?: number;
  /** Called now and then with what is being done, for a progress line. */
  readonly progress?: (done: number, total: number, what: string) => void;
}

export interface LintReport {
  readonly findings: readonly Finding[];
  /** Resources checked: samples given and objects generated. */
  readonly samples: number;
  readonly generated: number;
  /** Said when orders were sampled instead of enumerated (more than 6 policies on one object). */
  readonly notes: readonly string[];
}
