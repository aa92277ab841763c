/**
 * Run-time overload selection: which declared overload applies to argument
 * values whose types are only known at evaluation (unchecked expressions, `dyn`
 * operands). Mirrors cel-go's `matchesRuntimeSignature`: list and map
 * parameters match any list or map (element types are erased at run time),
 * type parameters and `dyn` match anything.
 */
import type { OverloadDecl } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { CelType, OPTIONAL_NAME } from "../types.js";
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelUint, type CelValue } from "../values.js";
import { typeOf } from "./type-of.js";

/** A test that a run-time value may be passed for a parameter of this type. */
export type TypeTest = (v: CelValue) => boolean;

const anyValue: TypeTest = () => true;
const isBool: TypeTest = (v) => typeof v === "boolean";
const isInt: TypeTest = (v) => typeof v === "bigint";
const isUint: TypeTest = (v) => v instanceof CelUint;
const isDouble: TypeTest = (v) => typeof v === "number";
const isString: TypeTest = (v) => typeof v === "string";
const isBytes: TypeTest = (v) => v instanceof Uint8Array;
const isNull: TypeTest = (v) => v === null;
const isListValue: TypeTest = (v) => Array.isArray(v);
const isMapValue: TypeTest = (v) => v instanceof Map;
const isTimestamp: TypeTest = (v) => v instanceof CelTimestamp;
const isDuration: TypeTest = (v) => v instanceof CelDuration;
const isTypeValue: TypeTest = (v) => v instanceof CelType;
const isOptional: TypeTest = (v) => v instanceof CelOptional;

/**
 * The run-time test for a declared parameter type, as cel-go's
 * `IsAssignableRuntimeType`: kinds must agree; for a list (map) with a declared
 * element type only the first element (entry) is checked, and an empty one
 * matches — so `[1, 2.0]` matches `list(int)`, as in cel-go.
 */
export function typeTest(t: CelType): TypeTest {
  switch (t.kind) {
    case "dyn":
    case "any":
    case "typeParam":
    case "error":
      return anyValue;
    case "bool":
      return isBool;
    case "int":
      return isInt;
    case "uint":
      return isUint;
    case "double":
      return isDouble;
    case "string":
      return isString;
    case "bytes":
      return isBytes;
    case "null":
      return isNull;
    case "list": {
      const elem = t.params[0];
      if (elem === undefined || isOpen(elem)) return isListValue;
      const e = typeTest(elem);
      return (v) => Array.isArray(v) && (v.length === 0 || e(v[0] as CelValue));
    }
    case "map": {
      const k = t.params[0];
      const val = t.params[1];
      if (k === undefined || val === undefined || (isOpen(k) && isOpen(val))) return isMapValue;
      const kt = typeTest(k);
      const vt = typeTest(val);
      return (v) => {
        if (!(v instanceof Map)) return false;
        for (const [a, b] of v as ReadonlyMap<CelValue, CelValue>) return kt(a) && vt(b);
        return true;
      };
    }
    case "timestamp":
      return isTimestamp;
    case "duration":
      return isDuration;
    case "type":
      return isTypeValue;
    case "wrapper": {
      const inner = typeTest(t.params[0]!);
      return (v) => v === null || inner(v);
    }
    case "opaque":
      if (t.name === OPTIONAL_NAME) return isOptional;
      return (v) => v instanceof CelObject && v.celType.name === t.name;
    case "message": {
      const name = t.name;
      return (v) => v instanceof CelObject && v.celType.name === name;
    }
  }
}

function isOpen(t: CelType): boolean {
  return t.kind === "dyn" || t.kind === "typeParam" || t.kind === "any";
}

/** A candidate overload with its precomputed argument tests. */
export interface Candidate {
  readonly decl: OverloadDecl;
  readonly tests: readonly TypeTest[];
}

export function candidatesOf(overloads: readonly OverloadDecl[]): Candidate[] {
  return overloads.filter((o) => o.impl !== undefined).map((o) => ({ decl: o, tests: o.params.map(typeTest) }));
}

const ARITH: ReadonlySet<string> = new Set(["int", "uint", "double"]);
const ADDER: ReadonlySet<string> = new Set([...ARITH, "string", "bytes", "list", "google.protobuf.Timestamp", "google.protobuf.Duration"]);
const SUBTRACTOR: ReadonlySet<string> = new Set([...ARITH, "google.protobuf.Timestamp", "google.protobuf.Duration"]);
const COMPARER: ReadonlySet<string> = new Set([...ARITH, "bool", "string", "bytes", "google.protobuf.Timestamp", "google.protobuf.Duration"]);

/**
 * The standard operators cel-go binds as one trait-based implementation: the
 * first operand's type must have the trait, else the error names only the
 * function ("no such overload: _+_"); with the trait, a mismatched second
 * operand gives a bare "no such overload".
 */
const TRAIT_OPERATORS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["_+_", ADDER],
  ["_-_", SUBTRACTOR],
  ["_*_", ARITH],
  ["_/_", ARITH],
  ["_%_", new Set(["int", "uint"])],
  ["-_", new Set(["int", "double", "google.protobuf.Duration"])],
  ["_<_", COMPARER],
  ["_<=_", COMPARER],
  ["_>_", COMPARER],
  ["_>=_", COMPARER],
  ["size", new Set(["string", "bytes", "list", "map"])],
  ["matches", new Set(["string"])],
]);

/**
 * cel-go's "no such overload" error for these arguments: `no such overload:
 * startsWith(int, string)` (run-time type names) for functions dispatched over
 * their overloads, and the trait-based wording of the standard operators.
 */
export function noSuchOverload(fn: string, args: readonly CelValue[]): CelEvalError {
  const trait = TRAIT_OPERATORS.get(fn);
  if (trait !== undefined && args.length > 0) {
    return new CelEvalError(trait.has(typeOf(args[0]!).name) ? "no such overload" : `no such overload: ${fn}`);
  }
  return new CelEvalError(`no such overload: ${fn}(${args.map((a) => typeOf(a).name).join(", ")})`);
}

/** Selects the implementation for these argument values, or throws "no such overload". */
export function selectOverload(fn: string, cands: readonly Candidate[], args: readonly CelValue[]): OverloadDecl {
  for (const c of cands) {
    const tests = c.tests;
    let ok = true;
    for (let i = 0; i < tests.length; i++) {
      if (!tests[i]!(args[i]!)) {
        ok = false;
        break;
      }
    }
    if (ok) return c.decl;
  }
  throw noSuchOverload(fn, args);
}
