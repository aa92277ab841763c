/**
 * Checking a location (and a literal Assign value) against the OpenAPI schema of the built-in
 * kinds it applies to. MAP decodes a JSON-patched built-in object strictly (map.md §4.3): an
 * undeclared field, or a value of the wrong type, aborts the request with HTTP 500 whatever the
 * failure policy, where Gatekeeper would have written it. Custom resources (no built-in schema)
 * are decoded without that check, so nothing is reported for them.
 */
import { SchemaRegistry, type SchemaNode } from "../../../kube/schema.js";
import type { Mutator } from "../../../gatekeeper/index.js";
import { printPath } from "../../../gatekeeper/index.js";

const registry = SchemaRegistry.builtin();

function scalarMismatch(node: SchemaNode, value: unknown): string | undefined {
  if (node.t !== "scalar" || node.fmt === "int-or-string" || node.fmt === "quantity") return undefined;
  const ok =
    node.s === "string" ? typeof value === "string" : node.s === "boolean" ? typeof value === "boolean" : node.s === "integer" ? typeof value === "number" && Number.isInteger(value) : typeof value === "number";
  return ok ? undefined : `${node.s} expected, the value is ${JSON.stringify(value)}`;
}

/** Problems of `m` on the built-in kinds of its applyTo (empty: none, or no built-in kind). */
export function schemaProblems(m: Mutator): string[] {
  if (m.kind === "AssignMetadata") return [];
  const out = new Set<string>();
  for (const b of m.bindings) {
    const apiVersion = b.group === "" ? b.version : `${b.group}/${b.version}`;
    let cur: SchemaNode | undefined = registry.forKind(apiVersion, b.kind);
    if (cur === undefined) continue;
    const where = `${apiVersion} ${b.kind}`;
    const nodes = m.path.nodes;
    for (let i = 0; i < nodes.length && cur !== undefined; i++) {
      const n = nodes[i]!;
      const at = printPath({ nodes: nodes.slice(0, i + 1) });
      if (cur.t === "untyped") {
        cur = undefined;
        break;
      }
      if (n.type === "Object") {
        const next: SchemaNode | undefined = registry.child(cur, n.reference);
        if (next === undefined) {
          out.add(`${at} is not a field of ${where}`);
          cur = undefined;
          break;
        }
        cur = next;
      } else {
        if (cur.t !== "list") {
          out.add(`${at}: ${printPath({ nodes: nodes.slice(0, i) })} is not a list in ${where}`);
          cur = undefined;
          break;
        }
        const el = registry.element(cur);
        if (!n.glob && registry.child(el, n.keyField) === undefined) out.add(`${at}: the key field ${n.keyField} is not a field of the elements in ${where}`);
        else if (!n.glob && n.keyValue !== undefined) {
          const kf = registry.child(el, n.keyField)!;
          const bad = scalarMismatch(kf, typeof n.keyValue === "bigint" ? Number(n.keyValue) : n.keyValue);
          if (bad !== undefined) out.add(`${at}: key ${n.keyField}: ${bad} in ${where}`);
        }
        cur = el;
      }
    }
    if (cur !== undefined && m.kind === "Assign" && m.assign.value !== undefined) {
      const bad = scalarMismatch(cur, m.assign.value);
      if (bad !== undefined) out.add(`${m.location}: ${bad} in ${where}`);
    }
  }
  return [...out];
}
