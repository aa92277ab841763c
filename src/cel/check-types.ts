/**
 * Type relations used by the checker: assignability with type-parameter
 * unification, substitution, "most general" joins and cel-go's type spelling.
 *
 * The rules follow cel-go's checker (`checker/types.go`) and `common/types`:
 *
 * - `dyn`, `any` and the error type are wildcards;
 * - a wrapper type (`wrapper(int)`) behaves like its primitive (the two are
 *   mutually assignable and "exactly equal") and additionally accepts `null`;
 * - `null` is assignable to messages, opaque types, `any`, timestamps,
 *   durations and wrappers;
 * - all `type` types are assignable to one another;
 * - lists, maps and opaque types unify their parameters.
 */
import {
  ANY,
  BOOL,
  BYTES,
  type CelType,
  DOUBLE,
  DURATION,
  DYN,
  ERROR,
  INT,
  NULL_TYPE,
  STRING,
  TIMESTAMP,
  TYPE,
  type TypeKind,
  UINT,
  listType,
  mapType,
  opaqueType,
  OPTIONAL_NAME,
  typeType,
  CelType as CelTypeClass,
} from "./types.js";

/** The kind cel-go would see: a wrapper is its primitive's kind. */
export function kindOf(t: CelType): TypeKind {
  return t.kind === "wrapper" ? t.params[0]!.kind : t.kind;
}

/** cel-go's run-time type name (`TypeName()`): a wrapper reports its primitive's name. */
function typeNameOf(t: CelType): string {
  return t.kind === "wrapper" ? t.params[0]!.name : t.name;
}

const NO_PARAMS: readonly CelType[] = [];

/** Parameters as cel-go sees them (a wrapper has none). */
function paramsOf(t: CelType): readonly CelType[] {
  return t.kind === "wrapper" ? NO_PARAMS : t.params;
}

export function isDyn(t: CelType): boolean {
  const k = t.kind;
  return k === "dyn" || k === "any";
}

export function isError(t: CelType): boolean {
  return t.kind === "error";
}

export function isDynOrError(t: CelType): boolean {
  const k = t.kind;
  return k === "dyn" || k === "any" || k === "error";
}

/** `optional_type(T)` (the parameterless `optional_type` type value is not an optional). */
export function isOptional(t: CelType): boolean {
  return t.kind === "opaque" && t.name === OPTIONAL_NAME && t.params.length === 1;
}

/** cel-go's `IsExactType`: same kind, name and parameters (wrappers equal their primitive). */
export function isExactType(a: CelType, b: CelType): boolean {
  return sameType(a, b, true);
}

/** cel-go's `IsEquivalentType`: {@link isExactType} except that type parameter names are ignored. */
export function isExactTypeIgnoringParamNames(a: CelType, b: CelType): boolean {
  return sameType(a, b, false);
}

function sameType(a: CelType, b: CelType, checkParamNames: boolean): boolean {
  if (a === b) return true;
  const kind = kindOf(a);
  if (kind !== kindOf(b)) return false;
  const pa = paramsOf(a);
  const pb = paramsOf(b);
  if (pa.length !== pb.length) return false;
  if ((checkParamNames || kind !== "typeParam") && typeNameOf(a) !== typeNameOf(b)) return false;
  for (let i = 0; i < pa.length; i++) {
    if (!sameType(pa[i]!, pb[i]!, checkParamNames)) return false;
  }
  return true;
}

/** `common/types` `isDyn()`: dyn, any and type parameters. */
function isDynamicTarget(t: CelType): boolean {
  const k = t.kind;
  return k === "dyn" || k === "any" || k === "typeParam";
}

/**
 * `common/types` `Type.IsAssignableType`: whether `target` accepts `from`, without
 * unification (parameters compared by the same rule).
 */
export function typeAccepts(target: CelType, from: CelType): boolean {
  if (target.kind === "wrapper") {
    // Nullable: null or the wrapped primitive (or a value that is assignable to it).
    return acceptsNull(from) || typeAccepts(target.params[0]!, from);
  }
  if (target === from || isDynamicTarget(target)) return true;
  if (kindOf(target) !== kindOf(from) || typeNameOf(target) !== typeNameOf(from)) return false;
  const pt = paramsOf(target);
  const pf = paramsOf(from);
  if (pt.length !== pf.length) return false;
  for (let i = 0; i < pt.length; i++) {
    if (!typeAccepts(pt[i]!, pf[i]!)) return false;
  }
  return true;
}

/** `NullType.IsAssignableType(from)`. */
function acceptsNull(from: CelType): boolean {
  return from.kind === "null";
}

/** Nullable in the legacy checker's sense, or assignable from null (wrappers). */
function isNullable(t: CelType): boolean {
  switch (t.kind) {
    case "opaque":
    case "message":
    case "any":
    case "duration":
    case "timestamp":
    case "null":
    case "wrapper":
      return true;
    default:
      return isDynamicTarget(t);
  }
}

/**
 * Substitutions for type parameters, keyed by parameter name. Changes are
 * journaled so a failed assignability test can be undone cheaply (cel-go copies
 * the whole mapping instead); the journal also records each new value, so the
 * checker can replay the bindings an overload resolution made.
 */
export class Mapping {
  /**
   * Made once the journal holds more than {@link SCANNED_BINDINGS} entries; before that a
   * variable's value is its last journal entry's (most expressions bind a few type parameters,
   * and a Map costs more to make than a short scan).
   */
  private map: Map<string, CelType> | undefined;
  /** The journal, three slots an entry: variable, previous value (or undefined), new value. */
  private readonly trail: (CelType | undefined)[] = [];

  find(t: CelType): CelType | undefined {
    if (t.kind !== "typeParam") return undefined;
    const map = this.map;
    if (map !== undefined) return map.get(t.name);
    const trail = this.trail;
    const name = t.name;
    for (let i = trail.length - 3; i >= 0; i -= 3) if (trail[i]!.name === name) return trail[i + 2];
    return undefined;
  }

  add(param: CelType, to: CelType): void {
    const trail = this.trail;
    let map = this.map;
    if (map === undefined && trail.length >= SCANNED_BINDINGS * 3) {
      map = new Map();
      for (let i = 0; i < trail.length; i += 3) map.set(trail[i]!.name, trail[i + 2]!);
      this.map = map;
    }
    if (map === undefined) {
      trail.push(param, this.find(param), to);
      return;
    }
    trail.push(param, map.get(param.name), to);
    map.set(param.name, to);
  }

  mark(): number {
    return this.trail.length / 3;
  }

  rollback(mark: number): void {
    const trail = this.trail;
    const end = mark * 3;
    if (trail.length === end) return;
    const map = this.map;
    if (map !== undefined) {
      for (let i = trail.length - 3; i >= end; i -= 3) {
        const prev = trail[i + 1];
        if (prev === undefined) map.delete(trail[i]!.name);
        else map.set(trail[i]!.name, prev);
      }
    }
    // (pop, not `length = end`: a length store is a runtime call in optimized code.)
    while (trail.length > end) trail.pop();
  }

  /** The variable bound by journal entry `i`. */
  trailVar(i: number): CelType {
    return this.trail[i * 3]!;
  }

  /** The value bound by journal entry `i`. */
  trailValue(i: number): CelType {
    return this.trail[i * 3 + 2]!;
  }

  get size(): number {
    if (this.map !== undefined) return this.map.size;
    const names = new Set<string>();
    for (let i = 0; i < this.trail.length; i += 3) names.add(this.trail[i]!.name);
    return names.size;
  }
}

/** Journal entries scanned by {@link Mapping.find} before a Map is made. */
const SCANNED_BINDINGS = 8;

// ---------------------------------------------------------------------------
// Fresh type variables and resolution templates

const VAR_POOL: CelType[] = [];
const VAR_POOL_SIZE = 4096;

/**
 * The checker's fresh type variable number `n` (`_var<n>`). The first few
 * thousand are shared singletons, so that the checker can tell its own
 * variables from type parameters a declaration spells the same way.
 */
export function freshTypeVar(n: number): CelType {
  let t = VAR_POOL[n];
  if (t === undefined) {
    t = new CelTypeClass("typeParam", `_var${n}`);
    if (n < VAR_POOL_SIZE) {
      VAR_POOL[n] = t;
    }
  }
  return t;
}

/** The number of a pooled fresh type variable, or -1 for any other type. */
export function freshVarIndex(t: CelType): number {
  // The number is read back from the name `_var<n>` and the pool confirms the object (cheaper
  // than a Map lookup by object).
  if (t.kind !== "typeParam") return -1;
  const name = t.name;
  const len = name.length;
  if (len < 5 || len > 8 || name.charCodeAt(0) !== 95 /* _ */ || name.charCodeAt(1) !== 118 /* v */) return -1;
  let n = 0;
  for (let i = 4; i < len; i++) {
    const d = name.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n < VAR_POOL_SIZE && VAR_POOL[n] === t ? n : -1;
}

/**
 * A type variable inside a cached overload resolution: an argument's free
 * variable (by order of first appearance) or a variable the resolution itself
 * created (relative to the first number it used).
 */
export class Placeholder extends CelTypeClass {
  constructor(
    readonly fromArg: boolean,
    readonly index: number,
  ) {
    super("typeParam", fromArg ? `?a${index}` : `?f${index}`);
  }
}

const ARG_PLACEHOLDERS: Placeholder[] = [];
const FRESH_PLACEHOLDERS: Placeholder[] = [];

function placeholder(fromArg: boolean, index: number): Placeholder {
  const pool = fromArg ? ARG_PLACEHOLDERS : FRESH_PLACEHOLDERS;
  let p = pool[index];
  if (p === undefined) {
    p = new Placeholder(fromArg, index);
    pool[index] = p;
  }
  return p;
}

/**
 * `t` with the argument variables `argVars` and the fresh variables numbered
 * from `base` replaced by placeholders; undefined when it mentions any other
 * type variable.
 */
export function toTemplate(t: CelType, argVars: readonly CelType[], base: number): CelType | undefined {
  if (t.kind === "typeParam") {
    const a = argVars.indexOf(t);
    if (a >= 0) return placeholder(true, a);
    const n = freshVarIndex(t);
    if (n >= base) return placeholder(false, n - base);
    return undefined;
  }
  if (t.params.length === 0) return t;
  let ps: CelType[] | undefined;
  for (let i = 0; i < t.params.length; i++) {
    const p = t.params[i]!;
    const s = toTemplate(p, argVars, base);
    if (s === undefined) return undefined;
    if (s !== p && ps === undefined) ps = t.params.slice(0, i);
    if (ps !== undefined) ps.push(s);
  }
  return ps === undefined ? t : new CelTypeClass(t.kind, t.name, ps);
}

/** Whether a template mentions a placeholder. */
export function hasPlaceholder(t: CelType): boolean {
  if (t instanceof Placeholder) return true;
  for (const p of t.params) if (hasPlaceholder(p)) return true;
  return false;
}

/** The inverse of {@link toTemplate} for this call's argument variables and first fresh number. */
export function fromTemplate(t: CelType, argVars: readonly CelType[], base: number): CelType {
  if (t instanceof Placeholder) return t.fromArg ? argVars[t.index]! : freshTypeVar(base + t.index);
  if (t.params.length === 0) return t;
  let ps: CelType[] | undefined;
  for (let i = 0; i < t.params.length; i++) {
    const p = t.params[i]!;
    const s = fromTemplate(p, argVars, base);
    if (s !== p && ps === undefined) ps = t.params.slice(0, i);
    if (ps !== undefined) ps.push(s);
  }
  return ps === undefined ? t : new CelTypeClass(t.kind, t.name, ps);
}

/** Kinds whose names are unique among them, so the name alone keys a parameterless type. */
const NAME_KEYED: ReadonlySet<string> = new Set([
  "dyn",
  "null",
  "bool",
  "int",
  "uint",
  "double",
  "string",
  "bytes",
  "timestamp",
  "duration",
  "error",
  "any",
]);

/**
 * Appends a structural key of `t` to `key` for the overload resolution cache:
 * the checker's type variables are numbered by first appearance (collected into
 * `argVars`), a bound one followed at its first appearance by the key of its
 * substitution in `m`; returns undefined when `t` holds a type variable the
 * checker did not create (`below`: the next fresh number).
 */
export function appendTypeKey(key: string, t: CelType, m: Mapping, argVars: CelType[], below: number): string | undefined {
  const kind = t.kind;
  if (kind === "typeParam") {
    const n = freshVarIndex(t);
    if (n < 0 || n >= below) return undefined;
    let a = argVars.indexOf(t);
    if (a >= 0) return `${key}?${a}`;
    a = argVars.length;
    if (a >= MAX_ARG_VARS) return undefined;
    argVars.push(t);
    const sub = m.find(t);
    if (sub === undefined) return `${key}?${a}`;
    // A bound variable: what it is bound to is part of the structure (it may be rebound).
    const k = appendTypeKey(`${key}?${a}=(`, sub, m, argVars, below);
    return k === undefined ? undefined : `${k})`;
  }
  const params = t.params;
  if (params.length === 0) {
    if (NAME_KEYED.has(kind)) return key + t.name;
    return `${key}${kind}:${t.name}`;
  }
  let k: string | undefined = `${key}${kind}:${t.name}(`;
  for (let i = 0; i < params.length; i++) {
    if (i > 0) k += ",";
    k = appendTypeKey(k, params[i]!, m, argVars, below);
    if (k === undefined) return undefined;
  }
  return `${k})`;
}

/** At most this many type variables in the arguments of a cached resolution. */
const MAX_ARG_VARS = 64;

/** Whether `t` is a singleton type whose identity is its structure (identity tests: cheaper than a set lookup). */
function isStable(t: CelType): boolean {
  return (
    t === DYN ||
    t === STRING ||
    t === INT ||
    t === BOOL ||
    t === DOUBLE ||
    t === UINT ||
    t === BYTES ||
    t === NULL_TYPE ||
    t === TIMESTAMP ||
    t === DURATION ||
    t === ERROR ||
    t === ANY ||
    t === TYPE
  );
}
const LIST_ATOMS = new Map<CelType, CelType>();
const MAP_ATOMS = new Map<CelType, Map<CelType, CelType>>();
const BOUND_ATOMS = new Map<CelType, Map<CelType, CelType>>();
const MAX_ATOMS = 10_000;

/**
 * A canonical object for `t` (same structure, same object), for identity-keyed
 * caches: singletons stand for themselves, the checker's type variables for
 * argument placeholders numbered by first appearance (collected into
 * `argVars`, as {@link appendTypeKey} numbers them; a bound one, at its first
 * appearance, for an interned pair of placeholder and substitution), lists and
 * maps of such types for interned ones. Undefined for anything else, and where
 * {@link appendTypeKey} gives up.
 */
export function typeAtom(t: CelType, m: Mapping, argVars: CelType[], below: number): CelType | undefined {
  if (isStable(t)) return t;
  switch (t.kind) {
    case "typeParam": {
      const n = freshVarIndex(t);
      if (n < 0 || n >= below) return undefined;
      let a = argVars.indexOf(t);
      // A variable seen before: its number (first appearances are numbered in order, so this is unambiguous).
      if (a >= 0) return placeholder(true, a);
      a = argVars.length;
      if (a >= MAX_ARG_VARS) return undefined;
      argVars.push(t);
      const p = placeholder(true, a);
      const sub = m.find(t);
      if (sub === undefined) return p;
      // A bound variable: what it is bound to is part of the structure (it may be rebound).
      const s = typeAtom(sub, m, argVars, below);
      if (s === undefined) return undefined;
      let byBinding = BOUND_ATOMS.get(p);
      if (byBinding === undefined) {
        byBinding = new Map();
        BOUND_ATOMS.set(p, byBinding);
      }
      let b = byBinding.get(s);
      if (b === undefined) {
        if (byBinding.size > MAX_ATOMS) byBinding.clear();
        b = new CelTypeClass("typeParam", `${p.name}=`, [s]);
        byBinding.set(s, b);
      }
      return b;
    }
    case "list": {
      if (t.name !== "list" || t.params.length !== 1) return undefined;
      const e = typeAtom(t.params[0]!, m, argVars, below);
      if (e === undefined) return undefined;
      let l = LIST_ATOMS.get(e);
      if (l === undefined) {
        if (LIST_ATOMS.size > MAX_ATOMS) LIST_ATOMS.clear();
        l = new CelTypeClass("list", "list", [e]);
        LIST_ATOMS.set(e, l);
      }
      return l;
    }
    case "map": {
      if (t.name !== "map" || t.params.length !== 2) return undefined;
      const k = typeAtom(t.params[0]!, m, argVars, below);
      if (k === undefined) return undefined;
      const v = typeAtom(t.params[1]!, m, argVars, below);
      if (v === undefined) return undefined;
      let byValue = MAP_ATOMS.get(k);
      if (byValue === undefined) {
        if (MAP_ATOMS.size > MAX_ATOMS) MAP_ATOMS.clear();
        byValue = new Map();
        MAP_ATOMS.set(k, byValue);
      }
      let a = byValue.get(v);
      if (a === undefined) {
        a = new CelTypeClass("map", "map", [k, v]);
        byValue.set(v, a);
      }
      return a;
    }
    default:
      return undefined;
  }
}

/** Kinds for which a differing kind rules out assignability outright (see {@link quickKind}). */
const QUICK_KINDS: ReadonlySet<string> = new Set([
  "bool",
  "bytes",
  "double",
  "int",
  "string",
  "uint",
  "duration",
  "timestamp",
  "list",
  "map",
]);

/**
 * The kind to compare for a quick "cannot be assignable" test, or undefined
 * when the test does not apply (type parameters, dyn, any, error, null,
 * messages, opaque types, types). Two types whose quick kinds are both
 * defined and differ are never assignable either way by
 * {@link internalIsAssignable}: the primitive kinds (and wrappers, which have
 * their primitive's kind) only accept their own kind, lists only lists and
 * maps only maps.
 */
export function quickKind(t: CelType): string | undefined {
  const k = kindOf(t);
  return QUICK_KINDS.has(k) ? k : undefined;
}

/** Whether `t1` is assignable to `t2`, recording substitutions in `m` (not undone on failure). */
export function internalIsAssignable(m: Mapping, t1: CelType, t2: CelType): boolean {
  const kind1 = t1.kind;
  const kind2 = t2.kind;
  if (kind2 === "typeParam") {
    const r = isValidTypeSubstitution(m, t1, t2);
    if ((r & VALID) !== 0) return true;
    if ((r & HAS_SUB) !== 0) return false;
  }
  if (kind1 === "typeParam") {
    return (isValidTypeSubstitution(m, t2, t1) & VALID) !== 0;
  }
  if (isDynOrError(t1) || isDynOrError(t2)) return true;
  if (kind1 === "null") return isNullable(t2);
  if (kind2 === "null") return isNullable(t1);
  switch (kindOf(t1)) {
    case "bool":
    case "bytes":
    case "double":
    case "int":
    case "string":
    case "uint":
    case "any":
    case "duration":
    case "timestamp":
    case "message":
      return typeAccepts(t2, t1);
    case "type":
      return kindOf(t2) === "type";
    case "opaque":
    case "list":
    case "map":
      return (
        kind1 === kind2 && t1.name === t2.name && internalIsAssignableList(m, t1.params, t2.params)
      );
    default:
      return false;
  }
}

export function internalIsAssignableList(m: Mapping, l1: readonly CelType[], l2: readonly CelType[]): boolean {
  if (l1.length !== l2.length) return false;
  for (let i = 0; i < l1.length; i++) {
    if (!internalIsAssignable(m, l1[i]!, l2[i]!)) return false;
  }
  return true;
}

const VALID = 1;
const HAS_SUB = 2;

/**
 * Whether `t2` (a type parameter) or its substitution can stand for `t1`; binds it when free.
 * Returns the flags {@link VALID} and {@link HAS_SUB}.
 */
function isValidTypeSubstitution(m: Mapping, t1: CelType, t2: CelType): number {
  if (isExactType(t1, t2)) return VALID | HAS_SUB;
  const sub = m.find(t2);
  if (sub !== undefined) {
    if (isExactType(t1, sub)) return VALID | HAS_SUB;
    if (internalIsAssignable(m, t1, sub)) {
      const general = mostGeneral(t1, sub);
      if (notReferencedIn(m, t2, general)) m.add(t2, general);
      return VALID | HAS_SUB;
    }
    return HAS_SUB;
  }
  if (notReferencedIn(m, t2, t1)) {
    m.add(t2, t1);
    return VALID;
  }
  return 0;
}

/** The occurs check: `t` does not appear in `within` (through substitutions). */
function notReferencedIn(m: Mapping, t: CelType, within: CelType): boolean {
  if (isExactType(t, within)) return false;
  switch (within.kind) {
    case "typeParam": {
      const sub = m.find(within);
      return sub === undefined ? true : notReferencedIn(m, t, sub);
    }
    case "opaque":
    case "list":
    case "map":
    case "type":
      for (const p of within.params) {
        if (!notReferencedIn(m, t, p)) return false;
      }
      return true;
    default:
      return true;
  }
}

/** Whether `t1` is equal to or less specific (closer to dyn) than `t2`. */
export function isEqualOrLessSpecific(t1: CelType, t2: CelType): boolean {
  if (isDyn(t1) || t1.kind === "typeParam") return true;
  if (isDyn(t2) || t2.kind === "typeParam") return false;
  const kind1 = kindOf(t1);
  if (kind1 !== kindOf(t2)) return false;
  switch (kind1) {
    case "opaque": {
      if (t1.name !== t2.name || t1.params.length !== t2.params.length) return false;
      for (let i = 0; i < t1.params.length; i++) {
        if (!isEqualOrLessSpecific(t1.params[i]!, t2.params[i]!)) return false;
      }
      return true;
    }
    case "list":
      return isEqualOrLessSpecific(t1.params[0]!, t2.params[0]!);
    case "map":
      return isEqualOrLessSpecific(t1.params[0]!, t2.params[0]!) && isEqualOrLessSpecific(t1.params[1]!, t2.params[1]!);
    case "type":
      return true;
    default:
      return isExactType(t1, t2);
  }
}

/** The more general of two types known to unify. */
export function mostGeneral(t1: CelType, t2: CelType): CelType {
  return isEqualOrLessSpecific(t1, t2) ? t1 : t2;
}

/**
 * Replaces bound type parameters by their substitutions, recursively; unbound
 * ones become `dyn` when `toDyn`. Returns `t` itself when nothing changes.
 */
export function substitute(m: Mapping, t: CelType, toDyn: boolean): CelType {
  if (!CelTypeClass.mayBeParametric(t)) return t;
  if (t.kind === "typeParam") {
    const sub = m.find(t);
    if (sub !== undefined) return substitute(m, sub, toDyn);
    return toDyn ? DYN : t;
  }
  if (t.params.length === 0 || t.kind === "wrapper") return t;
  switch (t.kind) {
    case "list": {
      const e = substitute(m, t.params[0]!, toDyn);
      return e === t.params[0] ? t : listType(e);
    }
    case "map": {
      const k = substitute(m, t.params[0]!, toDyn);
      const v = substitute(m, t.params[1]!, toDyn);
      return k === t.params[0] && v === t.params[1] ? t : mapType(k, v);
    }
    case "type": {
      const p = substitute(m, t.params[0]!, toDyn);
      return p === t.params[0] ? t : typeType(p);
    }
    case "opaque": {
      let changed = false;
      const ps = t.params.map((p) => {
        const s = substitute(m, p, toDyn);
        if (s !== p) changed = true;
        return s;
      });
      return changed ? opaqueType(t.name, ...ps) : t;
    }
    default:
      return t;
  }
}

/** Replaces type parameters by name (instantiating an overload signature with fresh variables). */
export function instantiate(t: CelType, subs: ReadonlyMap<string, CelType>): CelType {
  if (t.kind === "typeParam") return subs.get(t.name) ?? t;
  if (t.params.length === 0 || t.kind === "wrapper") return t;
  let changed = false;
  const ps = t.params.map((p) => {
    const s = instantiate(p, subs);
    if (s !== p) changed = true;
    return s;
  });
  return changed ? new CelTypeClass(t.kind, t.name, ps) : t;
}

/** Collects type parameter names in `t` (cel-go collects from the result, then the arguments). */
export function collectTypeParams(t: CelType, into: string[]): void {
  if (t.kind === "typeParam") {
    if (!into.includes(t.name)) into.push(t.name);
    return;
  }
  for (const p of t.params) collectTypeParams(p, into);
}

/** cel-go's `FormatCELType`: `int`, `list(int)`, `wrapper(int)`, `timestamp`, `null`, `!error!`. */
export function formatType(t: CelType): string {
  switch (t.kind) {
    case "any":
      return "any";
    case "duration":
      return "duration";
    case "timestamp":
      return "timestamp";
    case "error":
      return "!error!";
    case "null":
      return "null";
    case "typeParam":
      return t.name;
    case "wrapper":
      return `wrapper(${t.params[0]!.name})`;
    default:
      break;
  }
  if (t.params.length === 0) return t.name;
  return `${t.name}(${t.params.map(formatType).join(", ")})`;
}

/** cel-go's `DeclaredTypeName`: the name, or `wrapper(int)` for a wrapper. */
export function declaredTypeName(t: CelType): string {
  return t.kind === "wrapper" ? `wrapper(${t.params[0]!.name})` : t.name;
}

/** `(int, string)` or, for a receiver call, `int.(string)`. */
export function formatArgTypes(args: readonly CelType[], isInstance: boolean): string {
  let out = "";
  let rest = args;
  if (isInstance && args.length > 0) {
    out = `${formatType(args[0]!)}.`;
    rest = args.slice(1);
  }
  return `${out}(${rest.map(formatType).join(", ")})`;
}
