/**
 * Objects to try the policies on when no sample shows a problem: built from the schema of each
 * matched kind, keeping the fields the policies read or write (hints.ts), with values drawn from
 * the policies' own literals (a prefix becomes an image behind it, a name a namespace, selector
 * labels the labels). First one object per candidate value (everything else plain), then seeded
 * random combinations. Deterministic for a seed.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../admission/json.js";
import type { SchemaNode, SchemaRegistry } from "../kube/schema.js";
import type { Hints, KindRef, Selector } from "./hints.js";

export interface GenerationPlan {
  readonly kinds: readonly KindRef[];
  readonly namespaces: readonly string[];
  /** Namespaces made up to satisfy a namespaceSelector: name → object. */
  readonly extraNamespaces: ReadonlyMap<string, JsonObject>;
  readonly images: readonly string[];
  readonly names: readonly string[];
  readonly labels: readonly (readonly [string, string])[];
  readonly strings: readonly string[];
  readonly fields: ReadonlySet<string>;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const IMAGE = /^[a-z0-9][a-z0-9._\-/:@]*$/;
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const PLAIN_IMAGE = "nginx:1.25";

function satisfying(s: Selector): Record<string, string> {
  const labels: Record<string, string> = { ...s.matchLabels };
  for (const e of s.matchExpressions) {
    if (e.operator === "In") labels[e.key] = e.values[0] ?? "x";
    else if (e.operator === "Exists") labels[e.key] = "lint";
  }
  return labels;
}

/** Turns hints into candidate values. `given` are the namespaces among the inputs. */
export function plan(h: Hints, given: ReadonlyMap<string, JsonObject>): GenerationPlan {
  const namespaces = ["default", ...given.keys()];
  const extra = new Map<string, JsonObject>();
  h.namespaceSelectors.forEach((s, i) => {
    const labels = satisfying(s);
    const matchesGiven = [...given.values()].some((ns) => {
      const l = isJsonObject(ns.metadata) && isJsonObject(ns.metadata.labels) ? ns.metadata.labels : {};
      return Object.entries(labels).every(([k, v]) => l[k] === v);
    });
    if (matchesGiven) return;
    const name = labels["kubernetes.io/metadata.name"] ?? `lint-ns-${i + 1}`;
    extra.set(name, { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { ...labels, "kubernetes.io/metadata.name": name } } });
    namespaces.push(name);
  });
  const images = [PLAIN_IMAGE];
  const names: string[] = [];
  const labels: [string, string][] = [];
  for (const s of [...h.objectSelectors, ...h.namespaceSelectors]) for (const [k, v] of Object.entries(satisfying(s))) labels.push([k, v]);
  const strings: string[] = [];
  for (const s of h.strings) {
    if (s === "") continue;
    if (DNS_LABEL.test(s) && s.length <= 63) {
      namespaces.push(s);
      names.push(s);
    }
    if (s.endsWith("/") && IMAGE.test(s)) images.push(`${s}app:1.0`);
    else if (IMAGE.test(s) && (s.includes("/") || s.includes(":")) && !s.startsWith("/") && !s.includes("://")) images.push(s.startsWith("@") ? `app${s}` : s);
    if (LABEL_KEY.test(s) && s.includes("/")) labels.push([s, "true"]);
    strings.push(s);
  }
  return {
    kinds: h.kinds,
    namespaces: [...new Set(namespaces)],
    extraNamespaces: extra,
    images: [...new Set(images)],
    names: [...new Set(["app", ...names])],
    labels: dedupePairs(labels),
    strings,
    fields: h.fields,
  };
}

function dedupePairs(ps: readonly (readonly [string, string])[]): [string, string][] {
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const [k, v] of ps) {
    const key = `${k}\u0000${v}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push([k, v]);
    }
  }
  return out;
}

/** One choice per pool: `pick(pool)` returns an element. */
interface Choices {
  namespace: string;
  image: string;
  name: string;
  labels: readonly (readonly [string, string])[];
  /** For other strings. */
  string: (field: string) => string;
  items: () => number;
}

function build(schemas: SchemaRegistry, node: SchemaNode, field: string, fields: ReadonlySet<string>, c: Choices, depth: number, counter: { n: number }): JsonValue | undefined {
  switch (node.t) {
    case "struct": {
      if (depth > 9) return undefined;
      const out: JsonObject = {};
      for (const f of Object.keys(node.f)) {
        if (f === "status" || f === "metadata" || f === "apiVersion" || f === "kind") continue;
        const required = node.required?.includes(f) === true;
        if (!required && !fields.has(f)) continue;
        const child = schemas.declaredField(node, f);
        if (child === undefined) continue;
        const v = build(schemas, child, f, fields, c, depth + 1, counter);
        if (v !== undefined) out[f] = v;
      }
      return out;
    }
    case "list": {
      const el = schemas.element(node);
      const n = c.items();
      const out: JsonValue[] = [];
      const used = new Set<string>();
      for (let i = 0; i < n; i++) {
        const v = build(schemas, el, field, fields, c, depth + 1, counter);
        if (v === undefined) continue;
        if (node.lt === "map" && isJsonObject(v)) {
          // Distinct keys: `name` from the literal names, then numbered.
          for (const k of node.keys ?? []) {
            if (typeof v[k] === "string") {
              let s = v[k] as string;
              if (used.has(s)) s = `${s}-${i + 1}`;
              used.add(s);
              v[k] = s;
            }
          }
        }
        if (node.lt === "set" && out.some((x) => JSON.stringify(x) === JSON.stringify(v))) continue;
        out.push(v);
      }
      return out;
    }
    case "map": {
      if (field === "labels" || field === "annotations" || field === "nodeSelector") return Object.fromEntries(c.labels.map(([k, v]) => [k, v]));
      return {};
    }
    case "scalar": {
      if (node.enum !== undefined && node.enum.length > 0) return node.enum[0] as JsonValue;
      switch (node.s) {
        case "string":
          if (node.fmt === "int-or-string") return 1n;
          if (field === "image") return c.image;
          if (field === "namespace") return c.namespace;
          if (field === "name") return c.name;
          return c.string(field);
        case "integer":
          return 1n;
        case "number":
          return 1n;
        case "boolean":
          return false;
      }
      return undefined;
    }
    case "untyped":
      return undefined;
  }
}

/** One object of `kind` with the given choices. */
export function objectOf(schemas: SchemaRegistry, kind: KindRef, fields: ReadonlySet<string>, c: Choices, index: number): JsonObject {
  const root = schemas.forKind(kind.apiVersion, kind.kind);
  const body = root !== undefined ? (build(schemas, root, "", fields, c, 0, { n: 0 }) as JsonObject | undefined) : undefined;
  const metadata: JsonObject = { name: `lint-${index}` };
  if (kind.namespaced) metadata.namespace = c.namespace;
  if (c.labels.length > 0) metadata.labels = Object.fromEntries(c.labels.map(([k, v]) => [k, v]));
  return { apiVersion: kind.apiVersion, kind: kind.kind, metadata, ...(body ?? {}) };
}

/**
 * Up to `count` objects per kind: the plain one, one per candidate namespace, image, name and
 * label, then random combinations from `random`.
 */
export function generate(p: GenerationPlan, schemas: SchemaRegistry, random: () => number, count: number): JsonObject[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const plain = (): Choices => ({ namespace: p.namespaces[0]!, image: p.images[0]!, name: p.names[0]!, labels: [], string: () => "x", items: () => 1 });
  const variants: Choices[] = [plain()];
  for (const namespace of p.namespaces.slice(1)) variants.push({ ...plain(), namespace });
  for (const image of p.images.slice(1)) variants.push({ ...plain(), image });
  for (const name of p.names.slice(1)) variants.push({ ...plain(), name });
  for (const l of p.labels) variants.push({ ...plain(), labels: [l] });
  const strings = p.strings.length > 0 ? p.strings : ["x"];
  while (variants.length < count) {
    const labels = p.labels.filter(() => random() < 0.4);
    variants.push({
      namespace: pick(p.namespaces),
      image: pick(p.images),
      name: pick(p.names),
      labels,
      string: () => (random() < 0.5 ? "x" : pick(strings)),
      items: () => (random() < 0.3 ? 2 : 1),
    });
  }
  const out: JsonObject[] = [];
  const seen = new Set<string>();
  for (const kind of p.kinds) {
    let i = 0;
    for (const c of variants.slice(0, count)) {
      const o = objectOf(schemas, kind, p.fields, c, ++i);
      const key = JSON.stringify(o, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)).replace(/"name":"lint-\d+"/, "");
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(o);
    }
  }
  return out;
}
