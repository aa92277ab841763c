/**
 * Planning names: locals of comprehensions and blocks, variables' frame slots, constants,
 * qualified names resolved as cel-go does (longest first, under the container's prefixes),
 * and field selection.
 */
import type { Expr, SelectExpr } from "./ast.js";
import { selectField } from "./runtime/access.js";
import { BUILTIN_TYPE_NAMES, OPTIONAL_NAME } from "./types.js";
import type { CelValue } from "./values.js";
import { BINDINGS, IS_ACTIVATION, OPTIONAL_TYPE, UNBOUND, UNRESOLVED, accuReader, lazyReader, loadVar, noSuchAttribute, readVar, slotReader, type Ev, type Local } from "./plan-frame.js";
import { MAX_SCANNED_VARS, type NameCandidate } from "./plan-env.js";
import { chainFields, constantOf, isRootScoped, presenceTest, select1, select2, selectN, slotHas, slotSelect1, slotSelect2, slotSelectN } from "./plan-closures.js";
import { Planner } from "./plan-core.js";

declare module "./plan-core.js" {
  interface Planner {
    lookupLocal(name: string): Local | undefined;
    slotOf(name: string): number;
    readLocal(l: Local): Ev;
    staticIdent(name: string): { value: CelValue } | undefined;
    findStaticIdent(name: string): { value: CelValue } | undefined;
    candidateNames(name: string): string[];
    ident(id: number, name: string): Ev;
    identTarget(id: number, name: string): Local | string | undefined;
    identConstant(id: number, name: string): Ev;
    readsBinding(name: string): boolean;
    resolveNames(cands: readonly NameCandidate[]): Ev;
    qualifiedChain(e: Expr): string[] | undefined;
    select(e: Extract<Expr, { kind: "select" }>): Ev;
    resolvedByName(e: Extract<Expr, { kind: "select" }>): boolean;
  }
}


Planner.prototype.lookupLocal = function (this: Planner, name: string): Local | undefined {
  for (let s = this.scope; s !== undefined; s = s.parent) {
    const l = s.get(name);
    if (l !== undefined) return l;
  }
  return undefined;
};

Planner.prototype.slotOf = function (this: Planner, name: string): number {
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
};

Planner.prototype.readLocal = function (this: Planner, l: Local): Ev {
  const slot = l.slot;
  const lazy = l.lazy;
  // (Closures made by functions of their own: see `functionCall`.)
  if (lazy !== undefined) return lazyReader(slot, lazy);
  return l.accu ? accuReader(slot) : slotReader(slot);
};

/** A name that is not a variable: a type name or a provider constant (enum value). */
Planner.prototype.staticIdent = function (this: Planner, name: string): { value: CelValue } | undefined {
  let r = this.cache.staticIdents.get(name);
  if (r === undefined) {
    r = this.findStaticIdent(name) ?? null;
    this.cache.staticIdents.set(name, r);
  }
  return r ?? undefined;
};

Planner.prototype.findStaticIdent = function (this: Planner, name: string): { value: CelValue } | undefined {
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
};

/** cel-go's container resolution: `a.b` in container `x.y` → `x.y.a.b`, `x.a.b`, `a.b`. */
Planner.prototype.candidateNames = function (this: Planner, name: string): string[] {
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
};

Planner.prototype.ident = function (this: Planner, id: number, name: string): Ev {
  const t = this.identTarget(id, name);
  if (t === undefined) return this.identConstant(id, name);
  if (typeof t !== "string") return this.readLocal(t);
  // A variable read again reads through the same closure (one a plan, for the last variable read).
  if (t === this.readerName) return this.reader!;
  const r = readVar(this.slotOf(t), t);
  this.readerName = t;
  this.reader = r;
  return r;
};

/**
 * What an identifier reads, as `ident` plans it: a local, the name of a global read from
 * the bindings (checked ASTs), or undefined for anything else (a constant, a type name,
 * a name resolved at run time in an unchecked AST: see `identConstant`).
 */
Planner.prototype.identTarget = function (this: Planner, id: number, name: string): Local | string | undefined {
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
};

/** An identifier `identTarget` leaves: a checked constant or type name, or an unchecked global. */
Planner.prototype.identConstant = function (this: Planner, id: number, name: string): Ev {
  if (this.refs === undefined) return this.resolveNames([{ names: this.candidateNames(name), fields: [] }]);
  const ref = this.refs.get(id);
  if (ref !== undefined && ref.value !== undefined) return constantOf(ref.value);
  const refName = ref?.name ?? name;
  return constantOf(this.staticIdent(isRootScoped(refName) ? refName.slice(1) : refName)!.value);
};

/**
 * Whether a global name (checked ASTs) is read from the bindings: a variable, or a name
 * that is nothing else (unbound at run time), rather than a type name or a constant.
 */
Planner.prototype.readsBinding = function (this: Planner, name: string): boolean {
  const cache = this.cache;
  // The variable found last in this environment is known without a Map lookup (most
  // expressions of an environment read the same variable: `object`, `self`, …).
  if (name === cache.lastVariable) return true;
  if (this.env.variables.has(name)) {
    cache.lastVariable = name;
    return true;
  }
  return this.staticIdent(name) === undefined;
};

/**
 * Run-time resolution among candidate names (unchecked ASTs): the first bound
 * variable wins, else a type name or constant when no fields remain to select.
 */
Planner.prototype.resolveNames = function (this: Planner, cands: readonly NameCandidate[]): Ev {
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
};

/** `a.b.c` as a list of names when it is a chain of selections on a non-local identifier. */
Planner.prototype.qualifiedChain = function (this: Planner, e: Expr): string[] | undefined {
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
};

Planner.prototype.select = function (this: Planner, e: Extract<Expr, { kind: "select" }>): Ev {
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
};

/** Whether a selection is read as (part of) a qualified name rather than a field selection. */
Planner.prototype.resolvedByName = function (this: Planner, e: Extract<Expr, { kind: "select" }>): boolean {
  const ref = this.refs?.get(e.id);
  if (ref !== undefined) return ref.name !== undefined || ref.value !== undefined;
  return this.refs === undefined && this.qualifiedChain(e) !== undefined;
};
