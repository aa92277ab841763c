/**
 * Closure builders the planner's methods call: literals, equality, selection chains, indexing,
 * direct and dispatched calls. Module functions, so that a closure captures only what it uses
 * (see `Planner.functionCall`).
 */
import type { Expr, SelectExpr } from "./ast.js";
import type { Impl } from "./decls.js";
import { CelEvalError } from "./errors.js";
import { formatKey, hasField, indexValue, selectField } from "./runtime/access.js";
import { noSuchOverload, selectOverload, type Candidate } from "./runtime/dispatch.js";
import { celEquals } from "./runtime/equality.js";
import { typeOf } from "./runtime/type-of.js";
import type { RE2JS } from "@bufbuild/re2";
import { isMapKey, mapHas } from "./runtime/map.js";
import type { CelType as CelTypeT } from "./types.js";
import { CelObject, CelOptional, CelUint, type CelMapKey, type CelValue } from "./values.js";
import { matchesCost } from "./cost-runtime.js";
import { type Ev, varValue } from "./plan-frame.js";
import { charge } from "./plan-cost-state.js";

/**
 * Functions cel-go binds once for all their overloads (`decls.SingletonUnaryBinding` /
 * `SingletonBinaryBinding` in common/stdlib/standard.go and ext/lists.go): dispatched by function name with an
 * operand-trait check only, whatever overload the checker resolved.
 */
export const SINGLETON_BOUND: ReadonlySet<string> = new Set([
  "_?_:_", "_&&_", "_||_", "!_", "_==_", "_!=_", "_+_", "_/_", "_%_", "_*_", "-_", "_-_",
  "_<_", "_<=_", "_>_", "_>=_", "_[_]", "@in", "_in_", "in", "size", "type", "dyn", "matches",
  // cel-go ext/lists.go: `sort` and `@sortByAssociatedKeys` (the sortBy macro) are singletons too.
  "sort", "@sortByAssociatedKeys",
]);

export const MAP_INSERT = "cel.@mapInsert";

// The standard overloads of the operators the planner inlines (a literal array per call made garbage).
export const STD_MAP_INSERT: readonly string[] = ["@mapInsert_map_key_value", "@mapInsert_map_map"];
export const STD_NOT: readonly string[] = ["logical_not"];
export const STD_EQUALS: readonly string[] = ["equals", "not_equals"];
export const STD_INDEX: readonly string[] = ["index_list", "index_map", "index_message", "optional_list_index_int", "optional_map_index_value"];
export const STD_IN: readonly string[] = ["in_list", "in_map", "in_message", "in"];

/** Inserts into a map being built by a comprehension; a key present already is an error (cel-go). */
export function mapInsertInPlace(m: Map<CelMapKey, CelValue>, k: CelValue, v: CelValue): void {
  if (!isMapKey(k)) throw new CelEvalError("unsupported key type");
  if (mapHas(m, k)) throw new CelEvalError(`insert failed: key ${formatKey(k)} already exists`);
  m.set(k, v);
}

export function mentionsAny(es: readonly Expr[], name: string): boolean {
  for (let i = 0; i < es.length; i++) if (mentions(es[i]!, name)) return true;
  return false;
}

export function mentions(e: Expr, name: string): boolean {
  switch (e.kind) {
    case "const":
      return false;
    case "ident":
      return e.name === name;
    case "select":
      return mentions(e.operand, name);
    case "call":
      return (e.target !== undefined && mentions(e.target, name)) || mentionsAny(e.args, name);
    case "list":
      return mentionsAny(e.elements, name);
    case "map":
      for (const x of e.entries) if (mentions(x.key, name) || mentions(x.value, name)) return true;
      return false;
    case "struct":
      for (const x of e.fields) if (mentions(x.value, name)) return true;
      return false;
    case "comprehension":
      return (
        mentions(e.iterRange, name) ||
        mentions(e.accuInit, name) ||
        mentions(e.loopCondition, name) ||
        mentions(e.loopStep, name) ||
        mentions(e.result, name)
      );
  }
}

/** A string or bool constant's value. */
export function constOf(z: Expr): CelValue | undefined {
  return z.kind === "const" && (z.value.kind === "string" || z.value.kind === "bool") ? z.value.value : undefined;
}

export function intConst(z: Expr): bigint | undefined {
  return z.kind === "const" && z.value.kind === "int" ? z.value.value : undefined;
}

/** cel-go's type conversion functions (`overloads.IsTypeConversionFunction`), folded on constants by `OptOptimize`. */
export const CONVERSIONS: ReadonlySet<string> = new Set(["bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint"]);

export function isOpenType(t: CelTypeT): boolean {
  return t.kind === "dyn" || t.kind === "typeParam" || t.kind === "any";
}

export function containsOpen(t: CelTypeT): boolean {
  // Wrappers may hold null at run time, so they are not concrete either.
  if (t.kind === "dyn" || t.kind === "typeParam" || t.kind === "any" || t.kind === "error" || t.kind === "wrapper") return true;
  // Element types are erased at run time, so list(dyn) still dispatches like a list.
  if (t.kind === "list" || t.kind === "map") return false;
  return t.params.some(containsOpen);
}

export function rangeError(r: CelValue, _two: boolean): CelEvalError {
  return new CelEvalError(`unsupported comprehension range type: ${typeOf(r).name}`);
}

/** `[]`: one frozen empty list. */
export const EMPTY_LIST: readonly CelValue[] = Object.freeze([]);
export const emptyList: Ev = () => EMPTY_LIST;

/** A closure returning `v`. */
export function constantOf(v: CelValue): Ev {
  return () => v;
}

export function uintOf(v: bigint): CelValue {
  return new CelUint(v);
}

/** `x[i]`. */
export function index(a: Ev, b: Ev): Ev {
  return (f) => {
    const o = a(f);
    const i = b(f);
    if (o instanceof Map && typeof i === "string") {
      const v = o.get(i);
      if (v !== undefined) return v;
    }
    return indexValue(o, i);
  };
}

/** `o[k]` on an optional `o`: none without evaluating `k`. */
export function indexOptional(a: Ev, b: Ev): Ev {
  return (f) => {
    const o = a(f);
    if (o instanceof CelOptional && o.value === undefined) return o;
    return indexValue(o, b(f));
  };
}

/** `x['key']`. */
export function indexByString(a: Ev, key: string): Ev {
  return (f) => {
    const o = a(f);
    if (o instanceof Map) {
      const v = o.get(key);
      if (v !== undefined) return v;
    }
    return indexValue(o, key);
  };
}

/** A map literal's closure; `opts` marks the optional entries (undefined: none). */
export function mapBuilder(keys: readonly Ev[], vals: readonly Ev[], opts: readonly boolean[] | undefined): Ev {
  const n = keys.length;
  return (f) => {
    const m = new Map<CelMapKey, CelValue>();
    for (let i = 0; i < n; i++) {
      const k = keys[i]!(f);
      let v = vals[i]!(f);
      if (!isMapKey(k)) throw new CelEvalError("unsupported key type");
      if (opts !== undefined && opts[i]) {
        if (!(v instanceof CelOptional)) {
          throw new CelEvalError(`cannot initialize optional entry '${String(k)}' from non-optional value ${String(v)}`);
        }
        if (v.value === undefined) continue;
        v = v.value;
      }
      if (m.size > 0 && mapHas(m, k)) throw new CelEvalError("Failed with repeated key");
      m.set(k, v);
    }
    return m;
  };
}

/** A constant map literal, built once here; a bad key still fails at evaluation. */
export function constantMap(build: Ev): Ev {
  let cached: CelValue | undefined;
  let err: unknown;
  try {
    cached = build([]);
  } catch (x) {
    err = x;
  }
  return () => {
    if (cached === undefined) throw err;
    return cached;
  };
}

/** `[a, ?b, …]`: an optional element is included when it has a value. */
export function optionalList(els: readonly Ev[], optionalIndices: readonly number[]): Ev {
  const n = els.length;
  const opt = new Set(optionalIndices);
  const isOpt = els.map((_, i) => opt.has(i));
  return (f) => {
    const out: CelValue[] = [];
    for (let i = 0; i < n; i++) {
      const v = els[i]!(f);
      if (isOpt[i]) {
        if (!(v instanceof CelOptional)) {
          throw new CelEvalError(`cannot initialize optional list element from non-optional value ${String(v)}`);
        }
        if (v.value !== undefined) out.push(v.value);
      } else out.push(v);
    }
    return out;
  };
}

/** A list of constants, built once. */
export function constantList(els: readonly Ev[]): Ev {
  const v = Object.freeze(els.map((ev) => ev([])));
  return () => v;
}

export function listN(els: readonly Ev[]): Ev {
  const n = els.length;
  return (f) => {
    const out = new Array<CelValue>(n);
    for (let i = 0; i < n; i++) out[i] = els[i]!(f);
    return out;
  };
}

export function list1(a: Ev): Ev {
  return (f) => [a(f)];
}

export function list2(a: Ev, b: Ev): Ev {
  return (f) => [a(f), b(f)];
}

/** `x == c` for a string or bool constant `c` (a host object on the left decides itself). */
export function equalsConstRight(other: Ev, c: CelValue): Ev {
  return (f) => {
    const v = other(f);
    return v instanceof CelObject ? celEquals(v, c) : v === c;
  };
}

export function notEqualsConstRight(other: Ev, c: CelValue): Ev {
  return (f) => {
    const v = other(f);
    return v instanceof CelObject ? !celEquals(v, c) : v !== c;
  };
}

/** `c == x` for a string or bool constant `c`. */
export function equalsConst(other: Ev, c: CelValue): Ev {
  return (f) => other(f) === c;
}

export function notEqualsConst(other: Ev, c: CelValue): Ev {
  return (f) => other(f) !== c;
}

/** `x == i` / `i == x` (`constRight` false) for an int constant `i`; `neg`: `!=`. */
export function equalsInt(other: Ev, iy: bigint, constRight: boolean, neg: boolean): Ev {
  // Operand order kept for host objects, which decide `==` only on the left.
  const eq = constRight ? (v: CelValue) => celEquals(v, iy) : (v: CelValue) => celEquals(iy, v);
  return neg
    ? (f) => {
        const v = other(f);
        return typeof v === "bigint" ? v !== iy : !eq(v);
      }
    : (f) => {
        const v = other(f);
        return typeof v === "bigint" ? v === iy : eq(v);
      };
}

export function equals(a: Ev, b: Ev): Ev {
  return (f) => celEquals(a(f), b(f));
}

export function notEquals(a: Ev, b: Ev): Ev {
  return (f) => !celEquals(a(f), b(f));
}

/** `has(x.field)`. */
export function presenceTest(op: Ev, field: string): Ev {
  return (f) => {
    const o = op(f);
    if (o instanceof Map) return o.has(field);
    return hasField(o, field);
  };
}

/** `x.field`. */
export function select1(op: Ev, field: string): Ev {
  return (f) => {
    const o = op(f);
    if (o instanceof Map) {
      const v = o.get(field);
      if (v !== undefined) return v;
    }
    return selectField(o, field);
  };
}

/** `x.f0.f1` in one closure. */
export function select2(op: Ev, f0: string, f1: string): Ev {
  return (f) => {
    const o = op(f);
    let v = o instanceof Map ? o.get(f0) : undefined;
    if (v === undefined) v = selectField(o, f0);
    const w = v instanceof Map ? v.get(f1) : undefined;
    return w !== undefined ? w : selectField(v, f1);
  };
}

/** The fields of the `n` plain selections ending in `e` (outermost last). */
export function chainFields(e: Expr, n: number): string[] {
  // (Made to measure up to three: a push onto an empty array reserves 17 elements.)
  if (n === 0) return [];
  const s0 = e as SelectExpr;
  if (n === 1) return [s0.field];
  const s1 = s0.operand as SelectExpr;
  if (n === 2) return [s1.field, s0.field];
  if (n === 3) return [(s1.operand as SelectExpr).field, s1.field, s0.field];
  const fields: string[] = [];
  for (let x: Expr = e, i = 0; i < n; i++, x = (x as SelectExpr).operand) fields.push((x as SelectExpr).field);
  return fields.reverse();
}

// A fused chain starts from a variable `name` in slot `slot` (read from the bindings on first
// use) or, with no name, from the comprehension variable in slot `slot`: each factory makes a
// closure of its own for either (one closure per kind of start keeps each call site simple).

/** `v.field` for a variable or comprehension variable `v`. */
export function slotSelect1(slot: number, name: string | undefined, field: string): Ev {
  if (name === undefined) return (f) => field1(f[slot], field);
  return (f) => field1(varValue(f, slot, name), field);
}

/** `v.f0.f1` for a variable or comprehension variable `v`. */
export function slotSelect2(slot: number, name: string | undefined, f0: string, f1: string): Ev {
  if (name === undefined) return (f) => field1(field1(f[slot], f0), f1);
  return (f) => field1(field1(varValue(f, slot, name), f0), f1);
}

/** `v.f0.f1…` (three fields or more) for a variable or comprehension variable `v`. */
export function slotSelectN(slot: number, name: string | undefined, fields: readonly string[]): Ev {
  if (name === undefined) return (f) => fieldsOf(f[slot], fields);
  return (f) => fieldsOf(varValue(f, slot, name), fields);
}

/** `has(v.f0….field)` for a variable or comprehension variable `v` (`fields` may be empty). */
export function slotHas(slot: number, name: string | undefined, fields: readonly string[], field: string): Ev {
  if (name === undefined) return (f) => present(fieldsOf(f[slot], fields), field);
  return (f) => present(fieldsOf(varValue(f, slot, name), fields), field);
}

/** `o.field`: a map's entry read directly, anything else through `selectField`. */
export function field1(o: CelValue, field: string): CelValue {
  const v = o instanceof Map ? o.get(field) : undefined;
  return v !== undefined ? v : selectField(o, field);
}

/** `o.f0.f1…`. */
export function fieldsOf(o: CelValue, fields: readonly string[]): CelValue {
  for (let i = 0; i < fields.length; i++) o = field1(o, fields[i]!);
  return o;
}

/** `has(o.field)`. */
export function present(o: CelValue, field: string): boolean {
  if (o instanceof Map) return o.has(field);
  return hasField(o, field);
}

/** `x.f0.f1…` (three fields or more) in one closure. */
export function selectN(op: Ev, fields: readonly string[]): Ev {
  return (f) => {
    let v = op(f);
    for (let i = 0; i < fields.length; i++) {
      const name = fields[i]!;
      const w: CelValue | undefined = v instanceof Map ? v.get(name) : undefined;
      v = w !== undefined ? w : selectField(v, name);
    }
    return v;
  };
}

/** A call no overload of which has this arity and receiver style: evaluates the arguments, then fails. */
export function noOverloadCall(name: string, args: readonly Ev[]): Ev {
  return (f) => {
    const vals = args.map((a) => a(f));
    throw noSuchOverload(name, vals);
  };
}

/** `s.matches('const')` with the pattern compiled at plan time. */
export function regexCall(name: string, subject: Ev, re: RE2JS, pattern: string): Ev {
  return (f) => {
    const s = subject(f);
    if (typeof s !== "string") throw noSuchOverload(name, [s, pattern]);
    return re.test(s);
  };
}

export function trackedRegexCall(name: string, subject: Ev, re: RE2JS, pattern: string, pending: number, sized: boolean): Ev {
  return (f) => {
    const s = subject(f);
    if (typeof s !== "string") throw noSuchOverload(name, [s, pattern]);
    const r = re.test(s);
    charge(pending + (sized ? matchesCost(s, pattern) : 1));
    return r;
  };
}

export function callDirect(impl: Impl, args: readonly Ev[]): Ev {
  switch (args.length) {
    case 0:
      return () => impl();
    case 1: {
      const a = args[0]!;
      return (f) => impl(a(f));
    }
    case 2: {
      const a = args[0]!;
      const b = args[1]!;
      return (f) => impl(a(f), b(f));
    }
    case 3: {
      const a = args[0]!;
      const b = args[1]!;
      const c = args[2]!;
      return (f) => impl(a(f), b(f), c(f));
    }
    default:
      return (f) => impl(...args.map((a) => a(f)));
  }
}

export function callDispatch(name: string, cands: readonly Candidate[], args: readonly Ev[]): Ev {
  const n = args.length;
  if (n === 1) {
    const a = args[0]!;
    let last = cands[0]!;
    return (f) => {
      const x = a(f);
      if (last.tests[0]!(x)) return last.decl.impl!(x);
      for (let i = 0; i < cands.length; i++) {
        const c = cands[i]!;
        if (c.tests[0]!(x)) {
          last = c;
          return c.decl.impl!(x);
        }
      }
      throw noSuchOverload(name, [x]);
    };
  }
  if (n === 2) {
    const a = args[0]!;
    const b = args[1]!;
    // Inline cache: the overload that matched last time is tried first.
    let last = cands[0]!;
    return (f) => {
      const x = a(f);
      const y = b(f);
      if (last.tests[0]!(x) && last.tests[1]!(y)) return last.decl.impl!(x, y);
      for (let i = 0; i < cands.length; i++) {
        const c = cands[i]!;
        if (c.tests[0]!(x) && c.tests[1]!(y)) {
          last = c;
          return c.decl.impl!(x, y);
        }
      }
      throw noSuchOverload(name, [x, y]);
    };
  }
  return (f) => {
    const vals = args.map((a) => a(f));
    return selectOverload(name, cands, vals).impl!(...vals);
  };
}

/** Whether a name is written with a leading dot (root-scoped): a character test, not a `startsWith` call. */
export function isRootScoped(name: string): boolean {
  return name.charCodeAt(0) === 46;
}
