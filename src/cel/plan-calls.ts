/**
 * Planning calls: operators the planner inlines (logical, conditional, equality, `?:`, optional
 * `or`), function lookup in the environment, overload selection and dispatch, and the string
 * concatenation fast path.
 */
import { Op, type CallExpr, type Expr } from "./ast.js";
import type { FunctionDecl, OverloadDecl } from "./decls.js";
import { CelEvalError } from "./errors.js";
import { inList, inMap, optIndex, optSelect } from "./runtime/access.js";
import { candidatesOf } from "./runtime/dispatch.js";
import { compileRegex } from "./std/strings.js";
import type { RE2JS } from "@bufbuild/re2";
import { OPTIONAL_NAME } from "./types.js";
import { CelOptional, type CelMapKey, type CelValue } from "./values.js";
import { STRING_TRAVERSAL_COST_FACTOR, absorbable, codePoints } from "./cost-runtime.js";
import { NO_OVERLOAD_LOGIC, type Ev } from "./plan-frame.js";
import { LAST_ADD, RECEIVER_TRAVERSAL, charge, charged, discounted } from "./plan-cost-state.js";
import { BLOCK, EMPTY_FRAME, MAX_CACHED_NAMES, NO_OVERLOADS, U_EQUALS, U_IN, U_INDEX, U_NOT, U_NOT_EQUALS, type DeclShapes, type OverloadEntry } from "./plan-env.js";
import { SINGLETON_BOUND, STD_EQUALS, STD_IN, STD_INDEX, STD_NOT, callDirect, callDispatch, constOf, containsOpen, equals, equalsConst, equalsConstRight, equalsInt, index, indexByString, indexOptional, intConst, isOpenType, noOverloadCall, notEquals, notEqualsConst, notEqualsConstRight, regexCall, trackedRegexCall } from "./plan-closures.js";
import { Planner } from "./plan-core.js";

declare module "./plan-core.js" {
  interface Planner {
    call(e: CallExpr, defer?: boolean): Ev;
    userOverloads(slot: number, fn: string, standard: readonly string[]): boolean;
    logical(e: CallExpr, isOr: boolean): Ev;
    conditional(e: CallExpr): Ev;
    branch(x: Expr): Ev;
    equality(e: CallExpr): Ev;
    optionalOr(e: CallExpr): Ev | undefined;
    namespacedFunction(e: CallExpr): FunctionDecl | undefined;
    lookupFunction(name: string): FunctionDecl | undefined;
    functionCall(e: CallExpr, defer?: boolean): Ev;
    overloadsOf(decl: FunctionDecl | undefined, member: boolean, arity: number, ids: readonly string[] | undefined, known?: (OverloadEntry | undefined)[]): OverloadEntry;
    byShapeOf(decl: FunctionDecl): (OverloadEntry | undefined)[];
    declShapes(name: string): DeclShapes | undefined;
    stringCall(costId: string, overloads: readonly OverloadDecl[], argExprs: readonly Expr[], args: readonly Ev[], pending: number, general: (args: readonly Ev[]) => Ev): Ev | undefined;
    constantRegex(name: string, member: boolean, args: readonly Expr[], overloads: readonly { id: string }[]): RE2JS | undefined;
    argsInferred(args: readonly Expr[]): boolean;
    argsConcrete(args: readonly Expr[]): boolean;
  }
}


/**
 * `defer` (tracking only): the caller charges the cost this call would charge
 * itself up front, as far as it is fixed; the amount is left in `pendingOut`.
 */
Planner.prototype.call = function (this: Planner, e: CallExpr, defer = false): Ev {
  const fn = e.fn;
  if (e.target === undefined) {
    // Every operator inlined below is named `_…_`, `@…`, `!_` or `cel.@block`, and none of
    // three characters but `@in`: the names of other functions (`size`) and of the binary
    // operators called as functions (`_+_`, `_<_`) skip the comparisons with each of them.
    const c0 = fn.charCodeAt(0);
    if ((c0 === 95 && fn.length === 3) || (c0 !== 95 && c0 !== 64 && c0 !== 33 && c0 !== 99)) return this.functionCall(e, defer);
    switch (fn) {
      case BLOCK:
        if (e.args.length === 2 && e.args[0]!.kind === "list") return this.block(e.args[0]!.elements, e.args[1]!);
        break;
      case Op.logicalAnd:
        if (e.args.length === 2) return this.logical(e, false);
        break;
      case Op.logicalOr:
        if (e.args.length === 2) return this.logical(e, true);
        break;
      case Op.conditional:
        if (e.args.length === 3) return this.conditional(e);
        break;
      case Op.notStrictlyFalse: {
        if (e.args.length !== 1) break;
        const a = this.expr(e.args[0]!);
        return this.own(1, (f) => {
          try {
            return a(f) !== false;
          } catch (x) {
            if (absorbable(x)) return true;
            throw x;
          }
        });
      }
      case Op.not: {
        if (e.args.length !== 1 || this.userOverloads(U_NOT, fn, STD_NOT)) break;
        const a = this.expr(e.args[0]!);
        return this.own(1, (f) => {
          const v = a(f);
          if (v === true) return false;
          if (v === false) return true;
          throw new CelEvalError(NO_OVERLOAD_LOGIC);
        });
      }
      case Op.equals:
      case Op.notEquals:
        if (e.args.length === 2 && !this.userOverloads(fn === Op.equals ? U_EQUALS : U_NOT_EQUALS, fn, STD_EQUALS)) {
          return this.tracking ? this.trackedEquality(e, defer) : this.equality(e);
        }
        break;
      case Op.index:
        if (e.args.length === 2 && !this.userOverloads(U_INDEX, fn, STD_INDEX)) {
          const a = this.expr(e.args[0]!);
          const k = e.args[1]!;
          // `x['key']` (a constant costs nothing, tracked or not): the key in the closure, not a closure of its own.
          if (k.kind === "const" && k.value.kind === "string") return this.own(this.qualifierCost(e.args[0]!), indexByString(a, k.value.value));
          // On optional.none() cel-go's attribute stops before the qualifier: the key is never evaluated.
          if (this.qualifiesOptional(e)) return this.own(this.qualifierCost(e.args[0]!), indexOptional(a, this.branch(k)));
          return this.own(this.qualifierCost(e.args[0]!), index(a, this.branch(k)));
        }
        break;
      case Op.optIndex:
        if (e.args.length === 2) {
          const a = this.expr(e.args[0]!);
          const b = this.branch(e.args[1]!);
          return this.optionalQualifier(e.args[0]!, (f) => optIndex(a(f), b(f)));
        }
        break;
      case Op.optSelect:
        if (e.args.length === 2 && e.args[1]!.kind === "const" && e.args[1]!.value.kind === "string") {
          const a = this.expr(e.args[0]!);
          const field = e.args[1]!.value.value;
          return this.optionalQualifier(e.args[0]!, (f) => optSelect(a(f), field));
        }
        break;
      case Op.in:
        if (e.args.length === 2 && !this.userOverloads(U_IN, fn, STD_IN)) {
          // OptOptimize: `x in []` (resolved to in_list) is the constant false; x is never
          // evaluated (interpreter/decorators.go maybeOptimizeSetMembership).
          if (this.inEmptyList(e)) return () => false;
          if (this.tracking) return this.trackedIn(e);
          const a = this.expr(e.args[0]!);
          const b = this.expr(e.args[1]!);
          const rhs = e.args[1]!;
          if (rhs.kind === "list" && rhs.optionalIndices.length === 0 && rhs.elements.length > 2 && rhs.elements.every((x) => x.kind === "const" && x.value.kind === "string")) {
            // `x in ['a', 'b', …]`: a set lookup for strings (which equal only identical strings).
            const set = new Set(rhs.elements.map((x) => (x as { value: { value: string } }).value.value));
            const list = b([]) as readonly CelValue[];
            return (f) => {
              const x = a(f);
              return typeof x === "string" ? set.has(x) : inList(x, list);
            };
          }
          return (f) => {
            const x = a(f);
            const c = b(f);
            if (Array.isArray(c)) return inList(x, c);
            if (c instanceof Map) return inMap(x, c as ReadonlyMap<CelMapKey, CelValue>);
            throw new CelEvalError(NO_OVERLOAD_LOGIC);
          };
        }
        break;
    }
  } else if ((fn === "or" || fn === "orValue") && e.args.length === 1) {
    // cel-go plans these as its own Interpretables (cel/library.go evalOptionalOr, evalOptionalOrValue),
    // not calls, so the cost tracker charges nothing for them.
    const special = this.optionalOr(e);
    if (special !== undefined) return special;
  }
  return this.functionCall(e, defer);
};

/** Whether a library declares overloads of an operator beyond the standard ones (then dispatch normally). */
Planner.prototype.userOverloads = function (this: Planner, slot: number, fn: string, standard: readonly string[]): boolean {
  const known = this.cache.userOverloads;
  let r = known[slot]!;
  if (r === 0) {
    const decl = this.env.functions.get(fn);
    r = decl !== undefined && decl.overloads.some((o) => !standard.includes(o.id) && o.impl !== undefined) ? 2 : 1;
    known[slot] = r;
  }
  return r === 2;
};

Planner.prototype.logical = function (this: Planner, e: CallExpr, isOr: boolean): Ev {
  const short = isOr; // the value that decides: true for ||, false for &&
  if (this.tracking) {
    // Each operand's fixed cost is charged when it has been evaluated.
    const ap = this.exprPending(e.args[0]!);
    const bp = this.exprPending(e.args[1]!);
    const a = ap.ev;
    const b = bp.ev;
    const pa = ap.pending;
    const pb = bp.pending;
    return (f) => {
      let err: unknown;
      try {
        const l = a(f);
        charge(pa);
        if (l === short) return short;
        if (l !== !short) err = new CelEvalError(NO_OVERLOAD_LOGIC);
      } catch (x) {
        if (!absorbable(x)) throw x;
        err = x;
      }
      let r: CelValue;
      try {
        r = b(f);
        charge(pb);
      } catch (x) {
        if (!absorbable(x)) throw x;
        throw err ?? x;
      }
      if (r === short) return short;
      if (err !== undefined) throw err;
      if (r !== !short) throw new CelEvalError(NO_OVERLOAD_LOGIC);
      return !short;
    };
  }
  const a = this.expr(e.args[0]!);
  const b = this.expr(e.args[1]!);
  return (f) => {
    let err: unknown;
    try {
      const l = a(f);
      if (l === short) return short;
      if (l !== !short) err = new CelEvalError(NO_OVERLOAD_LOGIC);
    } catch (x) {
      if (!absorbable(x)) throw x;
      err = x;
    }
    let r: CelValue;
    try {
      r = b(f);
    } catch (x) {
      if (!absorbable(x)) throw x;
      throw err ?? x;
    }
    if (r === short) return short;
    if (err !== undefined) throw err;
    if (r !== !short) throw new CelEvalError(NO_OVERLOAD_LOGIC);
    return !short;
  };
};

Planner.prototype.conditional = function (this: Planner, e: CallExpr): Ev {
  if (this.tracking) {
    // The condition's and the taken branch's fixed costs are charged together.
    const cp = this.exprPending(e.args[0]!);
    const tp = this.branchPending(e.args[1]!);
    const op = this.branchPending(e.args[2]!);
    const c = cp.ev;
    const t = tp.ev;
    const o = op.ev;
    const ct = cp.pending + tp.pending;
    const co = cp.pending + op.pending;
    const cc = cp.pending;
    return (f) => {
      const v = c(f);
      if (v === true) {
        charge(ct);
        return t(f);
      }
      if (v === false) {
        charge(co);
        return o(f);
      }
      charge(cc);
      throw new CelEvalError(NO_OVERLOAD_LOGIC);
    };
  }
  const c = this.expr(e.args[0]!);
  const t = this.branch(e.args[1]!);
  const o = this.branch(e.args[2]!);
  return (f) => {
    const v = c(f);
    if (v === true) return t(f);
    if (v === false) return o(f);
    throw new CelEvalError(NO_OVERLOAD_LOGIC);
  };
};

Planner.prototype.branch = function (this: Planner, x: Expr): Ev {
  if (!this.tracking) return this.expr(x);
  if (!this.discountable(x)) return this.expr(x);
  const s = this.staticCost(x);
  if (s !== undefined && s >= 1) {
    this.tracking = false;
    let ev: Ev;
    try {
      ev = this.plainExpr(x);
    } finally {
      this.tracking = true;
    }
    return charged(ev, s - 1);
  }
  return discounted(this.expr(x));
};

Planner.prototype.equality = function (this: Planner, e: CallExpr): Ev {
  const neg = e.fn === Op.notEquals;
  const x = e.args[0]!;
  const y = e.args[1]!;
  const cy = constOf(y);
  const cx = constOf(x);
  // (Closures made by functions of their own, which capture only what they need: see `functionCall`.)
  if (cy !== undefined || cx !== undefined) {
    // A string or bool equals only the identical string or bool.
    const c = (cy ?? cx)!;
    const other = this.expr(cy !== undefined ? x : y);
    // A host object on the left decides `==` itself (it may raise "no such overload").
    if (cy !== undefined) return neg ? notEqualsConstRight(other, c) : equalsConstRight(other, c);
    return neg ? notEqualsConst(other, c) : equalsConst(other, c);
  }
  const iy = intConst(y) ?? intConst(x);
  if (iy !== undefined) {
    const constRight = intConst(y) !== undefined;
    return equalsInt(this.expr(constRight ? x : y), iy, constRight, neg);
  }
  const a = this.expr(x);
  const b = this.expr(y);
  return neg ? notEquals(a, b) : equals(a, b);
};

/** `opt.or(x)` / `opt.orValue(x)` short-circuit: `x` is evaluated only when `opt` is none. */
Planner.prototype.optionalOr = function (this: Planner, e: CallExpr): Ev | undefined {
  const ids = this.refs?.get(e.id)?.overloadIds;
  const optIds = e.fn === "or" ? "optional_or_optional" : "optional_orValue_value";
  if (ids !== undefined && !(ids.length === 1 && ids[0] === optIds)) return undefined;
  const decl = this.env.functions.get(e.fn);
  if (decl === undefined || !decl.overloads.some((o) => o.id === optIds)) return undefined;
  const target = this.expr(e.target!);
  const arg = this.expr(e.args[0]!);
  const isOr = e.fn === "or";
  return (f) => {
    const t = target(f);
    // As cel-go's evalOptionalOr/evalOptionalOrValue: a left side that is not an optional is the
    // result as it is; for none the right side is the result, whatever its type.
    if (!(t instanceof CelOptional)) return t;
    if (t.value !== undefined) return isOr ? t : t.value;
    return arg(f);
  };
};

/** Candidate function name for a receiver call `a.b.f(x)` read as the namespaced `a.b.f(x)`. */
Planner.prototype.namespacedFunction = function (this: Planner, e: CallExpr): FunctionDecl | undefined {
  if (e.target === undefined) return undefined;
  const chain = this.qualifiedChain(e.target);
  if (chain === undefined) return undefined;
  const name = `${chain.join(".")}.${e.fn}`;
  for (const c of this.candidateNames(name)) {
    const d = this.env.functions.get(c);
    if (d !== undefined) return d;
  }
  return undefined;
};

Planner.prototype.lookupFunction = function (this: Planner, name: string): FunctionDecl | undefined {
  if (this.env.container === "" && name.charCodeAt(0) !== 46) return this.env.functions.get(name);
  for (const c of this.candidateNames(name)) {
    const d = this.env.functions.get(c);
    if (d !== undefined) return d;
  }
  return undefined;
};

Planner.prototype.functionCall = function (this: Planner, e: CallExpr, defer = false): Ev {
  let decl: FunctionDecl | undefined;
  let member = e.target !== undefined;
  let argExprs: readonly Expr[] = e.args;
  let shapes: DeclShapes | undefined;
  const ids = this.refs?.get(e.id)?.overloadIds;
  // A checked call that kept its target is a receiver call: the checker has
  // already turned a namespaced function call `a.b.f(x)` into `a.b.f(x)` without target.
  const ns = member && ids === undefined ? this.namespacedFunction(e) : undefined;
  if (ns !== undefined) {
    decl = ns;
    member = false;
  } else {
    if (member || (this.env.container === "" && e.fn.charCodeAt(0) !== 46)) {
      // The name is the function's own (no container candidates): one lookup gives both.
      shapes = this.declShapes(e.fn);
      decl = shapes?.decl;
    } else decl = this.lookupFunction(e.fn);
    if (member) argExprs = e.args.length === 0 ? [e.target!] : e.args.length === 1 ? [e.target!, e.args[0]!] : [e.target!, ...e.args];
  }
  const name = decl?.name ?? e.fn;
  // Tracking: arguments of static cost are planned untracked and charged with the call.
  let pending = 0;
  let args: Ev[];
  const na = argExprs.length;
  if (!this.tracking && na <= 2) {
    // (Arrays made to measure: a push onto an empty one reserves 17 elements.)
    if (na === 0) args = [];
    else if (na === 1) args = [this.expr(argExprs[0]!)];
    else {
      const a0 = this.expr(argExprs[0]!);
      args = [a0, this.expr(argExprs[1]!)];
    }
  } else {
    args = [];
    for (let i = 0; i < na; i++) {
      if (!this.tracking) {
        args.push(this.expr(argExprs[i]!));
        continue;
      }
      const p = this.staticPart(argExprs[i]!);
      pending += p.pending;
      args.push(p.ev);
    }
  }
  const arity = args.length;
  // With concrete argument types the checker's resolution is final; with dyn
  // arguments any overload may apply at run time (cel-go dispatches over all,
  // e.g. `dyn(1) < 2u` without cross-type comparisons declared).
  // A type the checker inferred through a type parameter bound by a later overload may not be
  // the value's (cel-go's checker is unsound there: `dyn([1]).distinct().map(x, string(x))`
  // binds x to string): cel-go then calls the one overload it resolved, whose run-time type
  // guard fails with "no such overload", so dispatch (with its checks) among those ids.
  const typed = ids !== undefined && this.argsConcrete(argExprs);
  const concrete = typed && !this.argsInferred(argExprs);
  const restrict = concrete || (typed && ids.length === 1 && !SINGLETON_BOUND.has(decl?.name ?? e.fn));
  const entry = this.overloadsOf(decl, member, arity, restrict ? ids : undefined, shapes?.byShape);
  // (The closures below are made by functions of their own: a closure made here would
  // make every call of this method allocate a context for the variables it captures.)
  const overloads = entry.overloads;
  if (overloads.length === 0) return noOverloadCall(name, args);
  const re = this.constantRegex(name, member, argExprs, overloads);
  if (re !== undefined) {
    const pattern = (argExprs[1] as { value: { value: string } }).value.value;
    if (this.tracking) return trackedRegexCall(name, args[0]!, re, pattern, pending, this.costOverloadId(e) === "matches_string");
    return regexCall(name, args[0]!, re, pattern);
  }
  if (this.tracking) return this.trackedCall(e, name, overloads, concrete, argExprs, args, pending, defer);
  if (overloads.length === 1) {
    const o = overloads[0]!;
    const direct = concrete || o.params.every(isOpenType);
    if (direct) return callDirect(o.impl!, args);
  }
  const cands = (entry.candidates ??= candidatesOf(overloads));
  return callDispatch(name, cands, args);
};

/**
 * The overloads of `decl` a call may dispatch to (with an implementation, of
 * its receiver style and arity; restricted to the checker's `ids` when given
 * and any of them qualifies), memoized per environment: by declaration, then
 * by the identity of the checker's overload id list (which its resolution
 * cache shares between the calls it resolves alike).
 */
Planner.prototype.overloadsOf = function (this: Planner, decl: FunctionDecl | undefined, member: boolean, arity: number, ids: readonly string[] | undefined, known?: (OverloadEntry | undefined)[]): OverloadEntry {
  if (decl === undefined) return NO_OVERLOADS;
  const byShape = known ?? this.byShapeOf(decl);
  const slot = arity * 2 + (member ? 1 : 0);
  let all = byShape[slot];
  if (all === undefined) {
    while (byShape.length < slot) byShape.push(undefined);
    all = {
      overloads: decl.overloads.filter((o) => o.member === member && o.params.length === arity && o.impl !== undefined),
      candidates: undefined,
      byIds: undefined,
    };
    byShape[slot] = all;
  }
  if (ids === undefined) return all;
  const byIds = (all.byIds ??= new WeakMap());
  let r = byIds.get(ids);
  if (r === undefined) {
    const restricted = all.overloads.filter((o) => ids.includes(o.id));
    r = restricted.length > 0 ? { overloads: restricted, candidates: undefined, byIds: undefined } : all;
    byIds.set(ids, r);
  }
  return r;
};

/** The overload entries of `decl` by shape (made on first use). */
Planner.prototype.byShapeOf = function (this: Planner, decl: FunctionDecl): (OverloadEntry | undefined)[] {
  let byShape = this.cache.overloads.get(decl);
  if (byShape === undefined) {
    byShape = [];
    this.cache.overloads.set(decl, byShape);
  }
  return byShape;
};

/** The function named `name` in the environment, with its overload entries (memoized per environment). */
Planner.prototype.declShapes = function (this: Planner, name: string): DeclShapes | undefined {
  const cache = this.cache;
  // The function looked up last is known without a Map lookup (a chain of `+`, …).
  if (name === cache.lastFunction) return cache.lastShapes;
  const byName = cache.byName;
  let s = byName.get(name);
  if (s === undefined) {
    const decl = this.env.functions.get(name);
    s = decl === undefined ? null : { decl, byShape: this.byShapeOf(decl) };
    // (Bounded: names no function has could be of unbounded variety.)
    if (byName.size > MAX_CACHED_NAMES) byName.clear();
    byName.set(name, s);
  }
  cache.lastFunction = name;
  cache.lastShapes = s ?? undefined;
  return s ?? undefined;
};

/**
 * Tracking, `x + y` (add_string) and `s.f(y)` costing the receiver's traversal
 * (startsWith, endsWith, …) on two strings: one closure that calls the string
 * overload and charges its cost, without dispatch or a charging wrapper.
 * Only when that overload is the one dispatch would pick for any two strings
 * (the single candidate accepting them) and no library rule prices it; other
 * values go to `general` (which charges as before).
 */
Planner.prototype.stringCall = function (this: Planner, costId: string, overloads: readonly OverloadDecl[], argExprs: readonly Expr[], args: readonly Ev[], pending: number, general: (args: readonly Ev[]) => Ev): Ev | undefined {
  if (args.length !== 2) return undefined;
  const add = costId === "add_string";
  if (!add && !RECEIVER_TRAVERSAL.has(costId)) return undefined;
  if (overloads.some((o) => this.libCosts.get(o.id)?.actual !== undefined)) return undefined;
  const strs = candidatesOf(overloads).filter((c) => c.tests[0]!("") && c.tests[1]!(""));
  if (strs.length !== 1 || strs[0]!.decl.id !== costId || strs[0]!.decl.impl === undefined) return undefined;
  const impl = strs[0]!.decl.impl as (a: string, b: string) => CelValue;
  const a = args[0]!;
  const b = args[1]!;
  // Other values take the general call, which reads the values already computed from here.
  const held: { x: CelValue; y: CelValue } = { x: null, y: null };
  const rest = general([() => held.x, () => held.y]);
  if (!add) {
    return (f) => {
      const x = a(f);
      const y = b(f);
      if (typeof x === "string" && typeof y === "string") {
        const r = impl(x, y);
        charge(pending + Math.ceil(codePoints(x) * STRING_TRAVERSAL_COST_FACTOR));
        return r;
      }
      held.x = x;
      held.y = y;
      return rest(EMPTY_FRAME);
    };
  }
  const cx = argExprs[0]!;
  const cy = argExprs[1]!;
  const ca = cx.kind === "const" && cx.value.kind === "string" ? cx.value.value : undefined;
  const cb = cy.kind === "const" && cy.value.kind === "string" ? cy.value.value : undefined;
  // A constant operand always evaluates to its constant: its size is known here (-1: measure).
  const na = ca === undefined ? -1 : codePoints(ca);
  const nb = cb === undefined ? -1 : codePoints(cb);
  let ev: Ev;
  if (this.addFast !== undefined && this.addFast.has(a)) {
    // `(… + …) + y`: the left operand is this kind of closure, which left its result's size in LAST_ADD.
    ev = (f) => {
      const x = a(f);
      const nx = LAST_ADD.n;
      const y = b(f);
      if (typeof x === "string" && typeof y === "string") {
        const r = impl(x, y);
        const n = (nx >= 0 ? nx : codePoints(x)) + (nb >= 0 ? nb : codePoints(y));
        LAST_ADD.n = typeof r === "string" ? n : -1;
        charge(pending + Math.ceil(n * STRING_TRAVERSAL_COST_FACTOR));
        return r;
      }
      held.x = x;
      held.y = y;
      const r = rest(EMPTY_FRAME);
      LAST_ADD.n = -1;
      return r;
    };
  } else {
    ev = (f) => {
      const x = a(f);
      const y = b(f);
      if (typeof x === "string" && typeof y === "string") {
        const r = impl(x, y);
        const n = (na >= 0 ? na : codePoints(x)) + (nb >= 0 ? nb : codePoints(y));
        LAST_ADD.n = typeof r === "string" ? n : -1;
        charge(pending + Math.ceil(n * STRING_TRAVERSAL_COST_FACTOR));
        return r;
      }
      held.x = x;
      held.y = y;
      const r = rest(EMPTY_FRAME);
      LAST_ADD.n = -1;
      return r;
    };
  }
  (this.addFast ??= new Set()).add(ev);
  return ev;
};

/**
 * `s.matches('const')` / `matches(s, 'const')` with the standard overloads:
 * the RE2 program is compiled at plan time (an invalid pattern stays an
 * evaluation error, so it is left to the ordinary call).
 */
Planner.prototype.constantRegex = function (this: Planner, name: string, member: boolean, args: readonly Expr[], overloads: readonly { id: string }[]): RE2JS | undefined {
  if (name !== "matches" || args.length !== 2) return undefined;
  const p = args[1]!;
  if (p.kind !== "const" || p.value.kind !== "string") return undefined;
  const id = member ? "matches_string" : "matches";
  if (!overloads.every((o) => o.id === id || o.id === "matches" || o.id === "matches_string")) return undefined;
  try {
    return compileRegex(p.value.value);
  } catch {
    return undefined;
  }
};

/** Whether the checker inferred some argument's type through a type parameter (see `CheckedExpr.inferred`). */
Planner.prototype.argsInferred = function (this: Planner, args: readonly Expr[]): boolean {
  const inferred = this.inferred;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (inferred !== undefined && inferred.has(a.id)) return true;
    // `x.orValue(y)` / `x.or(y)` on a dyn `x` is typed as `y`, but cel-go returns `x` itself
    // when it is not an optional (cel/library.go evalOptionalOrValue).
    if (a.kind === "call" && (a.fn === "orValue" || a.fn === "or") && a.target !== undefined) {
      const t = this.types?.get(a.target.id);
      if (t === undefined || t.name !== OPTIONAL_NAME) return true;
    }
  }
  return false;
};

/** Whether the checker typed every argument with a concrete (non-dyn) type. */
Planner.prototype.argsConcrete = function (this: Planner, args: readonly Expr[]): boolean {
  const types = this.types;
  if (types === undefined) return false;
  for (let i = 0; i < args.length; i++) {
    const t = types.get(args[i]!.id);
    if (t === undefined || containsOpen(t)) return false;
  }
  return true;
};
