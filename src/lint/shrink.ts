/**
 * Shrinks a counterexample: removes fields and list items, largest first, as long as the finding
 * still shows, so the witness is a minimal object (no single field or item can go). Bounded by a
 * budget of predicate calls.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../admission/json.js";

const KEEP = new Set(["/apiVersion", "/kind", "/metadata", "/metadata/name", "/metadata/namespace"]);

/** Every object with one field or list item removed, the shallow removals first. */
function smaller(o: JsonObject): JsonObject[] {
  const out: { depth: number; o: JsonObject }[] = [];
  const visit = (v: JsonValue, path: string[], depth: number, rebuild: (x: JsonValue | undefined) => JsonObject): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        const without = [...v.slice(0, i), ...v.slice(i + 1)];
        out.push({ depth, o: rebuild(without) });
        visit(item, [...path, String(i)], depth + 1, (x) => rebuild(x === undefined ? without : v.map((y, j) => (j === i ? x : y))));
      });
      return;
    }
    if (!isJsonObject(v)) return;
    for (const k of Object.keys(v)) {
      const p = [...path, k];
      const ptr = `/${p.join("/")}`;
      const without = (): JsonObject => {
        const c: JsonObject = {};
        for (const [kk, x] of Object.entries(v)) if (kk !== k) c[kk] = x;
        return c;
      };
      if (!KEEP.has(ptr)) out.push({ depth, o: rebuild(without()) });
      visit(v[k]!, p, depth + 1, (x) => rebuild(x === undefined ? without() : { ...v, [k]: x }));
    }
  };
  visit(o, [], 0, (x) => x as JsonObject);
  return out.sort((a, b) => a.depth - b.depth).map((x) => x.o);
}

/** The smallest object reachable from `o` by removals for which `holds` stays true. */
export function shrink(o: JsonObject, holds: (candidate: JsonObject) => boolean, budget = 120): JsonObject {
  let current = o;
  let calls = 0;
  let progress = true;
  while (progress && calls < budget) {
    progress = false;
    for (const c of smaller(current)) {
      if (++calls > budget) break;
      if (holds(c)) {
        current = c;
        progress = true;
        break;
      }
    }
  }
  return current;
}
