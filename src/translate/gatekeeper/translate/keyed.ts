/**
 * Readable forms for locations with a keyed list node `[k: v]` on built-in kinds (issue 21):
 * the element Gatekeeper may create, as a short JSONPatch instead of the guarded walk of
 * `location.ts`. Three shapes, each Gatekeeper's walk (`../core.ts`) written for an object the
 * apiserver has decoded (every present node has its schema's type, so no type guards; `k` is a
 * required string field of the element, so `e.k` is always there):
 *
 * - terminal `a.b[k: v]` (Assign of an object): the first element with the key is replaced
 *   wholesale, or the value is appended (`variables.index`, the first match's index);
 *   MustExist: only replace; MustNotExist: only append.
 * - `a.b[k: v].c.d`: every element with the key gets the leaf (the deepest missing parent is
 *   added with the rest below it); none: `{k: v, c: {d: …}}` is appended. MustExist on the
 *   keyed node: only existing elements; MustNotExist: only the new element.
 * - `a.b[k: *].f[k2: v].c`: the same per element of the glob, on the element's list `f` (absent:
 *   created as `[{k2: v, c: …}]`, as Gatekeeper creates it). New elements are always appended
 *   with `/-`, never by rewriting the list, so a mutation merged after this one (merge.ts),
 *   computed on the object before it, keeps this one's element.
 *
 * The leaf value is a constant (Assign; AssignImage with domain, path and tag) or an
 * AssignImage with a tag only (the image keeps its domain and path: `find` of Gatekeeper's
 * domain-and-path prefix, plus the tag). Both are idempotent: a constant trivially; the tag
 * form because the prefix of `prefix + tag` is `prefix` again (the tag, validated by
 * Gatekeeper, starts with `:` or `@` and holds no `/`, so the first `/` and the domain it
 * decides are unchanged, and the path stops where the tag starts): one pass, no convergence
 * re-check. An equal value written again changes nothing, as Gatekeeper changes nothing then.
 */
import { SchemaRegistry, type SchemaNode } from "../../../kube/schema.js";
import type { Mutator } from "../../../gatekeeper/index.js";
import { celString } from "./cel.js";
import { plainLiteral } from "./literal.js";
import { schemaProblems } from "./schema-check.js";

const registry = SchemaRegistry.builtin();
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(["as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while", "in", "true", "false", "null"]);
const ident = (s: string) => IDENT.test(s) && !RESERVED.has(s);

/** Gatekeeper's domain-and-path prefix of an image (its parser: the domain is the text before
 * the first `/` when that has a `.` or `:` or is `localhost`; the path runs to the first `:` or `@`). */
export const IMAGE_PREFIX = "^([^/]*[.:][^/]*/|localhost/)?[^:@]*";

type Step =
  | { readonly t: "field"; readonly name: string; readonly required: boolean }
  | { readonly t: "glob" }
  | { readonly t: "keyed"; readonly key: string; readonly value: string };

export interface KeyedForm {
  readonly expression: string;
  readonly variables: readonly { readonly name: string; readonly expression: string }[];
  readonly usesFlatten: boolean;
  readonly why: string;
}

function stepsOn(m: Mutator, root: SchemaNode): { steps: Step[]; leaf: SchemaNode } | undefined {
  const steps: Step[] = [];
  let cur: SchemaNode = root;
  const nodes = m.path.nodes;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    if (n.type === "Object") {
      if (cur.t !== "struct" || cur.atomic === true || cur.preserveUnknown === true || !ident(n.reference)) return undefined;
      const next = registry.child(cur, n.reference);
      if (next === undefined) return undefined;
      steps.push({ t: "field", name: n.reference, required: (cur.required ?? []).includes(n.reference) || (i === 0 && n.reference === "spec") });
      cur = next;
    } else {
      if (cur.t !== "list" || !ident(n.keyField)) return undefined;
      const el = registry.element(cur);
      if (el.t !== "struct" || el.atomic === true || el.preserveUnknown === true) return undefined;
      if (n.glob) steps.push({ t: "glob" });
      else {
        // The key is a required string field: every element has it, and `==` is Go's comparison.
        const kf = registry.child(el, n.keyField);
        if (typeof n.keyValue !== "string" || kf?.t !== "scalar" || kf.s !== "string" || kf.fmt === "int-or-string" || !(el.required ?? []).includes(n.keyField)) return undefined;
        steps.push({ t: "keyed", key: n.keyField, value: n.keyValue });
      }
      cur = el;
    }
  }
  return { steps, leaf: cur };
}

/** The value a leaf gets: constant, or computed from the present leaf `x` (an optional). */
interface Leaf {
  /** CEL of the new value, given the CEL of the current leaf as an optional string. */
  readonly at: (current: string) => string;
  /** The value written where the leaf is created (JSON). */
  readonly created: unknown;
}

function leafOf(m: Mutator, leaf: SchemaNode): Leaf | undefined {
  if (m.kind === "AssignImage") {
    if (leaf.t !== "scalar" || leaf.s !== "string") return undefined;
    if (m.assignDomain !== "" && m.assignPath !== "" && m.assignTag !== "") {
      const v = `${m.assignDomain}/${m.assignPath}${m.assignTag}`;
      return { at: () => celString(v), created: v };
    }
    if (m.assignDomain === "" && m.assignPath === "" && m.assignTag !== "") {
      return { at: (x) => `${x}.orValue("").find(${celString(IMAGE_PREFIX)}) + ${celString(m.assignTag)}`, created: m.assignTag };
    }
    return undefined;
  }
  if (m.kind !== "Assign") return undefined;
  const a = m.assign;
  if (a.externalData !== undefined || a.fromMetadata !== undefined) return undefined;
  const v = a.value;
  const fits =
    typeof v === "string" ? leaf.t === "scalar" && (leaf.s === "string" || leaf.fmt === "int-or-string")
    : typeof v === "boolean" ? leaf.t === "scalar" && leaf.s === "boolean"
    : typeof v === "number" ? leaf.t === "scalar" && Number.isSafeInteger(v) && (leaf.s === "integer" || leaf.fmt === "int-or-string")
    : Array.isArray(v) ? leaf.t === "list"
    : typeof v === "object" && v !== null ? leaf.t === "struct" || leaf.t === "map"
    : false;
  return fits ? { at: () => plainLiteral(v), created: v } : undefined;
}

/** The steps of `m`'s location, the same on every kind it applies to (built-in kinds only). */
function resolve(m: Mutator): { steps: Step[]; leaf: SchemaNode } | undefined {
  if (m.kind === "AssignMetadata" || m.bindings.length === 0 || schemaProblems(m).length > 0) return undefined;
  let r: { steps: Step[]; leaf: SchemaNode } | undefined;
  for (const b of m.bindings) {
    const root = registry.forKind(b.group === "" ? b.version : `${b.group}/${b.version}`, b.kind);
    if (root === undefined) return undefined;
    const s = stepsOn(m, root);
    if (s === undefined || (r !== undefined && JSON.stringify(s.steps) !== JSON.stringify(r.steps))) return undefined;
    r = s;
  }
  return r;
}

const fieldsOf = (steps: readonly object[]): string[] => steps.map((s) => (s as { name: string }).name);
const ptrText = (names: readonly string[]) => names.map((n) => "/" + n).join("");
/** `{"a": {"b": v}}` for names [a, b]. */
const nest = (names: readonly string[], v: unknown): unknown => names.reduceRight((acc, n) => ({ [n]: acc }), v);
const varFor = (field: string, taken: string) => {
  const c = field[0]!.toLowerCase();
  return /[a-z]/.test(c) && !RESERVED.has(c) && c !== taken && c !== "i" && c !== "j" && c !== "p" ? c : taken === "x" ? "y" : "x";
};

/**
 * Per element `e` (at CEL pointer `base`), the leaf below it through fields `after`: one
 * JSONPatch adding the deepest missing parent (with the rest below it) or the leaf.
 */
function perElement(e: string, base: string, after: readonly string[], leaf: Leaf): string {
  const n = after.length;
  const sub = (k: number) => after.slice(0, k).join(".");
  const ptr = (k: number) => `${base} + ${celString(ptrText(after.slice(0, k)))}`;
  const leafCur = n === 1 ? `${e}.?${after[0]}` : `${e}.${sub(n - 1)}.?${after[n - 1]}`;
  let patch = `JSONPatch{op: "add", path: ${ptr(n)}, value: ${leaf.at(leafCur)}}`;
  for (let k = n - 1; k >= 1; k--) {
    patch = `!has(${e}.${sub(k)}) ? JSONPatch{op: "add", path: ${ptr(k)}, value: ${plainLiteral(nest(after.slice(k), leaf.created))}} :\n  ${patch}`;
  }
  return patch;
}

/** The readable keyed form of `m` (see the module comment), or undefined. */
export function keyedForm(m: Mutator): KeyedForm | undefined {
  if (m.kind !== "Assign" && m.kind !== "AssignImage") return undefined;
  const r = resolve(m);
  if (r === undefined) return undefined;
  const { steps } = r;
  const lists = steps.flatMap((s, i) => (s.t === "field" ? [] : [i]));
  const tests = m.path.nodes.map((_, d) => m.tester.conditionAt(d));
  const testAt = (d: number) => tests[d];
  const othersUntested = (d: number) => tests.every((c, i) => i === d || c === undefined);

  // Terminal keyed node: replace the first match wholesale, or append.
  if (lists.length === 1 && lists[0] === steps.length - 1 && steps[lists[0]!]!.t === "keyed") {
    const k = lists[0]!;
    const before = steps.slice(0, k) as { name: string; required: boolean }[];
    if (!before.every((s) => s.required) || !othersUntested(k) || m.kind !== "Assign") return undefined;
    const value = m.assign.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const key = steps[k] as { key: string; value: string };
    const list = `object.${fieldsOf(before).join(".")}`;
    const e = varFor(before[before.length - 1]!.name, "");
    const base = celString(ptrText(fieldsOf(before)) + "/");
    const v = plainLiteral(value);
    const c = testAt(k);
    const add = `JSONPatch{op: "add", path: ${celString(ptrText(fieldsOf(before)) + "/-")}, value: ${v}}`;
    const replace = `JSONPatch{op: "replace", path: ${base} + string(variables.index), value: ${v}}`;
    const expression =
      c === "MustExist" ? `variables.index < 0 ? [] : [${replace}]`
      : c === "MustNotExist" ? `variables.index < 0 ? [${add}] : []`
      : `[JSONPatch{op: variables.index < 0 ? "add" : "replace", path: ${base} + (variables.index < 0 ? "-" : string(variables.index)),\n  value: ${v}}]`;
    return {
      expression,
      variables: [{ name: "index", expression: `${list}.map(${e}, ${e}.${key.key}).indexOf(${celString(key.value)})` }],
      usesFlatten: false,
      why: `a whole element at a keyed location: the first element with ${key.key} ${JSON.stringify(key.value)} is replaced (an apply would merge into it), or the value is appended`,
    };
  }

  // A keyed node, then fields to the leaf; at most one glob before it, directly over the list's parent.
  const kIdx = steps.findIndex((s) => s.t === "keyed");
  if (kIdx < 0 || steps.slice(kIdx + 1).some((s) => s.t !== "field") || kIdx === steps.length - 1) return undefined;
  const leaf = leafOf(m, r.leaf);
  if (leaf === undefined) return undefined;
  const key = steps[kIdx] as { key: string; value: string };
  const after = fieldsOf(steps.slice(kIdx + 1));
  const newElement = (): string => plainLiteral({ [key.key]: key.value, ...(nest(after, leaf.created) as object) });
  const match = (e: string) => `${e}.${key.key} == ${celString(key.value)}`;

  if (lists.length === 1) {
    const before = steps.slice(0, kIdx) as { name: string; required: boolean }[];
    if (!before.every((s) => s.required) || !othersUntested(kIdx)) return undefined;
    const names = fieldsOf(before);
    const list = `object.${names.join(".")}`;
    const e = varFor(names[names.length - 1]!, "");
    const each = `${list}.transformList(i, ${e}, ${match(e)},\n  ${perElement(e, `${celString(ptrText(names) + "/")} + string(i)`, after, leaf)})`;
    const append = `JSONPatch{op: "add", path: ${celString(ptrText(names) + "/-")}, value: ${newElement()}}`;
    const c = testAt(kIdx);
    const expression =
      c === "MustExist" ? each
      : c === "MustNotExist" ? `${list}.exists(${e}, ${match(e)}) ? [] : [${append}]`
      : `// every element with ${key.key} ${JSON.stringify(key.value)}; none: Gatekeeper appends one\n[${each}\n].map(p, size(p) > 0 ? p : [\n  ${append}\n])[0]`;
    return {
      expression,
      variables: [],
      usesFlatten: false,
      why:
        c === "MustExist"
          ? `every existing element with ${key.key} ${JSON.stringify(key.value)} gets the value (MustExist: none is created)`
          : `every element with ${key.key} ${JSON.stringify(key.value)} gets the value; without one, Gatekeeper's new element is appended (JSONPatch: a merge would collapse duplicate keys)`,
    };
  }

  // Glob, one field (the inner list), keyed node.
  if (lists.length !== 2 || steps[lists[0]!]!.t !== "glob" || lists[1] !== kIdx || kIdx !== lists[0]! + 2) return undefined;
  if (!tests.every((c) => c === undefined)) return undefined;
  const before = steps.slice(0, lists[0]!) as { name: string; required: boolean }[];
  if (!before.every((s) => s.required)) return undefined;
  const names = fieldsOf(before);
  const inner = steps[lists[0]! + 1] as { name: string; required: boolean };
  const c = varFor(names[names.length - 1]!, "");
  const e = varFor(inner.name, c);
  const innerList = inner.required ? `${c}.${inner.name}` : `${c}.?${inner.name}.orValue([])`;
  const base = `${celString(ptrText(names) + "/")} + string(i)`;
  const each = `${innerList}.transformList(j, ${e}, ${match(e)},\n    ${perElement(e, `${base} + ${celString("/" + inner.name + "/")} + string(j)`, after, leaf).replace(/\n/g, "\n    ")})`;
  // Appended (`/-`), never the list rewritten: a mutation merged after this one (merge.ts)
  // appends to the same list, computed on the object before this one's append.
  const appendOne = `JSONPatch{op: "add", path: ${base} + ${celString("/" + inner.name + "/-")}, value: ${newElement()}}`;
  const create = inner.required
    ? appendOne
    : `has(${c}.${inner.name}) ? ${appendOne} :\n    JSONPatch{op: "add", path: ${base} + ${celString("/" + inner.name)}, value: [${newElement()}]}`;
  return {
    expression:
      `// in every element, each ${inner.name} entry with ${key.key} ${JSON.stringify(key.value)}; none: Gatekeeper appends one\n` +
      `object.${names.join(".")}.transformList(i, ${c},\n  [${each}\n  ].map(p, size(p) > 0 ? p : [\n    ${create}\n  ])[0]\n).flatten()`,
    variables: [],
    usesFlatten: true,
    why: `under every element, each ${inner.name} entry with ${key.key} ${JSON.stringify(key.value)} gets the value; without one, Gatekeeper's new entry is appended (JSONPatch: a merge would collapse duplicate keys)`,
  };
}
