/**
 * Planning comprehensions: the general fold, the macro shapes (map, filter, exists, all,
 * transformList/Map) matched on the tree and planned into loop functions of their own, in the
 * untracked and the cost-tracked variant alike, and `cel.@block`.
 */
import { Op, type CallExpr, type ComprehensionExpr, type Expr } from "./ast.js";
import { CelEvalError } from "./errors.js";
import { noSuchOverload } from "./runtime/dispatch.js";
import type { CelMapKey, CelValue } from "./values.js";
import { LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, absorbable } from "./cost-runtime.js";
import { tick, ticks } from "./eval-limits.js";
import { NO_OVERLOAD_LOGIC, Scope, UNRESOLVED, type Ev, type Frame } from "./plan-frame.js";
import { COST, charge } from "./plan-cost-state.js";
import { U_MAP_INSERT } from "./plan-env.js";
import { MAP_INSERT, STD_MAP_INSERT, index, mapInsertInPlace, mentions, mentionsAny, rangeError } from "./plan-closures.js";
import { Planner } from "./plan-core.js";

declare module "./plan-core.js" {
  interface Planner {
    comprehension(e: ComprehensionExpr): Ev;
    enterLoop(e: ComprehensionExpr, accuSlot: number, iterSlot: number, iter2Slot: number): Scope;
    plainFastComprehension(e: ComprehensionExpr, range: Ev): Ev | undefined;
    fastComprehension(e: ComprehensionExpr, range: Ev, iterSlot: number, iter2Slot: number): Ev | undefined;
    block(inits: readonly Expr[], result: Expr): Ev;
  }
}

// ------------------------------------------------------------------ comprehension loops
// (Module functions, not closures made by the planner's methods: see `functionCall`.)

/** `x` is the identifier `accu`. */
export function isAccuRef(x: Expr, accu: string): boolean {
  return x.kind === "ident" && x.name === accu;
}

/** `x` is a global call of `fn` with `n` arguments. */
export function isCallOf(x: Expr, fn: string, n: number): x is CallExpr {
  return x.kind === "call" && x.fn === fn && x.target === undefined && x.args.length === n;
}

/** The entries of a map range, or undefined for a list; throws for any other range. */
export function mapEntries(r: CelValue, two: boolean): IterableIterator<[CelMapKey, CelValue]> | undefined {
  if (Array.isArray(r)) return undefined;
  if (r instanceof Map) return (r as ReadonlyMap<CelMapKey, CelValue>).entries();
  throw rangeError(r, two);
}

/**
 * Binds the iteration variables to the `i`-th element of a range: a list's element (with
 * two variables its index and element), or the next entry of `it` over a map (key, value).
 */
export function bindElement(f: Frame, r: CelValue, it: IterableIterator<[CelMapKey, CelValue]> | undefined, i: number, iterSlot: number, iter2Slot: number): void {
  if (it === undefined) {
    if (iter2Slot >= 0) {
      f[iterSlot] = BigInt(i);
      f[iter2Slot] = (r as readonly CelValue[])[i];
    } else f[iterSlot] = (r as readonly CelValue[])[i];
  } else {
    const [k, v] = it.next().value as [CelMapKey, CelValue];
    f[iterSlot] = k;
    if (iter2Slot >= 0) f[iter2Slot] = v;
  }
}

/** How many elements a list or map range has (after `mapEntries` accepted it). */
export function rangeSize(r: CelValue): number {
  return Array.isArray(r) ? r.length : (r as ReadonlyMap<CelMapKey, CelValue>).size;
}

/** The general fold (see `ComprehensionExpr`). */
export function fold(range: Ev, init: Ev, cond: Ev, step: Ev, result: Ev, condTrue: boolean, accuSlot: number, iterSlot: number, iter2Slot: number): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const r = range(f);
    let accu: CelValue | CelEvalError;
    try {
      accu = init(f);
    } catch (x) {
      if (!absorbable(x)) throw x;
      accu = x;
    }
    f[accuSlot] = accu;
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    for (let i = 0; i < n; i++) {
      tick();
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      if (!condTrue) {
        // Only a bool false stops the loop; an error or non-bool condition continues (cel-go).
        let c: CelValue = true;
        try {
          c = cond(f);
        } catch (x) {
          if (!absorbable(x)) throw x;
        }
        if (c === false) break;
      }
      try {
        f[accuSlot] = step(f);
      } catch (x) {
        if (!absorbable(x)) throw x;
        f[accuSlot] = x;
      }
    }
    return result(f);
  };
}

/** exists (`stop` true) and all (`stop` false): the first `stop` decides, else the first error, else `!stop`. */
export function existsLoop(range: Ev, pred: Ev, stop: boolean, iterSlot: number, iter2Slot: number): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const r = range(f);
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    ticks(n);
    let err: unknown;
    for (let i = 0; i < n; i++) {
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      let v: CelValue;
      try {
        v = pred(f);
      } catch (x) {
        if (!absorbable(x)) throw x;
        err ??= x;
        continue;
      }
      if (v === stop) return stop;
      if (v !== !stop) err ??= new CelEvalError(NO_OVERLOAD_LOGIC);
    }
    if (err !== undefined) throw err;
    return !stop;
  };
}

/** map / transformList: every element's value, built in place; the first error wins. */
export function mapLoop(range: Ev, elem: Ev, iterSlot: number, iter2Slot: number): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const r = range(f);
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    ticks(n);
    const out: CelValue[] = [];
    let err: unknown;
    for (let i = 0; i < n; i++) {
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      try {
        const v = elem(f);
        if (err === undefined) out.push(v);
      } catch (x) {
        if (!absorbable(x)) throw x;
        err ??= x; // `error + [x]` keeps the first error
      }
    }
    if (err !== undefined) throw err;
    return out;
  };
}

/** filter / map with a predicate: the predicate's own error replaces the accumulator. */
export function filterLoop(range: Ev, pred: Ev, elem: Ev, iterSlot: number, iter2Slot: number): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const r = range(f);
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    ticks(n);
    const out: CelValue[] = [];
    let err: unknown;
    for (let i = 0; i < n; i++) {
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      let cv: CelValue;
      try {
        cv = pred(f);
      } catch (x) {
        if (!absorbable(x)) throw x;
        err = x; // the conditional's own error replaces the accumulator
        continue;
      }
      if (cv !== true && cv !== false) {
        err = new CelEvalError(NO_OVERLOAD_LOGIC);
        continue;
      }
      if (cv && err === undefined) {
        try {
          out.push(elem(f));
        } catch (x) {
          if (!absorbable(x)) throw x;
          err = x;
        }
      }
    }
    if (err !== undefined) throw err;
    return out;
  };
}

/** transformMap (`k`, `v`) / transformMapEntry (`entryMap`: `k` gives a map of entries), with an optional predicate. */
export function mapInsertLoop(range: Ev, k: Ev, v: Ev, entryMap: boolean, pred: Ev | undefined, iterSlot: number, iter2Slot: number): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const r = range(f);
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    ticks(n);
    const out = new Map<CelMapKey, CelValue>();
    let err: unknown;
    for (let i = 0; i < n; i++) {
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      if (pred !== undefined) {
        let cv: CelValue;
        try {
          cv = pred(f);
        } catch (x) {
          if (!absorbable(x)) throw x;
          err = x;
          continue;
        }
        if (cv !== true && cv !== false) {
          err = new CelEvalError(NO_OVERLOAD_LOGIC);
          continue;
        }
        if (!cv) continue;
      }
      if (err !== undefined) continue;
      try {
        if (entryMap) {
          const m = k(f);
          if (!(m instanceof Map)) throw noSuchOverload(MAP_INSERT, [out, m]);
          for (const [mk, mv] of m as ReadonlyMap<CelMapKey, CelValue>) mapInsertInPlace(out, mk, mv);
        } else {
          const key = k(f);
          const val = v(f);
          mapInsertInPlace(out, key, val);
        }
      } catch (x) {
        if (!absorbable(x)) throw x;
        err = x;
      }
    }
    if (err !== undefined) throw err;
    return out;
  };
}

// The tracking variant's loops: the same results and error absorption as the loops above, and
// the cost cel-go's fold charges (the loop condition, the step's accumulator reads, literals and
// calls, the result's read), charged at the points the planner has always charged it, so an
// exceeded limit stops the same iteration with the same figures.
// They repeat the loops above with the charges added, on purpose: one loop function per shape
// serving both variants behind a `tracked` flag was measured 1.6x slower on the bench's
// map+exists and filter expressions, tracked and untracked alike (presumably because the
// closures one function makes share their optimized code and type feedback across both
// variants). `planner-loops.test.ts` pins these loops' costs and the conformance suites pin both.

/**
 * Tracking exists / all: each iteration charges the condition, the accumulator read and what the
 * predicate leaves to its caller (`iterCost`); after the deciding element, cel-go still evaluates
 * the next element's condition (`condCost`) before stopping; the result's read costs 1.
 */
export function trackedExistsLoop(range: Ev, pred: Ev, stop: boolean, condCost: number, iterCost: number, iterSlot: number, iter2Slot: number): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const r = range(f);
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    let err: unknown;
    for (let i = 0; i < n; i++) {
      tick();
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      charge(iterCost);
      let v: CelValue;
      try {
        v = pred(f);
      } catch (x) {
        if (!absorbable(x)) throw x;
        err ??= x;
        continue;
      }
      if (v === stop) {
        if (i + 1 < n) charge(condCost);
        charge(1);
        return stop;
      }
      if (v !== !stop) err ??= new CelEvalError(NO_OVERLOAD_LOGIC);
    }
    charge(1);
    if (err !== undefined) throw err;
    return !stop;
  };
}

/**
 * Whether the fixed cost of every iteration of a loop without early exit (map, filter) is charged
 * before the loop: when all `n` of them fit in what is left of the limit (then the iterations
 * skip it); otherwise each iteration charges its own, so an exceeded limit stops the loop where
 * it is exceeded. Either way the total is exact.
 */
export function chargeUpfront(n: number, perIter: number): boolean {
  const total = n * perIter;
  if (COST.acc + total > COST.limit) return false;
  COST.acc += total;
  return true;
}

/** Tracking map / transformList: `initCost` for the accumulator, `stepCost` per element, 1 for the result. */
export function trackedMapLoop(range: Ev, elem: Ev, initCost: number, stepCost: number, iterSlot: number, iter2Slot: number): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const out: CelValue[] = [];
    let err: unknown;
    charge(initCost);
    const r = range(f);
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    const upfront = stepCost !== 0 && chargeUpfront(n, stepCost);
    for (let i = 0; i < n; i++) {
      tick();
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      if (!upfront) charge(stepCost);
      try {
        const v = elem(f);
        if (err === undefined) out.push(v);
      } catch (x) {
        if (!absorbable(x)) throw x;
        err ??= x; // `error + [x]` keeps the first error
      }
    }
    charge(1);
    if (err !== undefined) throw err;
    return out;
  };
}

/**
 * Tracking filter / map with a predicate: what the predicate leaves to its caller (`predCost`)
 * per element (up front when it fits, see `chargeUpfront`), `stepCost` per element kept.
 */
export function trackedFilterLoop(range: Ev, pred: Ev, elem: Ev, initCost: number, predCost: number, stepCost: number, iterSlot: number, iter2Slot: number): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const out: CelValue[] = [];
    let err: unknown;
    charge(initCost);
    const r = range(f);
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    const perIter = predCost !== 0 && !chargeUpfront(n, predCost) ? predCost : 0;
    for (let i = 0; i < n; i++) {
      tick();
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      if (perIter !== 0) charge(perIter);
      let cv: CelValue;
      try {
        cv = pred(f);
      } catch (x) {
        if (!absorbable(x)) throw x;
        err = x; // the conditional's own error replaces the accumulator
        continue;
      }
      if (cv !== true && cv !== false) {
        err = new CelEvalError(NO_OVERLOAD_LOGIC);
        continue;
      }
      if (cv) {
        charge(stepCost);
        if (err === undefined) {
          try {
            out.push(elem(f));
          } catch (x) {
            if (!absorbable(x)) throw x;
            err = x;
          }
        }
      }
    }
    charge(1);
    if (err !== undefined) throw err;
    return out;
  };
}

/** Tracking transformMap / transformMapEntry: `initCost` for the accumulator, 2 per insertion (the accumulator read and the call), 1 for the result. */
export function trackedMapInsertLoop(
  range: Ev,
  k: Ev,
  v: Ev,
  entryMap: boolean,
  pred: Ev | undefined,
  initCost: number,
  iterSlot: number,
  iter2Slot: number,
): Ev {
  const two = iter2Slot >= 0;
  return (f) => {
    const out = new Map<CelMapKey, CelValue>();
    let err: unknown;
    charge(initCost);
    const r = range(f);
    const it = mapEntries(r, two);
    const n = rangeSize(r);
    for (let i = 0; i < n; i++) {
      tick();
      bindElement(f, r, it, i, iterSlot, iter2Slot);
      if (pred !== undefined) {
        let cv: CelValue;
        try {
          cv = pred(f);
        } catch (x) {
          if (!absorbable(x)) throw x;
          err = x;
          continue;
        }
        if (cv !== true && cv !== false) {
          err = new CelEvalError(NO_OVERLOAD_LOGIC);
          continue;
        }
        if (!cv) continue;
      }
      charge(2);
      if (err !== undefined) continue;
      try {
        if (entryMap) {
          const m = k(f);
          if (!(m instanceof Map)) throw noSuchOverload(MAP_INSERT, [out, m]);
          for (const [mk, mv] of m as ReadonlyMap<CelMapKey, CelValue>) mapInsertInPlace(out, mk, mv);
        } else {
          const key = k(f);
          const val = v(f);
          mapInsertInPlace(out, key, val);
        }
      } catch (x) {
        if (!absorbable(x)) throw x;
        err = x;
      }
    }
    charge(1);
    if (err !== undefined) throw err;
    return out;
  };
}

Planner.prototype.comprehension = function (this: Planner, e: ComprehensionExpr): Ev {
  const range = this.expr(e.iterRange);
  if (!this.tracking) {
    // The untracked variant (every program) matches the macro shapes before planning
    // anything else: a fast loop needs no closure for the accumulator's initial value.
    const fast = this.plainFastComprehension(e, range);
    if (fast !== undefined) return fast;
  }
  const init = this.expr(e.accuInit);
  const accuSlot = this.nextSlot++;
  const iterSlot = this.nextSlot++;
  const iter2Slot = e.iterVar2 !== undefined ? this.nextSlot++ : -1;

  // accuInit sees the enclosing scope only; the loop sees the iteration variables and the accumulator.
  const scope = this.enterLoop(e, accuSlot, iterSlot, iter2Slot);
  try {
    if (this.tracking) {
      const fast = this.fastComprehension(e, range, iterSlot, iter2Slot);
      if (fast !== undefined) return fast;
    }
    const cond = this.expr(e.loopCondition);
    const step = this.expr(e.loopStep);
    // The result sees only the accumulator (cel-go scoping), but sharing the scope is harmless:
    // the parser never lets the result name the iteration variables of its own comprehension.
    const result = this.expr(e.result);
    const condTrue = e.loopCondition.kind === "const" && e.loopCondition.value.kind === "bool" && e.loopCondition.value.value;
    return fold(range, init, cond, step, result, condTrue, accuSlot, iterSlot, iter2Slot);
  } finally {
    this.scope = scope.parent;
  }
};

/** Enters the scope of a comprehension's loop: its iteration variables and accumulator. */
Planner.prototype.enterLoop = function (this: Planner, e: ComprehensionExpr, accuSlot: number, iterSlot: number, iter2Slot: number): Scope {
  const scope = new Scope(this.scope);
  scope.set(e.iterVar, { slot: iterSlot, accu: false });
  if (e.iterVar2 !== undefined) scope.set(e.iterVar2, { slot: iter2Slot, accu: false });
  scope.set(e.accuVar, { slot: accuSlot, accu: true });
  this.scope = scope;
  return scope;
};

/**
 * The untracked variant's tight loops for the standard macro shapes (as `fastComprehension`
 * matches them), or undefined. The shapes are matched on the tree first (no closures made
 * for the matching), then only the parts a loop runs are planned, in the loop's scope.
 */
Planner.prototype.plainFastComprehension = function (this: Planner, e: ComprehensionExpr, range: Ev): Ev | undefined {
  const accu = e.accuVar;
  if (!isAccuRef(e.result, accu)) return undefined;
  const accuRefs = e.accuRefs ?? -1;
  const init = e.accuInit;
  const cond = e.loopCondition;
  const step = e.loopStep;
  // What the matched shape plans: a predicate, an element, a key and value (or entry map).
  let pred: Expr | undefined;
  let elem: Expr | undefined;
  let ins: CallExpr | undefined;
  let stop: boolean | undefined;
  if (init.kind === "const" && init.value.kind === "bool" && isCallOf(cond, Op.notStrictlyFalse, 1)) {
    // exists / all (see `fastComprehension`).
    const isExists = init.value.value === false;
    const condArg = cond.args[0]!;
    const condOk = isExists ? isCallOf(condArg, Op.not, 1) && isAccuRef(condArg.args[0]!, accu) : isAccuRef(condArg, accu);
    const op = isExists ? Op.logicalOr : Op.logicalAnd;
    if (!(condOk && isCallOf(step, op, 2) && isAccuRef(step.args[0]!, accu) && (accuRefs === 3 || !mentions(step.args[1]!, accu)))) return undefined;
    pred = step.args[1]!;
    stop = isExists;
  } else {
    if (!(cond.kind === "const" && cond.value.kind === "bool" && cond.value.value)) return undefined;
    let c: Expr | undefined;
    let body: Expr = step;
    if (isCallOf(step, Op.conditional, 3) && isAccuRef(step.args[2]!, accu)) {
      c = step.args[0]!;
      body = step.args[1]!;
    }
    if (init.kind === "list" && init.elements.length === 0) {
      // map / filter / transformList.
      if (
        !(
          isCallOf(body, Op.add, 2) &&
          isAccuRef(body.args[0]!, accu) &&
          body.args[1]!.kind === "list" &&
          body.args[1]!.elements.length === 1 &&
          body.args[1]!.optionalIndices.length === 0 &&
          (accuRefs === (c === undefined ? 2 : 3) || (!mentions(body.args[1]!, accu) && (c === undefined || !mentions(c, accu))))
        )
      ) {
        return undefined;
      }
      elem = body.args[1]!.elements[0]!;
    } else if (init.kind === "map" && init.entries.length === 0) {
      // transformMap / transformMapEntry.
      const arity = body.kind === "call" && body.args.length === 2 ? 2 : 3;
      if (
        !(
          isCallOf(body, MAP_INSERT, arity) &&
          !this.userOverloads(U_MAP_INSERT, MAP_INSERT, STD_MAP_INSERT) &&
          isAccuRef(body.args[0]!, accu) &&
          (accuRefs === (c === undefined ? 2 : 3) || (!mentionsAny(body.args.slice(1), accu) && (c === undefined || !mentions(c, accu))))
        )
      ) {
        return undefined;
      }
      ins = body;
    } else return undefined;
    pred = c;
  }
  // Slots as the general fold allocates them (the initial value, a constant, has none).
  const accuSlot = this.nextSlot++;
  const iterSlot = this.nextSlot++;
  const iter2Slot = e.iterVar2 !== undefined ? this.nextSlot++ : -1;
  const scope = this.enterLoop(e, accuSlot, iterSlot, iter2Slot);
  try {
    if (stop !== undefined) return existsLoop(range, this.expr(pred!), stop, iterSlot, iter2Slot);
    if (elem !== undefined) {
      // (The element first, as `fastComprehension` plans them.)
      const el = this.expr(elem);
      return pred === undefined ? mapLoop(range, el, iterSlot, iter2Slot) : filterLoop(range, this.expr(pred), el, iterSlot, iter2Slot);
    }
    const entryMap = ins!.args.length === 2;
    const k = this.expr(ins!.args[1]!);
    const v = entryMap ? k : this.expr(ins!.args[2]!);
    return mapInsertLoop(range, k, v, entryMap, pred === undefined ? undefined : this.expr(pred), iterSlot, iter2Slot);
  } finally {
    this.scope = scope.parent;
  }
};

/**
 * The tracking variant's tight loops for the standard macro shapes (all, exists, map, filter,
 * transformList/Map), with the same results and error absorption as the general fold but
 * without per-iteration accumulator bookkeeping, and with list/map accumulators built in place
 * instead of copied per step. Each shape runs in a loop function of its own (`trackedMapLoop`
 * …), not in one shared loop calling a callback per element: such a call site sees every
 * comprehension's callback and is not inlined.
 */
Planner.prototype.fastComprehension = function (this: Planner, e: ComprehensionExpr, range: Ev, iterSlot: number, iter2Slot: number): Ev | undefined {
  const accu = e.accuVar;
  const isAccu = (x: Expr): boolean => x.kind === "ident" && x.name === accu;
  const call = (x: Expr, fn: string, n: number): x is CallExpr =>
    x.kind === "call" && x.fn === fn && x.target === undefined && x.args.length === n;
  if (!isAccu(e.result)) return undefined;
  // How many accumulator references the expansion has, when the parser knows (-1 otherwise): when
  // the shape matched below accounts for all of them, the rest of the step cannot name it.
  const accuRefs = e.accuRefs ?? -1;
  const init = e.accuInit;
  const cond = e.loopCondition;
  const step = e.loopStep;
  // exists: init false, cond @not_strictly_false(!accu), step accu || P.
  // all:    init true,  cond @not_strictly_false(accu),  step accu && P.
  if (init.kind === "const" && init.value.kind === "bool" && call(cond, Op.notStrictlyFalse, 1)) {
    const isExists = init.value.value === false;
    const condArg = cond.args[0]!;
    const condOk = isExists ? call(condArg, Op.not, 1) && isAccu(condArg.args[0]!) : isAccu(condArg);
    const op = isExists ? Op.logicalOr : Op.logicalAnd;
    if (condOk && call(step, op, 2) && isAccu(step.args[0]!) && (accuRefs === 3 || !mentions(step.args[1]!, accu))) {
      const predPart = this.exprPending(step.args[1]!);
      const pred = predPart.ev;
      const stop = isExists; // exists stops on true, all stops on false
      // @not_strictly_false(accu) or @not_strictly_false(!accu): 2 or 3.
      const condCost = isExists ? 3 : 2;
      // The condition, the accumulator read and what the predicate leaves to its caller.
      const iterCost = condCost + 1 + predPart.pending;
      return trackedExistsLoop(range, pred, stop, condCost, iterCost, iterSlot, iter2Slot);
    }
  }

  const condTrue = cond.kind === "const" && cond.value.kind === "bool" && cond.value.value;
  if (!condTrue) return undefined;

  // map/filter/transformList: init [], step accu + [E] or C ? accu + [E] : accu.
  if (init.kind === "list" && init.elements.length === 0) {
    let c: Expr | undefined;
    let add: Expr = step;
    if (call(step, Op.conditional, 3) && isAccu(step.args[2]!)) {
      c = step.args[0]!;
      add = step.args[1]!;
    }
    if (
      call(add, Op.add, 2) &&
      isAccu(add.args[0]!) &&
      add.args[1]!.kind === "list" &&
      add.args[1]!.elements.length === 1 &&
      add.args[1]!.optionalIndices.length === 0 &&
      // The result, the accumulator added to and the conditional's else branch.
      (accuRefs === (c === undefined ? 2 : 3) || (!mentions(add.args[1]!, accu) && (c === undefined || !mentions(c, accu))))
    ) {
      const elemPart = this.staticPart(add.args[1]!.elements[0]!);
      const elem = elemPart.ev;
      const predPart = c === undefined ? undefined : this.exprPending(c);
      const pred = predPart?.ev;
      const predCost = predPart?.pending ?? 0;
      // accu + [E]: the accumulator read, the one-element list (unless folded) and add_list
      // (and E itself when its cost is static).
      const stepCost = 2 + (this.isConstLiteral(add.args[1]!) ? 0 : LIST_CREATE_BASE_COST) + elemPart.pending;
      const initCost = this.isConstLiteral(init) ? 0 : LIST_CREATE_BASE_COST;
      return pred === undefined
        ? trackedMapLoop(range, elem, initCost, stepCost, iterSlot, iter2Slot)
        : trackedFilterLoop(range, pred, elem, initCost, predCost, stepCost, iterSlot, iter2Slot);
    }
  }

  // transformMap: init {}, step cel.@mapInsert(accu, K, V) or C ? … : accu;
  // transformMapEntry: step cel.@mapInsert(accu, M) (every entry of M inserted).
  if (init.kind === "map" && init.entries.length === 0) {
    let c: Expr | undefined;
    let ins: Expr = step;
    if (call(step, Op.conditional, 3) && isAccu(step.args[2]!)) {
      c = step.args[0]!;
      ins = step.args[1]!;
    }
    const arity = ins.kind === "call" && ins.args.length === 2 ? 2 : 3;
    if (
      call(ins, MAP_INSERT, arity) &&
      !this.userOverloads(U_MAP_INSERT, MAP_INSERT, STD_MAP_INSERT) &&
      isAccu(ins.args[0]!) &&
      (accuRefs === (c === undefined ? 2 : 3) ||
        (ins.args.slice(1).every((a) => !mentions(a, accu)) && (c === undefined || !mentions(c, accu))))
    ) {
      const kEv = this.expr(ins.args[1]!);
      const entryMap = arity === 2;
      const vEv = entryMap ? kEv : this.expr(ins.args[2]!);
      const pred = c === undefined ? undefined : this.expr(c);
      // cel.@mapInsert(accu, …): the accumulator read and the call.
      const initCost = this.isConstLiteral(init) ? 0 : MAP_CREATE_BASE_COST;
      return trackedMapInsertLoop(range, kEv, vEv, entryMap, pred, initCost, iterSlot, iter2Slot);
    }
  }
  return undefined;
};

/**
 * cel-go's `cel.@block([e0, e1, …], result)` (what the `cel.block` macro and
 * common-subexpression elimination produce): `@indexN` names `eN`, evaluated
 * at most once per evaluation of the block and only when used; an error is
 * remembered and raised where the slot is read.
 */
Planner.prototype.block = function (this: Planner, inits: readonly Expr[], result: Expr): Ev {
  const scope = new Scope(this.scope);
  this.scope = scope;
  try {
    const slots: number[] = [];
    const evs: Ev[] = [];
    for (let i = 0; i < inits.length; i++) {
      // Each initializer sees the slots before it.
      evs.push(this.expr(inits[i]!));
      const slot = this.nextSlot++;
      slots.push(slot);
      scope.set(`@index${i}`, { slot, accu: false, lazy: evs[i]! });
    }
    const body = this.expr(result);
    return (f) => {
      for (let i = 0; i < slots.length; i++) f[slots[i]!] = UNRESOLVED;
      return body(f);
    };
  } finally {
    this.scope = scope.parent;
  }
};
