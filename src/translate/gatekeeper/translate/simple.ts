/**
 * The readable form of a mutator, where it is provably Gatekeeper's result (issue 21): an
 * ApplyConfiguration written as a person would write it, instead of the JSONPatch walk of
 * `location.ts`, which guards every step against the shapes a schemaless object can take.
 *
 * It applies to an Assign of a constant scalar (string, boolean, an integer on an integer field)
 * without pathTests, on built-in kinds only, whose location the kinds' OpenAPI schemas resolve
 * the same way to a scalar through
 * - fields of granular structs (the apiserver has decoded the object before any policy runs,
 *   so every present node has the schema's type: no type guards are needed), at most one
 *   granular map (`metadata.labels.x`), and
 * - at most one glob `[k: *]` over a list the schema declares a map-list keyed by `k` alone
 *   (`spec.containers[name: *]`), followed by struct fields (a typed JSONPatch: see renderGlob).
 *
 * Why it is Gatekeeper's result. Without a list, Assign creates the missing parents and sets the
 * leaf when it differs; server-side apply of `Object{a: Object.a{b: v}}` to granular structs
 * does exactly that. With a glob, Assign walks every element (each a map: the schema says so)
 * and sets the leaf below it, creating parents, and creates nothing when the list is absent;
 * the JSONPatch adds the leaf to every element (an equal value changes nothing), or its deepest missing parent
 * (with the rest below it), and nothing for an absent list. Parents are taken as present where
 * the schema makes them so (required fields, and the top-level `spec`, a non-pointer struct the
 * apiserver always serialises). The value is a constant, so the
 * result does not depend on what was there: the mutation is idempotent and needs no second
 * pass to check convergence.
 */
import { SchemaRegistry, type SchemaNode } from "../../../kube/schema.js";
import type { Mutator } from "../../../gatekeeper/index.js";
import { celLiteral, celString } from "./cel.js";
import { schemaProblems } from "./schema-check.js";

const registry = SchemaRegistry.builtin();

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** CEL's reserved words cannot be field names in an `Object{…}` literal. */
const RESERVED = new Set(["as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while", "in", "true", "false", "null"]);

/** One step of the location, as the schemas resolve it (the same for every kind). */
type Step =
  | { readonly t: "field"; readonly name: string; readonly required: boolean }
  | { readonly t: "key"; readonly name: string }
  | { readonly t: "glob"; readonly key: string }
  /** `[k: v]` with a MustExist pathTest on it: only an existing element (the first) is written. */
  | { readonly t: "existing"; readonly key: string; readonly value: string };

function scalarFits(node: SchemaNode, v: unknown): boolean {
  if (node.t !== "scalar") return false;
  if (node.fmt === "int-or-string") return typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));
  if (node.s === "string") return typeof v === "string";
  if (node.s === "boolean") return typeof v === "boolean";
  if (node.s === "integer") return typeof v === "number" && Number.isSafeInteger(v);
  return false;
}

/** The steps of `m`'s location on one kind's schema, or undefined where the form does not apply. */
function stepsOn(m: Mutator, root: SchemaNode, leafOk: (leaf: SchemaNode) => boolean): Step[] | undefined {
  const steps: Step[] = [];
  let cur: SchemaNode = root;
  let maps = 0;
  let globs = 0;
  const nodes = m.path.nodes;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (n.type === "Object") {
      if (cur.t === "struct" && !cur.atomic && !cur.preserveUnknown) {
        if (!IDENT.test(n.reference) || RESERVED.has(n.reference)) return undefined;
        const next = registry.child(cur, n.reference);
        if (next === undefined) return undefined;
        steps.push({ t: "field", name: n.reference, required: (cur.required ?? []).includes(n.reference) || (i === 0 && n.reference === "spec") });
        cur = next;
      } else if (cur.t === "map" && !cur.atomic && maps++ === 0 && i === nodes.length - 1) {
        steps.push({ t: "key", name: n.reference });
        cur = registry.resolve(cur.v);
      } else return undefined;
    } else if (!n.glob) {
      if (m.tester.conditionAt(i) !== "MustExist" || typeof n.keyValue !== "string" || n.keyValue === "" || globs++ > 0) return undefined;
      if (!steps.every((x) => x.t === "field" && x.required)) return undefined;
      if (cur.t !== "list" || cur.lt !== "map" || cur.keys?.length !== 1 || cur.keys[0] !== n.keyField || !IDENT.test(n.keyField) || RESERVED.has(n.keyField)) return undefined;
      const el = registry.element(cur);
      if (el.t !== "struct" || el.atomic || el.preserveUnknown) return undefined;
      steps.push({ t: "existing", key: n.keyField, value: n.keyValue });
      cur = el;
    } else {
      if (!n.glob || globs++ > 0 || cur.t !== "list" || cur.lt !== "map" || cur.keys?.length !== 1 || cur.keys[0] !== n.keyField) return undefined;
      if (!IDENT.test(n.keyField) || RESERVED.has(n.keyField)) return undefined;
      const el = registry.element(cur);
      if (el.t !== "struct" || el.atomic || el.preserveUnknown) return undefined;
      steps.push({ t: "glob", key: n.keyField });
      cur = el;
    }
  }
  return leafOk(cur) ? steps : undefined;
}

/** The steps of `m`'s location, the same on every kind it applies to (built-in kinds only), or undefined. */
function stepsOf(m: Mutator, leafOk: (leaf: SchemaNode) => boolean): Step[] | undefined {
  if (m.kind === "AssignMetadata") return undefined;
  // pathTests: only MustExist on a keyed element (checked in stepsOn).
  for (let d = 0; d < m.path.nodes.length; d++) {
    const c = m.tester.conditionAt(d);
    if (c !== undefined && !(c === "MustExist" && m.path.nodes[d]!.type === "List")) return undefined;
  }
  if (m.bindings.length === 0 || schemaProblems(m).length > 0) return undefined;
  let steps: Step[] | undefined;
  for (const b of m.bindings) {
    const root = registry.forKind(b.group === "" ? b.version : `${b.group}/${b.version}`, b.kind);
    if (root === undefined) return undefined;
    const st = stepsOn(m, root, leafOk);
    if (st === undefined || (steps !== undefined && JSON.stringify(st) !== JSON.stringify(steps))) return undefined;
    steps = st;
  }
  return steps;
}

export interface SimpleForm {
  readonly patchType: "ApplyConfiguration" | "JSONPatch";
  readonly expression: string;
  /** Why this form is the mutator's result (for `--explain`). */
  readonly why: string;
}

/** The readable form of `m` (see the module comment), or undefined where only the full walk is exact. */
export function simpleForm(m: Mutator): SimpleForm | undefined {
  const ac = simpleApplyConfiguration(m);
  if (ac !== undefined) {
    return m.path.nodes.some((n) => n.type === "List")
      ? { patchType: "JSONPatch", expression: ac, why: "a constant under a glob over a typed list: one add per element that differs, no type guards (the schema fixes every type)" }
      : { patchType: "ApplyConfiguration", expression: ac, why: "a constant under granular structs: server-side apply creates the parents and sets the field, as Gatekeeper does" };
  }
  const ms = simpleModifySet(m);
  if (ms !== undefined) return { patchType: "JSONPatch", expression: ms, why: "a ModifySet of strings under a glob over a typed list: one add per element, no type guards (the schema fixes every type)" };
  const r = simpleReplacement(m);
  if (r !== undefined) return { patchType: "JSONPatch", expression: r, why: "a constant object or list replacing the field wholesale (an apply would merge): one add, its parents always present" };
  return undefined;
}

function simpleApplyConfiguration(m: Mutator): string | undefined {
  if (m.kind === "AssignMetadata" || m.kind === "ModifySet") return undefined;
  const value = constantValue(m);
  if (typeof value !== "string" && typeof value !== "boolean" && typeof value !== "number") return undefined;
  const steps = stepsOf(m, (leaf) => scalarFits(leaf, value));
  return steps === undefined ? undefined : render(steps, celLiteral(value));
}

/**
 * ModifySet of strings under one glob, on a list of strings: prune keeps each present list's
 * other values; merge appends the values not yet there, and sets the values (as given) where
 * the list is missing, creating its parents. One JSONPatch per element, as for Assign.
 */
function simpleModifySet(m: Mutator): string | undefined {
  if (m.kind !== "ModifySet" || m.values === null || m.values.length === 0 || !m.values.every((v) => typeof v === "string")) return undefined;
  const steps = stepsOf(m, (leaf) => leaf.t === "list" && leaf.lt !== "map" && (() => { const e = registry.element(leaf); return e.t === "scalar" && e.s === "string" && e.fmt !== "int-or-string"; })());
  const g = steps?.findIndex((x) => x.t === "glob") ?? -1;
  if (steps === undefined || g < 0) return undefined;
  const vals = m.values as string[];
  const dv = celLiteral([...new Set(vals)]);
  if (m.operation === "prune") {
    return renderGlob(steps, g, celLiteral(vals), { onlyPresent: true, present: (x) => `${x}.filter(s, !(s in ${dv}))` });
  }
  return renderGlob(steps, g, celLiteral(vals), { onlyPresent: false, present: (x) => `${x} + ${dv}.filter(s, !(s in ${x}))` });
}

/**
 * The value `m` writes whatever is there: an Assign's constant, or the image of an AssignImage
 * that gives domain, path and tag (its parser's result is then the three joined, on any
 * string, and on an absent field).
 */
function constantValue(m: Mutator): unknown {
  if (m.kind === "AssignImage") return m.assignDomain !== "" && m.assignPath !== "" && m.assignTag !== "" ? `${m.assignDomain}/${m.assignPath}${m.assignTag}` : undefined;
  if (m.kind !== "Assign") return undefined;
  const a = m.assign;
  if (a.externalData !== undefined || a.fromMetadata !== undefined) return undefined;
  return a.value;
}

/**
 * An Assign of a constant object or list at a location of fields only, each parent always
 * present (required fields, the top-level `spec`) and a struct, on built-in kinds: Gatekeeper
 * replaces the field wholesale (no patch when equal), which is one JSONPatch `add` (an apply
 * configuration would merge into what is there instead). Undefined where that does not hold.
 */
function simpleReplacement(m: Mutator): string | undefined {
  if (m.kind !== "Assign") return undefined;
  const a = m.assign;
  if (a.externalData !== undefined || a.fromMetadata !== undefined) return undefined;
  const value = a.value;
  if (typeof value !== "object" || value === null) return undefined;
  for (let d = 0; d < m.path.nodes.length; d++) if (m.tester.conditionAt(d) !== undefined) return undefined;
  if (m.bindings.length === 0 || schemaProblems(m).length > 0 || m.path.nodes.some((n) => n.type !== "Object")) return undefined;
  const names = m.path.nodes.map((n) => (n as { reference: string }).reference);
  for (const b of m.bindings) {
    let cur: SchemaNode | undefined = registry.forKind(b.group === "" ? b.version : `${b.group}/${b.version}`, b.kind);
    for (let i = 0; i < names.length; i++) {
      if (cur === undefined || cur.t !== "struct" || cur.preserveUnknown) return undefined;
      const isLast = i === names.length - 1;
      if (!isLast && !((cur.required ?? []).includes(names[i]!) || (i === 0 && names[i] === "spec"))) return undefined;
      cur = registry.child(cur, names[i]!);
    }
    if (cur === undefined || cur.t === "scalar" || cur.t === "untyped") return undefined;
  }
  const pointer = names.map((n) => "/" + n.replace(/~/g, "~0").replace(/\//g, "~1")).join("");
  return `[JSONPatch{op: "add", path: ${celString(pointer)}, value: ${celLiteral(value)}}]`;
}

/** `Object{a: Object.a{b: …}}`; a glob as a JSONPatch over the list's elements ({@link renderGlob}). */
function render(steps: readonly Step[], value: string): string {
  const g = steps.findIndex((s) => s.t === "glob" || s.t === "existing");
  if (g >= 0) return renderGlob(steps, g, value);
  const build = (i: number, type: string): string => {
    const s = steps[i]!;
    if (s.t !== "field") throw new Error("not a field");
    const fieldType = `${type}.${s.name}`;
    const next = steps[i + 1];
    const inner = next === undefined ? value : next.t === "key" ? `{${celString(next.name)}: ${value}}` : `${fieldType}{${build(i + 1, fieldType)}}`;
    return `${s.name}: ${inner}`;
  };
  return `Object{${build(0, "Object")}}`;
}

/**
 * A glob: one JSONPatch per element whose leaf is not the value yet, creating the missing
 * parents below the element (`transformList`: no `flatten()`, so it runs from Kubernetes 1.32
 * on). JSONPatch rather than an apply configuration because the merge identifies elements by
 * key, and a list may hold an element twice (env variables of one name are valid), where
 * Gatekeeper sets both.
 */
function renderGlob(steps: readonly Step[], g: number, value: string, leaf?: { onlyPresent: boolean; present: (x: string) => string }): string {
  const before = steps.slice(0, g) as { name: string; required: boolean }[];
  const after = steps.slice(g + 1) as { t: string; name: string }[];
  if (after.some((s) => s.t !== "field") || after.length === 0) throw new Error("not a field");
  const listField = before[before.length - 1]!.name;
  const keyed = steps[g]!.t === "existing" ? (steps[g] as { key: string; value: string }) : undefined;
  const v = keyed === undefined ? elementVar(listField) : `${before.every((s) => s.required) ? `object.${before.map((s) => s.name).join(".")}` : "?"}[i]`;
  // An absent list has no elements (Gatekeeper creates none for a glob).
  const list = before.every((s) => s.required) ? `object.${before.map((s) => s.name).join(".")}` : `object.${before.map((s) => `?${s.name}`).join(".")}.orValue([])`;
  const base = `${celString("/" + before.map((s) => s.name).join("/") + "/")} + string(i) + `;
  const sub = (k: number) => after.slice(0, k).map((s) => s.name).join(".");
  const ptr = (k: number) => `${base}${celString("/" + after.slice(0, k).map((s) => s.name).join("/"))}`;
  const nested = (k: number) => after.slice(k).reduceRight((acc, s) => `{${celString(s.name)}: ${acc}}`, value);
  const n = after.length;
  // The deepest present parent gets the rest as one object. Adding a value equal to the one
  // there changes nothing, as Gatekeeper changes nothing then: no test for it is needed.
  const leafX = `${v}.${sub(n)}`;
  if (leaf?.onlyPresent === true) {
    // Only where the list is there (nothing is created).
    const present = after.map((_, k) => `has(${v}.${sub(k + 1)})`).join(" && ");
    return `${list}.transformList(i, ${v}, ${present},\n  JSONPatch{op: "add", path: ${ptr(n)}, value: ${leaf.present(leafX)}})`;
  }
  let patch =
    leaf === undefined
      ? `JSONPatch{op: "add", path: ${ptr(n)}, value: ${value}}`
      : `!has(${leafX}) ? JSONPatch{op: "add", path: ${ptr(n)}, value: ${value}} :\n    JSONPatch{op: "add", path: ${ptr(n)}, value: ${leaf.present(leafX)}}`;
  for (let k = n - 1; k >= 1; k--) patch = `!has(${v}.${sub(k)}) ? JSONPatch{op: "add", path: ${ptr(k)}, value: ${nested(k)}} :\n    ${patch}`;
  if (keyed !== undefined) {
    // The first element with the key (Gatekeeper writes only that one), when there is one.
    const e = elementVar(listField);
    // `.?`: an element without the key is not the one (the key value is not "").
    return `[${list}.map(${e}, ${e}.?${keyed.key}.orValue("")).indexOf(${celString(keyed.value)})].filter(i, i >= 0).map(i,\n  ${patch})`;
  }
  return `${list}.transformList(i, ${v},\n  ${patch})`;
}

/** A short variable for the elements of list `field` (its first letter). */
function elementVar(field: string): string {
  const c = field[0]!.toLowerCase();
  return /[a-z]/.test(c) && !RESERVED.has(c) ? c : "x";
}
