/**
 * The evaluation frame of a planned program (see planner.ts): slot layout, the markers of
 * unresolved and unbound variable slots, readers of variable, local and `cel.@block` slots,
 * and the scopes of locals the planner keeps while planning comprehensions and blocks.
 */
import { CelEvalError } from "./errors.js";
import { CelType, DYN, OPTIONAL_NAME } from "./types.js";
import type { CelValue } from "./values.js";
import { absorbable } from "./cost-runtime.js";
import type { Activation } from "./planner.js";

// biome-ignore lint: the frame holds values of every kind.
export type Frame = any[];
export type Ev = (f: Frame) => CelValue;

/** Marks a variable slot not yet resolved in this evaluation. */
export const UNRESOLVED: unknown = Symbol("unresolved");
export const BINDINGS = 0;
export const IS_ACTIVATION = 1;
export const FIRST_SLOT = 2;

export const hasOwn = Object.prototype.hasOwnProperty;
export const PROTO_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), "__proto__"]);
export const OPTIONAL_TYPE = new CelType("opaque", OPTIONAL_NAME, [DYN]);
export const EMPTY: Record<string, CelValue> = Object.freeze({}) as Record<string, CelValue>;

/** A frame of `size` slots, every one unresolved (a packed array). */
/** Frame templates by size: only ever copied (`slice`), never written, so shared. */
export const FRAME_TEMPLATES: Frame[] = [];

export function unresolvedFrame(size: number): Frame {
  let t = FRAME_TEMPLATES[size];
  if (t === undefined) {
    t = [];
    for (let i = 0; i < size; i++) t.push(UNRESOLVED);
    if (size < 256) {
      while (FRAME_TEMPLATES.length < size) FRAME_TEMPLATES.push(undefined as unknown as Frame);
      FRAME_TEMPLATES[size] = t;
    }
  }
  return t;
}

/**
 * Readers of a frame slot (comprehension variables), by slot: they depend on the slot
 * number alone, so every program shares them (planning a local read allocates nothing).
 */
export const SLOT_READERS: Ev[] = [];
export const ACCU_READERS: Ev[] = [];
/** Slots up to this many have shared readers (beyond, each read makes its own). */
export const SHARED_READERS = 256;

export function slotReader(slot: number): Ev {
  let r = SLOT_READERS[slot];
  if (r === undefined) {
    r = (f) => f[slot];
    if (slot < SHARED_READERS) {
      while (SLOT_READERS.length < slot) SLOT_READERS.push(undefined as unknown as Ev);
      SLOT_READERS[slot] = r;
    }
  }
  return r;
}

/** An accumulator's reader: it may hold an error value, which reading rethrows. */
export function accuReader(slot: number): Ev {
  let r = ACCU_READERS[slot];
  if (r === undefined) {
    r = (f) => {
      const v = f[slot];
      if (v instanceof CelEvalError) throw v;
      return v;
    };
    if (slot < SHARED_READERS) {
      while (ACCU_READERS.length < slot) ACCU_READERS.push(undefined as unknown as Ev);
      ACCU_READERS[slot] = r;
    }
  }
  return r;
}

/** A `cel.@block` slot's reader: computes the slot on first read in each evaluation of its block. */
export function lazyReader(slot: number, lazy: Ev): Ev {
  return (f) => {
    let v = f[slot];
    if (v === UNRESOLVED) {
      try {
        v = lazy(f);
      } catch (x) {
        if (!absorbable(x)) throw x;
        v = x;
      }
      f[slot] = v;
    }
    if (v instanceof CelEvalError) throw v;
    return v;
  };
}

/** Marks a variable slot resolved to "not bound" in this evaluation. */
export const UNBOUND: unknown = Symbol("unbound");

/** The bound value of a variable, or undefined (either way cached in its slot). */
export function loadVar(f: Frame, slot: number, name: string): CelValue | undefined {
  const b = f[BINDINGS];
  let v: CelValue | undefined;
  if (f[IS_ACTIVATION] === true) v = (b as Activation).resolve(name);
  // Names that Object.prototype defines ("constructor", "__proto__", ...) must be own
  // properties; any other name is read directly (inherited getters work as lazy bindings).
  else if (PROTO_NAMES.has(name)) v = hasOwn.call(b, name) ? (b as Record<string, CelValue>)[name] : undefined;
  else v = (b as Record<string, CelValue | undefined>)[name];
  f[slot] = v === undefined ? UNBOUND : v;
  return v;
}

export function noSuchAttribute(names: string): CelEvalError {
  return new CelEvalError(`no such attribute(s): ${names}`);
}

/** A variable's value in this evaluation (read from the bindings on first use); throws when unbound. */
export function varValue(f: Frame, slot: number, name: string): CelValue {
  const v = f[slot];
  if (v !== UNRESOLVED && v !== UNBOUND) return v;
  const r = v === UNBOUND ? undefined : loadVar(f, slot, name);
  if (r === undefined) throw noSuchAttribute(name);
  return r;
}

export function readVar(slot: number, name: string): Ev {
  return (f) => varValue(f, slot, name);
}

export const NO_OVERLOAD_LOGIC = "no such overload";

export interface Local {
  readonly slot: number;
  /** Accumulators may hold an error value (stored as the CelEvalError); reading rethrows it. */
  readonly accu: boolean;
  /** A `cel.@block` slot: computed on first read in each evaluation of its block. */
  readonly lazy?: Ev;
}

/**
 * The locals a comprehension or block introduces: three in fields (a comprehension has two or
 * three; a Map costs more to make), any more in a Map. A name set again replaces its local.
 */
export class Scope {
  /** The enclosing scope (the planner's scopes are a chain, innermost first: no array per plan). */
  declare readonly parent: Scope | undefined;
  // (Fields declared, set in the constructor only: see `CompiledProgram`.)
  declare private n0: string | undefined;
  declare private l0: Local | undefined;
  declare private n1: string | undefined;
  declare private l1: Local | undefined;
  declare private n2: string | undefined;
  declare private l2: Local | undefined;
  declare private more: Map<string, Local> | undefined;

  constructor(parent: Scope | undefined) {
    this.parent = parent;
    this.n0 = undefined;
    this.l0 = undefined;
    this.n1 = undefined;
    this.l1 = undefined;
    this.n2 = undefined;
    this.l2 = undefined;
    this.more = undefined;
  }

  get(name: string): Local | undefined {
    if (name === this.n0) return this.l0;
    if (name === this.n1) return this.l1;
    if (name === this.n2) return this.l2;
    return this.more?.get(name);
  }

  set(name: string, l: Local): void {
    if (this.n0 === undefined || this.n0 === name) {
      this.n0 = name;
      this.l0 = l;
    } else if (this.n1 === undefined || this.n1 === name) {
      this.n1 = name;
      this.l1 = l;
    } else if (this.n2 === undefined || this.n2 === name) {
      this.n2 = name;
      this.l2 = l;
    } else (this.more ??= new Map()).set(name, l);
  }
}
