/**
 * What the policies look at, read off their documents: the kinds they match, the string literals
 * in their CEL (prefixes, label keys, namespaces, images), the field names they read and write,
 * and the labels their selectors ask for. The generator (generate.ts) builds objects from these.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../admission/json.js";
import type { ResourceCatalog } from "../admission/match/catalog.js";

export interface KindRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface Selector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly { readonly key: string; readonly operator: string; readonly values: readonly string[] }[];
}

export interface Hints {
  readonly kinds: readonly KindRef[];
  /** String literals of CEL expressions and mutator values, in order of appearance. */
  readonly strings: readonly string[];
  /** Field names read or written (selected, constructed, in JSONPatch paths and Gatekeeper locations). */
  readonly fields: ReadonlySet<string>;
  readonly namespaceSelectors: readonly Selector[];
  readonly objectSelectors: readonly Selector[];
}

const LITERAL = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'/g;
const SELECTED = /\.\??\s*([A-Za-z_][A-Za-z0-9_]*)/g;
const FIELD_INIT = /([A-Za-z_][A-Za-z0-9_]*)\s*:/g;

function unescape(s: string): string {
  return s.replace(/\\(.)/g, (_m, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c));
}

function selector(v: JsonValue | undefined): Selector | undefined {
  if (!isJsonObject(v)) return undefined;
  const matchLabels: Record<string, string> = {};
  if (isJsonObject(v.matchLabels)) for (const [k, x] of Object.entries(v.matchLabels)) if (typeof x === "string") matchLabels[k] = x;
  const matchExpressions: Selector["matchExpressions"][number][] = [];
  for (const e of Array.isArray(v.matchExpressions) ? v.matchExpressions : []) {
    if (!isJsonObject(e) || typeof e.key !== "string" || typeof e.operator !== "string") continue;
    matchExpressions.push({ key: e.key, operator: e.operator, values: Array.isArray(e.values) ? e.values.filter((x): x is string => typeof x === "string") : [] });
  }
  if (Object.keys(matchLabels).length === 0 && matchExpressions.length === 0) return undefined;
  return { matchLabels, matchExpressions };
}

/** Reads the hints off policy documents (MAPs, bindings, Kyverno policies, Gatekeeper mutators). */
export function harvest(documents: readonly JsonObject[], catalog: ResourceCatalog): Hints {
  const strings: string[] = [];
  const seen = new Set<string>();
  const addString = (s: string): void => {
    if (!seen.has(s) && s.length <= 253) {
      seen.add(s);
      strings.push(s);
    }
  };
  const fields = new Set<string>(["metadata", "spec"]);
  const nsSelectors: Selector[] = [];
  const objSelectors: Selector[] = [];
  const rules: { groups: readonly string[]; versions: readonly string[]; resources?: readonly string[]; kinds?: readonly string[] }[] = [];
  const strs = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

  const cel = (text: string): void => {
    for (const m of text.matchAll(LITERAL)) {
      const s = unescape(m[1] ?? m[2] ?? "");
      addString(s);
      // JSONPatch paths name fields too.
      if (s.startsWith("/")) for (const t of s.split("/")) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(t)) fields.add(t);
    }
    const code = text.replace(LITERAL, '""');
    for (const m of code.matchAll(SELECTED)) fields.add(m[1]!);
    for (const m of code.matchAll(FIELD_INIT)) fields.add(m[1]!);
  };

  const walk = (v: JsonValue, key: string, gatekeeper: boolean): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x, key, gatekeeper);
      return;
    }
    if (typeof v === "string") {
      if (key === "expression") cel(v);
      else if (key === "location" && gatekeeper) {
        for (const t of v.split(/[.[\]]/)) {
          const [k, val] = t.split(":");
          if (k !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) fields.add(k);
          if (val !== undefined && val !== "" && val !== "*") addString(val.replace(/^"|"$/g, ""));
        }
      } else if (gatekeeper && key !== "apiVersion" && key !== "kind" && key !== "name") addString(v);
      return;
    }
    if (!isJsonObject(v)) return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "namespaceSelector") {
        const s = selector(x);
        if (s !== undefined) nsSelectors.push(s);
      } else if (k === "objectSelector") {
        const s = selector(x);
        if (s !== undefined) objSelectors.push(s);
      } else if (k === "resourceRules" && Array.isArray(x)) {
        for (const r of x) if (isJsonObject(r)) rules.push({ groups: strs(r.apiGroups), versions: strs(r.apiVersions), resources: strs(r.resources) });
      } else if (gatekeeper && (k === "applyTo" || k === "kinds") && Array.isArray(x)) {
        for (const r of x) if (isJsonObject(r)) rules.push({ groups: strs(r.groups ?? r.apiGroups), versions: strs(r.versions), kinds: strs(r.kinds) });
      } else if (gatekeeper && k === "namespaces") {
        for (const n of strs(x)) if (!n.includes("*")) addString(n);
      }
      walk(x, k, gatekeeper);
    }
  };
  for (const d of documents) {
    const gatekeeper = String(d.apiVersion ?? "").startsWith("mutations.gatekeeper.sh/");
    if (isJsonObject(d.spec)) walk(d.spec, "spec", gatekeeper);
  }

  // Kinds: the served resources the rules name (wildcards only when nothing else is named).
  const kinds = new Map<string, KindRef>();
  const all = catalog.all().filter((r) => r.served);
  const take = (wild: boolean): void => {
    for (const r of rules) {
      const named = r.resources !== undefined ? r.resources.filter((x) => x !== "*" && !x.includes("/")) : (r.kinds ?? []).filter((x) => x !== "*");
      if (!wild && named.length === 0) continue;
      for (const info of all) {
        const gOk = r.groups.length === 0 || r.groups.includes("*") || r.groups.includes(info.gvr.group);
        const vOk = r.versions.length === 0 || r.versions.includes("*") || r.versions.includes(info.gvr.version);
        const nOk = r.resources !== undefined ? (wild ? r.resources.includes("*") : named.includes(info.gvr.resource)) : wild ? (r.kinds ?? []).includes("*") : named.includes(info.kind.kind);
        if (!gOk || !vOk || !nOk) continue;
        const apiVersion = info.kind.group === "" ? info.kind.version : `${info.kind.group}/${info.kind.version}`;
        const key = `${apiVersion}/${info.kind.kind}`;
        if (!kinds.has(key)) kinds.set(key, { apiVersion, kind: info.kind.kind, namespaced: info.scope === "Namespaced" });
      }
    }
  };
  take(false);
  // One version per kind (the first served one found), so that generation is not spread thin.
  const byKind = new Map<string, KindRef>();
  for (const k of kinds.values()) if (!byKind.has(`${k.apiVersion.split("/").slice(0, -1).join("/")}/${k.kind}`)) byKind.set(`${k.apiVersion.split("/").slice(0, -1).join("/")}/${k.kind}`, k);
  if (byKind.size === 0 && rules.length > 0) byKind.set("/Pod", { apiVersion: "v1", kind: "Pod", namespaced: true });

  return { kinds: [...byKind.values()], strings, fields, namespaceSelectors: nsSelectors, objectSelectors: objSelectors };
}
