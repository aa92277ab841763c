/**
 * Which nodes' checked types are only inferred (see `CheckedExpr.inferred`), closed over the
 * tree: a type derived from an inferred one is no more trustworthy than it.
 *
 * cel-go's checker binds a free type parameter to the first overload that accepts it
 * (checker/checker.go `resolveOverload` commits the mapping of the first match), so
 * `[dyn([1])].flatten().map(x, x * y)` types `x * y` as whatever the first matching overload of
 * `_*_` says, while `_*_` is dispatched by value at run time (a singleton binding) and yields the
 * int it was given. A call typed from such an argument, a comprehension over such a range, its
 * iteration variable and its accumulator are then inferred too: a call on them keeps its run-time
 * overload check (cel-go: "no such overload: string(int)") instead of being called directly with a
 * value of another type.
 */
import type { Expr } from "./ast.js";

/** Adds to `own` (the nodes whose own type held a type parameter) every node derived from one. */
export function closeInferred(root: Expr, own: Set<number>): Set<number> {
  const out = new Set(own);
  taint(root, new Map(), own, out);
  return out;
}

function taint(e: Expr, scope: ReadonlyMap<string, boolean>, own: ReadonlySet<number>, out: Set<number>): boolean {
  let t = own.has(e.id);
  switch (e.kind) {
    case "const":
      break;
    case "ident": {
      const v = scope.get(e.name);
      if (v !== undefined) t = t || v;
      break;
    }
    case "select":
      t = taint(e.operand, scope, own, out) || t;
      break;
    case "call":
      if (e.target !== undefined) t = taint(e.target, scope, own, out) || t;
      for (const a of e.args) t = taint(a, scope, own, out) || t;
      break;
    case "list":
      for (const x of e.elements) t = taint(x, scope, own, out) || t;
      break;
    case "map":
      for (const x of e.entries) {
        t = taint(x.key, scope, own, out) || t;
        t = taint(x.value, scope, own, out) || t;
      }
      break;
    case "struct":
      for (const x of e.fields) t = taint(x.value, scope, own, out) || t;
      break;
    case "comprehension": {
      const range = taint(e.iterRange, scope, own, out);
      const init = taint(e.accuInit, scope, own, out);
      const inner = new Map(scope);
      inner.set(e.iterVar, range);
      if (e.iterVar2 !== undefined) inner.set(e.iterVar2, range);
      // The accumulator's type is joined from its initial value and each step.
      let accu = init || range;
      inner.set(e.accuVar, accu);
      let body = taint(e.loopCondition, inner, own, out);
      let step = taint(e.loopStep, inner, own, out);
      if (step && !accu) {
        accu = true;
        inner.set(e.accuVar, true);
        body = taint(e.loopCondition, inner, own, out);
        step = taint(e.loopStep, inner, own, out);
      }
      const resultScope = new Map(scope);
      resultScope.set(e.accuVar, accu);
      const result = taint(e.result, resultScope, own, out);
      t = t || range || init || accu || body || step || result;
      break;
    }
  }
  if (t) out.add(e.id);
  return t;
}
