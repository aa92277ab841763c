/**
 * How many of Gatekeeper's passes a group of interacting mutators needs (gatekeeper.md §4.2,
 * §5.7). Gatekeeper repeats full ordered passes until one changes nothing; a policy emulates
 * that by repeating the group's mutations R times, which is exact as soon as pass R + 1 would
 * change nothing. Gatekeeper's own limit (N + 1 passes for N mutators) gives R = N, which makes
 * the output quadratic; this module proves a much smaller R from what each mutator reads and
 * writes, and answers `undefined` (use N) when it cannot.
 *
 * Model. Each mutator j is two nodes:
 *
 * - act(j): its decisions about where it applies — its match (labels, through AssignMetadata),
 *   the element sets of the lists it globs over, the existence its pathTests look at, the types
 *   and key fields along its path — and the structure it creates along its path (missing map
 *   keys, keyed list elements);
 * - val(j): what it writes at its terminal location, which also depends on the terminal value
 *   for the kinds that read it (ModifySet, AssignImage, AssignMetadata and Assign with a
 *   terminal pathTest; a keyed-terminal Assign reads which element is the first match).
 *
 * An edge u → v means a write of u can change what v reads. Creating a node that v also only
 * creates when missing (same map key, same list key) is not an edge: v ends in the same state
 * whichever of the two created it. Assign without a terminal pathTest writes its value whatever
 * the terminal holds ("blind"), so writes to its terminal do not reach it.
 *
 * Stabilisation. in(v) is the first pass from which everything v reads, at the moment it runs,
 * is the same in every later pass: for an edge u → v, u's output from pass st(u) on, seen by v
 * in the same pass when u runs first and one pass later otherwise. A node whose inputs are
 * fixed writes the same thing every pass (st = in), an AssignImage chain two passes later than
 * that (its image parser is not idempotent on malformed references: `a/b:c/d` takes two passes;
 * compositions of AssignImage setters are stable after two applications). Nodes in a cycle
 * (strongly connected component) are handled only for writers of the same cell of one of three
 * classes whose pass-level composition is known:
 *
 * - ModifySet merges/prunes on a list: once the set of operations is fixed, every operation's
 *   effect is the same from the second pass on (a value's presence after a pass is decided by
 *   the last operation touching it), so the end value is fixed one pass later and every
 *   intermediate value two passes later (when no value is both merged and pruned, one pass is
 *   idempotent: fixed at once);
 * - AssignImage setters on a string (as above);
 * - set-if-absent writers (AssignMetadata, Assign with a MustNotExist test on its terminal): the
 *   first one that runs sets the value, the others change nothing.
 *
 * Anything else in a cycle (or a cycle through act nodes) returns `undefined`. The group then
 * needs R = max over nodes of the pass from which its end value is fixed.
 */
import { compileSelector } from "../../../gatekeeper/index.js";
import type { Mutator } from "../../../gatekeeper/index.js";
import type { ListNode, PathNode } from "../../../gatekeeper/index.js";
import type { LabelSelector } from "../../../gatekeeper/index.js";
import { toJSON } from "../../../gatekeeper/index.js";

type Terminal = "blind" | "keyed" | "ifAbsent" | "ifPresent" | "set" | "image" | "other";

function terminalKind(m: Mutator): Terminal {
  const nodes = m.path.nodes;
  const last = nodes[nodes.length - 1]!;
  const c = m.tester.conditionAt(nodes.length - 1);
  switch (m.kind) {
    case "AssignMetadata":
      return "ifAbsent";
    case "Assign":
      if (last.type === "List") return c === undefined ? "keyed" : "other";
      return c === undefined ? "blind" : c === "MustNotExist" ? "ifAbsent" : "ifPresent";
    case "ModifySet":
      return c === undefined ? "set" : "other";
    case "AssignImage":
      return c === undefined ? "image" : "other";
  }
}

function keyEq(a: string | bigint | undefined, b: string | bigint | undefined): boolean {
  return a !== undefined && b !== undefined && typeof a === typeof b && a === b;
}

/** Whether two nodes at the same depth may stand for the same place (`conflict`: map vs list). */
export function alias(a: PathNode, b: PathNode): "yes" | "no" | "conflict" {
  if (a.type !== b.type) return "conflict";
  if (a.type === "Object") return a.reference === (b as { reference: string }).reference ? "yes" : "no";
  const bl = b as ListNode;
  if (a.keyField !== bl.keyField || a.glob || bl.glob) return "yes";
  return keyEq(a.keyValue, bl.keyValue) ? "yes" : "no";
}

/** Label keys a mutator's match reads (labelSelector; namespaceSelector, read on a Namespace object itself). */
function labelKeysRead(m: Mutator): Set<string> | "all" {
  const out = new Set<string>();
  for (const sel of [m.match.labelSelector, m.match.namespaceSelector] as (LabelSelector | undefined)[]) {
    if (sel === undefined) continue;
    try {
      const c = compileSelector(sel);
      if (!c.everything) for (const r of c.reqs) out.add(r.key);
    } catch {
      return "all";
    }
  }
  return out;
}

/** The label key an AssignMetadata writes (undefined for annotations). */
export function labelWritten(m: Mutator): string | undefined {
  if (m.kind !== "AssignMetadata") return undefined;
  const [, field, key] = m.path.nodes;
  return field?.type === "Object" && field.reference === "labels" && key?.type === "Object" ? key.reference : undefined;
}

const keysRead = new WeakMap<Mutator, Set<string> | "all">();

/** Whether `m` reads label `key` through its match (AssignMetadata → match interference). */
export function readsLabel(m: Mutator, key: string): boolean {
  let keys = keysRead.get(m);
  if (keys === undefined) {
    keys = labelKeysRead(m);
    keysRead.set(m, keys);
  }
  return keys === "all" || keys.has(key);
}

export interface Influence {
  /** i's structure creation changes j's decisions. */
  readonly actAct: boolean;
  /** i's terminal write changes j's decisions. */
  readonly valAct: boolean;
  /** i's terminal write changes what j writes. */
  readonly valVal: boolean;
  /** valVal only because both write the same cell. */
  readonly sameCell: boolean;
}

const NONE: Influence = { actAct: false, valAct: false, valVal: false, sameCell: false };
const ALL: Influence = { actAct: true, valAct: true, valVal: true, sameCell: false };

/** How a write of `i` can reach `j` (i ≠ j); see the module comment. */
export function influence(i: Mutator, j: Mutator): Influence {
  let actAct = false;
  let valAct = false;
  let valVal = false;
  let sameCell = false;
  const lw = labelWritten(i);
  if (lw !== undefined && readsLabel(j, lw)) valAct = true;
  const pi = i.path.nodes;
  const pj = j.path.nodes;
  const n = Math.min(pi.length, pj.length);
  let d = 0;
  for (; d < n; d++) {
    const a = alias(pi[d]!, pj[d]!);
    if (a === "conflict") return ALL;
    if (a === "no") break;
  }
  // Creation inside the shared prefix: existence read by j's pathTests, element sets read by j's globs.
  for (let e = 0; e < d && e < pi.length; e++) {
    const x = pi[e]!;
    const y = pj[e]!;
    // A glob never creates elements; anything else is created when missing unless MustExist.
    const creates = i.tester.conditionAt(e) !== "MustExist" && !(x.type === "List" && x.glob);
    if (!creates) continue;
    if (j.tester.conditionAt(e) !== undefined && e < pj.length - 1) actAct = true;
    if (x.type === "List" && y.type === "List" && !x.glob && (y.glob || y.keyField !== x.keyField)) actAct = true;
  }
  // Writes of a key field j matches list elements by.
  for (let e = 0; e < d && e + 1 < pi.length; e++) {
    const y = pj[e]!;
    const next = pi[e + 1]!;
    if (y.type === "List" && !y.glob && next.type === "Object" && next.reference === y.keyField) valAct = true;
  }
  const li = pi.length;
  const lj = pj.length;
  if (d === li && d === lj) {
    const ti = terminalKind(i);
    const tj = terminalKind(j);
    let reads: boolean;
    if (tj === "blind") reads = false;
    else if (tj === "keyed") reads = ti !== "keyed" || (pi[li - 1] as ListNode).keyField !== (pj[lj - 1] as ListNode).keyField;
    else if (tj === "ifPresent") reads = ti !== "ifPresent";
    else reads = true;
    // j's pathTest on its own terminal reads the existence i creates.
    if (reads) {
      valVal = true;
      sameCell = true;
    }
  } else if (d === li) {
    // i writes a value over j's path.
    valAct = true;
    valVal = true;
  } else if (d === lj) {
    // i writes under j's terminal.
    const tj = terminalKind(j);
    if (tj === "keyed") {
      const next = pi[lj];
      if (next?.type === "Object" && next.reference === (pj[lj - 1] as ListNode).keyField) valVal = true;
    } else if (tj !== "blind") valVal = true;
  }
  if (!actAct && !valAct && !valVal) return NONE;
  return { actAct, valAct, valVal, sameCell };
}

/** Whether the cells `i` and `j` write may overlap (one location ends on or inside the other's). */
export function cowrites(i: Mutator, j: Mutator): boolean {
  const pi = i.path.nodes;
  const pj = j.path.nodes;
  const n = Math.min(pi.length, pj.length);
  for (let d = 0; d < n; d++) {
    const a = alias(pi[d]!, pj[d]!);
    if (a === "conflict") return true;
    if (a === "no") return false;
  }
  return true;
}

interface Edge {
  readonly to: number;
  readonly sameCell: boolean;
}

/** Which passes a group's mutations appear in. */
export interface Schedule {
  /** Passes to emit (Gatekeeper's pass `passes + 1` would change nothing). */
  readonly passes: number;
  /**
   * Per mutator (group order): the last pass it has to appear in. In a later pass its run
   * would change nothing: what it reads is what it read in the previous pass, and nothing else
   * wrote where it writes since (writers of overlapping cells are scheduled together, and as
   * long as anything reading those cells still runs).
   */
  readonly lastPass: readonly number[];
}

/**
 * The number of passes that reproduces Gatekeeper's fixpoint for `group` (mutators in
 * Gatekeeper's order), or undefined when the analysis cannot bound it.
 */
export function passesNeeded(group: readonly Mutator[]): number | undefined {
  return schedule(group)?.passes;
}

/** {@link passesNeeded} with the passes each mutator has to appear in. */
export function schedule(group: readonly Mutator[]): Schedule | undefined {
  const k = group.length;
  if (k === 0) return { passes: 1, lastPass: [] };
  if (k === 1) {
    // Alone, a mutator is idempotent, except AssignImage on a malformed reference (two runs).
    const twice = terminalKind(group[0]!) === "image";
    return { passes: twice ? 2 : 1, lastPass: [twice ? 2 : 1] };
  }
  // Node 2x = act(x), 2x + 1 = val(x).
  const adj: Edge[][] = Array.from({ length: 2 * k }, () => []);
  for (let x = 0; x < k; x++) adj[2 * x]!.push({ to: 2 * x + 1, sameCell: false });
  for (let x = 0; x < k; x++) {
    for (let y = 0; y < k; y++) {
      if (x === y) continue;
      const inf = influence(group[x]!, group[y]!);
      if (inf.actAct) adj[2 * x]!.push({ to: 2 * y, sameCell: false });
      if (inf.valAct) adj[2 * x + 1]!.push({ to: 2 * y, sameCell: false });
      if (inf.valVal) adj[2 * x + 1]!.push({ to: 2 * y + 1, sameCell: inf.sameCell });
    }
  }
  const comps = stronglyConnected(adj);
  const compOf = new Array<number>(2 * k);
  comps.forEach((c, ci) => c.forEach((v) => (compOf[v] = ci)));
  const preds: { from: number; to: number }[][] = Array.from({ length: 2 * k }, () => []);
  adj.forEach((es, u) => es.forEach((e) => preds[e.to]!.push({ from: u, to: e.to })));
  const stOut = new Array<number>(comps.length);
  const endOf = new Array<number>(comps.length);
  let r = 1;
  // Tarjan yields components in reverse topological order.
  for (let ci = comps.length - 1; ci >= 0; ci--) {
    const comp = comps[ci]!;
    let inp = 1;
    for (const v of comp) {
      for (const p of preds[v]!) {
        const pc = compOf[p.from]!;
        if (pc === ci) continue;
        const back = p.from >> 1 > v >> 1 ? 1 : 0;
        inp = Math.max(inp, stOut[pc]! + back);
      }
    }
    let end: number;
    let out: number;
    if (comp.length === 1) {
      const v = comp[0]!;
      const image = v % 2 === 1 && terminalKind(group[v >> 1]!) === "image";
      end = out = image ? inp + 1 : inp;
    } else {
      if (comp.some((v) => v % 2 === 0)) return undefined;
      const inComp = new Set(comp);
      for (const v of comp) for (const e of adj[v]!) if (inComp.has(e.to) && !e.sameCell) return undefined;
      const kinds = new Set(comp.map((v) => terminalKind(group[v >> 1]!)));
      if (kinds.size !== 1) return undefined;
      const kind = [...kinds][0]!;
      if (kind === "set" && mergesMeetNoPrune(comp.map((v) => group[v >> 1]!))) {
        end = inp;
        out = inp + 1;
      } else if (kind === "set" || kind === "image") {
        end = inp + 1;
        out = inp + 2;
      } else if (kind === "ifAbsent") {
        end = inp;
        out = inp + 1;
      } else return undefined;
    }
    stOut[ci] = out;
    endOf[ci] = end;
    r = Math.max(r, end);
  }
  // Last passes: from the pass after the one where the end value of what a mutator writes is
  // settled, running it (with every writer of overlapping cells) changes nothing; a family of
  // several such writers also runs as long as anything reading the values they write, which
  // could see a different intermediate value otherwise.
  const need = group.map((_, x) => Math.min(r, endOf[compOf[2 * x + 1]!]!));
  const family = group.map((_, x) => x);
  const findF = (x: number): number => (family[x] === x ? x : (family[x] = findF(family[x]!)));
  for (let x = 0; x < k; x++) for (let y = x + 1; y < k; y++) if (cowrites(group[x]!, group[y]!)) family[findF(y)] = findF(x);
  const members = new Map<number, number[]>();
  for (let x = 0; x < k; x++) {
    const f = findF(x);
    if (!members.has(f)) members.set(f, []);
    members.get(f)!.push(x);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const ms of members.values()) {
      let m = Math.max(...ms.map((x) => need[x]!));
      if (ms.length > 1) {
        for (const x of ms) for (const e of adj[2 * x + 1]!) if (e.to >> 1 !== x) m = Math.max(m, need[e.to >> 1]!);
      }
      for (const x of ms) {
        if (need[x]! < m) {
          need[x] = m;
          changed = true;
        }
      }
    }
  }
  return { passes: r, lastPass: need };
}

/** A canonical text of a JSON value (map keys sorted). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/**
 * No value is both merged and pruned by these ModifySets: then one pass of them is idempotent
 * (after it every merged value is present and every pruned one absent, so the next pass
 * appends and removes nothing).
 */
function mergesMeetNoPrune(ms: readonly Mutator[]): boolean {
  const merged = new Set<string>();
  const pruned = new Set<string>();
  for (const m of ms) {
    if (m.kind !== "ModifySet") return false;
    for (const v of m.values ?? []) (m.operation === "merge" ? merged : pruned).add(canonical(toJSON(v)));
  }
  for (const v of pruned) if (merged.has(v)) return false;
  return true;
}

/** Tarjan's strongly connected components (iterative), in reverse topological order. */
function stronglyConnected(adj: readonly (readonly Edge[])[]): number[][] {
  const n = adj.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const stack: number[] = [];
  const out: number[][] = [];
  let next = 0;
  for (let s = 0; s < n; s++) {
    if (index[s] !== -1) continue;
    const work: [number, number][] = [[s, 0]];
    index[s] = low[s] = next++;
    stack.push(s);
    onStack[s] = true;
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const [v, ei] = top;
      const es = adj[v]!;
      if (ei < es.length) {
        top[1]++;
        const w = es[ei]!.to;
        if (index[w] === -1) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = true;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const u = work[work.length - 1]![0];
        low[u] = Math.min(low[u]!, low[v]!);
      }
      if (low[v] === index[v]) {
        const comp: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = false;
          comp.push(w);
        } while (w !== v);
        out.push(comp);
      }
    }
  }
  return out;
}
