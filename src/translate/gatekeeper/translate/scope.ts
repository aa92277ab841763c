/**
 * Gatekeeper's `applyTo` and `match` as MAP scoping (gatekeeper.md §5.2): resource rules for
 * `matchConstraints`, the namespaceSelector, and CEL predicates (usable as matchConditions —
 * `object`, `request` only — or as guards inside a mutation expression).
 *
 * With `K = request.kind`, `IS_NS = K.group == "" && K.kind == "Namespace"`, the
 * "namespace" Gatekeeper matches `namespaces`/`excludedNamespaces` against is
 * `IS_NS ? object.metadata.name : request.?namespace.orValue("")` ("" = cluster-scoped: always passes).
 */
import type { ResourceCatalog } from "../../../admission/index.js";
import { compileSelector } from "../../../gatekeeper/index.js";
import { effectiveOperations } from "../../../gatekeeper/index.js";
import type { Mutator } from "../../../gatekeeper/index.js";
import type { LabelSelector, Match } from "../../../gatekeeper/index.js";
import { celString } from "./cel.js";

export const IS_NS = `(request.kind.group == "" && request.kind.kind == "Namespace")`;
/** The namespace Gatekeeper matches against (see the module comment). */
export const NS = `(${IS_NS} ? object.metadata.?name.orValue("") : request.?namespace.orValue(""))`;
/** The same, for a policy that never sees a Namespace object: always the request's. */
const NS_NOT_NAMESPACE = `request.?namespace.orValue("")`;
const LABELS = `object.metadata.?labels.orValue({})`;

/** A named CEL predicate. */
export interface Condition {
  readonly name: string;
  readonly expression: string;
}

/** A kind a policy's resource rules admit (all known: see {@link knownKinds}). */
export interface KnownKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface MatchOptions {
  /** False for a policy whose resource rules never match a Namespace. */
  readonly namespaces?: boolean;
  /** Every kind the policy's resource rules can admit, when known: criteria they all meet are left out. */
  readonly known?: readonly KnownKind[];
  /** The policy's resource rules carry `match.scope` (rule `scope`), so no condition is needed. */
  readonly scopeInRules?: boolean;
}

/**
 * The kinds `m`'s own resource rules admit, when every applyTo entry names only kinds the
 * catalog knows (undefined otherwise, and for AssignMetadata, whose rules are `*`).
 */
export function knownKinds(m: Mutator, catalog: ResourceCatalog): KnownKind[] | undefined {
  if (m.kind === "AssignMetadata" || m.applyTo.length === 0) return undefined;
  const out: KnownKind[] = [];
  for (const a of m.applyTo) {
    for (const group of a.groups ?? []) {
      for (const version of a.versions ?? []) {
        for (const kind of a.kinds ?? []) {
          const info = catalog.resourceForKind({ group, version, kind });
          if (info === undefined) return undefined;
          out.push({ group, version, kind, namespaced: info.scope === "Namespaced" && !(group === "" && kind === "Namespace") });
        }
      }
    }
  }
  return out;
}

/** A Gatekeeper wildcard applied to the CEL string `x`. */
export function wildcardCel(w: string, x: string): string {
  const pre = w.startsWith("*");
  const suf = w.endsWith("*");
  if (pre && suf) {
    const mid = w.replace(/^\*/, "").replace(/\*$/, "");
    return mid === "" ? "true" : `${x}.contains(${celString(mid)})`;
  }
  if (pre) return `${x}.endsWith(${celString(w.slice(1))})`;
  if (suf) return `${x}.startsWith(${celString(w.slice(0, -1))})`;
  return `${x} == ${celString(w)}`;
}

/** Whether `x` matches one of the wildcards (exact names in one list: `x` is evaluated less often). */
function namespaceIn(ws: readonly string[], x: string): string {
  const exact = [...new Set(ws.filter((w) => !w.startsWith("*") && !w.endsWith("*")))];
  const wild = ws.filter((w) => w.startsWith("*") || w.endsWith("*"));
  const parts = [...(exact.length > 1 ? [`${x} in [${exact.map(celString).join(", ")}]`] : exact.map((w) => wildcardCel(w, x))), ...wild.map((w) => wildcardCel(w, x))];
  return parts.join(" || ");
}

function generateNameCel(w: string, x: string): string | undefined {
  const pre = w.startsWith("*");
  const suf = w.endsWith("*");
  if (suf) return wildcardCel(w, x);
  void pre;
  return undefined;
}

/** A label selector on the CEL map `labels` (throws apimachinery's error for invalid selectors). */
export function selectorCel(sel: LabelSelector, labels: string): string {
  const c = compileSelector(sel);
  if (c.everything) return "true";
  const parts = c.reqs.map((r) => {
    const k = celString(r.key);
    const vals = `[${r.values.map(celString).join(", ")}]`;
    switch (r.op) {
      case "Equals":
        return `(${k} in ${labels} && ${labels}[${k}] == ${celString(r.values[0]!)})`;
      case "In":
        return `(${k} in ${labels} && ${labels}[${k}] in ${vals})`;
      case "NotIn":
        return `(!(${k} in ${labels}) || !(${labels}[${k}] in ${vals}))`;
      case "Exists":
        return `(${k} in ${labels})`;
      case "DoesNotExist":
        return `!(${k} in ${labels})`;
    }
  });
  return parts.join(" && ");
}

/** `applyTo` (GVK and operation in the same entry) as CEL. */
export function applyToCel(m: Mutator): string | undefined {
  if (m.kind === "AssignMetadata") return undefined;
  const alts = m.applyTo.map((a) => {
    const ops = effectiveOperations(a).filter((o) => o === "CREATE" || o === "UPDATE");
    const list = (xs: readonly string[] | undefined) => `[${(xs ?? []).map(celString).join(", ")}]`;
    return `(request.kind.group in ${list(a.groups)} && request.kind.version in ${list(a.versions)} && request.kind.kind in ${list(a.kinds)} && request.operation in ${list(ops)})`;
  });
  return alts.length === 0 ? "false" : alts.join(" ||\n  ");
}

/**
 * The `match` criteria except `namespaceSelector` (which goes to matchConstraints or, in a
 * bundle, to {@link namespaceSelectorGuard}) as named predicates, in Gatekeeper's order.
 * `namespaces: false`: for a policy whose resource rules never match a Namespace, where the
 * object's namespace is always the request's (the Namespace case is left out).
 */
export function matchConditions(match: Match, opts: MatchOptions = {}): Condition[] {
  const known = opts.known;
  // Every request the policy can see is of a namespaced kind: it has a namespace.
  const allNamespaced = known !== undefined && known.every((k) => k.namespaced);
  const withNs = opts.namespaces !== false && !allNamespaced;
  const ns = allNamespaced ? "request.namespace" : withNs ? NS : NS_NOT_NAMESPACE;
  const out: Condition[] = [];
  const kinds = match.kinds ?? [];
  const any = (xs: readonly string[] | undefined, x: string) => (xs ?? []).length === 0 || (xs ?? []).some((y) => y === "*" || y === x);
  const kindsHold = known !== undefined && known.every((k) => kinds.some((e) => any(e.kinds, k.kind) && any(e.apiGroups, k.group)));
  if (kinds.length > 0 && !kindsHold) {
    const alts = kinds.map((k) => {
      const ks = k.kinds ?? [];
      const gs = k.apiGroups ?? [];
      const kindOk = ks.length === 0 || ks.includes("*") ? "true" : `request.kind.kind in [${ks.map(celString).join(", ")}]`;
      const groupOk = gs.length === 0 || gs.includes("*") ? "true" : `request.kind.group in [${gs.map(celString).join(", ")}]`;
      return kindOk === "true" && groupOk === "true" ? "true" : kindOk === "true" ? groupOk : groupOk === "true" ? kindOk : `(${kindOk} && ${groupOk})`;
    });
    if (!alts.includes("true")) out.push({ name: "gatekeeper-match-kinds", expression: alts.join(" || ") });
  }
  if (opts.scopeInRules === true) {
    // The policy's resource rules carry the scope (same semantics: see resourceRules' scope).
  } else if (match.scope === "Cluster") out.push({ name: "gatekeeper-match-scope", expression: `${withNs ? `${IS_NS} || ` : ""}request.?namespace.orValue("") == ""` });
  else if (match.scope === "Namespaced" && !allNamespaced) out.push({ name: "gatekeeper-match-scope", expression: `${withNs ? `!${IS_NS} && ` : ""}request.?namespace.orValue("") != ""` });
  const nss = match.namespaces ?? [];
  if (nss.length > 0) {
    out.push({ name: "gatekeeper-match-namespaces", expression: namespaceIn(allNamespaced ? nss : ["", ...nss], ns) });
  }
  const ex = match.excludedNamespaces ?? [];
  if (ex.length > 0) {
    out.push({ name: "gatekeeper-match-excluded-namespaces", expression: allNamespaced ? `!(${namespaceIn(ex, ns)})` : `${ns} == "" || !(${namespaceIn(ex, ns)})` });
  }
  if (match.labelSelector !== undefined) {
    const s = selectorCel(match.labelSelector, LABELS);
    if (s !== "true") out.push({ name: "gatekeeper-match-label-selector", expression: s });
  }
  if (match.name !== undefined && match.name !== "") {
    const w = match.name;
    const byName = wildcardCel(w, `object.metadata.?name.orValue("")`);
    const byGen = generateNameCel(w, `object.metadata.?generateName.orValue("")`);
    out.push({ name: "gatekeeper-match-name", expression: byGen === undefined ? byName : `${byName} || ${byGen}` });
  }
  return out;
}

/** namespaceSelector evaluated inside a mutation (namespaceObject is bound there). */
export function namespaceSelectorGuard(sel: LabelSelector): string | undefined {
  const onNs = selectorCel(sel, LABELS);
  if (onNs === "true") return undefined;
  const onParent = selectorCel(sel, `namespaceObject.metadata.?labels.orValue({})`);
  return `(${IS_NS} ? (${onNs}) : (request.?namespace.orValue("") == "" || namespaceObject == null || (${onParent})))`;
}

/** A resource rule per `applyTo` entry (resources from the catalog, `*` when the kind is unknown). */
export function resourceRules(m: Mutator, catalog: ResourceCatalog): Record<string, unknown>[] {
  if (m.kind === "AssignMetadata") {
    return [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], operations: ["CREATE", "UPDATE"], scope: "*" }];
  }
  return m.applyTo.map((a) => {
    const ops = effectiveOperations(a).filter((o) => o === "CREATE" || o === "UPDATE");
    const resources = new Set<string>();
    for (const g of a.groups ?? []) {
      for (const v of a.versions ?? []) {
        for (const k of a.kinds ?? []) {
          const info = catalog.resourceForKind({ group: g, version: v, kind: k });
          resources.add(info === undefined ? "*" : info.gvr.resource);
        }
      }
    }
    const res = resources.has("*") ? ["*"] : [...resources].sort();
    return {
      apiGroups: [...new Set(a.groups ?? [])],
      apiVersions: [...new Set(a.versions ?? [])],
      resources: res,
      operations: ops.length > 0 ? ops : ["CREATE", "UPDATE"],
      scope: "*",
    };
  });
}
