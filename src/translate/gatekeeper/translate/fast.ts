/**
 * The fast path of a group: all of its passes as ONE JSONPatch mutation, for the objects on which
 * that is provably the same as the group's mutations one by one.
 *
 * A group of interacting mutators is emitted as its mutators in Gatekeeper's order, repeated for
 * the passes `passes.ts` proves enough. Each of those mutations walks the object again and pays
 * the pipeline's price per mutation (evaluation, patch, strict decoding). Most of what makes
 * them depend on each other is creation: a mutator on `containers[name: app]` creates the
 * container when it is missing, and one globbing over `containers[name: *]` must then see it in
 * the next pass. When every node that more than one member walks through already exists (the
 * list, and each element that more than one member, or any glob, addresses by key), nothing
 * shared is ever created, and the group falls apart into independent cells:
 *
 * - a terminal field written by several members (an image rewritten by three AssignImage, a
 *   list two ModifySet merge into) is a value; the passes write it as rounds of its writers'
 *   functions in Gatekeeper's order, composed in CEL over that value, as many rounds as those
 *   writers need to settle on their own (`schedule` of them; at most the group's passes);
 * - a subtree only one member walks into (its own branch) is changed by it alone, creating what
 *   it needs there as its own translation does; its kinds (Assign, ModifySet) are idempotent
 *   alone, so one run is all the passes.
 *
 * One addressed element per list may also be missing, when what happens to it can be followed as
 * a value (`virtualElement`): its first member in Gatekeeper order that matches and can create it
 * does, later members see it in that pass and all of them in the next ones; its cells are then
 * composed from nothing and its own branches built at translation time, and one append of the
 * final element stands for the creation. Two missing ones would need their order decided at run
 * time, so that case stays with the ordinary translation.
 *
 * The policy is emitted as two: the fast one (`…-fast`, sorted before) with that existence
 * predicate as its matchCondition, running the one mutation; and the group's ordinary
 * translation (`…-full`) with the negated predicate. The predicate is evaluated when each policy
 * is invoked: after the fast one ran, everything it required still exists (these mutators never
 * remove a node), so the ordinary one does not match; when it did not hold, the fast one did
 * not run and the ordinary one does everything.
 *
 * Only for groups where the argument holds without more: members are JSONPatch mutators of one
 * built-in kind (its Go schema fixes every type along their paths, so none of Gatekeeper's type
 * errors can occur and no type test is needed), not under `metadata` (match criteria read it),
 * a bounded schedule, values without nulls (strict decoding drops them between mutations),
 * pathTests only where the analysis keeps their meaning (`MustExist` anywhere, `MustNotExist`
 * on terminals), no member writing a list's key field, and no cell that is also a node another
 * member walks through. Anything else: `undefined`, and the group keeps its ordinary
 * translation alone. `fast.test.ts` checks the result against Gatekeeper's semantics.
 */
import { SchemaRegistry, type SchemaNode } from "../../../kube/schema.js";
import type { Mutator } from "../../../gatekeeper/index.js";
import type { ListNode, ObjectNode } from "../../../gatekeeper/index.js";
import { mutateImage } from "../../../gatekeeper/index.js";
import { keyValueToGo } from "../../../gatekeeper/index.js";
import { isMap, setKey, toJSON, type GoMap, type GoValue } from "../../../gatekeeper/index.js";
import { printNode } from "../../../gatekeeper/index.js";
import { celLiteral, celString, errorOp, indent, Names, ptrAppend, ptrChild, ptrCel, ptrIndex, type Pointer } from "./cel.js";
import { LocationCompiler, staticJson, staticWalk, typedKeyMatch as keyMatch, type Terminal } from "./location.js";
import { mayCreate } from "./merge.js";
import { dedupe, fromMetadataCel, imageCel, terminalFor } from "./mutations.js";
import { schedule } from "./passes.js";
import { schemaProblems } from "./schema-check.js";

const registry = SchemaRegistry.builtin();

/** Groups larger than this get no fast path (see `fastPath`). */
const MAX_MEMBERS = 40;

export interface FastPath {
  /** The existence predicate (the fast policy's matchCondition; the ordinary one gets its negation). */
  readonly condition: string;
  /** The one JSONPatch mutation: every pass of the group. */
  readonly expression: string;
}

class NotFast extends Error {}

function fail(): never {
  throw new NotFast();
}

interface Member {
  readonly m: Mutator;
  /** Position in the group (Gatekeeper order). */
  readonly index: number;
}

/** Members in Gatekeeper order. */
function inOrder(ms: readonly Member[]): Member[] {
  return [...ms].sort((a, b) => a.index - b.index);
}

/**
 * Members at object node `d` of their paths, by the key they take there: those whose path ends
 * there (the key is their cell) and those that go on below it.
 */
function byKey(ms: readonly Member[], d: number): Map<string, { cells: Member[]; below: Member[] }> {
  const out = new Map<string, { cells: Member[]; below: Member[] }>();
  for (const x of ms) {
    const k = (x.m.path.nodes[d] as ObjectNode).reference;
    let e = out.get(k);
    if (e === undefined) out.set(k, (e = { cells: [], below: [] }));
    (x.m.path.nodes.length - 1 === d ? e.cells : e.below).push(x);
  }
  return out;
}

function containsNull(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.some(containsNull);
  if (typeof v === "object") return Object.values(v as Record<string, unknown>).some(containsNull);
  return false;
}

/** Kinds whose single run is all of R passes when nothing else touches their subtree. */
function idempotentAlone(m: Mutator): boolean {
  return m.kind === "Assign" || m.kind === "ModifySet";
}

/** The schema of the one built-in kind all members apply to. */
function oneTypedKind(ms: readonly Mutator[]): SchemaNode | undefined {
  let key: string | undefined;
  let schema: SchemaNode | undefined;
  for (const m of ms) {
    if (m.kind === "AssignMetadata") return undefined;
    // One binding per operation: the kinds must be one.
    const kinds = new Set(m.bindings.map((b) => `${b.group}/${b.version}/${b.kind}`));
    if (kinds.size !== 1) return undefined;
    const b = m.bindings[0]!;
    if (b.group.includes("*") || b.version.includes("*") || b.kind.includes("*")) return undefined;
    const k = `${b.group}/${b.version}/${b.kind}`;
    if (key !== undefined && key !== k) return undefined;
    key = k;
    schema ??= registry.forKind(b.group === "" ? b.version : `${b.group}/${b.version}`, b.kind);
    if (schema === undefined) return undefined;
  }
  return schema;
}

/** The schema node at the end of `m`'s path, every step checked against the schema. */
function terminalSchema(m: Mutator, root: SchemaNode): SchemaNode {
  let cur: SchemaNode = root;
  for (const n of m.path.nodes) {
    if (n.type === "Object") {
      if (cur.t !== "struct" && cur.t !== "map") fail();
      const next = registry.child(cur, n.reference);
      if (next === undefined || next.t === "untyped") fail();
      cur = next;
    } else {
      if (cur.t !== "list") fail();
      const el = registry.element(cur);
      if (el.t !== "struct") fail();
      const kf = registry.child(el, n.keyField);
      if (kf === undefined || kf.t !== "scalar") fail();
      cur = el;
    }
  }
  return cur;
}

function checkMember(m: Mutator, root: SchemaNode): void {
  const nodes = m.path.nodes;
  if (nodes.length < 2) fail();
  const first = nodes[0]!;
  if (first.type !== "Object" || first.reference === "metadata") fail();
  if (nodes[nodes.length - 1]!.type !== "Object") fail();
  for (let d = 0; d < nodes.length - 1; d++) if (m.tester.conditionAt(d) === "MustNotExist") fail();
  if (schemaProblems(m).length > 0) fail();
  const cell = terminalSchema(m, root);
  switch (m.kind) {
    case "Assign":
      if (m.assign.externalData !== undefined) fail();
      if (m.assign.fromMetadata === undefined && containsNull(m.assign.value)) fail();
      break;
    case "ModifySet":
      if (cell.t !== "list" || m.values === null || containsNull(toJSON(m.values as GoValue))) fail();
      break;
    case "AssignImage":
      if (cell.t !== "scalar" || cell.s !== "string" || (cell.fmt !== undefined && cell.fmt !== "")) fail();
      break;
    default:
      fail();
  }
}

/**
 * One member's write on a cell: the new optional value from the current one `x` (a CEL variable
 * of type `optional`), its terminal pathTest applied.
 */
function step(m: Mutator, x: string, names: Names): string {
  const c = m.tester.conditionAt(m.path.nodes.length - 1);
  let present: string;
  let missing: string;
  switch (m.kind) {
    case "Assign": {
      const v = m.assign.fromMetadata !== undefined ? fromMetadataCel(m.assign.fromMetadata.field) : celLiteral(m.assign.value);
      present = `optional.of(${v})`;
      missing = present;
      break;
    }
    case "ModifySet": {
      const vals = m.values as GoValue[];
      const dv = dedupe(vals);
      const dvCel = celLiteral(toJSON(dv));
      const l = names.next("l");
      const v = names.next("v");
      if (m.operation === "merge") {
        present = dv.length === 0 ? x : `${x}.optMap(${l}, ${l} + ${dvCel}.filter(${v}, !(${v} in ${l})))`;
        missing = `optional.of(${celLiteral(toJSON(vals))})`;
      } else {
        present = dv.length === 0 ? x : `${x}.optMap(${l}, ${l}.filter(${v}, !(${v} in ${dvCel})))`;
        missing = x;
      }
      break;
    }
    case "AssignImage": {
      const s = names.next("s");
      present = `${x}.optMap(${s}, ${imageCel(s, m.assignDomain, m.assignPath, m.assignTag, names)})`;
      missing = `optional.of(${celString(mutateImage(m.assignDomain, m.assignPath, m.assignTag, ""))})`;
      break;
    }
    default:
      fail();
  }
  if (c === "MustNotExist") present = x;
  if (c === "MustExist") missing = x;
  if (present === missing) return present;
  return `(${x}.hasValue() ? ${present} : ${missing})`;
}

class Builder {
  readonly names = new Names();
  constructor(
    /** Per member, its slot in the list of distinct match guards `g` (undefined: matches always). */
    private readonly slots: readonly (number | undefined)[],
    private readonly passes: number,
    /** The kind's schema. */
    private readonly root: SchemaNode,
  ) {}

  /** Member i's guard as CEL (`g[slot]`), undefined when it has none. */
  private g(i: number): string | undefined {
    const slot = this.slots[i];
    return slot === undefined ? undefined : `g[${slot}]`;
  }

  private guarded(i: number, then: string, otherwise: string): string {
    const g = this.g(i);
    return g === undefined ? then : `(${g} ? ${then} : ${otherwise})`;
  }

  /**
   * Members `ms` (each at an Object node `d` of its path, on the map `cur` that exists): their
   * patch list as `+`-joined parts, and the existence they need as a predicate.
   */
  objectLevel(ms: readonly Member[], d: number, cur: string, ptr: Pointer): { ops: string[]; need: string[] } {
    const ops: string[] = [];
    const need: string[] = [];
    for (const [k, { cells: terminal, below }] of byKey(ms, d)) {
      if (terminal.length > 0 && below.length > 0) fail();
      const kptr = ptrChild(ptr, k);
      if (terminal.length > 0) {
        ops.push(this.cell(terminal, cur, k, kptr));
        continue;
      }
      if (below.length === 1 && idempotentAlone(below[0]!.m)) {
        ops.push(this.ownBranch(below[0]!, d, cur, ptr));
        continue;
      }
      const child = `${cur}[${celString(k)}]`;
      const next = below.map((x) => x.m.path.nodes[d + 1]!.type);
      if (next.some((t) => t !== next[0])) fail();
      const r = next[0] === "Object" ? this.objectLevel(below, d + 1, child, kptr) : this.listLevel(below, d + 1, child, kptr);
      ops.push(...r.ops);
      // A built-in's top-level spec/status is a non-pointer Go struct: always in the object CEL
      // sees (merge.ts relies on the same).
      const always = d === 0 && (k === "spec" || k === "status") && this.root.t === "struct" && registry.child(this.root, k)?.t === "struct";
      need.push(...(always ? [] : [`${celString(k)} in ${cur}`]), ...r.need);
    }
    return { ops, need };
  }

  /** Members at list node `d` of their paths, on the list `list` that exists. */
  private listLevel(ms: readonly Member[], d: number, list: string, ptr: Pointer): { ops: string[]; need: string[] } {
    const nodes = ms.map((x) => x.m.path.nodes[d] as ListNode);
    const keyField = nodes[0]!.keyField;
    if (nodes.some((n) => n.keyField !== keyField)) fail();
    for (const x of ms) {
      const next = x.m.path.nodes[d + 1];
      // Writing the key field itself would move an element between the cases below.
      if (next?.type !== "Object" || next.reference === keyField) fail();
    }
    const globs = ms.filter((_, i) => nodes[i]!.glob);
    // Addressed elements by key value (string or integer, compared in their Go type).
    const byValue = new Map<string, { node: ListNode; members: Member[] }>();
    ms.forEach((x, i) => {
      const n = nodes[i]!;
      if (n.glob) return;
      const key = `${typeof n.keyValue}:${String(n.keyValue)}`;
      if (!byValue.has(key)) byValue.set(key, { node: n, members: [] });
      byValue.get(key)!.members.push(x);
    });
    const ops: string[] = [];
    const need: string[] = [];
    const dispatched: { node: ListNode; members: Member[] }[] = [];
    let listBranches = 0;
    for (const entry of byValue.values()) {
      // Alone on its element and no glob: its own branch from the list on (find or append).
      if (globs.length === 0 && entry.members.length === 1 && idempotentAlone(entry.members[0]!.m)) {
        ops.push(this.ownBranch(entry.members[0]!, d, list, ptr));
        listBranches++;
        continue;
      }
      dispatched.push(entry);
    }
    // An addressed element that is missing: created by its first member that can (in Gatekeeper
    // order, among those that match), then seen by every later member of the pass and by all in
    // the next ones. Where that is computable as a value (`virtualElement`), one append of the
    // final element stands for it; two such creations would need their order decided at run
    // time, so at most one may be missing. Otherwise the element must exist.
    const appends: string[] = [];
    const creatable: string[] = [];
    for (const entry of dispatched) {
      const x = this.names.next("e");
      const exists = `${list}.exists(${x}, ${keyMatch(x, entry.node)})`;
      const v = listBranches === 0 ? this.virtualElement(inOrder([...entry.members, ...globs]), entry, d, ptr) : undefined;
      if (v === undefined) {
        need.push(exists);
        continue;
      }
      // Nothing can create it: missing, it stays missing and nothing happens to it.
      if (v.creators === 0) continue;
      creatable.push(exists);
      appends.push(`(${exists} ? [] : ${v.ops})`);
    }
    if (creatable.length === 2) need.push(`(${creatable[0]} || ${creatable[1]})`);
    else if (creatable.length > 2) need.push(`size([${creatable.map((x) => `!${x}`).join(", ")}].filter(b, b)) <= 1`);
    if (dispatched.length === 0 && globs.length === 0) return { ops: [...ops, ...appends], need };
    const i = this.names.next("i");
    const e = this.names.next("e");
    const eptr = ptrIndex(ptr, i);
    // What each kind of element gets: the members addressing its key value and the globs (in
    // Gatekeeper order), or the globs alone.
    const element = (members: readonly Member[]): { ops: string; need: string } => {
      if (members.length === 0) return { ops: "[]", need: "true" };
      const r = this.objectLevel(inOrder(members), d + 1, e, eptr);
      return { ops: joinOps(r.ops), need: r.need.length > 0 ? r.need.join(" && ") : "true" };
    };
    const other = element(globs);
    let body = other.ops;
    let needBody = other.need;
    for (let k = dispatched.length - 1; k >= 0; k--) {
      const { node, members } = dispatched[k]!;
      const cond = keyMatch(e, node);
      const here = element([...members, ...globs]);
      body = `(${cond} ?\n  ${indent(here.ops)} :\n  ${indent(body)})`;
      if (here.need !== "true" || needBody !== "true") needBody = `(${cond} ? ${here.need} : ${needBody})`;
    }
    // An element that is not a map (never one of a built-in's structs as the apiserver shows them,
    // but nothing else needs to hold for this): members addressing a key skip it, as Gatekeeper's
    // walk does; the first glob that matches the request fails on it, as there.
    let notMap = "[]";
    for (let k = globs.length - 1; k >= 0; k--) {
      const x = globs[k]!;
      const fails = errorOp(`mismatch between path entry (type: object) and received object (not a map). Path: ${printNode(x.m.path.nodes[d + 1]!)}`);
      const gx = this.g(x.index);
      notMap = gx === undefined ? fails : `(${gx} ? ${fails} : ${notMap})`;
    }
    ops.push(`${list}.transformList(${i}, ${e}, type(${e}) != map ? ${notMap} :\n  ${indent(body)}).flatten()`, ...appends);
    if (needBody !== "true") need.push(`${list}.all(${e}, type(${e}) != map || ${needBody})`);
    return { ops, need };
  }

  /**
   * The element `entry` addresses, when missing, as the one value the group's passes leave in
   * it (the append that stands for its creation), if every member can be followed there as a
   * value: each key of the element is a cell (its writers composed from nothing, the first
   * pass only from the creator on) or one member's own subtree (built at translation time by
   * Gatekeeper's walk on a fresh element; idempotent, so it is there if the member matches in
   * any pass it sees the element in). `creators`: how many members can create it.
   */
  private virtualElement(members: readonly Member[], entry: { node: ListNode; members: Member[] }, d: number, ptr: Pointer): { creators: number; ops: string } | undefined {
    const node = entry.node;
    const fresh = (): GoMap => {
      const el: GoMap = {};
      setKey(el, node.keyField, keyValueToGo(node.keyValue!));
      return el;
    };
    // Gatekeeper's walk of each member on the fresh element (the keys below it are distinct from
    // the key field); a member that fails there (Gatekeeper's error) is not followed here.
    const walks = new Map<Member, { attached: boolean; value: GoValue; marker: Terminal["marker"] }>();
    for (const x of members) {
      const t = terminalFor(x.m);
      try {
        const [attached, value] = staticWalk(x.m.path, x.m.tester, t.setter, fresh(), d + 1);
        walks.set(x, { attached, value, marker: t.marker });
      } catch {
        return undefined;
      }
    }
    const creators = inOrder(entry.members.filter((x) => mayCreate(x.m, d)));
    if (creators.length === 0) return { creators: 0, ops: "[]" };
    const ci = this.names.next("ci");
    const entries = [`${celString(node.keyField)}: dyn(${celLiteral(toJSON(keyValueToGo(node.keyValue!)))})`];
    for (const [k, { cells, below }] of byKey(members, d + 1)) {
      if (cells.length > 0 && below.length > 0) return undefined;
      if (cells.length > 0) {
        const z = this.names.next("z");
        entries.push(`?${celString(k)}: ${this.chain(cells, "optional.none()", ci, (last) => last)}.optMap(${z}, dyn(${z}))`);
        continue;
      }
      if (below.length !== 1 || !idempotentAlone(below[0]!.m)) return undefined;
      const x = below[0]!;
      const { attached, value, marker } = walks.get(x)!;
      if (!attached || !isMap(value) || !Object.prototype.hasOwnProperty.call(value, k)) continue;
      const lit = celLiteral(staticJson(value[k]!, marker));
      const sees = this.passes >= 2 ? "true" : `${x.index} >= ${ci}`;
      const gx = this.g(x.index);
      const cond = gx === undefined ? sees : `(${sees} && ${gx})`;
      entries.push(`?${celString(k)}: ${cond} ? optional.of(dyn(${lit})) : optional.none()`);
    }
    let first = "-1";
    for (let i = creators.length - 1; i >= 0; i--) {
      const c = creators[i]!;
      const gc = this.g(c.index);
      first = gc === undefined ? String(c.index) : `(${gc} ? ${c.index} : ${first})`;
    }
    const ops = `[${first}].map(${ci}, ${ci} < 0 ? [] : [JSONPatch{op: "add", path: ${ptrCel(ptrAppend(ptr))}, value: {${entries.join(", ")}}}])[0]`;
    return { creators: creators.length, ops };
  }

  /**
   * The writers of one cell composed from `initial` (a CEL optional), as nested bindings ending
   * in `end(last)`. Rounds: as many as the writers need to settle alone (passes.ts on them; at
   * most the group's passes); with `from` (the CEL int of the creating member's position), the
   * first round only from that member on and then as many full rounds (at most passes - 1).
   */
  private chain(writers: readonly Member[], initial: string, from: string | undefined, end: (last: string, first: string) => string): string {
    const x0 = this.names.next("c");
    const vars: string[] = [];
    const stepsText: string[] = [];
    let prev = x0;
    const settle = schedule(writers.map((w) => w.m))?.passes ?? this.passes;
    const add = (w: Member, partial: boolean) => {
      const next = this.names.next("c");
      const gw = this.g(w.index);
      const runs = gw === undefined ? (partial ? `${w.index} >= ${from}` : undefined) : partial ? `(${w.index} >= ${from} && ${gw})` : gw;
      const st = step(w.m, prev, this.names);
      stepsText.push(runs === undefined ? st : `(${runs} ? ${st} : ${prev})`);
      vars.push(next);
      prev = next;
    };
    if (from === undefined) {
      for (let r = 0; r < Math.min(this.passes, settle); r++) for (const w of writers) add(w, false);
    } else {
      for (const w of writers) add(w, true);
      for (let r = 0; r < Math.min(this.passes - 1, settle); r++) for (const w of writers) add(w, false);
    }
    let inner = end(prev, x0);
    for (let i = stepsText.length - 1; i >= 0; i--) inner = `[${stepsText[i]}].map(${vars[i]}, ${inner})[0]`;
    return `[${initial}].map(${x0}, ${inner})[0]`;
  }

  /** A member alone from node `d` on: its ordinary walk (creating what it needs there). */
  private ownBranch(x: Member, d: number, cur: string, ptr: Pointer): string {
    const lc = new LocationCompiler(x.m.path, x.m.tester, terminalFor(x.m), this.names, true);
    return this.guarded(x.index, lc.compileFrom(d, cur, ptr), "[]");
  }

  /** Writers of one cell (`cur[k]`, `cur` an existing map): their rounds composed, one `add` if it changed. */
  private cell(writers: readonly Member[], cur: string, k: string, ptr: Pointer): string {
    // Under the predicate nothing but its writers decides a cell, so it settles as they would
    // alone (passes.ts on them: one round for writers idempotent together, two for a chain of
    // image rewrites or of merges meeting prunes); further rounds would change nothing.
    return this.chain(
      writers,
      `${cur}[?${celString(k)}]`,
      undefined,
      (last, first) => `${last}.hasValue() && (!${first}.hasValue() || ${last}.value() != ${first}.value()) ? [JSONPatch{op: "add", path: ${ptrCel(ptr)}, value: ${last}.value()}] : []`,
    );
  }
}

function joinOps(ops: readonly string[]): string {
  if (ops.length === 0) return "[]";
  if (ops.length === 1) return ops[0]!;
  return ops.map((o) => `(${o})`).join(" +\n");
}

/**
 * The fast path of a group (Gatekeeper order), with each member's match guard (undefined: none)
 * and the group's passes; undefined when the argument of the module comment does not hold.
 */
export function fastPath(group: readonly Mutator[], guards: readonly (string | undefined)[], passes: number): FastPath | undefined {
  if (group.length < 2) return undefined;
  // The one expression grows with the group (each writer of a cell once per round): past this,
  // it would not fit the apiserver's 100,000-character limit anyway.
  if (group.length > MAX_MEMBERS) return undefined;
  const root = oneTypedKind(group);
  if (root === undefined) return undefined;
  try {
    for (const m of group) checkMember(m, root);
    // Distinct guards once each (members often share their match criteria).
    const distinct: string[] = [];
    const slots = guards.map((g) => {
      if (g === undefined) return undefined;
      let i = distinct.indexOf(g);
      if (i < 0) i = distinct.push(g) - 1;
      return i;
    });
    const b = new Builder(slots, passes, root);
    const r = b.objectLevel(
      group.map((m, index) => ({ m, index })),
      0,
      "object",
      [],
    );
    // Nothing shared: the ordinary translation is as good (merge.ts already joins such groups).
    if (r.need.length === 0) return undefined;
    const body = joinOps(r.ops);
    const expression = distinct.length > 0 ? `[[${distinct.map((g) => `(${g})`).join(",\n ")}]].map(g,\n${body})[0]` : body;
    return { condition: r.need.join(" &&\n"), expression };
  } catch (e) {
    if (e instanceof NotFast) return undefined;
    throw e;
  }
}
