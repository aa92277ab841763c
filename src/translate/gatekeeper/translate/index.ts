/**
 * The translator: Gatekeeper mutators (Assign, AssignMetadata, ModifySet, AssignImage) →
 * MutatingAdmissionPolicies + bindings (gatekeeper.md §5), with a verdict per mutator.
 *
 *     import { translate } from "./translate/gatekeeper/translate/index.js";
 *     const r = translate(mutatorDocs, { apiVersion: "v1" });        // parsed YAML documents
 *     // r.policies / r.bindings: plain JSON objects, ready to print as YAML
 *     // r.verdicts: [{mutator: "Assign/name", verdict: "exact"|"difference"|"refused", reasons, policy}]
 *     // r.issues: translator self-check failures (empty unless celmap has a bug)
 *
 * Layout. Every mutator is compiled (Gatekeeper's own validation, `compileMutator`) and
 * ordered as Gatekeeper's System orders them (kind, then name). Mutators that interfere (they
 * can apply to the same kind and either their locations interact ({@link locationsInteract}:
 * writes, pathTests and globs are all prefixes of the location) or one is an AssignMetadata
 * writing a label the other's label/namespace selector reads) are grouped with union-find:
 *
 * - a group of one → one policy: `matchConstraints` (resource rules from `applyTo`,
 *   `match.namespaceSelector`, matchPolicy Exact) + `matchConditions` (applyTo with its
 *   operations, kinds, scope, namespaces, excludedNamespaces, labelSelector, name) + one
 *   JSONPatch mutation. Each translated mutation is idempotent, which is what Gatekeeper's
 *   second pass checks, so one pass is Gatekeeper's fixpoint (AssignImage gets two: Gatekeeper's
 *   image parser takes two passes to settle a malformed reference such as `a/b:c/d`);
 * - a larger group → one policy whose mutations are the group's mutators in Gatekeeper order,
 *   each guarded by its full match predicate (namespaceSelector through `namespaceObject`),
 *   repeated for as many passes as `passes.ts` proves enough from what each mutator reads and
 *   writes (creating a list element another one globs over, writing a label a selector reads,
 *   writers of one cell whose composition settles in a known number of passes), a mutator
 *   appearing only in the passes where it can still change something. When the analysis
 *   cannot bound the passes, N (the number of mutators in the system): Gatekeeper allows N+1
 *   passes, the last of which must change nothing, so a set Gatekeeper accepts reaches its
 *   fixpoint within N passes, and further passes change nothing. A set that never converges is
 *   rejected by Gatekeeper (`mutation not converging`) but keeps the result of N passes there:
 *   a pass changing nothing is a property of the whole pass (writes can cancel out within it),
 *   which a MAP cannot observe. With Assign/AssignMetadata/ModifySet/AssignImage (all
 *   idempotent, existence-only tests) we know of no such set; it is stated as a note on
 *   grouped mutators.
 *
 * Bundles (failurePolicy Fail, option `bundle`): groups are independent of each other, so the
 * groups that give the same resource rules share one policy, each member guarded by its own
 * match criteria (a `// match: …` comment names them as the matchConditions of a policy of its
 * own would be named); the apiserver then matches one policy instead of one per group and
 * evaluates no matchConditions (it re-evaluates those of every matching policy in its second
 * pass). The lone AssignMetadata mutators of a bundle are one ApplyConfiguration
 * (`assignMetadataBundle`), and consecutive JSONPatch mutations whose results provably do not
 * depend on each other are one mutation (`merge.ts`, option `merge`): the pipeline pays a
 * fixed price per mutation (patch application, strict decoding of the patched built-in).
 *
 * Policies are `reinvocationPolicy: Never` by default, as Gatekeeper's webhook is registered:
 * they reach Gatekeeper's fixpoint by themselves (groups are independent of each other), so the
 * apiserver's second round could only re-run them after another plugin changed the object,
 * which Gatekeeper does not do either (option `reinvocationPolicy: IfNeeded` for an
 * installation that does).
 *
 * Expressions are JSONPatch built at run time (`mutations.ts`, `location.ts`), except
 * AssignMetadata, which is an ApplyConfiguration because that is provably the same there
 * (labels/annotations are granular maps; see `assignMetadataApplyConfiguration`). Elsewhere
 * ApplyConfiguration would differ (it merges instead of replacing, cannot prune, cannot set
 * atomic lists, identifies list items by schema keys). Gatekeeper's mutation errors become a patch that cannot apply, i.e. a policy error,
 * so with `failurePolicy: Fail` (the default here) the request is rejected as Gatekeeper's
 * webhook rejects it.
 *
 * Verdicts: `exact` — the policies reproduce Gatekeeper for every object (also for mutators
 * that are not emitted because Gatekeeper never runs them: schema conflicts, `source:
 * Generated`); `difference` — translated, with each difference stated at the field it comes
 * from (ModifySet numbers under CEL equality, integers beyond 2^53, locations or values a
 * built-in kind's schema does not allow — MAP's strict decoding answers 500 —, failurePolicy
 * Ignore); `refused` — not translated (external data; mutators Gatekeeper itself rejects;
 * features the target Kubernetes lacks), reason at the field.
 *
 * Pure: no I/O. The output is validated with celmap's own MAP validation (`src/policy`) and
 * every expression is compiled in the mutation environment; failures land in `issues`.
 */
import { policyCompileHook, ResourceCatalog } from "../../../admission/index.js";
import { prepareMutatingAdmissionPolicy, prepareMutatingAdmissionPolicyBinding, type CompileExpression } from "../../../policy/index.js";
import { compileSelector } from "../../../gatekeeper/index.js";
import { effectiveOperations } from "../../../gatekeeper/index.js";
import { compileMutator, idString, type Mutator } from "../../../gatekeeper/index.js";
import { hasSchema } from "../../../gatekeeper/index.js";
import { printPath } from "../../../gatekeeper/index.js";
import { SchemaDB } from "../../../gatekeeper/index.js";
import { byteCompare } from "../../../gatekeeper/index.js";
import { comment, errorOp, Names } from "./cel.js";
import { fastPath } from "./fast.js";
import { assignMetadataBundle, mutationCel } from "./mutations.js";
import { mergeable } from "./merge.js";
import { labelWritten, readsLabel, schedule } from "./passes.js";
import { schemaProblems } from "./schema-check.js";
import { simpleForm } from "./simple.js";
import { applyToCel, knownKinds, matchConditions, namespaceSelectorGuard, NS, resourceRules, wildcardCel, type Condition, type MatchOptions } from "./scope.js";
import type { LabelSelector } from "../../../gatekeeper/index.js";

/** At most this many mutations are merged into one (keeps each expression's cost estimate small). */
const MAX_MERGED = 12;

/** Policy-level conditions and namespace-selector requirements for the webhook's own exemptions. */
function webhookScope(w: TranslateOptions["webhook"]): { conditions: Condition[]; selector: LabelSelector | undefined } {
  if (w === undefined) return { conditions: [], selector: undefined };
  const ns = w.namespace ?? "gatekeeper-system";
  const sa = w.serviceAccount ?? "gatekeeper-admin";
  const conditions: Condition[] = [
    { name: "gatekeeper-webhook-not-gatekeeper", expression: `request.userInfo.?username.orValue("") != ${JSON.stringify(`system:serviceaccount:${ns}:${sa}`)}` },
  ];
  const ex = w.exemptNamespaces ?? [];
  if (ex.length > 0) {
    conditions.push({ name: "gatekeeper-webhook-exempt-namespaces", expression: `${NS} == "" || !(${ex.map((x) => wildcardCel(x, NS)).join(" || ")})` });
  }
  return {
    conditions,
    selector: {
      matchExpressions: [
        { key: "admission.gatekeeper.sh/ignore", operator: "DoesNotExist" },
        { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [ns] },
      ],
    },
  };
}

function andSelectors(a: LabelSelector | undefined, b: LabelSelector | undefined): LabelSelector | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const ml = { ...(a.matchLabels ?? {}) };
  const me = [...(a.matchExpressions ?? []), ...(b.matchExpressions ?? [])];
  for (const [k, v] of Object.entries(b.matchLabels ?? {})) {
    if (k in ml && ml[k] !== v) me.push({ key: k, operator: "In", values: [v] });
    else ml[k] = v;
  }
  return { ...(Object.keys(ml).length > 0 ? { matchLabels: ml } : {}), ...(me.length > 0 ? { matchExpressions: me } : {}) };
}

export type MapApiVersion = "v1" | "v1beta1" | "v1alpha1";

export interface TranslateOptions {
  /** API version of the emitted objects (default v1). */
  readonly apiVersion?: MapApiVersion;
  /** Oldest Kubernetes the policies must run on, `1.34` (default: 1.36 for v1, 1.34 for v1beta1, 1.32 for v1alpha1). */
  readonly minKubernetes?: string;
  /** `Fail` (default; Gatekeeper's webhook error rejects the request) or `Ignore`. */
  readonly failurePolicy?: "Fail" | "Ignore";
  /**
   * The policies' `reinvocationPolicy`: `Never` (default), as Gatekeeper's mutating webhook is
   * registered by default — the policies reach Gatekeeper's fixpoint on their own, so the
   * apiserver's second round would only re-run them after other admission plugins changed the
   * object, which Gatekeeper does not do; `IfNeeded` for a Gatekeeper installed with
   * `mutatingWebhookReinvocationPolicy: IfNeeded`.
   */
  readonly reinvocationPolicy?: "Never" | "IfNeeded";
  /**
   * Bundle independent groups with the same resource rules into one policy (default true; only
   * with failurePolicy Fail): the apiserver then matches one policy instead of one per group
   * and evaluates no matchConditions in either pass; each member's match criteria guard its
   * mutations, named in a comment. False: one policy per group, a lone mutator's criteria as
   * named matchConditions (shown by `celmap eval --trace`).
   */
  readonly bundle?: boolean;
  /**
   * Merge consecutive JSONPatch mutations of a policy into one where provably the same
   * (`merge.ts`; default true, only with failurePolicy Fail).
   */
  readonly merge?: boolean;
  /**
   * Give a group whose members share nodes of one built-in kind a fast path (`fast.ts`; default
   * true, only with failurePolicy Fail): a policy sorted before the group's own, matching when
   * every shared node exists, with all of the group's passes as one mutation; the group's own
   * policy then matches only when it did not.
   */
  readonly fastPath?: boolean;
  /**
   * `readable` (default): the simplest form that is provably Gatekeeper's result (an
   * ApplyConfiguration as a person would write it, `simple.ts`) where there is one; `exact`:
   * always the guarded JSONPatch walk (for a diff against the readable form).
   */
  readonly form?: "readable" | "exact";
  /** Prefix of policy and binding names (default `gatekeeper-`). */
  readonly namePrefix?: string;
  /** Kind → resource for resource rules (default: the built-in catalog; unknown kinds get `*`). */
  readonly catalog?: ResourceCatalog;
  /**
   * What Gatekeeper's mutating webhook itself skips (gatekeeper.md §4.5–4.6), injected into
   * every policy when given: requests by Gatekeeper's service account, namespaces labelled
   * `admission.gatekeeper.sh/ignore`, Gatekeeper's own namespace, and the exempt namespaces
   * (Config `excludedNamespaces` for the mutation webhook, `--exempt-namespace*`; Gatekeeper
   * wildcards). Absent: nothing is injected (the policies then also act where the webhook
   * would not be called — as the reference semantics do).
   */
  readonly webhook?: {
    /** Gatekeeper's namespace (default `gatekeeper-system`). */
    readonly namespace?: string;
    /** Gatekeeper's service account name (default `gatekeeper-admin`). */
    readonly serviceAccount?: string;
    readonly exemptNamespaces?: readonly string[];
  };
}

export type VerdictKind = "exact" | "difference" | "refused";

export interface VerdictReason {
  /** Field path in the mutator, e.g. `spec.parameters.assign.externalData`. */
  readonly path: string;
  readonly message: string;
}

export interface Verdict {
  /** `Kind/name`. */
  readonly mutator: string;
  readonly kind: string;
  readonly name: string;
  readonly verdict: VerdictKind;
  /** Why refused / what differs (empty for exact). */
  readonly reasons: readonly VerdictReason[];
  /** Remarks that do not change the verdict (not emitted because Gatekeeper never runs it, grouping). */
  readonly notes: readonly string[];
  /** The policy that carries it (absent: not emitted). */
  readonly policy?: string;
  /**
   * The form of its mutation (absent: not emitted): the patch type, whether it is the readable
   * form (`simple.ts`) or the full JSONPatch walk, why that form, and the passes it runs.
   */
  readonly form?: { readonly patchType: "ApplyConfiguration" | "JSONPatch"; readonly readable: boolean; readonly why: string; readonly passes: number };
}

export type JsonObject = Record<string, unknown>;

export interface TranslateResult {
  readonly policies: JsonObject[];
  readonly bindings: JsonObject[];
  readonly verdicts: Verdict[];
  /** Self-check failures of emitted objects (celmap's MAP validation / CEL compilation). */
  readonly issues: string[];
}

const GROUP = "admissionregistration.k8s.io";

function minVersionOf(o: TranslateOptions): [number, number] {
  const def = o.apiVersion === "v1alpha1" ? "1.32" : o.apiVersion === "v1beta1" ? "1.34" : "1.36";
  const m = /^v?(\d+)\.(\d+)/.exec(o.minKubernetes ?? def);
  return m === null ? [1, 36] : [Number(m[1]), Number(m[2])];
}

function docName(doc: unknown): { kind: string; name: string } {
  const d = (typeof doc === "object" && doc !== null ? doc : {}) as { kind?: unknown; metadata?: { name?: unknown } };
  return { kind: typeof d.kind === "string" ? d.kind : "?", name: typeof d.metadata?.name === "string" ? d.metadata.name : "?" };
}

function containsNumber(v: unknown): boolean {
  if (typeof v === "number") return true;
  if (Array.isArray(v)) return v.some(containsNumber);
  if (typeof v === "object" && v !== null) return Object.values(v).some(containsNumber);
  return false;
}

function containsUnsafeInteger(v: unknown): boolean {
  if (typeof v === "number") return Number.isInteger(v) && !Number.isSafeInteger(v);
  if (Array.isArray(v)) return v.some(containsUnsafeInteger);
  if (typeof v === "object" && v !== null) return Object.values(v).some(containsUnsafeInteger);
  return false;
}

interface Entry {
  readonly m: Mutator;
  readonly verdict: VerdictKind;
  readonly reasons: VerdictReason[];
  readonly notes: string[];
  expression?: string;
  patchType?: "ApplyConfiguration" | "JSONPatch";
  /** The readable form (simple.ts) was chosen; why. */
  simple?: boolean;
  /** Policy variables the readable form reads (emitted as `spec.variables` when it has a policy of its own). */
  variables?: readonly { readonly name: string; readonly expression: string }[];
  why?: string;
}

/** `expression` with each `variables.<name>` replaced by the variable's expression in parentheses. */
function inlineVariables(expression: string, variables: readonly { readonly name: string; readonly expression: string }[]): string {
  let out = expression;
  for (const v of variables) out = out.replace(new RegExp(`\\bvariables\\.${v.name}\\b`, "g"), `(${v.expression})`);
  return out;
}

function mutationEntry(patchType: "ApplyConfiguration" | "JSONPatch", expression: string): JsonObject {
  return patchType === "JSONPatch"
    ? { patchType, jsonPatch: { expression } }
    : { patchType, applyConfiguration: { expression } };
}

function mutatorLabel(m: Mutator): string {
  return `${m.kind}/${m.id.name}`;
}

function header(m: Mutator, extra?: string): string {
  const lines = [`Gatekeeper ${m.kind} "${m.id.name}" (mutations.gatekeeper.sh/${m.version}), location: ${m.location}`];
  if (m.kind !== "AssignMetadata") {
    const tests: string[] = [];
    for (let d = 0; d < m.path.nodes.length; d++) {
      const c = m.tester.conditionAt(d);
      if (c !== undefined) tests.push(`${printPath({ nodes: m.path.nodes.slice(0, d + 1) })} ${c}`);
    }
    if (tests.length > 0) lines.push(`pathTests: ${tests.join(", ")}`);
  }
  if (extra !== undefined) lines.push(extra);
  return comment(lines.join("\n"));
}

/** Whether two mutators can apply to the same request kind. */
function kindsOverlap(a: Mutator, b: Mutator): boolean {
  if (a.kind === "AssignMetadata" || b.kind === "AssignMetadata") return true;
  const key = (x: { group: string; version: string; kind: string }) => `${x.group}/${x.version}/${x.kind}`;
  const ka = new Set(a.bindings.map((x) => key(x)));
  return b.bindings.some((x) => ka.has(key(x)));
}


/**
 * Whether two locations can affect each other's walk: they share a prefix (object nodes equal,
 * list nodes on the same list) and then either one ends inside the other, or the shared prefix
 * has a list (creating and globbing elements, and the order of appended elements, depend on
 * order), or either has a pathTest on the shared prefix.
 */
export function locationsInteract(a: Mutator, b: Mutator): boolean {
  const na = a.path.nodes;
  const nb = b.path.nodes;
  const n = Math.min(na.length, nb.length);
  let d = 0;
  let sharedList = false;
  for (; d < n; d++) {
    const x = na[d]!;
    const y = nb[d]!;
    if (x.type !== y.type) break;
    if (x.type === "Object" && y.type === "Object" && x.reference !== y.reference) break;
    if (x.type === "List") sharedList = true;
  }
  if (d === 0) return false;
  if (d >= n || sharedList) return true;
  for (let i = 0; i < d; i++) if (a.tester.conditionAt(i) !== undefined || b.tester.conditionAt(i) !== undefined) return true;
  return false;
}

/** The interference relation (see the module comment). */
export function interferes(a: Mutator, b: Mutator): boolean {
  if (!kindsOverlap(a, b)) return false;
  if (locationsInteract(a, b)) return true;
  const la = labelWritten(a);
  if (la !== undefined && readsLabel(b, la)) return true;
  const lb = labelWritten(b);
  if (lb !== undefined && readsLabel(a, lb)) return true;
  return false;
}

/** A DNS-subdomain policy name for a group (mutator names may have capitals; made unique by a counter). */
function policyName(prefix: string, group: readonly Mutator[], used: Set<string>, bundled = false): string {
  const m = group[0]!;
  let base = `${prefix}${m.kind.toLowerCase()}-${m.id.name}${bundled ? "-bundle" : group.length === 1 ? "" : "-group"}`
    .toLowerCase()
    .replace(/[^-a-z0-9.]/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .replace(/[^a-z0-9]+$/, "");
  if (base === "") base = "gatekeeper";
  base = base.slice(0, 240);
  let name = base;
  for (let i = 2; used.has(name); i++) name = `${base}-${i}`;
  used.add(name);
  return name;
}

/**
 * Guard conditions of one mutator (everything Gatekeeper matches on); `namespaces: false` for a
 * policy that never matches a Namespace (see `matchConditions`).
 */
function guardConditions(m: Mutator, applyToImplied = false, namespaces = true, more: MatchOptions = {}): Condition[] {
  const out: Condition[] = [];
  const at = applyToImplied ? undefined : applyToCel(m);
  if (at !== undefined) out.push({ name: "gatekeeper-apply-to", expression: at });
  out.push(...matchConditions(m.match, { namespaces, ...more }));
  return out;
}

/**
 * A compile hook for the self-check that compiles each shape of expression once. The repeated
 * passes of a group give the same expression up to the leading `//` header, and mutators with
 * the same location and match shape give the same expression up to the contents of string
 * literals. Neither can change whether an expression compiles or its type: comments are not
 * parsed, and a string literal without escapes is a valid `string` whatever its contents (the
 * translator's only regular expressions are constants of its own, the keys of its map literals
 * come from JSON objects, so they are distinct). So the key is the text without header
 * comments and with every escape-free string literal emptied; only successes are remembered (a
 * failing expression is compiled and reported as written).
 */
export function cachedCompile(hook: CompileExpression): CompileExpression {
  const ok = new Set<string>();
  return (req) => {
    if (req.kind === "variable" || req.variables.length > 0) return hook(req);
    const body = req.expression.replace(/^(?:[ \t]*\/\/[^\n]*\n)+/, "").replace(/"(?:[^"\\\n]|\\.)*"/g, (lit) => (lit.includes("\\") ? lit : '""'));
    const key = `${req.kind}\u0000${req.hasParams}\u0000${JSON.stringify(req.paramKind ?? null)}\u0000${req.hasAuthorizer}\u0000${req.hasPatchTypes}\u0000${req.envType}\u0000${body}`;
    if (ok.has(key)) return [];
    const issues = hook(req);
    if (issues.length === 0) ok.add(key);
    return issues;
  };
}

/** Translates Gatekeeper mutator resources (parsed documents); see the module comment. */
export function translate(mutators: readonly unknown[], options: TranslateOptions = {}): TranslateResult {
  const apiVersion = options.apiVersion ?? "v1";
  const [maj, min] = minVersionOf(options);
  const hasFlatten = maj > 1 || min >= 34;
  const failurePolicy = options.failurePolicy ?? "Fail";
  const reinvocation = options.reinvocationPolicy ?? "Never";
  const prefix = options.namePrefix ?? "gatekeeper-";
  const catalog = options.catalog ?? ResourceCatalog.builtin();
  const verdicts: Verdict[] = [];
  const issues: string[] = [];
  const webhook = webhookScope(options.webhook);
  const compileShapes = cachedCompile(policyCompileHook);
  // A merged mutation `(A) +\n(B) …` compiles exactly when each part does (each is a
  // list(JSONPatch) expression, so their sum is one): the self-check looks at the parts, whose
  // shapes repeat, instead of compiling every new combination in full.
  const mergedParts = new Map<string, readonly string[]>();
  const compileOnce: CompileExpression = (req) => {
    const parts = req.kind === "variable" || req.variables.length > 0 ? undefined : mergedParts.get(req.expression);
    if (parts !== undefined && parts.every((x) => compileShapes({ ...req, expression: x }).length === 0)) return [];
    return compileShapes(req);
  };

  // 1. Gatekeeper's validation.
  const valid: Mutator[] = [];
  for (const doc of mutators) {
    const r = compileMutator(doc);
    if (r.ok) valid.push(r.mutator);
    else {
      const { kind, name } = docName(doc);
      verdicts.push({
        mutator: `${kind}/${name}`,
        kind,
        name,
        verdict: "refused",
        reasons: r.issues.map((i) => ({ path: i.path.toString(), message: `refused: Gatekeeper rejects this mutator: ${i.message}` })),
        notes: [],
      });
    }
  }
  valid.sort((a, b) => byteCompare(a.kind, b.kind) || byteCompare(a.id.name, b.id.name));
  const systemSize = valid.length;

  // 2. Schema conflicts (Gatekeeper skips every mutator involved).
  const db = new SchemaDB();
  for (const m of valid) if (hasSchema(m)) db.add(m);
  const conflicting = new Set(db.conflicts().map(idString));

  // 3. Per-mutator verdicts and expressions.
  const entries: Entry[] = [];
  for (const m of valid) {
    const reasons: VerdictReason[] = [];
    const notes: string[] = [];
    if (conflicting.has(idString(m.id))) {
      notes.push("not emitted: Gatekeeper disables it (conflicting schemas with another mutator of the set)");
      verdicts.push({ mutator: mutatorLabel(m), kind: m.kind, name: m.id.name, verdict: "exact", reasons, notes });
      continue;
    }
    if (m.match.source === "Generated") {
      notes.push("not emitted: match.source Generated never applies at admission");
      verdicts.push({ mutator: mutatorLabel(m), kind: m.kind, name: m.id.name, verdict: "exact", reasons, notes });
      continue;
    }
    if ((m.kind === "Assign" || m.kind === "AssignMetadata") && m.assign.externalData !== undefined) {
      reasons.push({
        path: "spec.parameters.assign.externalData",
        message: "refused: external data providers are called by Gatekeeper's webhook; a MAP cannot call out",
      });
    }
    for (const [field, sel] of [["spec.match.labelSelector", m.match.labelSelector], ["spec.match.namespaceSelector", m.match.namespaceSelector]] as const) {
      if (sel === undefined) continue;
      try {
        compileSelector(sel);
      } catch (e) {
        reasons.push({ path: field, message: `refused: invalid selector (Gatekeeper fails every request it evaluates it on): ${(e as Error).message}` });
      }
    }
    if (reasons.length > 0) {
      verdicts.push({ mutator: mutatorLabel(m), kind: m.kind, name: m.id.name, verdict: "refused", reasons, notes });
      continue;
    }
    // The readable form where it is provably the same (simple.ts), else the exact JSONPatch walk.
    const simple = options.form === "exact" ? undefined : simpleForm(m);
    const cel = simple !== undefined ? { ...simple, usesFlatten: simple.usesFlatten === true } : mutationCel(m, new Names());
    if (cel.usesFlatten && !hasFlatten) {
      reasons.push({ path: "spec.location", message: "refused: list traversal needs list.flatten() (CEL lists extension), available in MAP from Kubernetes 1.34" });
      verdicts.push({ mutator: mutatorLabel(m), kind: m.kind, name: m.id.name, verdict: "refused", reasons, notes });
      continue;
    }
    if (cel.patchType === "JSONPatch" && !cel.expression.includes("JSONPatch{")) {
      // Its pathTests rule out every object (e.g. MustNotExist on a parent of a glob that would
      // have to be created): it can neither change anything nor fail.
      notes.push("not emitted: it never changes an object (its pathTests exclude every case where it would)");
      verdicts.push({ mutator: mutatorLabel(m), kind: m.kind, name: m.id.name, verdict: "exact", reasons, notes });
      continue;
    }
    const diffs: VerdictReason[] = [];
    if (m.kind === "ModifySet" && containsNumber(m.values)) {
      diffs.push({
        path: "spec.parameters.values.fromList",
        message: "difference: CEL equality treats an integer and a float with the same value as equal (1 == 1.0); Gatekeeper does not",
      });
    }
    if (m.kind === "Assign" && containsUnsafeInteger(m.assign.value)) {
      diffs.push({ path: "spec.parameters.assign.value", message: "difference: integers beyond 2^53 become JSON strings in MAP's patch conversion" });
    }
    for (const p of schemaProblems(m)) {
      diffs.push({
        path: "spec.location",
        message: `difference: ${p}; where Gatekeeper writes it, MAP's strict decoding of the patched built-in object fails the request (HTTP 500, whatever the failure policy)`,
      });
    }
    if (failurePolicy === "Ignore") {
      diffs.push({
        path: "spec",
        message: "difference: failurePolicy Ignore drops only the failing policy's mutation; Gatekeeper drops every mutation of the request on any error",
      });
    }
    entries.push({
      m,
      verdict: diffs.length > 0 ? "difference" : "exact",
      reasons: diffs,
      notes,
      expression: cel.expression,
      patchType: cel.patchType,
      simple: simple !== undefined,
      ...(simple?.variables !== undefined && simple.variables.length > 0 ? { variables: simple.variables } : {}),
      why: simple?.why ?? (cel.patchType === "ApplyConfiguration" ? "AssignMetadata: labels and annotations are granular maps, so an apply sets exactly the absent key" : "the full JSONPatch walk: only it is exact here (creating elements, pathTests, sets, image parsing, or a schemaless kind)"),
    });
  }

  // 4. Groups (union-find over the interference relation).
  const parent = entries.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      if (interferes(entries[i]!.m, entries[j]!.m)) parent[find(j)] = find(i);
    }
  }
  const groups = new Map<number, Entry[]>();
  entries.forEach((e, i) => {
    const r = find(i);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(e);
  });
  // The readable forms are for mutators that interact with no other: a group's passes, merges
  // and fast path are proved for the full walk, which also fails where Gatekeeper fails on an
  // element of the wrong shape that another member's write can meet.
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    for (const e of g) {
      if (e.simple !== true) continue;
      const c = mutationCel(e.m, new Names());
      if (c.usesFlatten && !hasFlatten) continue;
      e.expression = c.expression;
      e.patchType = c.patchType;
      e.simple = false;
      delete e.variables;
      e.why = "grouped with interacting mutators: the full JSONPatch walk, whose passes and merges are proved for the group";
    }
  }

  // 5. Bundles: with failurePolicy Fail, independent groups that give the same resource rules
  // share one policy (each member guarded by its own match criteria), so the apiserver matches
  // one policy instead of one per group and evaluates no matchConditions in either pass. Groups
  // are independent (no mutator's write reaches another group's read), so their order in the
  // bundle is irrelevant, and any mutation error denies the request whichever policy holds it.
  // With Ignore, a policy's error drops only that policy's mutations: groups keep their own.
  const ruleKey = (rs: readonly Record<string, unknown>[]) => [...new Set(rs.map((r) => JSON.stringify(r)))].sort().join("\n");
  const groupRules = (g: readonly Entry[]): Record<string, unknown>[] => {
    const rules: Record<string, unknown>[] = [];
    const seen = new Set<string>();
    for (const e of g) {
      for (const r of resourceRules(e.m, catalog)) {
        const k = JSON.stringify(r);
        if (!seen.has(k)) {
          seen.add(k);
          rules.push(r);
        }
      }
    }
    return rules;
  };
  const bundles: Entry[][][] = [];
  const bundleOf = new Map<string, Entry[][]>();
  // Groups with a fast path keep a policy of their own (its matchCondition is the group's).
  const fastGroups = new Set<Entry[]>();
  for (const group of groups.values()) {
    if (
      failurePolicy === "Fail" &&
      options.fastPath !== false &&
      group.length > 1 &&
      group.every((e) => e.patchType === "JSONPatch") &&
      schedule(group.map((e) => e.m)) !== undefined &&
      fastPath(
        group.map((e) => e.m),
        group.map(() => undefined),
        1,
      ) !== undefined
    ) {
      fastGroups.add(group);
      bundles.push([group]);
      continue;
    }
    if (failurePolicy !== "Fail" || options.bundle === false) {
      bundles.push([group]);
      continue;
    }
    const k = ruleKey(groupRules(group));
    let b = bundleOf.get(k);
    if (b === undefined) {
      bundleOf.set(k, (b = []));
      bundles.push(b);
    }
    b.push(group);
  }

  // 6. Emit.
  const policies: JsonObject[] = [];
  const bindings: JsonObject[] = [];
  const apiVersionString = `${GROUP}/${apiVersion}`;
  const usedNames = new Set<string>();
  for (const bundle of bundles) {
    const all = bundle.flat();
    const ms = all.map((e) => e.m);
    let name = policyName(prefix, ms, usedNames, bundle.length > 1);
    let spec: JsonObject;
    /** The fast path's policy, emitted before this one (`fast.ts`). */
    let fastPolicy: JsonObject | undefined;
    /** Passes of each group (by its first entry). */
    const passesOf = new Map<Entry, number>();
    if (all.length === 1) {
      const e = all[0]!;
      const m = e.m;
      // Alone, a mutator is idempotent, except AssignImage on a malformed reference (`a/b:c/d`
      // takes Gatekeeper two passes to settle). When it is the only mutator of the system,
      // Gatekeeper allows two passes, the second of which must change nothing: the second
      // mutation then fails where one more run would still change the object.
      // The readable forms (simple.ts) write constants: idempotent by construction, one pass.
      const passes = e.simple === true ? 1 : Math.min(systemSize, schedule([m])?.passes ?? 1);
      passesOf.set(e, passes);
      const more = e.simple !== true && (schedule([m])?.passes ?? 1) > passes && e.patchType === "JSONPatch";
      // Criteria the resource rules already decide are left out: applyTo when the rules name
      // exactly its kinds and operations, match.kinds and a Namespaced scope when every kind the
      // rules admit meets them, and the scope itself goes to the rules (same semantics).
      const known = knownKinds(m, catalog);
      const applyToImplied = known !== undefined && m.kind !== "AssignMetadata" && m.applyTo.every((a) => effectiveOperations(a).some((o) => o === "CREATE" || o === "UPDATE"));
      const scope = m.match.scope === "Namespaced" || m.match.scope === "Cluster" ? m.match.scope : "*";
      const constraints: JsonObject = { resourceRules: resourceRules(m, catalog).map((r) => ({ ...r, scope })), matchPolicy: "Exact" };
      const nsSel = andSelectors(webhook.selector, m.match.namespaceSelector);
      if (nsSel !== undefined) constraints.namespaceSelector = nsSel;
      const conds = [...webhook.conditions, ...guardConditions(m, applyToImplied, true, { ...(known !== undefined ? { known } : {}), scopeInRules: true })];
      spec = {
        matchConstraints: constraints,
        ...(conds.length > 0 ? { matchConditions: conds } : {}),
        ...(e.variables !== undefined ? { variables: e.variables.map((v) => ({ name: v.name, expression: v.expression })) } : {}),
        failurePolicy,
        reinvocationPolicy: reinvocation,
        mutations: [
          ...Array.from({ length: passes }, (_, i) =>
            mutationEntry(e.patchType!, `${i === 0 ? header(m) : comment(`Gatekeeper pass ${i + 1} of ${passes}: ${m.kind} "${m.id.name}", as in pass 1`)}\n${e.expression!}`),
          ),
          ...(more
            ? [
                mutationEntry(
                  "JSONPatch",
                  `${comment(`Gatekeeper pass ${passes + 1} of ${passes + 1}, which must change nothing: ${m.kind} "${m.id.name}"`)}\n` +
                    `size(${e.expression!}) == 0 ? [] : ${errorOp("mutation not converging")}`,
                ),
              ]
            : []),
        ],
      };
    } else {
      const rules = groupRules(all);
      // A member whose applyTo gives exactly the policy's resource rules (known resources, CREATE
      // or UPDATE in every entry) needs no applyTo guard: with matchPolicy Exact the policy
      // only runs for those group/version/resource/operations, i.e. for those kinds.
      const allRules = ruleKey(rules);
      const implied = (m: Mutator) =>
        m.kind !== "AssignMetadata" &&
        rules.every((r) => !(r.resources as string[]).includes("*")) &&
        m.applyTo.every((a) => effectiveOperations(a).some((o) => o === "CREATE" || o === "UPDATE")) &&
        ruleKey(resourceRules(m, catalog)) === allRules;
      // Each member's match criteria, named as the matchConditions of a policy of its own would be.
      const guardOf = (e: Entry, namespaces = true): { guard: string | undefined; names: string[] } => {
        const cs = guardConditions(e.m, implied(e.m), namespaces);
        const ns = e.m.match.namespaceSelector !== undefined ? namespaceSelectorGuard(e.m.match.namespaceSelector) : undefined;
        if (ns !== undefined) cs.push({ name: "gatekeeper-match-namespace-selector", expression: ns });
        if (cs.length === 0) return { guard: undefined, names: [] };
        return { guard: cs.map((c) => `(${c.expression})`).join(" &&\n "), names: cs.map((c) => c.name) };
      };
      const guarded = (e: Entry): string => {
        const { guard, names } = guardOf(e);
        const none = e.patchType === "JSONPatch" ? "[]" : "Object{}";
        // Several mutators share this policy: a readable form's variables are written in place.
        const body = inlineVariables(e.expression!, e.variables ?? []);
        // The body in parentheses: CEL's grammar takes only a conditionalOr between `?` and `:`, so a
        // body that is itself a conditional (a keyed form's `i < 0 ? [] : [...]`) must be grouped.
        return guard === undefined ? body : `${comment(`match: ${names.join(" && ")}`)}\n(${guard}) ?\n(${body}\n) :\n${none}`;
      };
      // Lone AssignMetadata mutators of the bundle (ApplyConfiguration): one mutation for all.
      const lone = bundle.filter((g) => g.length === 1 && g[0]!.patchType === "ApplyConfiguration" && g[0]!.m.kind === "AssignMetadata");
      const metadataBundle =
        lone.length >= 2
          ? assignMetadataBundle(
              lone.map((g) => {
                const e = g[0]!;
                const { guard, names } = guardOf(e);
                return { m: e.m, guard, comment: comment(`${mutatorLabel(e.m)} (mutations.gatekeeper.sh/${e.m.version}), location: ${e.m.location}${names.length > 0 ? `\nmatch: ${names.join(" && ")}` : ""}`) };
              }),
            )
          : undefined;
      // The bundle's mutations in order, then merged where provably the same (merge.ts).
      const items: { m: Mutator | undefined; patchType: "ApplyConfiguration" | "JSONPatch"; text: string }[] = [];
      for (const group of bundle) {
        if (metadataBundle !== undefined && lone.includes(group)) {
          passesOf.set(group[0]!, 1);
          if (group !== lone[0]) continue;
          const head = comment(
            `Gatekeeper AssignMetadata ${lone.map((g) => `"${g[0]!.m.id.name}"`).join(", ")}: independent of each other (distinct keys, ` +
              `none matches on a label another sets), so one ApplyConfiguration sets each absent key whose mutator matches`,
          );
          items.push({ m: undefined, patchType: "ApplyConfiguration", text: `${head}\n${metadataBundle}` });
          continue;
        }
        const gms = group.map((e) => e.m);
        const sched = schedule(gms);
        const passes = Math.min(systemSize, sched?.passes ?? (group.length === 1 ? 1 : systemSize));
        const lastPass = sched !== undefined && sched.passes <= systemSize ? sched.lastPass : gms.map(() => passes);
        passesOf.set(group[0]!, passes);
        const bodies = group.map(guarded);
        for (let pass = 1; pass <= passes; pass++) {
          group.forEach((e, i) => {
            if (pass > lastPass[i]!) return;
            const where =
              group.length === 1
                ? passes === 1
                  ? undefined
                  : `Gatekeeper pass ${pass} of ${passes}`
                : `Gatekeeper pass ${pass} of ${passes} (mutator ${i + 1} of ${group.length} in this group)`;
            // Later passes repeat the first one's expression; a one-line header keeps them small.
            const head = pass === 1 ? header(e.m, where) : comment(`${where!}: ${e.m.kind} "${e.m.id.name}", as in pass 1`);
            items.push({ m: e.m, patchType: e.patchType!, text: `${head}\n${bodies[i]!}` });
          });
        }
      }
      const mutations: JsonObject[] = [];
      let run: typeof items = [];
      const flush = () => {
        if (run.length === 0) return;
        const text =
          run.length === 1
            ? run[0]!.text
            : `${comment(`${run.length} consecutive mutations in one: none reads what an earlier one writes or creates (merge.ts)`)}\n` +
              run.map((x) => `(\n${x.text}\n)`).join(" +\n");
        if (run.length > 1) mergedParts.set(text, run.map((x) => x.text));
        mutations.push(mutationEntry(run[0]!.patchType, text));
        run = [];
      };
      for (const x of items) {
        const joins =
          failurePolicy === "Fail" &&
          options.merge !== false &&
          x.patchType === "JSONPatch" &&
          x.m !== undefined &&
          run.length > 0 &&
          run.length < MAX_MERGED &&
          run.every((y) => y.patchType === "JSONPatch" && y.m !== undefined && mergeable(y.m, x.m!, catalog));
        if (!joins) flush();
        run.push(x);
      }
      flush();
      const matchConstraints = { resourceRules: rules, matchPolicy: "Exact", ...(webhook.selector !== undefined ? { namespaceSelector: webhook.selector } : {}) };
      const group = bundle[0]!;
      // The fast policy's guards leave out the Namespace case when its rules never match one.
      const mayMatchNamespace = rules.some((r) => (r.resources as string[]).some((x) => x === "*" || x === "namespaces"));
      const fp = fastGroups.has(group)
        ? fastPath(
            group.map((e) => e.m),
            group.map((e) => guardOf(e, mayMatchNamespace).guard),
            passesOf.get(group[0]!) ?? 1,
          )
        : undefined;
      const fastName = `${name}-fast`;
      const fullName = `${name}-full`;
      if (fp !== undefined && !usedNames.has(fastName) && !usedNames.has(fullName)) {
        const passes = passesOf.get(group[0]!) ?? 1;
        const listed = group.slice(0, 8).map((e) => `${e.m.kind} "${e.m.id.name}"`).join(", ") + (group.length > 8 ? ` and ${group.length - 8} more` : "");
        const head = comment(
          `Gatekeeper ${listed}: all ${passes} pass${passes === 1 ? "" : "es"} of the group in one mutation.\n` +
            `Runs only when every node more than one of them walks through exists (matchCondition gatekeeper-fast-path): then they\n` +
            `create nothing another one reads, and each field several of them write is their functions composed in Gatekeeper's\n` +
            `order, once per pass (fast.ts). Otherwise policy ${fullName} runs them one by one.`,
        );
        const candidate: JsonObject = {
          apiVersion: `${GROUP}/${apiVersion}`,
          kind: "MutatingAdmissionPolicy",
          metadata: { name: fastName, annotations: { "celmap.io/gatekeeper-mutators": ms.map(mutatorLabel).join(", ") } },
          spec: {
            matchConstraints,
            matchConditions: [...webhook.conditions, { name: "gatekeeper-fast-path", expression: fp.condition }],
            failurePolicy,
            reinvocationPolicy: reinvocation,
            mutations: [mutationEntry("JSONPatch", `${head}\n${fp.expression}`)],
          },
        };
        // A fast path the apiserver would not accept (a large group's one expression over the
        // 100,000-character limit) is left out: the group's own policy alone is exact.
        if (prepareMutatingAdmissionPolicy(candidate, { compileExpression: compileOnce }).ok) {
          usedNames.add(fastName);
          usedNames.add(fullName);
          name = fullName;
          fastPolicy = candidate;
        }
      }
      spec = {
        matchConstraints,
        ...(fastPolicy !== undefined
          ? { matchConditions: [...webhook.conditions, { name: "gatekeeper-not-fast-path", expression: `!(${fp!.condition})` }] }
          : webhook.conditions.length > 0
            ? { matchConditions: webhook.conditions }
            : {}),
        failurePolicy,
        reinvocationPolicy: reinvocation,
        mutations,
      };
    }
    if (fastPolicy !== undefined) {
      const fastName = (fastPolicy.metadata as { name: string }).name;
      const fastBinding: JsonObject = { apiVersion: apiVersionString, kind: "MutatingAdmissionPolicyBinding", metadata: { name: fastName }, spec: { policyName: fastName } };
      policies.push(fastPolicy);
      bindings.push(fastBinding);
    }
    const policy: JsonObject = {
      apiVersion: apiVersionString,
      kind: "MutatingAdmissionPolicy",
      metadata: {
        name,
        annotations: { "celmap.io/gatekeeper-mutators": ms.map(mutatorLabel).join(", ") },
      },
      spec,
    };
    const binding: JsonObject = {
      apiVersion: apiVersionString,
      kind: "MutatingAdmissionPolicyBinding",
      metadata: { name },
      spec: { policyName: name },
    };
    const pv = prepareMutatingAdmissionPolicy(policy, { compileExpression: compileOnce });
    if (!pv.ok) issues.push(`policy ${name}: ${pv.message}`);
    const bv = prepareMutatingAdmissionPolicyBinding(binding);
    if (!bv.ok) issues.push(`binding ${name}: ${bv.message}`);
    policies.push(policy);
    bindings.push(binding);
    for (const group of bundle) {
      const gms = group.map((e) => e.m);
      const creates = gms.filter((m) => m.path.nodes.some((n, d) => n.type === "List" && !n.glob && m.tester.conditionAt(d) !== "MustExist"));
      const passes = passesOf.get(group[0]!) ?? 1;
      for (const e of group) {
        const notes = [...e.notes];
        const hasMustNot = e.m.path.nodes.some((_, d) => e.m.tester.conditionAt(d) === "MustNotExist") || e.m.kind === "AssignMetadata";
        const others = creates.filter((c) => c !== e.m);
        if (hasMustNot && others.length > 0 && e.m.kind !== "AssignMetadata") {
          notes.push(
            `defaulting: the apiserver defaults the object after every MAP mutation, Gatekeeper's passes see list elements created by ${others.map(mutatorLabel).join(", ")} before any defaulting — a MustNotExist test on a field with an API default (e.g. imagePullPolicy) may then not apply to them in the cluster (gatekeeper.md §5.7)`,
          );
        }
        if (group.length > 1) {
          notes.push(
            `grouped with ${gms.filter((x) => x !== e.m).map(mutatorLabel).join(", ")}: they interact, so one policy reproduces Gatekeeper's order and ${passes} pass${passes === 1 ? "" : "es"}` +
              (passes === systemSize ? " (a set that never converges is rejected by Gatekeeper but not by the policy)" : ""),
          );
        }
        if (fastPolicy !== undefined) {
          notes.push(`fast path: policy ${(fastPolicy.metadata as { name: string }).name} runs the whole group as one mutation when every node its members share exists; this policy runs otherwise`);
        }
        if (bundle.length > 1) {
          notes.push(`bundled in one policy with the other groups of the same resource rules (independent of this one); its match criteria guard its mutations (a comment names them)`);
        }
        verdicts.push({
          mutator: mutatorLabel(e.m),
          kind: e.m.kind,
          name: e.m.id.name,
          verdict: e.verdict,
          reasons: e.reasons,
          notes,
          policy: name,
          form: { patchType: e.patchType!, readable: e.simple === true, why: e.why ?? "", passes },
        });
      }
    }
  }
  return { policies, bindings, verdicts, issues };
}
