/**
 * Pod-controller autogen for (Namespaced)MutatingPolicy, done on the syntax
 * tree (Kyverno v1.19 `pkg/cel/policies/mpol/autogen/autogen.go` does it with
 * regular expressions over the text).
 *
 * Same as Kyverno: eligibility (`CanAutoGen`), controller selection
 * (`spec.autogen.podControllers.controllers`, all six when unset, `[]` none),
 * the two configs `defaults` (apps/v1 daemonsets, deployments, replicasets,
 * statefulsets; batch/v1 jobs; prefix `spec.template`) and `cronjobs`
 * (batch/v1 cronjobs; prefix `spec.jobTemplate.spec.template`), the rebuilt
 * matchConstraints (one rule per group/version, resources sorted, operations
 * and namespaceSelector copied, everything else dropped), targets sorted.
 *
 * Different from Kyverno, on purpose (each one is a Kyverno bug or gap):
 * - `Object.metadata{…}` (and every `Object.<path>{…}` type name) is renamed to
 *   its template path, so a pod mutation that sets metadata works on
 *   controllers (Kyverno #17438: it leaves `Object.metadata{` and the
 *   type-name/path check then fails for every controller kind).
 * - JSONPatch paths (`path`/`from` of `JSONPatch{…}`: string literals, and the
 *   leftmost literal of a `+` concatenation, through conditionals) that start
 *   with `/spec` or `/metadata/labels|annotations` get the template prefix
 *   (Kyverno #15474: it leaves JSONPatch alone, so pod paths hit the controller).
 * - Every `Object{…}` is wrapped, not only one at the start of the text, so
 *   `cond ? Object{…} : Object{}` works; an empty `Object{}` stays empty.
 * - `variables` are rewritten too (Kyverno leaves them: a variable reading
 *   `object.spec.containers` reads the controller's spec).
 * - Names bound by macros (`l.map(object, …)`) are not rewritten; text
 *   replacement would.
 * Same as Kyverno (kept deliberately): `object.metadata.name`/`namespace` and
 * the rest of `metadata` other than labels and annotations stay the
 * controller's; `namespaceObject`, auditAnnotations and targetMatch* are not
 * touched.
 */
import type { Expr, StructField } from "../cel/ast.js";
import { Op } from "../cel/ast.js";
import { parse, type ParseOptions } from "../cel/parser.js";
import { unparse } from "../cel/unparse.js";

/** Policy objects are plain JSON here (the MutatingPolicy model lives in policy.ts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const PARSE_OPTIONS: ParseOptions = {
  macros: new Set(["standard", "twoVar", "optional", "bind"]),
  enableOptionalSyntax: true,
  enableIdentEscapeSyntax: true,
};

export type AutogenConfigName = "defaults" | "cronjobs";

export interface Target {
  group: string;
  version: string;
  resource: string;
  kind: string;
}

export const CONTROLLERS: Record<string, { target: Target; config: AutogenConfigName }> = {
  daemonsets: { target: { group: "apps", version: "v1", resource: "daemonsets", kind: "DaemonSet" }, config: "defaults" },
  deployments: { target: { group: "apps", version: "v1", resource: "deployments", kind: "Deployment" }, config: "defaults" },
  replicasets: { target: { group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet" }, config: "defaults" },
  statefulsets: { target: { group: "apps", version: "v1", resource: "statefulsets", kind: "StatefulSet" }, config: "defaults" },
  jobs: { target: { group: "batch", version: "v1", resource: "jobs", kind: "Job" }, config: "defaults" },
  cronjobs: { target: { group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob" }, config: "cronjobs" },
};

/** Path from the controller object to the pod template, per config. */
export const TEMPLATE_PATH: Record<AutogenConfigName, readonly string[]> = {
  defaults: ["spec", "template"],
  cronjobs: ["spec", "jobTemplate", "spec", "template"],
};

export interface AutogenConfig {
  targets: Target[];
  spec: Json;
}

export interface AutogenResult {
  /** `status.autogen.configs` as Kyverno writes it, keyed `defaults` / `cronjobs`. */
  configs: Partial<Record<AutogenConfigName, AutogenConfig>>;
  /** Where our output differs from Kyverno's text replacement, or what could not be rewritten. */
  notes: string[];
}

/** Kyverno's `CanAutoGen`. */
export function canAutogen(match: Json): boolean {
  if (match == null) return false;
  const os = match.objectSelector;
  if (os != null && (Object.keys(os.matchLabels ?? {}).length > 0 || (os.matchExpressions ?? []).length > 0)) return false;
  if ((match.excludeResourceRules ?? []).length !== 0) return false;
  const rules = match.resourceRules ?? [];
  if (rules.length !== 1) return false;
  const r = rules[0];
  if ((r.resourceNames ?? []).length > 0) return false;
  const one = (l: unknown, v: string) => Array.isArray(l) && l.length === 1 && l[0] === v;
  return one(r.apiGroups, "") && one(r.apiVersions, "v1") && one(r.resources, "pods");
}

/** The autogen configs of a (Namespaced)MutatingPolicy (plain object). */
export function autogen(policy: Json): AutogenResult {
  const notes: string[] = [];
  const spec = policy?.spec;
  if (spec == null || !canAutogen(spec.matchConstraints)) return { configs: {}, notes };
  const listed: unknown = spec.autogen?.podControllers?.controllers;
  const controllers = Array.isArray(listed) ? (listed as string[]) : Object.keys(CONTROLLERS);
  const mapping = new Map<AutogenConfigName, Target[]>();
  for (const c of controllers) {
    const def = CONTROLLERS[c];
    if (def === undefined) continue;
    mapping.set(def.config, [...(mapping.get(def.config) ?? []), { ...def.target }]);
  }
  const configs: AutogenResult["configs"] = {};
  for (const name of [...mapping.keys()].sort()) {
    const targets = (mapping.get(name) as Target[]).sort(
      (a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.resource, b.resource) || cmp(a.kind, b.kind),
    );
    const s = treeCopy(spec); // not structuredClone: shared sub-objects must not be rewritten twice
    const operations = spec.matchConstraints.resourceRules[0].operations;
    s.matchConstraints = matchConstraints(targets, operations, spec.matchConstraints.namespaceSelector);
    const where = (what: string) => `${name}: ${what}`;
    for (const [i, mc] of (s.matchConditions ?? []).entries()) {
      if (typeof mc?.expression === "string" && mc.expression !== "") mc.expression = rewrite(mc.expression, name, notes, where(`matchConditions[${i}]`));
    }
    for (const [i, v] of (s.variables ?? []).entries()) {
      if (typeof v?.expression === "string" && v.expression !== "") {
        const out = rewrite(v.expression, name, notes, where(`variables[${i}]`));
        if (out !== v.expression) notes.push(where(`variables[${i}] (${v.name}) rewritten; Kyverno leaves variables as written`));
        v.expression = out;
      }
    }
    for (const [i, m] of (s.mutations ?? []).entries()) {
      const ac = m?.applyConfiguration;
      if (typeof ac?.expression === "string" && ac.expression !== "") ac.expression = rewrite(ac.expression, name, notes, where(`mutations[${i}].applyConfiguration`));
      const jp = m?.jsonPatch;
      if (typeof jp?.expression === "string" && jp.expression !== "") {
        const out = rewrite(jp.expression, name, notes, where(`mutations[${i}].jsonPatch`));
        if (out !== jp.expression) notes.push(where(`mutations[${i}].jsonPatch paths rewritten; Kyverno leaves JSONPatch paths as pod paths (#15474)`));
        jp.expression = out;
      }
    }
    configs[name] = { targets, spec: s };
  }
  return { configs, notes };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Kyverno's `CreateMatchConstraints`. */
function matchConstraints(targets: Target[], operations: unknown, namespaceSelector: unknown): Json {
  const byGv = new Map<string, { group: string; version: string; resources: Set<string> }>();
  for (const t of targets) {
    const k = `${t.group}/${t.version}`;
    const e = byGv.get(k) ?? { group: t.group, version: t.version, resources: new Set<string>() };
    e.resources.add(t.resource);
    byGv.set(k, e);
  }
  const rules = [...byGv.values()]
    .sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version))
    .map((e) => ({ apiGroups: [e.group], apiVersions: [e.version], resources: [...e.resources].sort(), operations: structuredClone(operations) }));
  const out: Json = { resourceRules: rules };
  if (namespaceSelector != null) out.namespaceSelector = structuredClone(namespaceSelector);
  return out;
}

// ---------------------------------------------------------------------------
// The syntax-tree rewrite

/**
 * Rewrite one pod-level expression for a controller config. The tree is first
 * turned into its surface form (macros as written), rewritten, and printed; an
 * expression that does not parse is returned unchanged with a note.
 */
export function rewrite(source: string, config: AutogenConfigName, notes: string[] = [], where = "expression"): string {
  let parsed;
  try {
    parsed = parse(source, PARSE_OPTIONS);
  } catch (e) {
    notes.push(`${where}: does not parse, left as written: ${String((e as Error).message ?? e).split("\n")[0]}`);
    return source;
  }
  const surface = toSurface(parsed.expr, parsed.sourceInfo.macroCalls);
  const r = new Rewriter(TEMPLATE_PATH[config], notes, where);
  const out = r.expr(surface, new Set());
  return r.changed ? unparse(out) : source;
}

/** Replace each macro expansion by its call as written (recursively). */
function toSurface(e: Expr, macros: ReadonlyMap<number, Expr>): Expr {
  const m = e.kind === "comprehension" || e.kind === "call" || e.kind === "select" ? macros.get(e.id) : undefined;
  if (m !== undefined && m !== e) return toSurface(m, macros);
  const s = (x: Expr) => toSurface(x, macros);
  switch (e.kind) {
    case "const":
    case "ident":
      return e;
    case "select":
      return { ...e, operand: s(e.operand) };
    case "call":
      return e.target === undefined ? { ...e, args: e.args.map(s) } : { ...e, target: s(e.target), args: e.args.map(s) };
    case "list":
      return { ...e, elements: e.elements.map(s) };
    case "map":
      return { ...e, entries: e.entries.map((x) => ({ ...x, key: s(x.key), value: s(x.value) })) };
    case "struct":
      return { ...e, fields: e.fields.map((f) => ({ ...f, value: s(f.value) })) };
    case "comprehension":
      throw new Error("comprehension without a macro call");
  }
}

const MACROS = new Set([
  "all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap", "transformMapEntry",
  "optMap", "optFlatMap", "sortBy", "bind",
]);

const ROOTS = new Set(["object", "oldObject"]);

class Rewriter {
  changed = false;
  constructor(
    private readonly prefix: readonly string[],
    private readonly notes: string[],
    private readonly where: string,
  ) {}

  /** `object` / `oldObject` / `request.object` / `request.oldObject`, when not shadowed. */
  private isRoot(e: Expr, bound: ReadonlySet<string>): boolean {
    if (e.kind === "ident") return ROOTS.has(e.name) && !bound.has(e.name);
    if (e.kind === "select" && !e.testOnly && e.operand.kind === "ident") return e.operand.name === "request" && !bound.has("request") && ROOTS.has(e.field);
    return false;
  }

  /** Insert the template path between the root and `spec` / `metadata`. */
  private prefixed(root: Expr): Expr {
    let out = root;
    for (const f of this.prefix) out = { kind: "select", id: 0, operand: out, field: f, testOnly: false };
    return out;
  }

  expr(e: Expr, bound: ReadonlySet<string>): Expr {
    const x = (y: Expr) => this.expr(y, bound);
    switch (e.kind) {
      case "const":
      case "ident":
      case "comprehension":
        return e;
      case "select": {
        // R.spec → R.spec.template.spec
        if (e.field === "spec" && this.isRoot(e.operand, bound)) {
          this.changed = true;
          return { ...e, operand: this.prefixed(e.operand) };
        }
        // R.metadata.labels|annotations → R.spec.template.metadata.…
        if ((e.field === "labels" || e.field === "annotations") && e.operand.kind === "select" && e.operand.field === "metadata" && !e.operand.testOnly && this.isRoot(e.operand.operand, bound)) {
          this.changed = true;
          return { ...e, operand: { ...e.operand, operand: this.prefixed(e.operand.operand) } };
        }
        return { ...e, operand: x(e.operand) };
      }
      case "call": {
        if (e.target === undefined && (e.fn === Op.optSelect || e.fn === Op.index || e.fn === Op.optIndex) && e.args.length === 2) {
          const [op, f] = e.args as [Expr, Expr];
          const field = f.kind === "const" && f.value.kind === "string" ? f.value.value : undefined;
          if (field === "spec" && this.isRoot(op, bound)) {
            this.changed = true;
            return { ...e, args: [this.prefixed(op), f] };
          }
          if ((field === "labels" || field === "annotations") && isMetadataOf(op) && this.isRoot(metadataOperand(op), bound)) {
            this.changed = true;
            return { ...e, args: [withMetadataOperand(op, this.prefixed(metadataOperand(op))), f] };
          }
        }
        // Macro variables shadow in the macro's body (`cel.bind(v, init, body)`: only in body).
        if (e.target !== undefined && MACROS.has(e.fn) && e.args.length >= 2) {
          const inner = new Set(bound);
          const n = e.args.length;
          for (let i = 0; i < n - 1; i++) {
            const a = e.args[i] as Expr;
            if (a.kind === "ident") inner.add(a.name);
          }
          const args = e.args.map((a, i) => this.expr(a, e.fn === "bind" && i === 1 ? bound : inner));
          return { ...e, target: x(e.target), args };
        }
        return e.target === undefined ? { ...e, args: e.args.map(x) } : { ...e, target: x(e.target), args: e.args.map(x) };
      }
      case "list":
        return { ...e, elements: e.elements.map(x) };
      case "map":
        return { ...e, entries: e.entries.map((m) => ({ ...m, key: x(m.key), value: x(m.value) })) };
      case "struct":
        return this.struct(e, bound);
    }
  }

  private struct(e: Extract<Expr, { kind: "struct" }>, bound: ReadonlySet<string>): Expr {
    const fields = e.fields.map((f) => ({ ...f, value: this.expr(f.value, bound) }));
    if (e.typeName === "JSONPatch") {
      return { ...e, fields: fields.map((f) => (f.field === "path" || f.field === "from" ? { ...f, value: this.patchPath(f.value) } : f)) };
    }
    if (e.typeName === "Object") {
      if (fields.length === 0) return { ...e, fields };
      this.changed = true;
      // Object{f…} → Object{spec: Object.spec{template: Object.spec.template{f…}}}
      let inner: Expr = { kind: "struct", id: 0, typeName: ["Object", ...this.prefix].join("."), fields };
      for (let i = this.prefix.length - 1; i >= 0; i--) {
        const field: StructField = { id: 0, field: this.prefix[i] as string, value: inner, optional: false };
        inner = { kind: "struct", id: 0, typeName: ["Object", ...this.prefix.slice(0, i)].join("."), fields: [field] };
      }
      return inner;
    }
    if (e.typeName.startsWith("Object.")) {
      this.changed = true;
      return { ...e, typeName: ["Object", ...this.prefix, e.typeName.slice("Object.".length)].join("."), fields };
    }
    return { ...e, fields };
  }

  /** A JSONPatch path expression: prefix pod paths. */
  private patchPath(e: Expr): Expr {
    if (e.kind === "const" && e.value.kind === "string") {
      const p = e.value.value;
      const pod = /^\/spec(\/|$)/.test(p) || /^\/metadata\/(labels|annotations)(\/|$)/.test(p);
      if (!pod) {
        if (/^\/metadata(\/|$)/.test(p)) this.notes.push(`${this.where}: JSONPatch path ${JSON.stringify(p)} is left on the controller (only labels and annotations of metadata move to the template, as for object.metadata)`);
        return e;
      }
      this.changed = true;
      return { ...e, value: { kind: "string", value: "/" + this.prefix.join("/") + p } };
    }
    if (e.kind === "call" && e.target === undefined && e.fn === Op.add && e.args.length === 2) {
      return { ...e, args: [this.patchPath(e.args[0] as Expr), e.args[1] as Expr] };
    }
    if (e.kind === "call" && e.target === undefined && e.fn === Op.conditional && e.args.length === 3) {
      return { ...e, args: [e.args[0] as Expr, this.patchPath(e.args[1] as Expr), this.patchPath(e.args[2] as Expr)] };
    }
    this.notes.push(`${this.where}: a JSONPatch path that is not a literal or a concatenation starting with one is left as written`);
    return e;
  }
}

function isMetadataOf(e: Expr): boolean {
  if (e.kind === "select" && !e.testOnly && e.field === "metadata") return true;
  return e.kind === "call" && e.target === undefined && e.fn === Op.optSelect && e.args[1]?.kind === "const" && e.args[1].value.kind === "string" && e.args[1].value.value === "metadata";
}
function metadataOperand(e: Expr): Expr {
  return e.kind === "select" ? e.operand : ((e as Extract<Expr, { kind: "call" }>).args[0] as Expr);
}
function withMetadataOperand(e: Expr, operand: Expr): Expr {
  if (e.kind === "select") return { ...e, operand };
  const c = e as Extract<Expr, { kind: "call" }>;
  return { ...c, args: [operand, c.args[1] as Expr] };
}

/**
 * A deep copy in which every occurrence of a shared sub-object becomes its own copy (as a JSON round
 * trip makes), keeping `bigint` integers (which JSON.stringify rejects: a policy loaded with exact
 * integers, e.g. a `value: 0` in a patch, must not crash autogen).
 */
function treeCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(treeCopy) as T;
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = treeCopy(x);
    return out as T;
  }
  return v;
}
