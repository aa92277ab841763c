/**
 * Schema-conflict detection between mutators (`pkg/mutation/schema`, v3.23.0). Every mutator
 * with `applyTo` registers its location, per (GVK, operation) binding, in a tree whose nodes
 * are keyed by field name (object node) or key field (list node) and typed by the next node
 * (Object / List) or, at the end, by the mutator's terminal type (Assign `Unknown`, ModifySet
 * `Set`, AssignImage `String`). Two known types under one key, one list addressed with two key
 * fields, or a must-terminate location extended by another mutator put every mutator involved
 * in conflict; the System skips them. AssignMetadata never takes part.
 */
import type { PathNode } from "./path/parser.js";
import { byteCompare } from "./value.js";
import { idString, type Binding, type MutatorID, type MutatorWithSchema } from "./mutators/index.js";

type NodeType = "Object" | "List" | "Unknown" | "Set" | "String";

class SchemaNode {
  readonly referencedBy = new Set<string>();
  readonly children = new Map<string, Map<NodeType, SchemaNode>>();
  readonly mustTerminate = new Set<string>();

  add(id: string, path: readonly PathNode[], terminal: NodeType, mustTerminate: boolean): Set<string> {
    this.referencedBy.add(id);
    if (path.length === 0) {
      if (mustTerminate) this.mustTerminate.add(id);
      return new Set();
    }
    const key = nodeKey(path[0]!);
    let byType = this.children.get(key);
    if (byType === undefined) {
      byType = new Map();
      this.children.set(key, byType);
    }
    const type: NodeType = path.length < 2 ? terminal : path[1]!.type;
    let child = byType.get(type);
    if (child === undefined) {
      child = new SchemaNode();
      byType.set(type, child);
    }
    const conflicts = child.add(id, path.slice(1), terminal, mustTerminate);
    for (const c of this.conflicts(key)) conflicts.add(c);
    return conflicts;
  }

  private conflicts(key: string): Set<string> {
    const out = new Set<string>();
    const byType = this.children.get(key) ?? new Map<NodeType, SchemaNode>();
    let nTypes = byType.size;
    if (byType.has("Unknown")) nTypes--;
    let mustTerminate = false;
    let hasGrandchildren = false;
    for (const [type, child] of byType) {
      mustTerminate ||= child.mustTerminate.size > 0;
      hasGrandchildren ||= child.children.size > 0;
      if (type === "Unknown") continue;
      if (nTypes > 1 || (type === "List" && child.children.size > 1)) for (const id of child.referencedBy) out.add(id);
    }
    if (!mustTerminate || !hasGrandchildren) return out;
    for (const child of byType.values()) {
      for (const id of child.mustTerminate) out.add(id);
      for (const gcs of child.children.values()) for (const gc of gcs.values()) for (const id of gc.referencedBy) out.add(id);
    }
    return out;
  }
}

function nodeKey(n: PathNode): string {
  return n.type === "Object" ? n.reference : n.keyField;
}

function bindingKey(b: Binding): string {
  return JSON.stringify([b.group, b.version, b.kind, b.operation]);
}

/** The conflict set of a group of mutators, as the schema DB reports it after upserting them in order. */
export class SchemaDB {
  private readonly trees = new Map<string, SchemaNode>();
  private readonly conflicting = new Set<string>();
  private readonly ids = new Map<string, MutatorID>();

  /** `DB.Upsert` of a new mutator; returns the IDs found in conflict (empty: none). */
  add(m: MutatorWithSchema): MutatorID[] {
    const id = idString(m.id);
    this.ids.set(id, m.id);
    const found = new Set<string>();
    for (const b of m.bindings) {
      const k = bindingKey(b);
      let tree = this.trees.get(k);
      if (tree === undefined) {
        tree = new SchemaNode();
        this.trees.set(k, tree);
      }
      for (const c of tree.add(id, m.path.nodes, m.terminalType, m.mustTerminate)) found.add(c);
    }
    for (const c of found) this.conflicting.add(c);
    return [...found].sort(byteCompare).map((s) => this.ids.get(s)!);
  }

  hasConflicts(id: MutatorID): boolean {
    return this.conflicting.has(idString(id));
  }

  /** All mutators in conflict, sorted by their `ID.String()`. */
  conflicts(): MutatorID[] {
    return [...this.conflicting].sort(byteCompare).map((s) => this.ids.get(s)!);
  }
}

/** `ErrConflictingSchema.Error()`. */
export function conflictMessage(ids: readonly MutatorID[]): string {
  return `the following mutators have conflicting schemas: [${ids.map(idString).join(",")}]`;
}
