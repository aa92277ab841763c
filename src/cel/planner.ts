/**
 * AST → evaluable {@link Program}: the tree is compiled once into a tree of
 * JavaScript closures, so evaluation never walks the AST.
 *
 * Evaluation state is one array (the "frame"): slot 0 holds the caller's
 * bindings, slot 1 whether they are an {@link Activation}, then one slot per
 * variable name the expression may read (resolved at most once per evaluation,
 * on first use) and one per comprehension variable. The frame is the only
 * allocation an evaluation needs for itself (results aside).
 *
 * Errors are thrown as {@link CelEvalError} and caught only where CEL absorbs
 * them: `&&`, `||`, `@not_strictly_false`, and comprehension accumulators (which,
 * as in cel-go, may hold an error that a later `||`/`&&` step absorbs).
 *
 * Checked ASTs use the checker's `referenceMap` (resolved names, constants,
 * overload ids: one statically resolved overload over non-dyn arguments is called
 * directly). Unchecked ASTs resolve names as cel-go does at run time: `a.b.c`
 * tries the variables `a.b.c`, `a.b`, `a` (each under the container's prefixes),
 * longest first; and calls dispatch on the run-time types of their arguments.
 */
import { Op, type CallExpr, type ComprehensionExpr, type Expr, type ParsedExpr, type SelectExpr } from "./ast.js";
import { isChecked, type CheckedExpr } from "./checked.js";
import type { FunctionDecl, Impl, OverloadDecl } from "./decls.js";
import type { Env } from "./env.js";
import { CelEvalError } from "./errors.js";
import { inList, inMap, optIndex, optSelect, selectField } from "./runtime/access.js";
import { checkInstantiation } from "./instantiate.js";
import { candidatesOf, noSuchOverload } from "./runtime/dispatch.js";
import { celEquals } from "./runtime/equality.js";
import { compileRegex } from "./std/strings.js";
import type { RE2JS } from "@bufbuild/re2";
import { BUILTIN_TYPE_NAMES, OPTIONAL_NAME } from "./types.js";
import { CelObject, CelOptional, type CelMapKey, type CelValue } from "./values.js";
import { CelCostLimitError, LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR, STRUCT_CREATE_BASE_COST, VARIABLE_COST_OVERLOADS, absorbable, actualSize, codePoints, equalityCost, stdCallCost, stdCostFunction } from "./cost-runtime.js";
import { tick, ticks, withEvalLimits } from "./eval-limits.js";
import { BINDINGS, EMPTY, FIRST_SLOT, IS_ACTIVATION, NO_OVERLOAD_LOGIC, OPTIONAL_TYPE, Scope, UNBOUND, UNRESOLVED, accuReader, lazyReader, loadVar, noSuchAttribute, readVar, slotReader, type Ev, type Frame, type Local, unresolvedFrame } from "./plan-frame.js";
import { ADD_FAST, CONCAT, COST, LAST_ADD, RECEIVER_TRAVERSAL, charge, charged, discounted, refundAbsent } from "./plan-cost-state.js";
import { BLOCK, EMPTY_FRAME, MAX_CACHED_NAMES, MAX_SCANNED_VARS, NO_COSTS, NO_NAMES, NO_OVERLOADS, NO_SLOTS, U_EQUALS, U_IN, U_INDEX, U_MAP_INSERT, U_NOT, U_NOT_EQUALS, costData, envCache, type CostData, type DeclShapes, type EnvCache, type NameCandidate, type OverloadEntry } from "./plan-env.js";
import { CONVERSIONS, MAP_INSERT, SINGLETON_BOUND, STD_EQUALS, STD_IN, STD_INDEX, STD_MAP_INSERT, STD_NOT, callDirect, callDispatch, chainFields, constOf, constantList, constantMap, constantOf, containsOpen, emptyList, equals, equalsConst, equalsConstRight, equalsInt, index, indexByString, indexOptional, intConst, isOpenType, isRootScoped, list1, list2, listN, mapBuilder, mapInsertInPlace, mentions, mentionsAny, noOverloadCall, notEquals, notEqualsConst, notEqualsConstRight, optionalList, presenceTest, rangeError, regexCall, select1, select2, selectN, slotHas, slotSelect1, slotSelect2, slotSelectN, trackedRegexCall, uintOf } from "./plan-closures.js";

/** Variable bindings; `resolve` may compute lazily. Returns undefined for an unbound name. */
export interface Activation {
  resolve(name: string): CelValue | undefined;
}

/** Options of one evaluation. */
export interface EvalOptions {
  /**
   * Cost limit of this evaluation (cel-go `CostLimit`): Kubernetes' per-call
   * limit `PER_CALL_LIMIT` (1,000,000), or a caller's remaining budget
   * (`RUNTIME_CEL_COST_BUDGET` per mutation, …), whichever is smaller. When the
   * running cost exceeds it, evaluation stops at once (inside comprehensions
   * too) with a {@link CelCostLimitError}. Setting it turns cost tracking on.
   */
  readonly costLimit?: number | bigint;
  /**
   * Polled every 100 comprehension iterations (cel-go's `InterruptCheckFrequency`) and by the
   * size-guarded operations; true stops evaluation with `CelInterruptedError` ("operation
   * interrupted"). Nested evaluations that set none inherit it (see `eval-limits.ts`).
   */
  readonly interrupt?: () => boolean;
  /**
   * Largest string (UTF-16 units), bytes or list that `+` may build; a larger result stops
   * evaluation with a `CelCostLimitError` (a memory guard: cel-go has no such limit).
   */
  readonly maxSize?: number;
}

/** A value with the evaluation's actual cost (cel-go `EvalDetails.ActualCost`). */
export interface CostedResult {
  readonly value: CelValue;
  readonly cost: number;
}

export interface Program {
  /**
   * Evaluates; throws {@link CelEvalError} for a CEL error. Bindings are an
   * {@link Activation} (anything with a `resolve` function) or a plain object whose
   * properties name the variables (inherited ones too, e.g. getters, but never
   * Object.prototype's); `undefined` means unbound. Never mutates the bindings.
   *
   * Without options (or without `costLimit`) no cost is tracked; with a
   * `costLimit`, cost is tracked and {@link Program.lastCost} is set.
   */
  eval(vars?: Activation | Readonly<Record<string, CelValue>>, options?: EvalOptions): CelValue;
  /**
   * Evaluates with cost tracking (cel-go's `OptTrackCost`) and returns the value
   * with its actual cost, counted as cel-go v0.26 counts it (see `cost-runtime.ts`).
   * Throws like `eval`; {@link CelCostLimitError} when `costLimit` is exceeded.
   */
  evalWithCost(vars?: Activation | Readonly<Record<string, CelValue>>, options?: EvalOptions): CostedResult;
  /** The actual cost of the last tracked evaluation of this program (also set when it threw). */
  readonly lastCost: number | undefined;
}

export function plan(ast: ParsedExpr | CheckedExpr, env: Env): Program {
  // Constant folding (cel-go OptOptimize) evaluates constant conversions at instantiation, where
  // they can fail the program; the same for constant arguments libraries check (regexes).
  if (env.cost?.constantFolding === true) {
    checkInstantiation(ast.expr, env.libraries, (e) => planProgram({ ...ast, expr: e }, env).eval({}));
  }
  return planProgram(ast, env);
}

function planProgram(ast: ParsedExpr | CheckedExpr, env: Env): Program {
  const checked = isChecked(ast) ? ast : undefined;
  const p = new Planner(env, checked, false);
  const root = p.expr(ast.expr);
  return new CompiledProgram(root, unresolvedFrame(p.nextSlot), env, ast);
}

class CompiledProgram implements Program {
  // (Fields declared, set in the constructor only: a class field initializer is a call of its
  // own and stores every field twice, and every compile makes a program.)
  declare private readonly root: Ev;
  /** The initial frame, copied per evaluation. */
  declare private readonly template: Frame;
  // What the tracking variant is planned from, on first use (the AST itself: one field, not
  // its parts, since every program is made and few are ever tracked).
  declare private readonly env: Env;
  declare private readonly ast: ParsedExpr | CheckedExpr;
  declare private tracked: { readonly root: Ev; readonly template: Frame } | undefined;
  declare lastCost: number | undefined;

  constructor(root: Ev, template: Frame, env: Env, ast: ParsedExpr | CheckedExpr) {
    this.root = root;
    this.template = template;
    this.env = env;
    this.ast = ast;
    this.tracked = undefined;
    this.lastCost = undefined;
  }

  eval(vars?: Activation | Readonly<Record<string, CelValue>>, options?: EvalOptions): CelValue {
    if (options !== undefined) {
      // (Property checks inline: this runs for every tracked evaluation.)
      if (options.interrupt === undefined && options.maxSize === undefined) {
        if (options.costLimit !== undefined) return this.track(vars, options.costLimit);
      } else {
        return withEvalLimits(options, () => this.eval(vars, options.costLimit !== undefined ? { costLimit: options.costLimit } : undefined));
      }
    }
    // A fresh copy of a small template array per evaluation measured faster than
    // reusing one frame (which needs re-entrancy guards, try/finally and a reset),
    // is re-entrant for free, and keeps no reference to the evaluation's data.
    const f = this.template.slice();
    const b = vars ?? EMPTY;
    f[BINDINGS] = b;
    f[IS_ACTIVATION] = typeof (b as Activation).resolve === "function";
    return this.root(f);
  }

  evalWithCost(vars?: Activation | Readonly<Record<string, CelValue>>, options?: EvalOptions): CostedResult {
    const value =
      options === undefined || (options.interrupt === undefined && options.maxSize === undefined)
        ? this.track(vars, options?.costLimit)
        : withEvalLimits(options, () => this.track(vars, options.costLimit));
    return { value, cost: this.lastCost! };
  }

  /** A tracked evaluation: sets `lastCost` (also when it throws). */
  private track(vars: Activation | Readonly<Record<string, CelValue>> | undefined, limit: number | bigint | undefined): CelValue {
    let t = this.tracked;
    if (t === undefined) {
      // The tracking variant is planned on first use: programs never evaluated with cost pay nothing.
      const ast = this.ast;
      const tp = new Planner(this.env, isChecked(ast) ? ast : undefined, true);
      const troot = tp.expr(ast.expr);
      t = { root: troot, template: unresolvedFrame(tp.nextSlot) };
      this.tracked = t;
    }
    const f = t.template.slice();
    const b = vars ?? EMPTY;
    f[BINDINGS] = b;
    f[IS_ACTIVATION] = typeof (b as Activation).resolve === "function";
    const savedAcc = COST.acc;
    const savedLimit = COST.limit;
    COST.acc = 0;
    COST.limit = limit === undefined ? Infinity : typeof limit === "number" ? limit : Number(limit);
    try {
      const value = t.root(f);
      // An exceeded limit whose error an `||` could not absorb still ends here.
      if (COST.acc > COST.limit) throw new CelCostLimitError(COST.limit, COST.acc);
      return value;
    } catch (x) {
      if (x instanceof CelCostLimitError && x.expression === undefined) x.expression = this.ast.sourceInfo?.text;
      throw x;
    } finally {
      this.lastCost = COST.acc;
      COST.acc = savedAcc;
      COST.limit = savedLimit;
    }
  }
}

class Planner {
  // own and stores every field twice, and every compile makes a planner. See `CompiledProgram`.)
  declare private readonly env: Env;
  /**
   * Variables' frame slots: the first variable and its slot (most expressions read one
   * variable: no arrays then), then names and slots in parallel arrays (an expression
   * names few variables; a Map costs more to make than a short scan), then a
   * Map once there are more than {@link MAX_SCANNED_VARS}.
   */
  declare private name0: string | undefined;
  declare private slot0: number;
  declare private varNames: string[];
  declare private varSlotNumbers: number[];
  declare private varSlots: Map<string, number> | undefined;
  declare nextSlot: number;
  /** The variable read last and its reader (see `ident`). */
  declare private readerName: string | undefined;
  declare private reader: Ev | undefined;
  /** The innermost scope of locals (comprehensions, blocks) being planned. */
  declare private scope: Scope | undefined;
  declare private readonly refs: CheckedExpr["referenceMap"] | undefined;
  declare private readonly types: CheckedExpr["typeMap"] | undefined;
  declare private readonly inferred: CheckedExpr["inferred"];
  declare private readonly cache: EnvCache;

  /** Whether closures charge costs (the tracking variant); toggled off while planning a static-cost subtree. */
  declare private tracking: boolean;
  /**
   * The environment's cost settings (tracking variant only: the untracked one, planned for
   * every program, does without them; kept per environment rather than made per plan).
   */
  declare private readonly costs: CostData;
  /** What a deferred call (`plainExpr(x, true)`) left for its caller to charge. */
  declare private pendingOut: number;

  constructor(env: Env, checked: CheckedExpr | undefined, tracking: boolean) {
    this.env = env;
    this.name0 = undefined;
    this.slot0 = 0;
    this.varNames = NO_NAMES;
    this.varSlotNumbers = NO_SLOTS;
    this.varSlots = undefined;
    this.nextSlot = FIRST_SLOT;
    this.readerName = undefined;
    this.reader = undefined;
    this.scope = undefined;
    this.refs = checked?.referenceMap;
    this.types = checked?.typeMap;
    this.inferred = checked?.inferred;
    const cache = envCache(env);
    this.cache = cache;
    this.tracking = tracking;
    this.costs = tracking ? costData(cache, env) : NO_COSTS;
    this.pendingOut = 0;
  }

  private get presenceCost(): number {
    return this.costs.presenceCost;
  }

  private get folding(): boolean {
    return this.costs.folding;
  }

  private get libCosts(): ReadonlyMap<string, import("./decls.js").OverloadCost> {
    return this.costs.libCosts;
  }

  expr(e: Expr): Ev {
    if (!this.tracking) return this.plainExpr(e);
    const s = this.staticCost(e);
    if (s !== undefined) {
      // A subtree whose cost does not depend on values: planned untracked, charged once.
      this.tracking = false;
      let ev: Ev;
      try {
        ev = this.plainExpr(e);
      } finally {
        this.tracking = true;
      }
      return charged(ev, s);
    }
    const ev = charged(this.plainExpr(e), this.ownCost(e));
    return this.qualifiesOptional(e) ? refundAbsent(ev) : ev;
  }

  /**
   * `o.f` / `o[k]` on an optional `o` (after `x.?a`, `x[?k]`): cel-go qualifies into it with
   * optional semantics and observes the qualifier only when present (see optionalQualifier).
   */
  private qualifiesOptional(e: Expr): boolean {
    let operand: Expr | undefined;
    if (e.kind === "select" && !e.testOnly) operand = e.operand;
    else if (e.kind === "call" && e.fn === Op.index && e.target === undefined && e.args.length === 2) operand = e.args[0];
    const t = operand === undefined ? undefined : this.types?.get(operand.id);
    return t !== undefined && t.name === OPTIONAL_NAME;
  }

  /** Whether cel-go plans this node as an attribute (so a qualifier on it adds no attribute cost of its own). */
  private isAttribute(e: Expr): boolean {
    switch (e.kind) {
      case "ident":
        return this.refs?.get(e.id)?.value === undefined && !this.isStaticName(e.id, e.name);
      case "select":
        if (e.testOnly) return true;
        return this.refs?.get(e.id)?.value === undefined;
      case "call":
        return (
          e.target === undefined &&
          (e.fn === Op.index || e.fn === Op.optIndex || e.fn === Op.optSelect || e.fn === Op.conditional)
        );
      default:
        return false;
    }
  }

  /** A checked identifier that names a type (a constant at run time). */
  private isStaticName(id: number, name: string): boolean {
    if (this.refs === undefined) return false;
    const refName = this.refs.get(id)?.name ?? name;
    if (this.lookupLocal(refName) !== undefined) return false;
    const n = isRootScoped(refName) ? refName.slice(1) : refName;
    return !this.env.variables.has(n) && this.staticIdent(n) !== undefined;
  }

  /** cel-go `OptOptimize` folds this literal or conversion into a constant. */
  private isConstLiteral(e: Expr): boolean {
    switch (e.kind) {
      case "const":
        return true;
      case "list": {
        // (Loops, not every() with an arrow: a closure over `this` makes a context on every call.)
        if (!this.folding || e.optionalIndices.length !== 0) return false;
        const els = e.elements;
        for (let i = 0; i < els.length; i++) if (!this.isConstLiteral(els[i]!)) return false;
        return true;
      }
      case "map": {
        if (!this.folding) return false;
        const es = e.entries;
        for (let i = 0; i < es.length; i++) {
          const x = es[i]!;
          if (x.optional || !this.isConstLiteral(x.key) || !this.isConstLiteral(x.value)) return false;
        }
        return true;
      }
      case "call":
        if (this.folding && this.inEmptyList(e)) return true;
        return this.folding && e.target === undefined && e.args.length === 1 && CONVERSIONS.has(e.fn) && this.isConstLiteral(e.args[0]!);
      default:
        return false;
    }
  }

  /** Names of functions some overload of which has a library cost rule. */
  private costedFunctions(): Set<string> {
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
  }

  /** cel-go's overload id for a call's cost: the checker's single overload, else "" (dynamic dispatch). */
  private costOverloadId(e: CallExpr): string {
    const ids = this.refs?.get(e.id)?.overloadIds;
    return ids !== undefined && ids.length === 1 ? ids[0]! : "";
  }

  /**
   * The whole cost of a subtree when it does not depend on run-time values
   * (no short-circuit, comprehension or size-dependent call inside), else undefined.
   */
  /** `x in []` resolved to `in_list` with constant folding: the constant false (see the `in` case of plainExpr). */
  private inEmptyList(e: CallExpr): boolean {
    const rhs = e.args[1];
    return (
      e.fn === Op.in &&
      rhs !== undefined &&
      rhs.kind === "list" &&
      rhs.elements.length === 0 &&
      this.env.cost?.constantFolding === true &&
      this.costOverloadId(e) === "in_list"
    );
  }

  private staticCost(e: Expr): number | undefined {
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
  }

  private staticCallCost(e: CallExpr): number | undefined {
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
  }

  /** A function call's own cost when it is fixed (1), or -1 when it depends on the arguments. */
  private fixedCallCost(e: CallExpr): number {
    if (this.costedFunctions().has(e.fn)) return -1;
    const id = this.costOverloadId(e);
    if (VARIABLE_COST_OVERLOADS.has(id)) return -1;
    return 1;
  }

  /** `x in [constant primitives]` that cel-go's optimizer turns into a set lookup (cost 0). */
  private foldedMembership(rhs: Expr): boolean {
    if (!this.folding || rhs.kind !== "list" || !this.isConstLiteral(rhs)) return false;
    return rhs.elements.every((x) => x.kind === "const" && x.value.kind !== "bytes");
  }

  /** Whether the checker typed the node with a type whose values have size 1. */
  private scalarTyped(e: Expr): boolean {
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
  }

  /** The own cost of a node whose subtree is not static (children charge their own). */
  private ownCost(e: Expr): number {
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
  }

  private plainExpr(e: Expr, defer = false): Ev {
    switch (e.kind) {
      case "const": {
        const c = e.value;
        const v: CelValue = c.kind === "null" ? null : c.kind === "uint" ? uintOf(c.value) : c.value;
        return () => v;
      }
      case "ident":
        return this.ident(e.id, e.name);
      case "select":
        return this.select(e);
      case "call":
        return this.call(e, defer);
      case "list":
        return this.list(e.elements, e.optionalIndices);
      case "map":
        return this.map(e);
      case "struct":
        return this.struct(e);
      case "comprehension":
        return this.comprehension(e);
    }
  }

  private lookupLocal(name: string): Local | undefined {
    for (let s = this.scope; s !== undefined; s = s.parent) {
      const l = s.get(name);
      if (l !== undefined) return l;
    }
    return undefined;
  }

  private slotOf(name: string): number {
    if (name === this.name0) return this.slot0;
    const names = this.varNames;
    const map = this.varSlots;
    if (map === undefined) {
      for (let i = 0; i < names.length; i++) if (names[i] === name) return this.varSlotNumbers[i]!;
    } else {
      const s = map.get(name);
      if (s !== undefined) return s;
    }
    const s = this.nextSlot++;
    if (this.name0 === undefined) {
      this.name0 = name;
      this.slot0 = s;
    } else if (map !== undefined) {
      map.set(name, s);
    } else if (names.length === 0) {
      // (Arrays made to measure: a push onto an empty one reserves 17 elements.)
      this.varNames = [name];
      this.varSlotNumbers = [s];
    } else if (names.length < MAX_SCANNED_VARS) {
      names.push(name);
      this.varSlotNumbers.push(s);
    } else {
      const m = new Map<string, number>();
      for (let i = 0; i < names.length; i++) m.set(names[i]!, this.varSlotNumbers[i]!);
      m.set(name, s);
      this.varSlots = m;
    }
    return s;
  }

  private readLocal(l: Local): Ev {
    const slot = l.slot;
    const lazy = l.lazy;
    // (Closures made by functions of their own: see `functionCall`.)
    if (lazy !== undefined) return lazyReader(slot, lazy);
    return l.accu ? accuReader(slot) : slotReader(slot);
  }

  /** A name that is not a variable: a type name or a provider constant (enum value). */
  private staticIdent(name: string): { value: CelValue } | undefined {
    let r = this.cache.staticIdents.get(name);
    if (r === undefined) {
      r = this.findStaticIdent(name) ?? null;
      this.cache.staticIdents.set(name, r);
    }
    return r ?? undefined;
  }

  private findStaticIdent(name: string): { value: CelValue } | undefined {
    const builtin = BUILTIN_TYPE_NAMES.get(name);
    // `dyn` names no run-time type: as an identifier it is unbound (cel-go).
    if (builtin !== undefined && name !== "dyn") return { value: builtin };
    if (name === OPTIONAL_NAME) return { value: OPTIONAL_TYPE };
    const provider = this.env.typeProvider;
    if (provider === undefined) return undefined;
    const c = provider.findIdent?.(name);
    if (c !== undefined) return { value: c.value };
    const t = provider.findType(name);
    if (t !== undefined) return { value: t };
    return undefined;
  }

  /** cel-go's container resolution: `a.b` in container `x.y` → `x.y.a.b`, `x.a.b`, `a.b`. */
  private candidateNames(name: string): string[] {
    if (isRootScoped(name)) return [name.slice(1)];
    const out: string[] = [];
    let c = this.env.container;
    while (c !== "") {
      out.push(`${c}.${name}`);
      const i = c.lastIndexOf(".");
      c = i < 0 ? "" : c.slice(0, i);
    }
    out.push(name);
    return out;
  }

  private ident(id: number, name: string): Ev {
    const t = this.identTarget(id, name);
    if (t === undefined) return this.identConstant(id, name);
    if (typeof t !== "string") return this.readLocal(t);
    // A variable read again reads through the same closure (one a plan, for the last variable read).
    if (t === this.readerName) return this.reader!;
    const r = readVar(this.slotOf(t), t);
    this.readerName = t;
    this.reader = r;
    return r;
  }

  /**
   * What an identifier reads, as `ident` plans it: a local, the name of a global read from
   * the bindings (checked ASTs), or undefined for anything else (a constant, a type name,
   * a name resolved at run time in an unchecked AST: see `identConstant`).
   */
  private identTarget(id: number, name: string): Local | string | undefined {
    const ref = this.refs?.get(id);
    if (ref !== undefined) {
      if (ref.value !== undefined) return undefined;
      const refName = ref.name ?? name;
      if (!isRootScoped(refName)) {
        const local = this.lookupLocal(refName);
        if (local !== undefined) return local;
      }
      const global = isRootScoped(refName) ? refName.slice(1) : refName;
      return this.readsBinding(global) ? global : undefined;
    }
    if (!isRootScoped(name)) {
      const local = this.lookupLocal(name);
      if (local !== undefined) return local;
    }
    if (this.refs === undefined) return undefined;
    const global = isRootScoped(name) ? name.slice(1) : name;
    return this.readsBinding(global) ? global : undefined;
  }

  /** An identifier `identTarget` leaves: a checked constant or type name, or an unchecked global. */
  private identConstant(id: number, name: string): Ev {
    if (this.refs === undefined) return this.resolveNames([{ names: this.candidateNames(name), fields: [] }]);
    const ref = this.refs.get(id);
    if (ref !== undefined && ref.value !== undefined) return constantOf(ref.value);
    const refName = ref?.name ?? name;
    return constantOf(this.staticIdent(isRootScoped(refName) ? refName.slice(1) : refName)!.value);
  }

  /**
   * Whether a global name (checked ASTs) is read from the bindings: a variable, or a name
   * that is nothing else (unbound at run time), rather than a type name or a constant.
   */
  private readsBinding(name: string): boolean {
    const cache = this.cache;
    // The variable found last in this environment is known without a Map lookup (most
    // expressions of an environment read the same variable: `object`, `self`, …).
    if (name === cache.lastVariable) return true;
    if (this.env.variables.has(name)) {
      cache.lastVariable = name;
      return true;
    }
    return this.staticIdent(name) === undefined;
  }

  /**
   * Run-time resolution among candidate names (unchecked ASTs): the first bound
   * variable wins, else a type name or constant when no fields remain to select.
   */
  private resolveNames(cands: readonly NameCandidate[]): Ev {
    if (cands.length === 1 && cands[0]!.names.length === 1 && cands[0]!.fields.length === 0) {
      const name = cands[0]!.names[0]!;
      const s = this.staticIdent(name);
      const slot = this.slotOf(name);
      if (s === undefined) return readVar(slot, name);
      const sv = s.value;
      return (f) => {
        const v = f[slot];
        if (v === UNBOUND) return sv;
        if (v !== UNRESOLVED) return v;
        return loadVar(f, slot, name) ?? sv;
      };
    }
    interface Step {
      readonly slot: number;
      readonly name: string;
      readonly fields: readonly string[];
      readonly staticValue: CelValue | undefined;
      /** A dotted name can never be an Object.prototype property, so a plain property read is safe. */
      readonly dotted: boolean;
    }
    const steps: Step[] = [];
    for (const c of cands) {
      for (const name of c.names) {
        const s = c.fields.length === 0 ? this.staticIdent(name) : undefined;
        steps.push({ slot: this.slotOf(name), name, fields: c.fields, staticValue: s?.value, dotted: name.includes(".") });
      }
    }
    const missing = cands[0]!.names.join(", ");
    return (f) => {
      for (let i = 0; i < steps.length; i++) {
        const st = steps[i]!;
        let v = f[st.slot];
        if (v === UNRESOLVED) {
          if (st.dotted && f[IS_ACTIVATION] === false) {
            const x = (f[BINDINGS] as Record<string, CelValue | undefined>)[st.name];
            v = x === undefined ? UNBOUND : x;
            f[st.slot] = v;
          } else v = loadVar(f, st.slot, st.name);
        }
        if (v !== undefined && v !== UNBOUND) {
          const fields = st.fields;
          for (let j = 0; j < fields.length; j++) {
            const field = fields[j]!;
            const w: CelValue | undefined = v instanceof Map ? v.get(field) : undefined;
            v = w !== undefined ? w : selectField(v, field);
          }
          return v;
        }
        if (st.staticValue !== undefined) return st.staticValue;
      }
      throw noSuchAttribute(missing);
    };
  }

  /** `a.b.c` as a list of names when it is a chain of selections on a non-local identifier. */
  private qualifiedChain(e: Expr): string[] | undefined {
    const fields: string[] = [];
    let cur = e;
    while (cur.kind === "select" && !cur.testOnly) {
      fields.push(cur.field);
      cur = cur.operand;
    }
    if (cur.kind !== "ident") return undefined;
    if (!isRootScoped(cur.name) && this.lookupLocal(cur.name) !== undefined) return undefined;
    if (this.refs?.get(cur.id)?.value !== undefined) return undefined;
    fields.push(cur.name);
    return fields.reverse();
  }

  private select(e: Extract<Expr, { kind: "select" }>): Ev {
    const test = e.testOnly;
    const ref = this.refs?.get(e.id);
    if (ref !== undefined && !test && (ref.name !== undefined || ref.value !== undefined)) {
      return this.ident(e.id, ref.name ?? e.field);
    }
    const field = e.field;
    if (!test && this.refs === undefined) {
      const chain = this.qualifiedChain(e);
      if (chain !== undefined) {
        const cands: NameCandidate[] = [];
        for (let k = chain.length; k >= 1; k--) {
          cands.push({ names: this.candidateNames(chain.slice(0, k).join(".")), fields: chain.slice(k) });
        }
        return this.resolveNames(cands);
      }
    }
    // Fuse a chain of plain selections `x.a.b.c` (and a presence test `has(x.a.b.c)`) into one
    // closure: `n` selections, this one's included unless it is a test.
    let n = test ? 0 : 1;
    let base: Expr = e.operand;
    while (base.kind === "select" && !base.testOnly && !this.resolvedByName(base)) {
      n++;
      base = base.operand;
    }
    // A chain on a variable (`object.metadata.labels`, the usual start of an expression) or on a
    // comprehension variable (`c.image`) reads it in the same closure (`name`: the variable's,
    // undefined for a comprehension variable). Untracked only: the tracking variant charges the read.
    let name: string | undefined;
    let slot = -1;
    if (!this.tracking && base.kind === "ident") {
      const t = this.identTarget(base.id, base.name);
      if (typeof t === "string") {
        name = t;
        slot = this.slotOf(t);
      } else if (t !== undefined && !t.accu && t.lazy === undefined) slot = t.slot;
    }
    // (Closures made by functions of their own, which capture only what they need: see `functionCall`.)
    if (test) return slot < 0 ? presenceTest(this.expr(e.operand), field) : slotHas(slot, name, chainFields(e.operand, n), field);
    const op = slot < 0 ? this.expr(base) : undefined;
    if (n === 1) return op !== undefined ? select1(op, field) : slotSelect1(slot, name, field);
    if (n === 2) {
      const f0 = (e.operand as SelectExpr).field;
      return op !== undefined ? select2(op, f0, field) : slotSelect2(slot, name, f0, field);
    }
    const fields = chainFields(e, n);
    return op !== undefined ? selectN(op, fields) : slotSelectN(slot, name, fields);
  }

  /** Whether a selection is read as (part of) a qualified name rather than a field selection. */
  private resolvedByName(e: Extract<Expr, { kind: "select" }>): boolean {
    const ref = this.refs?.get(e.id);
    if (ref !== undefined) return ref.name !== undefined || ref.value !== undefined;
    return this.refs === undefined && this.qualifiedChain(e) !== undefined;
  }

  private list(elements: readonly Expr[], optionalIndices: readonly number[]): Ev {
    const n = elements.length;
    // `[]` (every comprehension's accumulator but all/exists): nothing to plan.
    if (n === 0 && optionalIndices.length === 0) return emptyList;
    const plain = optionalIndices.length === 0;
    if (plain && n <= 2 && !(elements[0]!.kind === "const" && (n === 1 || elements[1]!.kind === "const"))) {
      // One or two elements, not all constant: no array of closures (closures of their own: see `functionCall`).
      const a = this.expr(elements[0]!);
      return n === 1 ? list1(a) : list2(a, this.expr(elements[1]!));
    }
    // (A loop, not map() with an arrow: a closure over `this` makes a context on every call.)
    const els: Ev[] = [];
    for (let i = 0; i < n; i++) els.push(this.expr(elements[i]!));
    if (!plain) return optionalList(els, optionalIndices);
    if (elements.every((x) => x.kind === "const")) return constantList(els);
    return listN(els);
  }

  private map(e: Extract<Expr, { kind: "map" }>): Ev {
    // (Loops, not map() with arrows: a closure over `this` makes a context on every call.)
    const es = e.entries;
    const n = es.length;
    const keys = new Array<Ev>(n);
    const vals = new Array<Ev>(n);
    let opts: boolean[] | undefined;
    let constant = true;
    for (let i = 0; i < n; i++) keys[i] = this.expr(es[i]!.key);
    for (let i = 0; i < n; i++) {
      const x = es[i]!;
      vals[i] = this.expr(x.value);
      if (x.optional) (opts ??= new Array<boolean>(n).fill(false))[i] = true;
      if (x.optional || x.key.kind !== "const" || x.value.kind !== "const") constant = false;
    }
    const build = mapBuilder(keys, vals, opts);
    // Constant maps are built once (and still report bad keys at evaluation).
    return constant ? constantMap(build) : build;
  }

  private struct(e: Extract<Expr, { kind: "struct" }>): Ev {
    const provider = this.env.typeProvider;
    const typeName = this.resolveTypeName(e.id, e.typeName);
    const names = e.fields.map((x) => x.field);
    const vals = e.fields.map((x) => this.expr(x.value));
    const opts = e.fields.map((x) => x.optional);
    return (f) => {
      const fields = new Map<string, CelValue>();
      for (let i = 0; i < names.length; i++) {
        let v = vals[i]!(f);
        if (opts[i]) {
          if (!(v instanceof CelOptional)) {
            throw new CelEvalError(`cannot initialize optional entry '${names[i]!}' from non-optional value ${String(v)}`);
          }
          if (v.value === undefined) {
            fields.delete(names[i]!);
            continue;
          }
          v = v.value;
        }
        fields.set(names[i]!, v);
      }
      if (provider === undefined) throw new CelEvalError(`unknown type: ${typeName}`);
      return provider.newValue(typeName, fields);
    };
  }

  private resolveTypeName(id: number, written: string): string {
    const ref = this.refs?.get(id);
    if (ref?.name !== undefined) return isRootScoped(ref.name) ? ref.name.slice(1) : ref.name;
    const t = this.types?.get(id);
    if (t !== undefined && (t.kind === "message" || t.kind === "wrapper" || t.kind === "opaque")) return t.name;
    const provider = this.env.typeProvider;
    for (const c of this.candidateNames(written)) {
      if (provider?.findType(c) !== undefined) return c;
    }
    return isRootScoped(written) ? written.slice(1) : written;
  }

  private comprehension(e: ComprehensionExpr): Ev {
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
  }

  /** Enters the scope of a comprehension's loop: its iteration variables and accumulator. */
  private enterLoop(e: ComprehensionExpr, accuSlot: number, iterSlot: number, iter2Slot: number): Scope {
    const scope = new Scope(this.scope);
    scope.set(e.iterVar, { slot: iterSlot, accu: false });
    if (e.iterVar2 !== undefined) scope.set(e.iterVar2, { slot: iter2Slot, accu: false });
    scope.set(e.accuVar, { slot: accuSlot, accu: true });
    this.scope = scope;
    return scope;
  }

  /**
   * The untracked variant's tight loops for the standard macro shapes (as `fastComprehension`
   * matches them), or undefined. The shapes are matched on the tree first (no closures made
   * for the matching), then only the parts a loop runs are planned, in the loop's scope.
   */
  private plainFastComprehension(e: ComprehensionExpr, range: Ev): Ev | undefined {
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
  }

  /**
   * The tracking variant's tight loops for the standard macro shapes (all, exists, map, filter,
   * transformList/Map), with the same results and error absorption as the general fold but
   * without per-iteration accumulator bookkeeping, and with list/map accumulators built in place
   * instead of copied per step. Each shape runs in a loop function of its own (`trackedMapLoop`
   * …), not in one shared loop calling a callback per element: such a call site sees every
   * comprehension's callback and is not inlined.
   */
  private fastComprehension(e: ComprehensionExpr, range: Ev, iterSlot: number, iter2Slot: number): Ev | undefined {
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
  }

  /**
   * `defer` (tracking only): the caller charges the cost this call would charge
   * itself up front, as far as it is fixed; the amount is left in `pendingOut`.
   */
  private call(e: CallExpr, defer = false): Ev {
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
  }

  /** In the tracking variant, charges a node's own fixed cost after it evaluated. */
  private own(n: number, ev: Ev): Ev {
    return this.tracking ? charged(ev, n) : ev;
  }

  /**
   * `x[?k]` / `x.?f`: cel-go observes a qualifier only when it is present
   * (interpreter/interpretable.go, evalWatchConstQual/evalWatchQual.QualifyIfPresent), so a
   * result of `optional.none()` is not charged the qualifier's 1.
   */
  private optionalQualifier(operand: Expr, ev: Ev): Ev {
    if (!this.tracking) return ev;
    const n = this.qualifierCost(operand);
    return (f) => {
      const v = ev(f);
      charge(v instanceof CelOptional && v.value === undefined ? n - 1 : n);
      return v;
    };
  }

  /** A qualifier costs 1, plus 1 for the relative attribute when its operand is not an attribute. */
  private qualifierCost(operand: Expr): number {
    if (!this.tracking) return 0; // only charged by the tracking variant
    return 1 + (this.isAttribute(operand) ? 0 : 1);
  }

  /** `==`/`!=` charging ceil(min(size) × 0.1) (cel-go `evalEq`/`evalNe`, overload `equals`). */
  private trackedEquality(e: CallExpr, defer = false): Ev {
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
  }

  /** `in` charging the list's size (`in_list`), 1 (maps, dynamic dispatch) or 0 (folded constant set). */
  private trackedIn(e: CallExpr): Ev {
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
  }

  /**
   * cel-go's `cel.@block([e0, e1, …], result)` (what the `cel.block` macro and
   * common-subexpression elimination produce): `@indexN` names `eN`, evaluated
   * at most once per evaluation of the block and only when used; an error is
   * remembered and raised where the slot is read.
   */
  private block(inits: readonly Expr[], result: Expr): Ev {
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
  }

  /** Whether a library declares overloads of an operator beyond the standard ones (then dispatch normally). */
  private userOverloads(slot: number, fn: string, standard: readonly string[]): boolean {
    const known = this.cache.userOverloads;
    let r = known[slot]!;
    if (r === 0) {
      const decl = this.env.functions.get(fn);
      r = decl !== undefined && decl.overloads.some((o) => !standard.includes(o.id) && o.impl !== undefined) ? 2 : 1;
      known[slot] = r;
    }
    return r === 2;
  }

  private logical(e: CallExpr, isOr: boolean): Ev {
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
  }

  private conditional(e: CallExpr): Ev {
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
  }

  /**
   * A branch of `?:`. cel-go resolves an attribute branch through the
   * conditional attribute, so the branch is not charged its own attribute cost
   * (an identifier branch costs 0, `a.b` costs 1).
   */
  private discountable(x: Expr): boolean {
    return this.isAttribute(x) && !(x.kind === "select" && x.testOnly) && !(x.kind === "call" && x.fn === Op.conditional);
  }

  /** A branch with its static cost (less the attribute discount) left to the caller. */
  private branchPending(x: Expr): { ev: Ev; pending: number } {
    if (this.discountable(x)) {
      const s = this.staticCost(x);
      if (s !== undefined && s >= 1) {
        const p = this.staticPart(x);
        return { ev: p.ev, pending: p.pending - 1 };
      }
      return { ev: this.branch(x), pending: 0 };
    }
    return this.exprPending(x);
  }

  private branch(x: Expr): Ev {
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
  }

  private equality(e: CallExpr): Ev {
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
  }

  /** `opt.or(x)` / `opt.orValue(x)` short-circuit: `x` is evaluated only when `opt` is none. */
  private optionalOr(e: CallExpr): Ev | undefined {
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
  }

  /** Candidate function name for a receiver call `a.b.f(x)` read as the namespaced `a.b.f(x)`. */
  private namespacedFunction(e: CallExpr): FunctionDecl | undefined {
    if (e.target === undefined) return undefined;
    const chain = this.qualifiedChain(e.target);
    if (chain === undefined) return undefined;
    const name = `${chain.join(".")}.${e.fn}`;
    for (const c of this.candidateNames(name)) {
      const d = this.env.functions.get(c);
      if (d !== undefined) return d;
    }
    return undefined;
  }

  private lookupFunction(name: string): FunctionDecl | undefined {
    if (this.env.container === "" && name.charCodeAt(0) !== 46) return this.env.functions.get(name);
    for (const c of this.candidateNames(name)) {
      const d = this.env.functions.get(c);
      if (d !== undefined) return d;
    }
    return undefined;
  }

  private functionCall(e: CallExpr, defer = false): Ev {
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
  }

  /** The tracking variant of an ordinary function call (see `functionCall`). */
  private trackedCall(
    e: CallExpr,
    name: string,
    overloads: readonly OverloadDecl[],
    concrete: boolean,
    argExprs: readonly Expr[],
    args: readonly Ev[],
    pending: number,
    defer: boolean,
  ): Ev {
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
  }

  /**
   * The overloads of `decl` a call may dispatch to (with an implementation, of
   * its receiver style and arity; restricted to the checker's `ids` when given
   * and any of them qualifies), memoized per environment: by declaration, then
   * by the identity of the checker's overload id list (which its resolution
   * cache shares between the calls it resolves alike).
   */
  private overloadsOf(
    decl: FunctionDecl | undefined,
    member: boolean,
    arity: number,
    ids: readonly string[] | undefined,
    known?: (OverloadEntry | undefined)[],
  ): OverloadEntry {
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
  }

  /** The overload entries of `decl` by shape (made on first use). */
  private byShapeOf(decl: FunctionDecl): (OverloadEntry | undefined)[] {
    let byShape = this.cache.overloads.get(decl);
    if (byShape === undefined) {
      byShape = [];
      this.cache.overloads.set(decl, byShape);
    }
    return byShape;
  }

  /** The function named `name` in the environment, with its overload entries (memoized per environment). */
  private declShapes(name: string): DeclShapes | undefined {
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
  }

  /**
   * Tracking, `x + y` (add_string) and `s.f(y)` costing the receiver's traversal
   * (startsWith, endsWith, …) on two strings: one closure that calls the string
   * overload and charges its cost, without dispatch or a charging wrapper.
   * Only when that overload is the one dispatch would pick for any two strings
   * (the single candidate accepting them) and no library rule prices it; other
   * values go to `general` (which charges as before).
   */
  private stringCall(
    costId: string,
    overloads: readonly OverloadDecl[],
    argExprs: readonly Expr[],
    args: readonly Ev[],
    pending: number,
    general: (args: readonly Ev[]) => Ev,
  ): Ev | undefined {
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
    if (ADD_FAST.has(a)) {
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
    ADD_FAST.add(ev);
    return ev;
  }

  /** An overload implementation that charges its call cost: the library's rule, else cel-go's standard rule for `costId`, else 1. */
  private chargingImpl(o: OverloadDecl, costId: string, pending: number): Impl {
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
  }

  /**
   * Tracking: the closure of `x` with the part of its cost that is known before
   * it runs left to the caller (`pending`), so that a loop charges it once per
   * iteration with its own bookkeeping: static subtrees, `==` against a constant,
   * calls of fixed cost.
   */
  private exprPending(x: Expr): { ev: Ev; pending: number } {
    if (!this.tracking) return { ev: this.expr(x), pending: 0 };
    if (this.staticCost(x) !== undefined) return this.staticPart(x);
    if (x.kind !== "call") return { ev: this.expr(x), pending: 0 };
    this.pendingOut = 0;
    const ev = this.plainExpr(x, true);
    const pending = this.pendingOut;
    this.pendingOut = 0;
    return { ev, pending };
  }

  /** Tracking: a subtree of static cost planned untracked, its cost left to the caller to charge. */
  private staticPart(x: Expr): { ev: Ev; pending: number } {
    if (!this.tracking) return { ev: this.expr(x), pending: 0 };
    const s = this.staticCost(x);
    if (s === undefined) return { ev: this.expr(x), pending: 0 };
    this.tracking = false;
    try {
      return { ev: this.plainExpr(x), pending: s };
    } finally {
      this.tracking = true;
    }
  }

  /**
   * `s.matches('const')` / `matches(s, 'const')` with the standard overloads:
   * the RE2 program is compiled at plan time (an invalid pattern stays an
   * evaluation error, so it is left to the ordinary call).
   */
  private constantRegex(name: string, member: boolean, args: readonly Expr[], overloads: readonly { id: string }[]): RE2JS | undefined {
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
  }

  /** Whether the checker inferred some argument's type through a type parameter (see `CheckedExpr.inferred`). */
  private argsInferred(args: readonly Expr[]): boolean {
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
  }

  /** Whether the checker typed every argument with a concrete (non-dyn) type. */
  private argsConcrete(args: readonly Expr[]): boolean {
    const types = this.types;
    if (types === undefined) return false;
    for (let i = 0; i < args.length; i++) {
      const t = types.get(args[i]!.id);
      if (t === undefined || containsOpen(t)) return false;
    }
    return true;
  }
}
// ------------------------------------------------------------------ comprehension loops
// (Module functions, not closures made by the planner's methods: see `functionCall`.)

/** `x` is the identifier `accu`. */
function isAccuRef(x: Expr, accu: string): boolean {
  return x.kind === "ident" && x.name === accu;
}

/** `x` is a global call of `fn` with `n` arguments. */
function isCallOf(x: Expr, fn: string, n: number): x is CallExpr {
  return x.kind === "call" && x.fn === fn && x.target === undefined && x.args.length === n;
}

/** The entries of a map range, or undefined for a list; throws for any other range. */
function mapEntries(r: CelValue, two: boolean): IterableIterator<[CelMapKey, CelValue]> | undefined {
  if (Array.isArray(r)) return undefined;
  if (r instanceof Map) return (r as ReadonlyMap<CelMapKey, CelValue>).entries();
  throw rangeError(r, two);
}

/**
 * Binds the iteration variables to the `i`-th element of a range: a list's element (with
 * two variables its index and element), or the next entry of `it` over a map (key, value).
 */
function bindElement(f: Frame, r: CelValue, it: IterableIterator<[CelMapKey, CelValue]> | undefined, i: number, iterSlot: number, iter2Slot: number): void {
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
function rangeSize(r: CelValue): number {
  return Array.isArray(r) ? r.length : (r as ReadonlyMap<CelMapKey, CelValue>).size;
}

/** The general fold (see `ComprehensionExpr`). */
function fold(range: Ev, init: Ev, cond: Ev, step: Ev, result: Ev, condTrue: boolean, accuSlot: number, iterSlot: number, iter2Slot: number): Ev {
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
function existsLoop(range: Ev, pred: Ev, stop: boolean, iterSlot: number, iter2Slot: number): Ev {
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
function mapLoop(range: Ev, elem: Ev, iterSlot: number, iter2Slot: number): Ev {
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
function filterLoop(range: Ev, pred: Ev, elem: Ev, iterSlot: number, iter2Slot: number): Ev {
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
function mapInsertLoop(range: Ev, k: Ev, v: Ev, entryMap: boolean, pred: Ev | undefined, iterSlot: number, iter2Slot: number): Ev {
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
function trackedExistsLoop(range: Ev, pred: Ev, stop: boolean, condCost: number, iterCost: number, iterSlot: number, iter2Slot: number): Ev {
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
function chargeUpfront(n: number, perIter: number): boolean {
  const total = n * perIter;
  if (COST.acc + total > COST.limit) return false;
  COST.acc += total;
  return true;
}

/** Tracking map / transformList: `initCost` for the accumulator, `stepCost` per element, 1 for the result. */
function trackedMapLoop(range: Ev, elem: Ev, initCost: number, stepCost: number, iterSlot: number, iter2Slot: number): Ev {
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
function trackedFilterLoop(range: Ev, pred: Ev, elem: Ev, initCost: number, predCost: number, stepCost: number, iterSlot: number, iter2Slot: number): Ev {
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
function trackedMapInsertLoop(
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

// Shared with the comprehensions extension (cel.@mapInsert).
export { MAP_INSERT, mapInsertInPlace } from "./plan-closures.js";
