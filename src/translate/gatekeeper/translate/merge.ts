/**
 * When consecutive JSONPatch mutations of one policy can be one mutation (their patch lists
 * concatenated), which is provably the same: the admission pipeline pays a fixed price per
 * mutation (evaluation, patch application, strict decoding of the patched built-in), so a
 * translated set with fewer mutations costs less.
 *
 * Mutations m1 … mk (in this order) merge when, for every i < j, mj's patch list computed on
 * the object before m1 equals the one it computes after m1 … mj-1 applied theirs; the merged
 * patch then applies exactly the ops the sequence would, in the same order. That holds when
 * every earlier mi neither writes nor creates anything mj reads ({@link mergeable}):
 *
 * - their locations diverge: along the longest common prefix of nodes that may stand for the
 *   same place (a glob stands for any element), both continue, at different places (different
 *   map keys, or different key values on one keyed list); everything mi writes or creates is
 *   then in its own branch, which mj's walk never enters (a keyed list's scan reads only the
 *   key field of other elements: mi must not write that field, and an element mi appends
 *   does not match mj's key and comes before mj's own append, as in sequence);
 * - mi creates nothing on the shared prefix (else mj, computed on the object without it,
 *   would create it again over mi's): each shared node is one mi can never attach (a
 *   MustExist test, a glob, pathTests that rule out every fresh value — Gatekeeper's walk on
 *   a fresh value, as the translator computes what to create), or the top-level `spec` or
 *   `status` of built-in kinds whose Go struct has it (the apiserver serialises non-pointer
 *   structs always: the object CEL sees and the patch applies to has them);
 * - neither location is under `metadata` (match criteria read labels, name and namespace),
 *   and neither ends on a keyed list (replacing a whole element rewrites its key).
 *
 * Mutation errors (Gatekeeper's errors as unappliable patch ops) fail the merged patch as
 * they fail the sequence's: with failurePolicy Fail either denies the request (merging is only
 * used then). The apiserver defaults the object after every mutation; a merged mutation has
 * fewer such points, but mi's created nodes are in its own branch, which mj does not read.
 */
import { ResourceCatalog } from "../../../admission/index.js";
import { SchemaRegistry } from "../../../kube/schema.js";
import type { Setter } from "../../../gatekeeper/index.js";
import type { Mutator } from "../../../gatekeeper/index.js";
import type { ListNode, PathNode } from "../../../gatekeeper/index.js";
import { staticWalk } from "./location.js";
import { alias } from "./passes.js";

const schemas = SchemaRegistry.builtin();

/** A setter that only records that Gatekeeper's walk reached the terminal (which then attaches). */
const REACHES: Setter = { setValue() {}, keyedListOkay: true, keyedListValue: () => ({}) };

/** Whether `m` can attach something at node `i` of its path when that node is missing. */
export function mayCreate(m: Mutator, i: number): boolean {
  const nodes = m.path.nodes;
  const node = nodes[i]!;
  if (i === nodes.length - 1) return true;
  if (m.tester.conditionAt(i) === "MustExist") return false;
  let fresh: Record<string, unknown> | unknown[];
  let depth: number;
  if (node.type === "Object") {
    fresh = nodes[i + 1]!.type === "Object" ? {} : [];
    depth = i + 1;
  } else {
    if (node.glob || node.keyValue === undefined) return false;
    fresh = {};
    depth = i + 1;
  }
  try {
    return staticWalk(m.path, m.tester, REACHES, fresh as never, depth)[0];
  } catch {
    // Gatekeeper's walk fails there: an error, not a creation.
    return false;
  }
}

/** Whether every kind `m` applies to is a built-in whose Go struct has top-level field `f`. */
function alwaysPresent(m: Mutator, f: string, catalog: ResourceCatalog): boolean {
  if (f !== "spec" && f !== "status") return false;
  const bs = (m as { bindings?: readonly { group: string; version: string; kind: string }[] }).bindings ?? [];
  if (bs.length === 0) return false;
  return bs.every((b) => {
    if (b.group.includes("*") || b.version.includes("*") || b.kind.includes("*")) return false;
    if (catalog.resourceForKind({ group: b.group, version: b.version, kind: b.kind })?.builtin !== true) return false;
    const node = schemas.forKind(b.group === "" ? b.version : `${b.group}/${b.version}`, b.kind);
    return node !== undefined && node.t === "struct" && Object.prototype.hasOwnProperty.call(node.f, f);
  });
}

/** Whether `b`'s patch list is the same computed before or after `a` applied its own (see the module comment). */
export function mergeable(a: Mutator, b: Mutator, catalog: ResourceCatalog = ResourceCatalog.builtin()): boolean {
  const na = a.path.nodes;
  const nb = b.path.nodes;
  for (const ns of [na, nb]) {
    if (ns.length === 0) return false;
    const first = ns[0]!;
    if (first.type !== "Object" || first.reference === "metadata") return false;
    if (ns[ns.length - 1]!.type === "List") return false;
  }
  const n = Math.min(na.length, nb.length);
  let d = 0;
  while (d < n && alias(na[d]!, nb[d]!) === "yes") d++;
  if (d >= n || alias(na[d]!, nb[d]!) !== "no") return false;
  for (let i = 0; i < d; i++) {
    if (mayCreate(a, i) && !(i === 0 && alwaysPresent(a, (na[0] as { reference: string }).reference, catalog))) return false;
  }
  // b's keyed lists on the shared prefix: b reads their key field in every element.
  for (let j = 0; j < d; j++) {
    const list: PathNode = nb[j]!;
    const child = na[j + 1];
    if (list.type === "List" && child?.type === "Object" && child.reference === (list as ListNode).keyField) return false;
  }
  return true;
}
