/**
 * The planner's state and its entry points (`expr`, `plainExpr`), literals and the attribute tests
 * the other concerns share. AST → closures; see planner.ts for the frame and the program.
 */
import { Op, type Expr, type SelectExpr } from "./ast.js";
import type { CheckedExpr } from "./checked.js";
import type { Env } from "./env.js";
import { CelEvalError } from "./errors.js";
import { optIndex, optSelect, selectField } from "./runtime/access.js";
import { BUILTIN_TYPE_NAMES, OPTIONAL_NAME } from "./types.js";
import { CelOptional, type CelValue } from "./values.js";
import { BINDINGS, FIRST_SLOT, IS_ACTIVATION, OPTIONAL_TYPE, Scope, UNBOUND, UNRESOLVED, accuReader, lazyReader, loadVar, noSuchAttribute, readVar, slotReader, type Ev, type Local } from "./plan-frame.js";
import { charged, refundAbsent } from "./plan-cost-state.js";
import { MAX_SCANNED_VARS, NO_COSTS, NO_NAMES, NO_SLOTS, costData, envCache, type CostData, type EnvCache, type NameCandidate } from "./plan-env.js";
import { CONVERSIONS, chainFields, constantList, constantMap, constantOf, emptyList, index, isRootScoped, list1, list2, listN, mapBuilder, optionalList, presenceTest, select1, select2, selectN, slotHas, slotSelect1, slotSelect2, slotSelectN, uintOf } from "./plan-closures.js";

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
}
