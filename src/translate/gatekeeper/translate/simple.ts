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
import { plainLiteral } from "./literal.js";
import { keyedForm } from "./keyed.js";
import { schemaProblems } from "./schema-check.js";

const registry = SchemaRegistry.builtin();

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** CEL's reserved words cannot be field names in an `Object{…}` literal. */
const RESERVED = new Set(["as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while", "in", "true", "false", "null"]);

/** One step of the location, as the schemas resolve it (the same for every kind). */
type Step =
  | { readonly t: "field"; readonly name: string; readonly required: boolean }
  | { readonly t: "key"; readonly name: string }
  | { readonly t: "glob"; readonly key: string };

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
  // pathTests: only MustNotExist on the leaf ("set where absent", see leafAbsentOnly).
  for (let d = 0; d < m.path.nodes.length; d++) {
    const c = m.tester.conditionAt(d);
    if (c !== undefined && !(c === "MustNotExist" && d === m.path.nodes.length - 1 && m.path.nodes[d]!.type === "Object")) return undefined;
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
  /** Policy variables the expression reads (`variables.<name>`). */
  readonly variables?: readonly { readonly name: string; readonly expression: string }[];
  /** Whether it needs `list.flatten()` (Kubernetes ≥ 1.34). */
  readonly usesFlatten?: boolean;
  /** Why this form is the mutator's result (for `--explain`). */
  readonly why: string;
}

/** The readable form of `m` (see the module comment), or undefined where only the full walk is exact. */
export function simpleForm(m: Mutator): SimpleForm | undefined {
  const k = keyedForm(m);
  if (k !== undefined) return { patchType: "JSONPatch", ...k };
  const a = simpleAssign(m);
  if (a !== undefined) return a;
  const ms = simpleModifySet(m);
  if (ms !== undefined) return { patchType: "JSONPatch", expression: ms, why: "a ModifySet of strings under a glob over a typed list: one add per element, no type guards (the schema fixes every type)" };
  const r = simpleReplacement(m);
  if (r !== undefined) return { patchType: "JSONPatch", expression: r, why: "a constant object or list replacing the field wholesale (an apply would merge): one add, its parents always present" };
  return undefined;
}

/**
 * An Assign of a constant (or an AssignImage with domain, path and tag) through struct fields
 * and at most one glob; with a MustNotExist pathTest on the leaf, only where the leaf is absent
 * ("set a default"). Without a glob: an apply configuration (scalars; lists and `orValue` when
 * only absent leaves are set, which re-applies what is there otherwise). Under a glob: one
 * JSONPatch add per element (objects and lists replace the leaf wholesale, as Gatekeeper does).
 */
function simpleAssign(m: Mutator): SimpleForm | undefined {
  if (m.kind !== "Assign" && m.kind !== "AssignImage") return undefined;
  const value = constantValue(m);
  if (value === undefined || value === null) return undefined;
  const scalar = typeof value !== "object";
  const absentOnly = m.tester.conditionAt(m.path.nodes.length - 1) === "MustNotExist";
  const steps = stepsOf(m, (leaf) => (scalar ? scalarFits(leaf, value) : Array.isArray(value) ? leaf.t === "list" : leaf.t === "struct" || leaf.t === "map"));
  if (steps === undefined) return undefined;
  const g = steps.findIndex((s) => s.t === "glob");
  const lit = plainLiteral(value);
  if (g >= 0) {
    return {
      patchType: "JSONPatch",
      expression: renderGlob(steps, g, lit, undefined, absentOnly),
      why: absentOnly
        ? "a constant where the leaf is absent (MustNotExist), under a glob over a typed list: one add per such element, no type guards (the schema fixes every type)"
        : "a constant under a glob over a typed list: one add per element (an equal value changes nothing), no type guards (the schema fixes every type)",
    };
  }
  if (absentOnly && !scalar) {
    // A list or object where absent: the apply could not set an atomic list (MAP refuses to
    // mutate one), so JSONPatch: add the deepest missing parent with the rest, or the leaf.
    if (!steps.every((s) => s.t === "field")) return undefined;
    const names = (steps as { name: string; required: boolean }[]).map((s) => s.name);
    let expr = "[]";
    for (let k = names.length; k >= 1; k--) {
      if ((steps[k - 1] as { required: boolean }).required) continue;
      const rest = names.slice(k).reduceRight<unknown>((acc, n) => ({ [n]: acc }), value);
      expr = `!has(object.${names.slice(0, k).join(".")}) ? [JSONPatch{op: "add", path: ${celString("/" + names.slice(0, k).join("/"))}, value: ${plainLiteral(rest)}}] :\n${expr}`;
    }
    return {
      patchType: "JSONPatch",
      expression: expr,
      why: "a default (MustNotExist on the leaf) that is a list or an object: one add of the leaf, or of its deepest missing parent, where it is absent",
    };
  }
  if (absentOnly) {
    if (!steps.every((s) => s.t === "field")) return undefined;
    // The leaf as an optional: `.` through required fields, `.?` from the first optional one on.
    let opt = false;
    const chain = (steps as { name: string; required: boolean }[]).map((s) => ((opt ||= !s.required) ? `.?${s.name}` : `.${s.name}`)).join("");
    return {
      patchType: "ApplyConfiguration",
      expression: render(steps, `object${chain}.orValue(${lit})`),
      why: "a default (MustNotExist on the leaf) under granular structs: the apply writes the value where the field is absent and what is there otherwise (no change)",
    };
  }
  if (!scalar) return undefined;
  return { patchType: "ApplyConfiguration", expression: render(steps, lit), why: "a constant under granular structs: server-side apply creates the parents and sets the field, as Gatekeeper does" };
}

/**
 * ModifySet of strings under one glob, on a list of strings: prune keeps each present list's
 * other values; merge appends the values not yet there, and sets the values (as given) where
 * the list is missing, creating its parents. One JSONPatch per element, as for Assign.
 */
function simpleModifySet(m: Mutator): string | undefined {
  if (m.kind !== "ModifySet" || m.values === null || m.values.length === 0 || !m.values.every((v) => typeof v === "string")) return undefined;
  // A MustNotExist pathTest on the leaf (which stepsOf lets through for Assign's "set where
  // absent") is not modelled here: the full walk carries it (found by the pass-count differential,
  // seed 946358443: a prune applied where the list exists).
  if (m.tester.conditionAt(m.path.nodes.length - 1) !== undefined) return undefined;
  const steps = stepsOf(m, (leaf) => leaf.t === "list" && leaf.lt !== "map" && (() => { const e = registry.element(leaf); return e.t === "scalar" && e.s === "string" && e.fmt !== "int-or-string"; })());
  const g = steps?.findIndex((x) => x.t === "glob") ?? -1;
  if (steps === undefined || g < 0) return undefined;
  const vals = m.values as string[];
  const dv = plainLiteral([...new Set(vals)]);
  if (m.operation === "prune") {
    return renderGlob(steps, g, plainLiteral(vals), { onlyPresent: true, present: (x) => `${x}.filter(s, !(s in ${dv}))` });
  }
  return renderGlob(steps, g, plainLiteral(vals), { onlyPresent: false, present: (x) => `${x} + ${dv}.filter(s, !(s in ${x}))` });
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
  if (steps.some((s) => s.t === "glob")) throw new Error("a glob: see renderGlob");
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
function renderGlob(steps: readonly Step[], g: number, value: string, leaf?: { onlyPresent: boolean; present: (x: string) => string }, absentOnly = false): string {
  const before = steps.slice(0, g) as { name: string; required: boolean }[];
  const after = steps.slice(g + 1) as { t: string; name: string }[];
  if (after.some((s) => s.t !== "field") || after.length === 0) throw new Error("not a field");
  const listField = before[before.length - 1]!.name;
  const v = elementVar(listField);
  // An absent list has no elements (Gatekeeper creates none for a glob).
  let opt = false;
  const chain = before.map((s) => ((opt ||= !s.required) ? `.?${s.name}` : `.${s.name}`)).join("");
  const list = opt ? `object${chain}.orValue([])` : `object${chain}`;
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
      : `!has(${leafX}) ? JSONPatch{op: "add", path: ${ptr(n)}, value: ${value}} :\n  JSONPatch{op: "add", path: ${ptr(n)}, value: ${leaf.present(leafX)}}`;
  for (let k = n - 1; k >= 1; k--) patch = `!has(${v}.${sub(k)}) ? JSONPatch{op: "add", path: ${ptr(k)}, value: ${nested(k)}} :\n  ${patch}`;
  // MustNotExist on the leaf: only the elements where it is absent.
  if (absentOnly) return `${list}.transformList(i, ${v}, !${v}.${after.map((s) => `?${s.name}`).join(".")}.hasValue(),\n  ${patch})`;
  return `${list}.transformList(i, ${v},\n  ${patch})`;
}

/** A short variable for the elements of list `field` (its first letter; never `i`, the index variable beside it). */
function elementVar(field: string): string {
  const c = field[0]!.toLowerCase();
  return /[a-z]/.test(c) && !RESERVED.has(c) && c !== "i" && c !== "s" ? c : "x";
}
