/**
 * `TypedValue.Merge` of structured-merge-diff v6 (typed/merge.go) with its default rule
 * (`ruleKeepRHS`): the live object (lhs) merged with an apply configuration (rhs), both already
 * validated. Nothing is owned or removed: scalars and atomic values are replaced by the patch,
 * granular structs and maps are merged key by key, associative lists item by item in SMD's order.
 */
import type { SchemaNode } from "../../kube/schema.js";
import { deepClone, getKey, isJsonObject, setKey, type JsonObject, type JsonValue } from "../json.js";
import { atomOf, deduceAtom, listItemToPathElement, peKey, type Atom, type ItemKey, type ListAtom, type MapAtom, type PathElement, type TypeContext } from "./typed.js";
import type { IdentityTable } from "../memo.js";

/**
 * Merges `rhs` into `lhs` at a value of type `node`. `undefined` is an absent side; a `null` lhs is
 * a present null (including the stand-in for duplicated live list items). Returns the merged value,
 * or undefined when SMD would produce none.
 */
export function mergeValues(
  ctx: TypeContext,
  node: SchemaNode,
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  valid?: IdentityTable<SchemaNode>,
): JsonValue | undefined {
  // Nothing to merge: SMD rebuilds the validated live value unchanged (every key has a type, and
  // empty maps and lists are kept as leaves), so the value itself is the result. Sharing it keeps
  // the untouched parts of the object identical, which the per-request memos rely on (it is
  // already known valid: it was validated as part of the live object).
  if (rhs === undefined) return lhs;
  const v = merge(ctx, node, lhs, rhs, valid);
  // The merge of a valid live value and a valid patch is a valid live value: remembered (when asked)
  // so that the next mutation of the request does not validate it again.
  if (valid !== undefined && typeof v === "object" && v !== null) valid.set(v, node);
  return v;
}

function merge(ctx: TypeContext, node: SchemaNode, lhs: JsonValue | undefined, rhs: JsonValue | undefined, valid: IdentityTable<SchemaNode> | undefined): JsonValue | undefined {
  if (rhs === undefined) return lhs;
  const a = atomOf(ctx, node);
  // With both sides present and shaped differently (only possible for untyped values), SMD runs the
  // lhs-shaped handler for its errors only and keeps the rhs-shaped result.
  const chosen: Atom = deduceAtom(a, rhs);
  if (chosen.map !== undefined) return mergeMap(ctx, chosen.map, lhs, rhs, valid);
  if (chosen.scalar !== undefined) return leaf(lhs, rhs);
  if (chosen.list !== undefined) return mergeList(ctx, chosen.list, lhs, rhs, valid);
  return undefined;
}

/** `ruleKeepRHS` on a leaf (scalar, atomic value, or both sides empty). */
function leaf(lhs: JsonValue | undefined, rhs: JsonValue | undefined): JsonValue | undefined {
  return rhs !== undefined ? deepClone(rhs) : lhs === undefined ? undefined : deepClone(lhs);
}

function mergeMap(ctx: TypeContext, m: MapAtom, lhs: JsonValue | undefined, rhs: JsonValue | undefined, valid: IdentityTable<SchemaNode> | undefined): JsonValue | undefined {
  const l = isJsonObject(lhs) ? lhs : undefined;
  const r = isJsonObject(rhs) ? rhs : undefined;
  const lKeys = l === undefined ? [] : Object.keys(l);
  const rKeys = r === undefined ? [] : Object.keys(r);
  // Both empty or null: a leaf, which keeps {} apart from null.
  if (m.atomic || (lKeys.length === 0 && rKeys.length === 0)) return leaf(lhs, rhs);
  const out: JsonObject = {};
  let size = 0;
  const put = (key: string, lv: JsonValue | undefined, rv: JsonValue | undefined): void => {
    if (rv === undefined) {
      // Only the live value has it: kept as it is (validated with the live object, so it has a type).
      if (lv !== undefined) {
        setKey(out, key, lv);
        size++;
      }
      return;
    }
    const t = m.field(key) ?? m.element;
    // A key without a type is a schema error in SMD; the key is dropped.
    if (t === undefined) return;
    const v = mergeValues(ctx, t, lv, rv, valid);
    if (v !== undefined) {
      setKey(out, key, v);
      size++;
    }
  };
  // The live keys in their order, then the patch's new ones (keys from Object.keys are own: no check).
  for (const key of lKeys) put(key, l![key] as JsonValue, r === undefined ? undefined : getKey(r, key));
  for (const key of rKeys) if (l === undefined || !Object.prototype.hasOwnProperty.call(l, key)) put(key, undefined, r![key] as JsonValue);
  return size > 0 ? out : undefined;
}

function mergeList(ctx: TypeContext, t: ListAtom, lhs: JsonValue | undefined, rhs: JsonValue | undefined, valid: IdentityTable<SchemaNode> | undefined): JsonValue | undefined {
  const l = Array.isArray(lhs) ? lhs : undefined;
  const r = Array.isArray(rhs) ? rhs : undefined;
  const empty = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
  if (t.atomic || empty) return leaf(lhs, rhs);
  return mergeListItems(ctx, t, l ?? [], r ?? [], valid);
}

interface Indexed {
  readonly pes: PathElement[];
  readonly ids: ItemKey[];
  /** Item by key; a duplicated key maps to null (SMD does not merge duplicates with the patch). */
  readonly observed: Map<ItemKey, JsonValue>;
}

function indexItems(t: ListAtom, list: readonly JsonValue[]): Indexed | undefined {
  const pes: PathElement[] = [];
  const ids: ItemKey[] = [];
  const observed = new Map<ItemKey, JsonValue>();
  for (const child of list) {
    const pe = listItemToPathElement(t, child);
    // Both sides were validated; an element without a key cannot reach this point.
    if (typeof pe === "string") return undefined;
    const id = peKey(t, pe);
    observed.set(id, observed.has(id) ? null : child);
    pes.push(pe);
    ids.push(id);
  }
  return { pes, ids, observed };
}

/**
 * `visitListItems`: walks live and patch in parallel. Equal keys are merged and both advance; a
 * live item the patch lacks is kept in place; a live item the patch has but not next is skipped
 * (emitted when the patch reaches it), unless it is the next shared item; otherwise the next patch
 * item is emitted, merged with its live counterpart. The result follows the patch's order for
 * shared items, with new items where the patch put them and live-only items where they were.
 */
function mergeListItems(
  ctx: TypeContext,
  t: ListAtom,
  lhs: readonly JsonValue[],
  rhs: readonly JsonValue[],
  valid: IdentityTable<SchemaNode> | undefined,
): JsonValue | undefined {
  const L = indexItems(t, lhs);
  const R = indexItems(t, rhs);
  if (L === undefined || R === undefined) return undefined;
  const out: JsonValue[] = [];
  const item = (lChild: JsonValue | undefined, rChild: JsonValue | undefined): void => {
    const v = mergeValues(ctx, t.element, lChild, rChild, valid);
    if (v !== undefined) out.push(v);
  };

  const sharedOrder = R.ids.filter((id) => L.observed.has(id));
  let next = 0;
  let nextShared: ItemKey | undefined = sharedOrder[next++];
  const advanceShared = (): void => {
    nextShared = sharedOrder[next++];
  };
  const mergedRHS = new Set<ItemKey>();
  const lLen = L.ids.length;
  const rLen = R.ids.length;
  for (let lI = 0, rI = 0; lI < lLen || rI < rLen; ) {
    if (lI < lLen && rI < rLen) {
      const id = L.ids[lI] as ItemKey;
      if (id === R.ids[rI]) {
        mergedRHS.add(id);
        item(L.observed.get(id), R.observed.get(id));
        lI++;
        rI++;
        nextShared = undefined;
        advanceShared();
        continue;
      }
      if (R.observed.has(id) && nextShared !== undefined && nextShared !== id) {
        // A shared item, but not the one wanted in this round.
        lI++;
        continue;
      }
    }
    if (lI < lLen) {
      const id = L.ids[lI] as ItemKey;
      if (!R.observed.has(id)) {
        item(lhs[lI], undefined);
        lI++;
        continue;
      } else if (mergedRHS.has(id)) {
        lI++;
      }
    }
    if (rI < rLen) {
      const id = R.ids[rI] as ItemKey;
      mergedRHS.add(id);
      item(L.observed.get(id), R.observed.get(id));
      rI++;
      if (nextShared !== undefined && nextShared === id) {
        nextShared = undefined;
        advanceShared();
      }
    }
  }
  return out.length > 0 ? out : undefined;
}
