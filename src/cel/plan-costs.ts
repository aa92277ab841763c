/**
 * The cost-tracked variant's planning: static costs of subtrees (planned untracked and charged
 * once), costs of calls as cel-go v0.26 counts them, and the tracking forms of calls, equality,
 * membership and optional qualifiers.
 */
import { Op, type CallExpr, type Expr } from "./ast.js";
import type { Impl, OverloadDecl } from "./decls.js";
import { CelEvalError } from "./errors.js";
import { inList, inMap, optIndex, optSelect } from "./runtime/access.js";
import { candidatesOf } from "./runtime/dispatch.js";
import { celEquals } from "./runtime/equality.js";
import { CelObject, CelOptional, type CelMapKey, type CelValue } from "./values.js";
import { LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR, STRUCT_CREATE_BASE_COST, VARIABLE_COST_OVERLOADS, actualSize, codePoints, equalityCost, stdCallCost, stdCostFunction } from "./cost-runtime.js";
import { NO_OVERLOAD_LOGIC, type Ev } from "./plan-frame.js";
import { CONCAT, RECEIVER_TRAVERSAL, charge, charged } from "./plan-cost-state.js";
import { BLOCK } from "./plan-env.js";
import { callDirect, callDispatch, equals, index, intConst, isOpenType, notEquals } from "./plan-closures.js";
import { Planner } from "./plan-core.js";

declare module "./plan-core.js" {
  interface Planner {
    costedFunctions(): Set<string>;
    costOverloadId(e: CallExpr): string;
    inEmptyList(e: CallExpr): boolean;
    staticCost(e: Expr): number | undefined;
    staticCallCost(e: CallExpr): number | undefined;
    fixedCallCost(e: CallExpr): number;
    foldedMembership(rhs: Expr): boolean;
    scalarTyped(e: Expr): boolean;
    ownCost(e: Expr): number;
    own(n: number, ev: Ev): Ev;
    optionalQualifier(operand: Expr, ev: Ev): Ev;
    qualifierCost(operand: Expr): number;
    trackedEquality(e: CallExpr, defer?: boolean): Ev;
    trackedIn(e: CallExpr): Ev;
    trackedCall(e: CallExpr, name: string, overloads: readonly OverloadDecl[], concrete: boolean, argExprs: readonly Expr[], args: readonly Ev[], pending: number, defer: boolean): Ev;
    chargingImpl(o: OverloadDecl, costId: string, pending: number): Impl;
    exprPending(x: Expr): { ev: Ev; pending: number };
    staticPart(x: Expr): { ev: Ev; pending: number };
    branchPending(x: Expr): { ev: Ev; pending: number };
    discountable(x: Expr): boolean;
  }
}


/** Names of functions some overload of which has a library cost rule. */
Planner.prototype.costedFunctions = function (this: Planner): Set<string> {
  const c = this.costs;
  if (c.costedFns === undefined) {
    const out = new Set<string>();
    for (const d of this.env.functions.values()) {
      if (d.overloads.some((o) => c.libCosts.has(o.id))) {
        // A checked namespaced call is named in full (`lists.range`), an unchecked one by its last part.
        out.add(d.name);
        out.add(d.name.slice(d.name.lastIndexOf(".") + 1));
      }
    }
    c.costedFns = out;
  }
  return c.costedFns;
};

/** cel-go's overload id for a call's cost: the checker's single overload, else "" (dynamic dispatch). */
Planner.prototype.costOverloadId = function (this: Planner, e: CallExpr): string {
  const ids = this.refs?.get(e.id)?.overloadIds;
  return ids !== undefined && ids.length === 1 ? ids[0]! : "";
};

/**
 * The whole cost of a subtree when it does not depend on run-time values
 * (no short-circuit, comprehension or size-dependent call inside), else undefined.
 */
/** `x in []` resolved to `in_list` with constant folding: the constant false (see the `in` case of plainExpr). */
Planner.prototype.inEmptyList = function (this: Planner, e: CallExpr): boolean {
  const rhs = e.args[1];
  return (
    e.fn === Op.in &&
    rhs !== undefined &&
    rhs.kind === "list" &&
    rhs.elements.length === 0 &&
    this.env.cost?.constantFolding === true &&
    this.costOverloadId(e) === "in_list"
  );
};

Planner.prototype.staticCost = function (this: Planner, e: Expr): number | undefined {
  if (this.qualifiesOptional(e)) return undefined; // absent costs less (refundAbsent)
  if (e.kind === "call" && this.inEmptyList(e)) return 0;
  switch (e.kind) {
    case "const":
      return 0;
    case "ident":
      if (this.refs?.get(e.id)?.value !== undefined || this.isStaticName(e.id, e.name)) return 0;
      return 1;
    case "select": {
      const ref = this.refs?.get(e.id);
      if (ref !== undefined && !e.testOnly && (ref.name !== undefined || ref.value !== undefined)) {
        return ref.value !== undefined || this.isStaticName(e.id, ref.name ?? e.field) ? 0 : 1;
      }
      const op = this.staticCost(e.operand);
      if (op === undefined) return undefined;
      if (e.testOnly) return op + this.presenceCost;
      return op + 1 + (this.isAttribute(e.operand) ? 0 : 1);
    }
    case "list": {
      if (this.isConstLiteral(e)) return 0;
      let sum = LIST_CREATE_BASE_COST;
      for (const x of e.elements) {
        const c = this.staticCost(x);
        if (c === undefined) return undefined;
        sum += c;
      }
      return sum;
    }
    case "map": {
      if (this.isConstLiteral(e)) return 0;
      let sum = MAP_CREATE_BASE_COST;
      for (const x of e.entries) {
        const k = this.staticCost(x.key);
        const v = this.staticCost(x.value);
        if (k === undefined || v === undefined) return undefined;
        sum += k + v;
      }
      return sum;
    }
    case "struct": {
      let sum = STRUCT_CREATE_BASE_COST;
      for (const x of e.fields) {
        const v = this.staticCost(x.value);
        if (v === undefined) return undefined;
        sum += v;
      }
      return sum;
    }
    case "comprehension":
      return undefined;
    case "call":
      return this.staticCallCost(e);
  }
};

Planner.prototype.staticCallCost = function (this: Planner, e: CallExpr): number | undefined {
  if (this.isConstLiteral(e)) return 0;
  const fn = e.fn;
  let own: number;
  if (e.target === undefined) {
    switch (fn) {
      case BLOCK:
      case Op.logicalAnd:
      case Op.logicalOr:
      case Op.conditional:
        return undefined;
      case Op.equals:
      case Op.notEquals: {
        if (e.args.length !== 2 || !this.scalarTyped(e.args[0]!) || !this.scalarTyped(e.args[1]!)) return undefined;
        own = 1;
        break;
      }
      case Op.in: {
        if (e.args.length !== 2) return undefined;
        if (this.foldedMembership(e.args[1]!)) own = 0;
        else if (this.costOverloadId(e) === "in_list") return undefined;
        else own = 1;
        break;
      }
      case Op.optIndex:
      case Op.optSelect:
        return undefined; // a qualifier that is absent costs nothing (see optionalQualifier)
      case Op.index:
        if (e.args.length !== 2) return undefined;
        // An attribute used as the index is resolved as a qualifier: not charged its own 1.
        own = 1 + (this.isAttribute(e.args[0]!) ? 0 : 1) - (this.discountable(e.args[1]!) && this.staticCost(e.args[1]!)! >= 1 ? 1 : 0);
        break;
      default:
        own = this.fixedCallCost(e);
    }
  } else {
    if ((fn === "or" || fn === "orValue") && e.args.length === 1) return undefined;
    own = this.fixedCallCost(e);
  }
  if (own < 0) return undefined;
  let sum = own;
  if (e.target !== undefined) {
    const c = this.staticCost(e.target);
    if (c === undefined) return undefined;
    sum += c;
  }
  for (const a of e.args) {
    const c = this.staticCost(a);
    if (c === undefined) return undefined;
    sum += c;
  }
  return sum;
};

/** A function call's own cost when it is fixed (1), or -1 when it depends on the arguments. */
Planner.prototype.fixedCallCost = function (this: Planner, e: CallExpr): number {
  if (this.costedFunctions().has(e.fn)) return -1;
  const id = this.costOverloadId(e);
  if (VARIABLE_COST_OVERLOADS.has(id)) return -1;
  return 1;
};

/** `x in [constant primitives]` that cel-go's optimizer turns into a set lookup (cost 0). */
Planner.prototype.foldedMembership = function (this: Planner, rhs: Expr): boolean {
  if (!this.folding || rhs.kind !== "list" || !this.isConstLiteral(rhs)) return false;
  return rhs.elements.every((x) => x.kind === "const" && x.value.kind !== "bytes");
};

/** Whether the checker typed the node with a type whose values have size 1. */
Planner.prototype.scalarTyped = function (this: Planner, e: Expr): boolean {
  if (e.kind === "const") return e.value.kind !== "string" && e.value.kind !== "bytes";
  const t = this.types?.get(e.id);
  if (t === undefined) return false;
  switch (t.kind) {
    case "bool":
    case "int":
    case "uint":
    case "double":
    case "timestamp":
    case "duration":
    case "null":
      return true;
    default:
      return false;
  }
};

/** The own cost of a node whose subtree is not static (children charge their own). */
Planner.prototype.ownCost = function (this: Planner, e: Expr): number {
  switch (e.kind) {
    case "select": {
      if (e.testOnly) return this.presenceCost;
      // select() fuses a chain of plain selections into one closure: charge every qualifier.
      let n = 1;
      let base: Expr = e.operand;
      while (base.kind === "select" && !base.testOnly && !this.resolvedByName(base)) {
        n++;
        base = base.operand;
      }
      return n + (this.isAttribute(base) ? 0 : 1);
    }
    case "list":
      return this.isConstLiteral(e) ? 0 : LIST_CREATE_BASE_COST;
    case "map":
      return this.isConstLiteral(e) ? 0 : MAP_CREATE_BASE_COST;
    case "struct":
      return STRUCT_CREATE_BASE_COST;
    default:
      // Calls and comprehensions charge inside their closures.
      return 0;
  }
};

/** In the tracking variant, charges a node's own fixed cost after it evaluated. */
Planner.prototype.own = function (this: Planner, n: number, ev: Ev): Ev {
  return this.tracking ? charged(ev, n) : ev;
};

/**
 * `x[?k]` / `x.?f`: cel-go observes a qualifier only when it is present
 * (interpreter/interpretable.go, evalWatchConstQual/evalWatchQual.QualifyIfPresent), so a
 * result of `optional.none()` is not charged the qualifier's 1.
 */
Planner.prototype.optionalQualifier = function (this: Planner, operand: Expr, ev: Ev): Ev {
  if (!this.tracking) return ev;
  const n = this.qualifierCost(operand);
  return (f) => {
    const v = ev(f);
    charge(v instanceof CelOptional && v.value === undefined ? n - 1 : n);
    return v;
  };
};

/** A qualifier costs 1, plus 1 for the relative attribute when its operand is not an attribute. */
Planner.prototype.qualifierCost = function (this: Planner, operand: Expr): number {
  if (!this.tracking) return 0; // only charged by the tracking variant
  return 1 + (this.isAttribute(operand) ? 0 : 1);
};

/** `==`/`!=` charging ceil(min(size) × 0.1) (cel-go `evalEq`/`evalNe`, overload `equals`). */
Planner.prototype.trackedEquality = function (this: Planner, e: CallExpr, defer = false): Ev {
  const neg = e.fn === Op.notEquals;
  const [x0, y0] = e.args as [Expr, Expr];
  const sc = (z: Expr): string | undefined => (z.kind === "const" && z.value.kind === "string" ? z.value.value : undefined);
  const cy = sc(y0) ?? sc(x0);
  if (cy !== undefined) {
    // A string constant: equal only to the identical string; cost from the other side's size.
    const other = this.staticPart(sc(y0) !== undefined ? x0 : y0);
    const ev = other.ev;
    const p = other.pending;
    const c = cy;
    // A host object on the left decides `==` itself (as in `equality`).
    const constRight = sc(y0) !== undefined;
    if (defer) {
      // The caller charges p + 1 up front; only a size other than 1..10 changes that.
      this.pendingOut = p + 1;
      return (f) => {
        const v = ev(f);
        const r = constRight && v instanceof CelObject ? celEquals(v, c) : v === c;
        if (typeof v !== "string" || v.length === 0 || v.length > 10) {
          const d = equalityCost(v, c) - 1;
          if (d !== 0) charge(d);
        }
        return neg ? !r : r;
      };
    }
    return (f) => {
      const v = ev(f);
      const r = constRight && v instanceof CelObject ? celEquals(v, c) : v === c;
      charge(p + equalityCost(v, c));
      return neg ? !r : r;
    };
  }
  const iy = intConst(y0) ?? intConst(x0);
  if (iy !== undefined) {
    // An int constant: an int operand compares by value and costs 1.
    const constRight = intConst(y0) !== undefined;
    const other = this.staticPart(constRight ? x0 : y0);
    const ev = other.ev;
    const p = other.pending;
    const eq = constRight ? (v: CelValue) => celEquals(v, iy) : (v: CelValue) => celEquals(iy, v);
    if (defer) {
      // The caller charges p + 1 up front: exact for an int operand.
      this.pendingOut = p + 1;
      return (f) => {
        const v = ev(f);
        if (typeof v === "bigint") return neg ? v !== iy : v === iy;
        const r = eq(v);
        const d = equalityCost(v, iy) - 1;
        if (d !== 0) charge(d);
        return neg ? !r : r;
      };
    }
    return (f) => {
      const v = ev(f);
      let r: boolean;
      if (typeof v === "bigint") {
        r = v === iy;
        charge(p + 1);
      } else {
        r = eq(v);
        charge(p + equalityCost(v, iy));
      }
      return neg ? !r : r;
    };
  }
  const a = this.staticPart(x0);
  const b = this.staticPart(y0);
  const ea = a.ev;
  const eb = b.ev;
  const p = a.pending + b.pending;
  return (f) => {
    const x = ea(f);
    const y = eb(f);
    const r = celEquals(x, y);
    charge(p + equalityCost(x, y));
    return neg ? !r : r;
  };
};

/** `in` charging the list's size (`in_list`), 1 (maps, dynamic dispatch) or 0 (folded constant set). */
Planner.prototype.trackedIn = function (this: Planner, e: CallExpr): Ev {
  const pa = this.staticPart(e.args[0]!);
  const pb = this.staticPart(e.args[1]!);
  const a = pa.ev;
  const b = pb.ev;
  const p = pa.pending + pb.pending;
  const folded = this.foldedMembership(e.args[1]!);
  const sized = !folded && this.costOverloadId(e) === "in_list";
  const fixed = folded ? 0 : 1;
  return (f) => {
    const x = a(f);
    const c = b(f);
    let r: boolean;
    if (Array.isArray(c)) r = inList(x, c);
    else if (c instanceof Map) r = inMap(x, c as ReadonlyMap<CelMapKey, CelValue>);
    else throw new CelEvalError(NO_OVERLOAD_LOGIC);
    charge(p + (sized ? actualSize(c) : fixed));
    return r;
  };
};

/** The tracking variant of an ordinary function call (see `functionCall`). */
Planner.prototype.trackedCall = function (this: Planner, e: CallExpr, name: string, overloads: readonly OverloadDecl[], concrete: boolean, argExprs: readonly Expr[], args: readonly Ev[], pending: number, defer: boolean): Ev {
  // Each overload's implementation charges the call's cost after it ran; a
  // deferred call of fixed cost leaves it all to the caller and runs unwrapped.
  const costId = this.costOverloadId(e);
  const fixed = !overloads.some((o) => this.libCosts.get(o.id)?.actual !== undefined) && stdCostFunction(costId) === undefined && costId !== "add_string";
  let charging = overloads;
  if (defer && fixed) {
    this.pendingOut = pending + 1;
  } else {
    charging = overloads.map((o) => ({ ...o, impl: this.chargingImpl(o, costId, pending) }));
  }
  const build = (evs: readonly Ev[]): Ev => {
    if (charging.length === 1 && (concrete || charging[0]!.params.every(isOpenType))) return callDirect(charging[0]!.impl!, evs);
    return callDispatch(name, candidatesOf(charging), evs);
  };
  return this.stringCall(costId, overloads, argExprs, args, pending, build) ?? build(args);
};

/** An overload implementation that charges its call cost: the library's rule, else cel-go's standard rule for `costId`, else 1. */
Planner.prototype.chargingImpl = function (this: Planner, o: OverloadDecl, costId: string, pending: number): Impl {
  const impl = o.impl!;
  // A tracker by overload id follows the checker's resolution (cel-go charges the call by the
  // id it was planned with, whichever overload then runs); an empty id has none.
  const entry = this.libCosts.get(o.id);
  const lib = entry?.resolvedOnly === true ? (costId === "" ? undefined : this.libCosts.get(costId)?.actual) : entry?.actual;
  if (lib !== undefined) {
    return (...a: CelValue[]) => {
      const r = impl(...a);
      charge(pending + Number(lib(a, r)));
      return r;
    };
  }
  if (costId === "add_string") {
    // A chain of `+` re-measures the previous `+`'s result: the last result's size
    // is remembered across call sites (which also spares flattening the concatenation
    // to count its code points).
    return (a: CelValue, b: CelValue) => {
      const r = impl(a, b);
      if (typeof a === "string" && typeof b === "string") {
        const n = (a === CONCAT.s ? CONCAT.n : codePoints(a)) + (b === CONCAT.s ? CONCAT.n : codePoints(b));
        CONCAT.s = r as string;
        CONCAT.n = n;
        charge(pending + Math.ceil(n * STRING_TRAVERSAL_COST_FACTOR));
      } else charge(pending + stdCallCost(costId, [a, b]));
      return r;
    };
  }
  const std = stdCostFunction(costId);
  if (std !== undefined) {
    switch (o.params.length) {
      case 1:
        return (a: CelValue) => {
          const r = impl(a);
          charge(pending + std(a, undefined as unknown as CelValue));
          return r;
        };
      case 2:
        if (RECEIVER_TRAVERSAL.has(costId)) {
          // ceil(size(receiver) × 0.1): a string receiver is measured inline.
          return (a: CelValue, b: CelValue) => {
            const r = impl(a, b);
            charge(pending + (typeof a === "string" ? Math.ceil(codePoints(a) * STRING_TRAVERSAL_COST_FACTOR) : std(a, b)));
            return r;
          };
        }
        return (a: CelValue, b: CelValue) => {
          const r = impl(a, b);
          charge(pending + std(a, b));
          return r;
        };
      default:
        return (...a: CelValue[]) => {
          const r = impl(...a);
          charge(pending + stdCallCost(costId, a));
          return r;
        };
    }
  }
  const fixedCost = pending + 1;
  switch (o.params.length) {
    case 0:
      return () => {
        const r = impl();
        charge(fixedCost);
        return r;
      };
    case 1:
      return (a: CelValue) => {
        const r = impl(a);
        charge(fixedCost);
        return r;
      };
    case 2:
      return (a: CelValue, b: CelValue) => {
        const r = impl(a, b);
        charge(fixedCost);
        return r;
      };
    default:
      return (...a: CelValue[]) => {
        const r = impl(...a);
        charge(fixedCost);
        return r;
      };
  }
};

/**
 * Tracking: the closure of `x` with the part of its cost that is known before
 * it runs left to the caller (`pending`), so that a loop charges it once per
 * iteration with its own bookkeeping: static subtrees, `==` against a constant,
 * calls of fixed cost.
 */
Planner.prototype.exprPending = function (this: Planner, x: Expr): { ev: Ev; pending: number } {
  if (!this.tracking) return { ev: this.expr(x), pending: 0 };
  if (this.staticCost(x) !== undefined) return this.staticPart(x);
  if (x.kind !== "call") return { ev: this.expr(x), pending: 0 };
  this.pendingOut = 0;
  const ev = this.plainExpr(x, true);
  const pending = this.pendingOut;
  this.pendingOut = 0;
  return { ev, pending };
};

/** Tracking: a subtree of static cost planned untracked, its cost left to the caller to charge. */
Planner.prototype.staticPart = function (this: Planner, x: Expr): { ev: Ev; pending: number } {
  if (!this.tracking) return { ev: this.expr(x), pending: 0 };
  const s = this.staticCost(x);
  if (s === undefined) return { ev: this.expr(x), pending: 0 };
  this.tracking = false;
  try {
    return { ev: this.plainExpr(x), pending: s };
  } finally {
    this.tracking = true;
  }
};

/** A branch with its static cost (less the attribute discount) left to the caller. */
Planner.prototype.branchPending = function (this: Planner, x: Expr): { ev: Ev; pending: number } {
  if (this.discountable(x)) {
    const s = this.staticCost(x);
    if (s !== undefined && s >= 1) {
      const p = this.staticPart(x);
      return { ev: p.ev, pending: p.pending - 1 };
    }
    return { ev: this.branch(x), pending: 0 };
  }
  return this.exprPending(x);
};

/**
 * A branch of `?:`. cel-go resolves an attribute branch through the
 * conditional attribute, so the branch is not charged its own attribute cost
 * (an identifier branch costs 0, `a.b` costs 1).
 */
Planner.prototype.discountable = function (this: Planner, x: Expr): boolean {
  return this.isAttribute(x) && !(x.kind === "select" && x.testOnly) && !(x.kind === "call" && x.fn === Op.conditional);
};
