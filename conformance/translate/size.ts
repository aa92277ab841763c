/**
 * The size measure of the readability tests (issue 21): characters of CEL in a policy set's
 * matchConditions, variables and mutations, without `//` comments and without whitespace
 * outside string literals.
 */
import type { JsonObject } from "../../src/translate/gatekeeper/translate/index.js";

/** CEL text without `//` comments and without whitespace outside string literals. */
export function celSize(expression: string): number {
  let n = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i]!;
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < expression.length && expression[j] !== c) j += expression[j] === "\\" ? 2 : 1;
      n += j + 1 - i;
      i = j;
    } else if (c === "/" && expression[i + 1] === "/") {
      while (i < expression.length && expression[i] !== "\n") i++;
    } else if (!/\s/.test(c)) n++;
  }
  return n;
}

/** Every CEL expression of the policies. */
function expressions(policies: readonly JsonObject[]): string[] {
  const out: string[] = [];
  for (const p of policies) {
    const spec = (p.spec ?? {}) as {
      matchConditions?: { expression: string }[];
      variables?: { expression: string }[];
      mutations?: { applyConfiguration?: { expression: string }; jsonPatch?: { expression: string } }[];
    };
    for (const c of spec.matchConditions ?? []) out.push(c.expression);
    for (const v of spec.variables ?? []) out.push(v.expression);
    for (const m of spec.mutations ?? []) out.push(m.applyConfiguration?.expression ?? m.jsonPatch?.expression ?? "");
  }
  return out;
}

export const totalSize = (policies: readonly JsonObject[]) => expressions(policies).reduce((s, e) => s + celSize(e), 0);
