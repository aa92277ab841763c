/**
 * The checks that read the policies without running them: what the apiserver would only find at
 * request time (unknown or mistyped fields in `Object{...}`, writes into atomic lists, maps and
 * structs, list-item removal by `filter()` in an ApplyConfiguration, JSONPatch paths no matched
 * kind has, costs over the budget) or never say at all (policies without bindings, bindings
 * without policies, missing params, rules that match nothing).
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../admission/json.js";
import type { ResourceCatalog } from "../admission/match/catalog.js";
import type { SchemaNode, SchemaRegistry } from "../kube/schema.js";
import { parse } from "../cel/parser.js";
import type { Expr } from "../cel/ast.js";
import type { Finding, LintUnit } from "./model.js";
import type { KindRef } from "./hints.js";
import { costFindings } from "./cost.js";

export interface StaticInputs {
  /** Every policy document (MAPs, bindings, Kyverno policies), with its `file#doc`. */
  readonly documents: readonly { readonly source: string; readonly object: JsonObject }[];
  readonly units: readonly LintUnit[];
  readonly catalog: ResourceCatalog;
  readonly schemas: SchemaRegistry;
  /** Bindings whose param is missing: `file#doc: message` (from loading). */
  readonly missingParams: readonly { readonly source: string; readonly message: string; readonly policy?: string }[];
}

const MAP_API = /^admissionregistration\.k8s\.io\//;
const KYVERNO_API = /^policies\.kyverno\.io\//;

function name(o: JsonObject): string {
  return isJsonObject(o.metadata) && typeof o.metadata.name === "string" ? o.metadata.name : "";
}

function strs(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

interface Rule {
  readonly groups: readonly string[];
  readonly versions: readonly string[];
  readonly resources: readonly string[];
}

function rulesOf(constraints: JsonValue | undefined): Rule[] {
  if (!isJsonObject(constraints)) return [];
  const out: Rule[] = [];
  for (const r of Array.isArray(constraints.resourceRules) ? constraints.resourceRules : []) {
    if (isJsonObject(r)) out.push({ groups: strs(r.apiGroups), versions: strs(r.apiVersions), resources: strs(r.resources) });
  }
  return out;
}

/** The served kinds a rule matches (subresources are matched by their parent's kind). */
function kindsOf(catalog: ResourceCatalog, rule: Rule): KindRef[] {
  const out: KindRef[] = [];
  for (const info of catalog.all()) {
    if (!info.served) continue;
    if (!(rule.groups.includes("*") || rule.groups.includes(info.gvr.group))) continue;
    if (!(rule.versions.includes("*") || rule.versions.includes(info.gvr.version))) continue;
    const ok = rule.resources.some((r) => {
      const [res = "", sub] = r.split("/");
      if (res !== "*" && res !== info.gvr.resource) return false;
      return sub === undefined || sub === "*" || info.subresources.has(sub);
    });
    if (!ok) continue;
    const apiVersion = info.kind.group === "" ? info.kind.version : `${info.kind.group}/${info.kind.version}`;
    out.push({ apiVersion, kind: info.kind.kind, namespaced: info.scope === "Namespaced" });
  }
  return out;
}

/** The schema below `root` at a path of field names (lists are stepped through to their items). */
function schemaAt(schemas: SchemaRegistry, root: SchemaNode, path: readonly string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = root;
  for (const f of path) {
    while (node !== undefined && node.t === "list") node = schemas.element(node);
    if (node === undefined) return undefined;
    node = node.t === "struct" ? schemas.declaredField(node, f) ?? (node.preserveUnknown === true ? { t: "untyped" } : undefined) : schemas.child(node, f);
  }
  return node;
}

function atomicKind(n: SchemaNode): string | undefined {
  if (n.t === "list" && n.lt === "atomic") return "atomic list";
  if (n.t === "map" && n.atomic === true) return "atomic map";
  if (n.t === "struct" && n.atomic === true) return "atomic struct";
  return undefined;
}

function typeOfConst(e: Expr): "string" | "integer" | "number" | "boolean" | "list" | "map" | undefined {
  if (e.kind === "const") {
    switch (e.value.kind) {
      case "string":
        return "string";
      case "int":
      case "uint":
        return "integer";
      case "double":
        return "number";
      case "bool":
        return "boolean";
      default:
        return undefined;
    }
  }
  if (e.kind === "list") return "list";
  if (e.kind === "map") return "map";
  return undefined;
}

function walkExpr(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  switch (e.kind) {
    case "select":
      walkExpr(e.operand, visit);
      break;
    case "call":
      if (e.target !== undefined) walkExpr(e.target, visit);
      for (const a of e.args) walkExpr(a, visit);
      break;
    case "list":
      for (const x of e.elements) walkExpr(x, visit);
      break;
    case "map":
      for (const x of e.entries) {
        walkExpr(x.key, visit);
        walkExpr(x.value, visit);
      }
      break;
    case "struct":
      for (const f of e.fields) walkExpr(f.value, visit);
      break;
    case "comprehension":
      for (const x of [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result]) walkExpr(x, visit);
      break;
    default:
      break;
  }
}

/** `object.spec.containers` → ["spec", "containers"]; anything else undefined. */
function objectPath(e: Expr): string[] | undefined {
  const out: string[] = [];
  let cur: Expr = e;
  for (;;) {
    if (cur.kind === "select") {
      out.unshift(cur.field);
      cur = cur.operand;
    } else if (cur.kind === "call" && cur.fn === "_?._" && cur.args.length === 2 && cur.args[1]!.kind === "const" && cur.args[1]!.value.kind === "string") {
      out.unshift(cur.args[1]!.value.value);
      cur = cur.args[0]!;
    } else break;
  }
  return cur.kind === "ident" && cur.name === "object" ? out : undefined;
}

/** Whether `e` is (or ends in) a `filter` macro over `object.<path>` with nothing mapping its items afterwards. */
function filteredObjectList(e: Expr, macroCalls: ReadonlyMap<number, Expr>): string[] | undefined {
  if (e.kind !== "comprehension") return undefined;
  const call = macroCalls.get(e.id);
  if (call === undefined || call.kind !== "call" || call.fn !== "filter" || call.target === undefined) return undefined;
  return objectPath(call.target);
}

interface Mutation {
  readonly unit: LintUnit;
  readonly source: string;
  readonly index: number;
  readonly patchType: string;
  readonly expression: string;
  readonly kinds: readonly KindRef[];
  /** Kyverno's `evaluation.useServerSideApply`: atomic values are replaced whole instead of rejected. */
  readonly allowAtomic: boolean;
}

function mutationsOf(doc: JsonObject, source: string, unit: LintUnit, kinds: readonly KindRef[]): Mutation[] {
  const spec = isJsonObject(doc.spec) ? doc.spec : {};
  const allowAtomic = KYVERNO_API.test(String(doc.apiVersion)) && isJsonObject(spec.evaluation) && spec.evaluation.useServerSideApply === true;
  const out: Mutation[] = [];
  (Array.isArray(spec.mutations) ? spec.mutations : []).forEach((m, index) => {
    if (!isJsonObject(m)) return;
    const patchType = String(m.patchType ?? "");
    const holder = patchType === "JSONPatch" ? m.jsonPatch : m.applyConfiguration;
    if (!isJsonObject(holder) || typeof holder.expression !== "string") return;
    out.push({ unit, source, index, patchType, expression: holder.expression, kinds, allowAtomic });
  });
  return out;
}

/** Every static check; the caller drops the disabled ones. */
export function staticChecks(inp: StaticInputs): Finding[] {
  const findings: Finding[] = [];
  const unitById = new Map(inp.units.map((u) => [u.id, u]));
  const unitFor = (d: { source: string; object: JsonObject }): LintUnit => {
    const o = d.object;
    const id = MAP_API.test(String(o.apiVersion)) ? `map:${name(o)}` : `kyverno:${isJsonObject(o.metadata) && typeof o.metadata.namespace === "string" && o.metadata.namespace !== "" ? `${o.metadata.namespace}/` : ""}${name(o)}`;
    return unitById.get(id) ?? { id, group: MAP_API.test(String(o.apiVersion)) ? "map" : "kyverno", kind: String(o.kind), name: name(o), source: d.source };
  };

  const policies = inp.documents.filter((d) => (MAP_API.test(String(d.object.apiVersion)) && d.object.kind === "MutatingAdmissionPolicy") || (KYVERNO_API.test(String(d.object.apiVersion)) && /MutatingPolicy$/.test(String(d.object.kind))));
  const bindings = inp.documents.filter((d) => MAP_API.test(String(d.object.apiVersion)) && d.object.kind === "MutatingAdmissionPolicyBinding");

  // binding
  const bound = new Set(bindings.map((b) => (isJsonObject(b.object.spec) ? String(b.object.spec.policyName ?? "") : "")));
  const mapNames = new Set(policies.filter((p) => p.object.kind === "MutatingAdmissionPolicy").map((p) => name(p.object)));
  for (const p of policies) {
    if (p.object.kind !== "MutatingAdmissionPolicy" || bound.has(name(p.object))) continue;
    findings.push({ check: "binding", severity: "warning", message: `policy ${name(p.object)} has no MutatingAdmissionPolicyBinding: it never runs`, policies: [unitFor(p)] });
  }
  for (const b of bindings) {
    const pn = isJsonObject(b.object.spec) ? String(b.object.spec.policyName ?? "") : "";
    if (mapNames.has(pn)) continue;
    findings.push({
      check: "binding",
      severity: "warning",
      message: `binding ${name(b.object)} refers to policy ${JSON.stringify(pn)}, which is not among the inputs: it does nothing`,
      policies: [{ id: `binding:${name(b.object)}`, group: "map", kind: "MutatingAdmissionPolicyBinding", name: name(b.object), source: b.source }],
    });
  }

  // params
  for (const m of inp.missingParams) {
    const binding = /the param of binding "([^"]*)"/.exec(m.message)?.[1] ?? "";
    findings.push({ check: "params", severity: "error", message: m.message, policies: [{ id: `binding:${binding}`, group: "map", kind: "MutatingAdmissionPolicyBinding", name: binding, source: m.source }], path: "spec.paramRef" });
  }

  // match, and the kinds each policy's mutations apply to
  const mutations: Mutation[] = [];
  for (const p of policies) {
    const spec = isJsonObject(p.object.spec) ? p.object.spec : {};
    const rules = rulesOf(spec.matchConstraints);
    const kinds: KindRef[] = [];
    rules.forEach((r, i) => {
      const ks = kindsOf(inp.catalog, r);
      if (ks.length === 0) {
        findings.push({
          check: "match",
          severity: "error",
          message: `matchConstraints.resourceRules[${i}] matches no known resource (groups ${JSON.stringify(r.groups)}, versions ${JSON.stringify(r.versions)}, resources ${JSON.stringify(r.resources)}): the policy never runs; give the CRD with -f if the resource is a custom one`,
          policies: [unitFor(p)],
          path: `spec.matchConstraints.resourceRules[${i}]`,
        });
      }
      for (const k of ks) if (!kinds.some((x) => x.apiVersion === k.apiVersion && x.kind === k.kind)) kinds.push(k);
    });
    mutations.push(...mutationsOf(p.object, p.source, unitFor(p), kinds));
  }

  for (const m of mutations) findings.push(...mutationFindings(inp.schemas, m));
  findings.push(...costFindings(policies.map((p) => ({ unit: unitFor(p), source: p.source, object: p.object }))));
  return findings;
}

function withArticle(w: string): string {
  return /^[aeiou]/.test(w) ? `an ${w}` : `a ${w}`;
}

/** schema, atomic, filter and jsonpatch-path on one mutation. */
function mutationFindings(schemas: SchemaRegistry, m: Mutation): Finding[] {
  let parsed;
  try {
    parsed = parse(m.expression, { macros: new Set(["standard", "twoVar"] as never), enableOptionalSyntax: true });
  } catch {
    return []; // compile errors are reported when loading
  }
  const where = `spec.mutations[${m.index}].${m.patchType === "JSONPatch" ? "jsonPatch" : "applyConfiguration"}.expression`;
  const unit = { ...m.unit, source: m.source };
  const roots = m.kinds.map((k) => ({ k, root: schemas.forKind(k.apiVersion, k.kind) })).filter((x): x is { k: KindRef; root: SchemaNode } => x.root !== undefined);
  const out: Finding[] = [];
  const seen = new Set<string>();
  const push = (f: Finding): void => {
    const key = `${f.check}\u0000${f.path ?? ""}\u0000${f.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(f);
  };
  const kindNames = [...new Set(m.kinds.map((k) => k.kind))].join(", ");

  walkExpr(parsed.expr, (e) => {
    if (e.kind === "struct" && (e.typeName === "Object" || e.typeName.startsWith("Object."))) {
      const typePath = e.typeName === "Object" ? [] : e.typeName.slice("Object.".length).split(".");
      for (const f of e.fields) {
        const path = [...typePath, f.field];
        const shown = path.join(".");
        const nodes = roots.map((r) => schemaAt(schemas, r.root, path));
        if (roots.length > 0 && nodes.every((n) => n === undefined)) {
          push({ check: "schema", severity: "error", message: `${where}: ${e.typeName}{${f.field}: …}: field ${JSON.stringify(f.field)} is not declared by ${kindNames}: the apiserver denies the request (error applying patch: failed to convert patch object to typed object: .${shown}: field not declared in schema)`, policies: [unit], path: shown });
          continue;
        }
        const node = nodes.find((n) => n !== undefined);
        if (node === undefined) continue;
        if (m.patchType !== "JSONPatch") {
          const atomic = m.allowAtomic ? undefined : atomicKind(node);
          if (atomic !== undefined) {
            push({ check: "atomic", severity: "error", message: `${where}: writes ${shown}, an ${atomic} of ${kindNames}: the apiserver denies it (error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .${shown}); use a JSONPatch`, policies: [unit], path: shown });
          }
          const filtered = filteredObjectList(f.value, parsed.sourceInfo.macroCalls);
          if (filtered !== undefined && node.t === "list" && node.lt !== "atomic") {
            push({ check: "filter", severity: "error", message: `${where}: ${shown}: object.${filtered.join(".")}.filter(…) cannot remove items: server-side apply merges the ${node.lt === "map" ? "list map" : "set"} and keeps the items the patch leaves out; remove them with a JSONPatch "remove" op`, policies: [unit], path: shown });
          }
        }
        const t = typeOfConst(f.value);
        if (t !== undefined && node.t !== "untyped") {
          const want = node.t === "scalar" ? (node.fmt === "int-or-string" ? "int-or-string" : node.s) : node.t === "list" ? "list" : "map";
          const ok = want === t || (want === "number" && t === "integer") || (want === "int-or-string" && (t === "string" || t === "integer")) || (want === "map" && t === "map");
          if (!ok && !(node.t === "struct" && t === "map")) {
            push({ check: "schema", severity: "error", message: `${where}: ${shown} is ${want === "map" ? "an object" : withArticle(want)} in ${kindNames}; the expression gives ${withArticle(t)}: the apiserver denies the request when it converts the patch`, policies: [unit], path: shown });
          }
        }
      }
    }
    if (m.patchType === "JSONPatch" && e.kind === "struct" && e.typeName === "JSONPatch") {
      const op = e.fields.find((f) => f.field === "op")?.value;
      const p = e.fields.find((f) => f.field === "path")?.value;
      if (p?.kind !== "const" || p.value.kind !== "string" || roots.length === 0) return;
      const opText = op?.kind === "const" && op.value.kind === "string" ? op.value.value : "";
      // A test on a path that may be missing is a deliberate no-op ("test / null"); "" tokens name no field.
      if (opText === "test" || p.value.value.split("/").slice(1).some((t) => t === "")) return;
      const tokens = p.value.value.split("/").slice(1).map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
      // For add, the last token may name a new map key or list index: its parent must exist.
      const fieldTokens = tokens.filter((t) => !/^(\d+|-)$/.test(t));
      const check = opText === "add" && tokens.length > 0 && /^(\d+|-)$/.test(tokens[tokens.length - 1]!) ? fieldTokens : fieldTokens;
      const ok = roots.some((r) => {
        let node: SchemaNode | undefined = r.root;
        for (const t of check) {
          while (node !== undefined && node.t === "list") node = schemas.element(node);
          if (node === undefined) return false;
          if (node.t === "untyped" || node.t === "map") return true;
          node = node.t === "struct" ? (schemas.declaredField(node, t) ?? (node.preserveUnknown === true ? { t: "untyped" } : undefined)) : undefined;
        }
        return node !== undefined;
      });
      if (!ok) {
        push({ check: "jsonpatch-path", severity: "error", message: `${where}: JSONPatch ${opText} ${JSON.stringify(p.value.value)}: no object of ${kindNames} can have this path`, policies: [unit], path: p.value.value });
      }
    }
  });
  return out;
}
