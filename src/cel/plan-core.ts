/**
 * The planner's state and its entry points (`expr`, `plainExpr`), literals and the attribute tests
 * the other concerns share. AST → closures; see planner.ts for the frame and the program.
 */
import { Op, type CallExpr, type Expr, type SelectExpr } from "./ast.js";
import type { CheckedExpr } from "./checked.js";
import type { FunctionDecl, Impl, OverloadDecl } from "./decls.js";
import type { Env } from "./env.js";
import { CelEvalError } from "./errors.js";
import { inList, inMap, optIndex, optSelect, selectField } from "./runtime/access.js";
import { candidatesOf } from "./runtime/dispatch.js";
import { celEquals } from "./runtime/equality.js";
import { compileRegex } from "./std/strings.js";
import type { RE2JS } from "@bufbuild/re2";
import { BUILTIN_TYPE_NAMES, OPTIONAL_NAME } from "./types.js";
import { CelObject, CelOptional, type CelMapKey, type CelValue } from "./values.js";
import { LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR, STRUCT_CREATE_BASE_COST, VARIABLE_COST_OVERLOADS, absorbable, actualSize, codePoints, equalityCost, stdCallCost, stdCostFunction } from "./cost-runtime.js";
import { BINDINGS, FIRST_SLOT, IS_ACTIVATION, NO_OVERLOAD_LOGIC, OPTIONAL_TYPE, Scope, UNBOUND, UNRESOLVED, accuReader, lazyReader, loadVar, noSuchAttribute, readVar, slotReader, type Ev, type Local } from "./plan-frame.js";
import { ADD_FAST, CONCAT, LAST_ADD, RECEIVER_TRAVERSAL, charge, charged, discounted, refundAbsent } from "./plan-cost-state.js";
import { BLOCK, EMPTY_FRAME, MAX_CACHED_NAMES, MAX_SCANNED_VARS, NO_COSTS, NO_NAMES, NO_OVERLOADS, NO_SLOTS, U_EQUALS, U_IN, U_INDEX, U_NOT, U_NOT_EQUALS, costData, envCache, type CostData, type DeclShapes, type EnvCache, type NameCandidate, type OverloadEntry } from "./plan-env.js";
import { CONVERSIONS, SINGLETON_BOUND, STD_EQUALS, STD_IN, STD_INDEX, STD_NOT, callDirect, callDispatch, chainFields, constOf, constantList, constantMap, constantOf, containsOpen, emptyList, equals, equalsConst, equalsConstRight, equalsInt, index, indexByString, indexOptional, intConst, isOpenType, isRootScoped, list1, list2, listN, mapBuilder, noOverloadCall, notEquals, notEqualsConst, notEqualsConstRight, optionalList, presenceTest, regexCall, select1, select2, selectN, slotHas, slotSelect1, slotSelect2, slotSelectN, trackedRegexCall, uintOf } from "./plan-closures.js";

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

  /** Names of functions some overload of which has a library cost rule. */
  costedFunctions(): Set<string> {
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
  costOverloadId(e: CallExpr): string {
    const ids = this.refs?.get(e.id)?.overloadIds;
    return ids !== undefined && ids.length === 1 ? ids[0]! : "";
  }

  /**
   * The whole cost of a subtree when it does not depend on run-time values
   * (no short-circuit, comprehension or size-dependent call inside), else undefined.
   */
  /** `x in []` resolved to `in_list` with constant folding: the constant false (see the `in` case of plainExpr). */
  inEmptyList(e: CallExpr): boolean {
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

  staticCost(e: Expr): number | undefined {
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

  staticCallCost(e: CallExpr): number | undefined {
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
  fixedCallCost(e: CallExpr): number {
    if (this.costedFunctions().has(e.fn)) return -1;
    const id = this.costOverloadId(e);
    if (VARIABLE_COST_OVERLOADS.has(id)) return -1;
    return 1;
  }

  /** `x in [constant primitives]` that cel-go's optimizer turns into a set lookup (cost 0). */
  foldedMembership(rhs: Expr): boolean {
    if (!this.folding || rhs.kind !== "list" || !this.isConstLiteral(rhs)) return false;
    return rhs.elements.every((x) => x.kind === "const" && x.value.kind !== "bytes");
  }

  /** Whether the checker typed the node with a type whose values have size 1. */
  scalarTyped(e: Expr): boolean {
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
  ownCost(e: Expr): number {
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

  lookupLocal(name: string): Local | undefined {
    for (let s = this.scope; s !== undefined; s = s.parent) {
      const l = s.get(name);
      if (l !== undefined) return l;
    }
    return undefined;
  }

  slotOf(name: string): number {
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

  readLocal(l: Local): Ev {
    const slot = l.slot;
    const lazy = l.lazy;
    // (Closures made by functions of their own: see `functionCall`.)
    if (lazy !== undefined) return lazyReader(slot, lazy);
    return l.accu ? accuReader(slot) : slotReader(slot);
  }

  /** A name that is not a variable: a type name or a provider constant (enum value). */
  staticIdent(name: string): { value: CelValue } | undefined {
    let r = this.cache.staticIdents.get(name);
    if (r === undefined) {
      r = this.findStaticIdent(name) ?? null;
      this.cache.staticIdents.set(name, r);
    }
    return r ?? undefined;
  }

  findStaticIdent(name: string): { value: CelValue } | undefined {
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
  candidateNames(name: string): string[] {
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

  ident(id: number, name: string): Ev {
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
  identTarget(id: number, name: string): Local | string | undefined {
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
  identConstant(id: number, name: string): Ev {
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
  readsBinding(name: string): boolean {
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
  resolveNames(cands: readonly NameCandidate[]): Ev {
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
  qualifiedChain(e: Expr): string[] | undefined {
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

  select(e: Extract<Expr, { kind: "select" }>): Ev {
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
  resolvedByName(e: Extract<Expr, { kind: "select" }>): boolean {
    const ref = this.refs?.get(e.id);
    if (ref !== undefined) return ref.name !== undefined || ref.value !== undefined;
    return this.refs === undefined && this.qualifiedChain(e) !== undefined;
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

  /**
   * `defer` (tracking only): the caller charges the cost this call would charge
   * itself up front, as far as it is fixed; the amount is left in `pendingOut`.
   */
  call(e: CallExpr, defer = false): Ev {
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
  own(n: number, ev: Ev): Ev {
    return this.tracking ? charged(ev, n) : ev;
  }

  /**
   * `x[?k]` / `x.?f`: cel-go observes a qualifier only when it is present
   * (interpreter/interpretable.go, evalWatchConstQual/evalWatchQual.QualifyIfPresent), so a
   * result of `optional.none()` is not charged the qualifier's 1.
   */
  optionalQualifier(operand: Expr, ev: Ev): Ev {
    if (!this.tracking) return ev;
    const n = this.qualifierCost(operand);
    return (f) => {
      const v = ev(f);
      charge(v instanceof CelOptional && v.value === undefined ? n - 1 : n);
      return v;
    };
  }

  /** A qualifier costs 1, plus 1 for the relative attribute when its operand is not an attribute. */
  qualifierCost(operand: Expr): number {
    if (!this.tracking) return 0; // only charged by the tracking variant
    return 1 + (this.isAttribute(operand) ? 0 : 1);
  }

  /** `==`/`!=` charging ceil(min(size) × 0.1) (cel-go `evalEq`/`evalNe`, overload `equals`). */
  trackedEquality(e: CallExpr, defer = false): Ev {
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
  trackedIn(e: CallExpr): Ev {
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

  /** Whether a library declares overloads of an operator beyond the standard ones (then dispatch normally). */
  userOverloads(slot: number, fn: string, standard: readonly string[]): boolean {
    const known = this.cache.userOverloads;
    let r = known[slot]!;
    if (r === 0) {
      const decl = this.env.functions.get(fn);
      r = decl !== undefined && decl.overloads.some((o) => !standard.includes(o.id) && o.impl !== undefined) ? 2 : 1;
      known[slot] = r;
    }
    return r === 2;
  }

  logical(e: CallExpr, isOr: boolean): Ev {
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

  conditional(e: CallExpr): Ev {
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
  discountable(x: Expr): boolean {
    return this.isAttribute(x) && !(x.kind === "select" && x.testOnly) && !(x.kind === "call" && x.fn === Op.conditional);
  }

  /** A branch with its static cost (less the attribute discount) left to the caller. */
  branchPending(x: Expr): { ev: Ev; pending: number } {
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

  branch(x: Expr): Ev {
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

  equality(e: CallExpr): Ev {
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
  optionalOr(e: CallExpr): Ev | undefined {
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
  namespacedFunction(e: CallExpr): FunctionDecl | undefined {
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

  lookupFunction(name: string): FunctionDecl | undefined {
    if (this.env.container === "" && name.charCodeAt(0) !== 46) return this.env.functions.get(name);
    for (const c of this.candidateNames(name)) {
      const d = this.env.functions.get(c);
      if (d !== undefined) return d;
    }
    return undefined;
  }

  functionCall(e: CallExpr, defer = false): Ev {
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
  trackedCall(
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
  overloadsOf(
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
  byShapeOf(decl: FunctionDecl): (OverloadEntry | undefined)[] {
    let byShape = this.cache.overloads.get(decl);
    if (byShape === undefined) {
      byShape = [];
      this.cache.overloads.set(decl, byShape);
    }
    return byShape;
  }

  /** The function named `name` in the environment, with its overload entries (memoized per environment). */
  declShapes(name: string): DeclShapes | undefined {
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
  stringCall(
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
  chargingImpl(o: OverloadDecl, costId: string, pending: number): Impl {
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
  exprPending(x: Expr): { ev: Ev; pending: number } {
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
  staticPart(x: Expr): { ev: Ev; pending: number } {
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
  constantRegex(name: string, member: boolean, args: readonly Expr[], overloads: readonly { id: string }[]): RE2JS | undefined {
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
  argsInferred(args: readonly Expr[]): boolean {
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
  argsConcrete(args: readonly Expr[]): boolean {
    const types = this.types;
    if (types === undefined) return false;
    for (let i = 0; i < args.length; i++) {
      const t = types.get(args[i]!.id);
      if (t === undefined || containsOpen(t)) return false;
    }
    return true;
  }
}
