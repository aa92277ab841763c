/**
 * Match criteria (`pkg/mutation/match`, v3.23.0): `applyTo` (GVK and operation in the same
 * entry) and `match` (kinds, scope, namespaces, excludedNamespaces, labelSelector,
 * namespaceSelector, name, source — in that order, first false wins, errors wrapped as
 * `failed to run Match criteria: …`).
 */
import { goQuote } from "../diag/index.js";
import { compileSelector, selectorMatches } from "./labels.js";
import type { ApplyTo, Match } from "./types.js";
import { isMap, setKey, type GoMap, type GoValue } from "./value.js";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
export type Source = "All" | "Original" | "Generated";

export interface GVK {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

const SUPPORTED_OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE"];

/** `schema.ParseGroupVersion` + kind, as `Unstructured.GroupVersionKind()` (unparsable → empty). */
export function objectGVK(obj: GoMap): GVK {
  const av = typeof obj["apiVersion"] === "string" ? obj["apiVersion"] : "";
  const kind = typeof obj["kind"] === "string" ? obj["kind"] : "";
  const slashes = av.split("/").length - 1;
  if (av === "" || slashes === 0) return { group: "", version: av, kind };
  if (slashes === 1) {
    const [g, v] = av.split("/");
    return { group: g!, version: v!, kind };
  }
  return { group: "", version: "", kind: "" };
}

function metaField(obj: GoMap, field: string): GoValue | undefined {
  const md = obj["metadata"];
  return isMap(md) ? md[field] : undefined;
}

/** `Unstructured.GetName()` etc.: the string, or "" when absent or not a string. */
export function metaString(obj: GoMap, field: "name" | "namespace" | "generateName"): string {
  const v = metaField(obj, field);
  return typeof v === "string" ? v : "";
}

/** `Unstructured.GetLabels()`: nil (empty) unless every value is a string. */
export function objectLabels(obj: GoMap): Record<string, string> {
  const v = metaField(obj, "labels");
  if (!isMap(v)) return {};
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string") return {};
    setKey(out, k, x);
  }
  return out;
}

export function isNamespaceObject(obj: GoMap): boolean {
  const g = objectGVK(obj);
  return g.kind === "Namespace" && g.group === "";
}

/** `MutationApplyTo.Matches` and `MatchesOperation` on the same entry. */
export function appliesTo(applyTo: readonly ApplyTo[], gvk: GVK, operation: Operation | ""): boolean {
  return applyTo.some((a) => {
    if (!(a.groups ?? []).includes(gvk.group)) return false;
    if (!(a.versions ?? []).includes(gvk.version)) return false;
    if (!(a.kinds ?? []).includes(gvk.kind)) return false;
    const ops = a.operations ?? [];
    const all = ops.length === 0 || ops.includes("*");
    if (operation === "") return all || SUPPORTED_OPERATIONS.every((o) => (ops as string[]).includes(o));
    if (!SUPPORTED_OPERATIONS.includes(operation)) return false;
    return all || (ops as string[]).includes(operation);
  });
}

/** `EffectiveOperations`. */
export function effectiveOperations(a: ApplyTo): Operation[] {
  const ops = a.operations ?? [];
  if (ops.length === 0 || ops.includes("*")) return [...SUPPORTED_OPERATIONS];
  return SUPPORTED_OPERATIONS.filter((o) => (ops as string[]).includes(o));
}

/** `ValidateOperations`: the joined error text, or undefined. */
export function validateOperations(applyTo: readonly ApplyTo[]): string | undefined {
  const errs: string[] = [];
  applyTo.forEach((a, i) => {
    const ops = (a.operations ?? []) as string[];
    const seen = new Set<string>();
    let wildcard = false;
    for (const op of ops) {
      if (seen.has(op)) errs.push(`duplicate operation ${goQuote(op)} in applyTo[${i}].operations`);
      seen.add(op);
      if (op !== "CREATE" && op !== "UPDATE" && op !== "*") {
        errs.push(`invalid operation ${goQuote(op)} in applyTo[${i}].operations: must be one of CREATE, UPDATE, *`);
      }
      if (op === "*") wildcard = true;
    }
    if (wildcard && ops.length > 1) errs.push(`wildcard "*" in applyTo[${i}].operations must not be combined with other operations`);
  });
  return errs.length > 0 ? errs.join("; ") : undefined;
}

/** `wildcard.Wildcard.Matches`. */
export function wildcardMatches(w: string, candidate: string): boolean {
  const pre = w.startsWith("*");
  const suf = w.endsWith("*");
  if (pre && suf) return candidate.includes(w.replace(/^\*/, "").replace(/\*$/, ""));
  if (pre) return candidate.endsWith(w.slice(1));
  if (suf) return candidate.startsWith(w.slice(0, -1));
  return w === candidate;
}

/** `wildcard.Wildcard.MatchesGenerateName`: only `prefix*` and `*infix*` can match. */
export function wildcardMatchesGenerateName(w: string, candidate: string): boolean {
  const pre = w.startsWith("*");
  const suf = w.endsWith("*");
  if (pre && suf) return candidate.includes(w.replace(/^\*/, "").replace(/\*$/, ""));
  if (suf) return candidate.startsWith(w.slice(0, -1));
  return false;
}

/** What the matcher looks at. */
export interface Matchable {
  readonly object: GoMap;
  /** The Namespace object of a namespaced request, if the caller has it. */
  readonly namespace?: GoMap | undefined;
  readonly source: Source | "";
}

/** The thrown error of a matcher: `failed to run Match criteria: <detail>`. */
export class MatchError extends Error {
  override readonly name = "MatchError";
}

function nsName(ns: GoMap): string {
  return metaString(ns, "name");
}

function namespaceOf(t: Matchable): string | undefined {
  if (isNamespaceObject(t.object)) return metaString(t.object, "name");
  if (t.namespace !== undefined) return nsName(t.namespace);
  const own = metaString(t.object, "namespace");
  return own !== "" ? own : undefined;
}

type Matcher = (m: Match, t: Matchable) => boolean;

const kindsMatch: Matcher = (m, t) => {
  const kinds = m.kinds ?? [];
  if (kinds.length === 0) return true;
  const gvk = objectGVK(t.object);
  return kinds.some((k) => {
    const ks = k.kinds ?? [];
    const gs = k.apiGroups ?? [];
    const kindOk = ks.length === 0 || ks.includes("*") || ks.includes(gvk.kind);
    return kindOk && (gs.length === 0 || gs.includes("*") || gs.includes(gvk.group));
  });
};

const scopeMatch: Matcher = (m, t) => {
  const hasNamespace = metaString(t.object, "namespace") !== "" || t.namespace !== undefined;
  const isNs = isNamespaceObject(t.object);
  if (m.scope === "Cluster") return isNs || !hasNamespace;
  if (m.scope === "Namespaced") return !isNs && hasNamespace;
  return true;
};

const namespacesMatch: Matcher = (m, t) => {
  const list = m.namespaces ?? [];
  if (list.length === 0) return true;
  const ns = namespaceOf(t);
  if (ns === undefined) return true;
  return list.some((w) => wildcardMatches(w, ns));
};

const excludedNamespacesMatch: Matcher = (m, t) => {
  const list = m.excludedNamespaces ?? [];
  if (list.length === 0) return true;
  const ns = namespaceOf(t);
  if (ns === undefined) return true;
  return !list.some((w) => wildcardMatches(w, ns));
};

function selector(sel: NonNullable<Match["labelSelector"]>) {
  try {
    return compileSelector(sel);
  } catch (e) {
    throw new MatchError((e as Error).message);
  }
}

const labelSelectorMatch: Matcher = (m, t) => {
  if (m.labelSelector === undefined) return true;
  return selectorMatches(selector(m.labelSelector), objectLabels(t.object));
};

const namespaceSelectorMatch: Matcher = (m, t) => {
  if (m.namespaceSelector === undefined) return true;
  const isNs = isNamespaceObject(t.object);
  if (!isNs && t.namespace === undefined && metaString(t.object, "namespace") === "") return true;
  const sel = selector(m.namespaceSelector);
  if (isNs) return selectorMatches(sel, objectLabels(t.object));
  if (t.namespace === undefined) throw new MatchError("namespace selector for namespace-scoped object but missing Namespace");
  return selectorMatches(sel, objectLabels(t.namespace));
};

const namesMatch: Matcher = (m, t) => {
  if (m.name === undefined || m.name === "") return true;
  return wildcardMatches(m.name, metaString(t.object, "name")) || wildcardMatchesGenerateName(m.name, metaString(t.object, "generateName"));
};

const VALID_SOURCES = ["All", "Generated", "Original"];

const sourceMatch: Matcher = (m, t) => {
  const mSrc = m.source ?? "All";
  if (!VALID_SOURCES.includes(mSrc)) throw new MatchError(`invalid source field ${goQuote(mSrc)}`);
  if (t.source === "" && mSrc !== "All") {
    throw new MatchError(`source field not specified for resource ${metaString(t.object, "name")}`);
  }
  if (mSrc === "All") return true;
  if (!VALID_SOURCES.includes(t.source)) throw new MatchError(`invalid source field ${goQuote(t.source)}`);
  return mSrc === t.source;
};

const MATCHERS: readonly Matcher[] = [
  kindsMatch,
  scopeMatch,
  namespacesMatch,
  excludedNamespacesMatch,
  labelSelectorMatch,
  namespaceSelectorMatch,
  namesMatch,
  sourceMatch,
];

/** `match.Matches`; throws {@link MatchError} with `failed to run Match criteria: …`. */
export function matches(m: Match, t: Matchable): boolean {
  for (const fn of MATCHERS) {
    let ok: boolean;
    try {
      ok = fn(m, t);
    } catch (e) {
      if (e instanceof MatchError) throw new MatchError(`failed to run Match criteria: ${e.message}`);
      throw e;
    }
    if (!ok) return false;
  }
  return true;
}
