/**
 * A Gatekeeper location compiled into a CEL expression of type `list(JSONPatch)` that does on
 * the live object what Gatekeeper's walk (`src/gatekeeper/core.ts`) does (gatekeeper.md §5.4):
 *
 * - object node `k`: the current value must be a map (else a failing patch = Gatekeeper's
 *   error); present → descend (unless MustNotExist), missing → create the rest (unless
 *   MustExist);
 * - keyed node `[f: v]`: the value must be a list; every element that is a map whose `f` equals
 *   `v` in type and value is descended into (`transformList` + `flatten`); none → a new element
 *   `{f: v, …}` is appended (unless MustExist);
 * - glob `[f: *]`: every element is descended into (MustNotExist: never applies);
 * - the terminal is the mutator's setter ({@link Terminal}).
 *
 * Whatever has to be created below a missing node is computed at translation time by running
 * Gatekeeper's own walk on the fresh containers ({@link staticWalk}), so creation, "no partial
 * mutation" and ModifySet's create-on-prune quirk are Gatekeeper's by construction; a value
 * only known at run time (fromMetadata) travels through the static walk as a marker string.
 */
import { keyValueToGo, MutateError, type Setter } from "../../../gatekeeper/index.js";
import type { ListNode, Path } from "../../../gatekeeper/index.js";
import { goNodeString, printNode } from "../../../gatekeeper/index.js";
import type { Tester } from "../../../gatekeeper/index.js";
import { GoFloat, goTypeName, isMap, setKey, toJSON, type GoMap, type GoValue } from "../../../gatekeeper/index.js";
import { addOp, celLiteral, celString, Dynamic, errorOp, indent, ptrAppend, ptrChild, ptrIndex, type Names, type Pointer } from "./cel.js";

/** The setter's CEL side. */
export interface Terminal {
  /** Parent map `cur` has key `key` (pathTest already checked). */
  present(cur: string, key: string, ptr: Pointer, names: Names): string;
  /** Parent map exists, key missing (pathTest already checked). */
  missing(ptr: Pointer): string;
  /** Terminal keyed list node (Assign only); `cur` is the list. */
  keyedTerminal?(cur: string, node: ListNode, ptr: Pointer, names: Names): string;
  /** Gatekeeper's setter, used on freshly created containers. */
  readonly setter: Setter;
  /** A marker string the setter writes that stands for a run-time value. */
  readonly marker?: { readonly text: string; readonly expr: string };
}

/** Gatekeeper's error for a map node meeting something else. */
function objectMismatch(node: Path["nodes"][number]): string {
  return `mismatch between path entry (type: object) and received object (not a map). Path: ${printNode(node)}`;
}

function listMismatch(node: Path["nodes"][number]): string {
  return `mismatch between path entry (type: List) and received object (not a list). Path: ${printNode(node)}`;
}

/** `type(e) == map && "f" in e && <e.f equals v in Go type and value>`. */
export function keyMatch(e: string, node: ListNode): string {
  const f = celString(node.keyField);
  const kv = node.keyValue!;
  const typed = typeof kv === "string" ? `type(${e}[${f}]) == string && ${e}[${f}] == ${celString(kv)}` : `type(${e}[${f}]) == int && ${e}[${f}] == ${kv.toString()}`;
  return `type(${e}) == map && ${f} in ${e} && ${typed}`;
}

/**
 * `keyMatch` for an element of a list of structs of a built-in kind: the schema fixes the key
 * field's type, so plain CEL equality is Gatekeeper's comparison (a key value of the other type
 * never matches either way). The element itself is still tested for being a map: the apiserver
 * never shows anything else there, but nothing else needs to hold for this to be safe.
 */
export function typedKeyMatch(e: string, node: ListNode): string {
  const f = celString(node.keyField);
  const v = typeof node.keyValue === "string" ? celString(node.keyValue) : String(node.keyValue);
  return `type(${e}) == map && ${f} in ${e} && ${e}[${f}] == ${v}`;
}

export class LocationCompiler {
  /** Whether the expression needs `list.flatten()` (lists extension, Kubernetes ≥ 1.34). */
  usesFlatten = false;

  constructor(
    private readonly path: Path,
    private readonly tester: Tester,
    private readonly terminal: Terminal,
    private readonly names: Names,
    /**
     * Every node of the path is a struct, map or list of structs in a built-in kind's schema
     * (checked by the caller): the object CEL sees has those types there, so Gatekeeper's type
     * errors cannot occur and their tests are left out.
     */
    private readonly typed = false,
  ) {}

  compile(): string {
    if (this.path.nodes.length === 0) return errorOp("attempting to mutate an empty target location");
    return this.gen(0, "object", []);
  }

  /**
   * The walk from node `depth` on, `cur` being the value the walk holds there (the parent map of
   * an object node, the list of a list node) at `ptr`; for a group's fast path (`fast.ts`).
   */
  compileFrom(depth: number, cur: string, ptr: Pointer): string {
    return this.gen(depth, cur, ptr);
  }

  private cond(depth: number) {
    return this.tester.conditionAt(depth);
  }

  /** Whether element `e` is the one keyed node `node` addresses. */
  private keyed(e: string, node: ListNode): string {
    return this.typed ? typedKeyMatch(e, node) : keyMatch(e, node);
  }

  private gen(i: number, cur: string, ptr: Pointer): string {
    const nodes = this.path.nodes;
    const node = nodes[i]!;
    const last = i === nodes.length - 1;
    const cond = this.cond(i);
    if (node.type === "Object") {
      const k = node.reference;
      const cptr = ptrChild(ptr, k);
      let present: string;
      let missing: string;
      if (last) {
        present = cond === "MustNotExist" ? "[]" : this.terminal.present(cur, k, cptr, this.names);
        missing = cond === "MustExist" ? "[]" : this.terminal.missing(cptr);
      } else {
        present = cond === "MustNotExist" ? "[]" : this.gen(i + 1, `${cur}[${celString(k)}]`, cptr);
        missing = cond === "MustExist" ? "[]" : this.create(i, cptr);
      }
      const body = present === missing ? present : `(${celString(k)} in ${cur} ?\n  ${indent(present)} :\n  ${indent(missing)})`;
      // The admitted object itself is always a map.
      if (i === 0 || this.typed) return body;
      return `(type(${cur}) == map ?\n  ${indent(body)} :\n  ${errorOp(objectMismatch(node))})`;
    }
    const listOr = (body: string) => (this.typed ? body : `(type(${cur}) == list ?\n  ${indent(body)} :\n  ${errorOp(listMismatch(node))})`);
    if (last) {
      if (this.terminal.keyedTerminal === undefined) return errorOp("mutator does not understand keyed lists");
      return listOr(this.terminal.keyedTerminal(cur, node, ptr, this.names));
    }
    const j = this.names.next("i");
    const e = this.names.next("e");
    this.usesFlatten = true;
    if (node.glob) {
      const body = cond === "MustNotExist" ? "[]" : `${cur}.transformList(${j}, ${e}, ${indent(this.gen(i + 1, e, ptrIndex(ptr, j)))}).flatten()`;
      return listOr(body);
    }
    const m = this.keyed(e, node);
    const perMatch = `${cur}.transformList(${j}, ${e}, ${m},\n  ${indent(this.gen(i + 1, e, ptrIndex(ptr, j)))})`;
    const missing = cond === "MustExist" ? "[]" : this.appendElement(i, ptr);
    let body: string;
    if (cond === "MustNotExist") {
      const e2 = this.names.next("e");
      body = missing === "[]" ? "[]" : `(${cur}.exists(${e2}, ${this.keyed(e2, node)}) ?\n  [] :\n  ${indent(missing)})`;
    } else if (missing === "[]") {
      // Without a match the filtered transformList is empty.
      body = `${perMatch}.flatten()`;
    } else {
      // One scan: the per-match patch lists, none of them when nothing matches.
      const r = this.names.next("r");
      body = `[${perMatch}].map(${r}, size(${r}) == 0 ?\n  ${indent(missing)} :\n  ${r}.flatten())[0]`;
    }
    return listOr(body);
  }

  /** Node `i` (an object node) is missing: what Gatekeeper attaches there, computed now. */
  private create(i: number, cptr: Pointer): string {
    const next = this.path.nodes[i + 1]!;
    const fresh: GoValue = next.type === "Object" ? {} : [];
    return this.staticPatch(fresh, i + 1, cptr);
  }

  /** Keyed node `i` has no match: Gatekeeper appends `{f: v}` and walks into it. */
  private appendElement(i: number, ptr: Pointer): string {
    const node = this.path.nodes[i] as ListNode;
    const el: GoMap = {};
    setKey(el, node.keyField, keyValueToGo(node.keyValue!));
    return this.staticPatch(el, i + 1, ptrAppend(ptr));
  }

  private staticPatch(fresh: GoValue, depth: number, at: Pointer): string {
    let r: [boolean, GoValue];
    try {
      r = staticWalk(this.path, this.tester, this.terminal.setter, fresh, depth);
    } catch (e) {
      if (e instanceof MutateError) return errorOp(e.message);
      throw e;
    }
    if (!r[0]) return "[]";
    return addOp(at, celLiteral(staticJson(r[1], this.terminal.marker)));
  }

}

/** A value built at translation time as JSON for `celLiteral`, the run-time value's marker as its CEL. */
export function staticJson(v: GoValue, marker: Terminal["marker"]): unknown {
  const json = toJSON(v);
  if (marker === undefined) return json;
  const sub = (x: unknown): unknown => {
    if (x === marker.text) return new Dynamic(marker.expr);
    if (Array.isArray(x)) return x.map(sub);
    if (typeof x === "object" && x !== null) return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, sub(y)]));
    return x;
  };
  return sub(json);
}


/**
 * Gatekeeper's walk (`core.ts` `State.walk`) from `depth` on a value, used on freshly created
 * containers at translation time. Returns whether the setter ran on an attached path and the
 * resulting value.
 */
export function staticWalk(path: Path, tester: Tester, setter: Setter, current: GoValue, depth: number): [boolean, GoValue] {
  const entry = path.nodes[depth]!;
  const last = depth === path.nodes.length - 1;
  const existsOkay = tester.existsOkay(depth);
  const missingOkay = tester.missingOkay(depth);
  if (entry.type === "Object") {
    if (!isMap(current)) throw new MutateError(`mismatch between path entry (type: object) and received object (type: ${goTypeName(current)}). Path: ${goNodeString(entry)}`);
    const exists = Object.prototype.hasOwnProperty.call(current, entry.reference);
    if (exists ? !existsOkay : !missingOkay) return [false, null];
    if (last) {
      setter.setValue(current, entry.reference);
      return [true, current];
    }
    let next: GoValue;
    if (exists) next = current[entry.reference]!;
    else {
      const n = path.nodes[depth + 1]!;
      next = n.type === "Object" ? {} : [];
    }
    const [mutated, value] = staticWalk(path, tester, setter, next, depth + 1);
    if (mutated) setKey(current, entry.reference, value);
    return [mutated, current];
  }
  if (!Array.isArray(current)) throw new MutateError(`mismatch between path entry (type: List) and received object (type: ${goTypeName(current)}). Path: ${goNodeString(entry)}`);
  const list = current.slice();
  if (last) {
    if (!setter.keyedListOkay) throw new MutateError("mutator does not understand keyed lists");
    if (entry.glob) throw new MutateError("last path entry can not be globbed");
    const value = setter.keyedListValue();
    for (let i = 0; i < list.length; i++) {
      const el = list[i]!;
      if (!isMap(el)) throw new MutateError(`cast error, unable to case ${goTypeName(el)} to map[string]interface{}`);
      if (Object.prototype.hasOwnProperty.call(el, entry.keyField) && keyEq(entry.keyValue, el[entry.keyField])) {
        if (!existsOkay) return [false, null];
        list[i] = value;
        return [true, list];
      }
    }
    if (!missingOkay) return [false, null];
    return [true, [...list, value]];
  }
  if (entry.glob && !existsOkay) return [false, null];
  let mutated = false;
  let found = false;
  for (const el of list) {
    if (entry.glob) {
      const [m] = staticWalk(path, tester, setter, el, depth + 1);
      mutated = mutated || m;
      found = true;
    } else if (isMap(el) && Object.prototype.hasOwnProperty.call(el, entry.keyField) && keyEq(entry.keyValue, el[entry.keyField])) {
      if (!existsOkay) return [false, null];
      const [m] = staticWalk(path, tester, setter, el, depth + 1);
      mutated = mutated || m;
      found = true;
    }
  }
  if (!entry.glob && !found) {
    if (!missingOkay) return [false, null];
    const nextEntry = path.nodes[depth + 1]!;
    if (nextEntry.type !== "Object") throw new MutateError("two consecutive list path entries not allowed");
    const el: GoMap = {};
    setKey(el, entry.keyField, keyValueToGo(entry.keyValue!));
    const [m] = staticWalk(path, tester, setter, el, depth + 1);
    list.push(el);
    mutated = mutated || m;
  }
  return [mutated, list];
}

function keyEq(kv: string | bigint | undefined, v: GoValue | undefined): boolean {
  if (v instanceof GoFloat) return false;
  if (typeof kv === "string") return v === kv;
  if (typeof kv === "bigint") return typeof v === "number" && Number.isInteger(v) && BigInt(v) === kv;
  return false;
}
