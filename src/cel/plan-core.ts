/**
 * The planner's state and its entry points (`expr`, `plainExpr`), literals and the attribute tests
 * the other concerns share. AST → closures; see planner.ts for the frame and the program.
 */
import { Op, type Expr } from "./ast.js";
import type { CheckedExpr } from "./checked.js";
import type { Env } from "./env.js";
import { CelEvalError } from "./errors.js";
import { optIndex, optSelect } from "./runtime/access.js";
import { OPTIONAL_NAME } from "./types.js";
import { CelOptional, type CelValue } from "./values.js";
import { FIRST_SLOT, Scope, type Ev } from "./plan-frame.js";
import { charged, refundAbsent } from "./plan-cost-state.js";
import { NO_COSTS, NO_NAMES, NO_SLOTS, costData, envCache, type CostData, type EnvCache } from "./plan-env.js";
import { CONVERSIONS, constantList, constantMap, emptyList, index, isRootScoped, list1, list2, listN, mapBuilder, optionalList, uintOf } from "./plan-closures.js";

/**
 * The planner: one per plan (and one more for the cost-tracked variant, planned on first use).
 * Its methods are spread over the plan-*.ts modules by concern, each adding its own to
 * `Planner.prototype` (declared here through interface merging); planner.ts imports them all
 * before planning. Fields are set in the constructor only (see `CompiledProgram`).
 */
export class Planner {
  // (Fields declared, set in the constructor only: a class field initializer is a call of its
  // own and stores every field twice, and every compile makes a planner. See `CompiledProgram`.)
  declare readonly env: Env;
  /**
   * Variables' frame slots: the first variable and its slot (most expressions read one
   * variable: no arrays then), then names and slots in parallel arrays (an expression
   * names few variables; a Map costs more to make than a short scan), then a
   * Map once there are more than {@link MAX_SCANNED_VARS}.
   */
  declare name0: string | undefined;
  declare slot0: number;
  declare varNames: string[];
  declare varSlotNumbers: number[];
  declare varSlots: Map<string, number> | undefined;
  declare nextSlot: number;
  /** The variable read last and its reader (see `ident`). */
  declare readerName: string | undefined;
  declare reader: Ev | undefined;
  /** The innermost scope of locals (comprehensions, blocks) being planned. */
  declare scope: Scope | undefined;
  declare readonly refs: CheckedExpr["referenceMap"] | undefined;
  declare readonly types: CheckedExpr["typeMap"] | undefined;
  declare readonly inferred: CheckedExpr["inferred"];
  declare readonly cache: EnvCache;

  /** Whether closures charge costs (the tracking variant); toggled off while planning a static-cost subtree. */
  declare tracking: boolean;
  /**
   * The environment's cost settings (tracking variant only: the untracked one, planned for
   * every program, does without them; kept per environment rather than made per plan).
   */
  declare readonly costs: CostData;
  /** What a deferred call (`plainExpr(x, true)`) left for its caller to charge. */
  declare pendingOut: number;
  /** The closures of `x + y` this plan's `stringCall` made (see `LAST_ADD`); made on first use. */
  declare addFast: Set<Ev> | undefined;

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
    this.addFast = undefined;
  }

  get presenceCost(): number {
    return this.costs.presenceCost;
  }

  get folding(): boolean {
    return this.costs.folding;
  }

  get libCosts(): ReadonlyMap<string, import("./decls.js").OverloadCost> {
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
  qualifiesOptional(e: Expr): boolean {
    let operand: Expr | undefined;
    if (e.kind === "select" && !e.testOnly) operand = e.operand;
    else if (e.kind === "call" && e.fn === Op.index && e.target === undefined && e.args.length === 2) operand = e.args[0];
    const t = operand === undefined ? undefined : this.types?.get(operand.id);
    return t !== undefined && t.name === OPTIONAL_NAME;
  }

  /** Whether cel-go plans this node as an attribute (so a qualifier on it adds no attribute cost of its own). */
  isAttribute(e: Expr): boolean {
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
  isStaticName(id: number, name: string): boolean {
    if (this.refs === undefined) return false;
    const refName = this.refs.get(id)?.name ?? name;
    if (this.lookupLocal(refName) !== undefined) return false;
    const n = isRootScoped(refName) ? refName.slice(1) : refName;
    return !this.env.variables.has(n) && this.staticIdent(n) !== undefined;
  }

  /** cel-go `OptOptimize` folds this literal or conversion into a constant. */
  isConstLiteral(e: Expr): boolean {
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

  plainExpr(e: Expr, defer = false): Ev {
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

  list(elements: readonly Expr[], optionalIndices: readonly number[]): Ev {
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

  map(e: Extract<Expr, { kind: "map" }>): Ev {
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

  struct(e: Extract<Expr, { kind: "struct" }>): Ev {
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

  resolveTypeName(id: number, written: string): string {
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
}
