/**
 * Type checker tests: table-driven cases over hand-built trees (so they do not
 * depend on the parser), and a run over the official checking suite (cases from
 * cel-go's checker_test.go) that reports how many cases pass.
 */
import { describe, expect, it } from "vitest";
import type { Constant, Expr, ParsedExpr, StructField, MapEntry } from "./ast.js";
import { check } from "./checker.js";
import type { CheckedExpr } from "./checked.js";
import { func, memberOverload, overload, type FunctionDecl, type TypeProvider } from "./decls.js";
import { Env, type EnvOptions } from "./env.js";
import { CelCompileError } from "./errors.js";
import {
  BOOL,
  DOUBLE,
  DYN,
  INT,
  NULL_TYPE,
  STRING,
  UINT,
  BYTES,
  type CelType,
  listType,
  mapType,
  messageType,
  optionalType,
  typeParam,
  typeType,
  wrapperType,
} from "./types.js";
import { formatType } from "./check-types.js";
import { stringsLibrary } from "./ext/strings.js";
import { OPTIONAL_LIBRARY } from "./ext/optionals.js";

// ------------------------------------------------------------------ tree builder

/**
 * Builds trees with ids in creation order. `at(col)` gives the next node a
 * 1-based column on line 1 (positions drive error locations).
 */
class B {
  private id = 0;
  readonly positions = new Map<number, number>();

  /** The next node built through the returned builder (the outermost one) gets position 1:`col`. */
  at(col: number): B {
    return new Proxy(this, {
      get: (target, prop, receiver) => {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          const out = v.apply(target, args);
          if (out && typeof out === "object" && "id" in out) target.positions.set((out as Expr).id, col - 1);
          return out;
        };
      },
    });
  }
  private nid(): number {
    return ++this.id;
  }
  c(v: Constant | number | string | boolean | null | bigint): Expr {
    let value: Constant;
    if (v === null) value = { kind: "null" };
    else if (typeof v === "number") value = { kind: "double", value: v };
    else if (typeof v === "bigint") value = { kind: "int", value: v };
    else if (typeof v === "string") value = { kind: "string", value: v };
    else if (typeof v === "boolean") value = { kind: "bool", value: v };
    else value = v;
    return { kind: "const", id: this.nid(), value };
  }
  u(v: bigint): Expr {
    return this.c({ kind: "uint", value: v });
  }
  i(name: string): Expr {
    return { kind: "ident", id: this.nid(), name };
  }
  sel(operand: Expr, field: string, testOnly = false): Expr {
    return { kind: "select", id: this.nid(), operand, field, testOnly };
  }
  call(fn: string, ...args: Expr[]): Expr {
    return { kind: "call", id: this.nid(), fn, args };
  }
  mcall(target: Expr, fn: string, ...args: Expr[]): Expr {
    return { kind: "call", id: this.nid(), fn, target, args };
  }
  list(elements: Expr[], optionalIndices: number[] = []): Expr {
    return { kind: "list", id: this.nid(), elements, optionalIndices };
  }
  map(...entries: [Expr, Expr, boolean?][]): Expr {
    const es: MapEntry[] = entries.map(([key, value, optional]) => ({
      id: this.nid(),
      key,
      value,
      optional: optional ?? false,
    }));
    return { kind: "map", id: this.nid(), entries: es };
  }
  struct(typeName: string, ...fields: [string, Expr, boolean?, number?][]): Expr {
    const fs: StructField[] = fields.map(([field, value, optional, col]) => {
      const id = this.nid();
      if (col !== undefined) this.positions.set(id, col - 1);
      return { id, field, value, optional: optional ?? false };
    });
    return { kind: "struct", id: this.nid(), typeName, fields: fs };
  }
  comp(
    iterVar: string,
    iterRange: Expr,
    accuInit: Expr,
    loopCondition: Expr,
    loopStep: Expr,
    result: Expr,
    iterVar2?: string,
  ): Expr {
    return {
      kind: "comprehension",
      id: this.nid(),
      iterVar,
      ...(iterVar2 !== undefined ? { iterVar2 } : {}),
      iterRange,
      accuVar: "@result",
      accuInit,
      loopCondition,
      loopStep,
      result,
    };
  }
  parsed(expr: Expr, text = "x"): ParsedExpr {
    return {
      expr,
      sourceInfo: { text, description: "<input>", lineOffsets: [], positions: this.positions, macroCalls: new Map() },
    };
  }
}

// ------------------------------------------------------------------ a small library

const A = typeParam("A");
const K = typeParam("K");
const V = typeParam("V");

const TEST_FUNCTIONS: FunctionDecl[] = [
  func(
    "_+_",
    overload("add_int64", [INT, INT], INT),
    overload("add_uint64", [UINT, UINT], UINT),
    overload("add_double", [DOUBLE, DOUBLE], DOUBLE),
    overload("add_string", [STRING, STRING], STRING),
    overload("add_list", [listType(A), listType(A)], listType(A)),
  ),
  func(
    "_<_",
    overload("less_int64", [INT, INT], BOOL),
    overload("less_double", [DOUBLE, DOUBLE], BOOL),
    overload("less_int64_double", [INT, DOUBLE], BOOL),
    overload("less_double_int64", [DOUBLE, INT], BOOL),
  ),
  func("_==_", { ...overload("equals", [A, A], BOOL), typeParams: ["A"] }),
  func("_&&_", overload("logical_and", [BOOL, BOOL], BOOL)),
  func("_||_", overload("logical_or", [BOOL, BOOL], BOOL)),
  func("!_", overload("logical_not", [BOOL], BOOL)),
  func("_?_:_", overload("conditional", [BOOL, A, A], A)),
  func("@not_strictly_false", overload("not_strictly_false", [BOOL], BOOL)),
  func(
    "_[_]",
    overload("index_list", [listType(A), INT], A),
    overload("index_map", [mapType(K, V), K], V),
  ),
  func(
    "_[?_]",
    overload("optional_list_index_int", [listType(A), INT], optionalType(A)),
    overload("optional_map_index_value", [mapType(K, V), K], optionalType(V)),
  ),
  func(
    "size",
    overload("size_string", [STRING], INT),
    overload("size_list", [listType(A)], INT),
    memberOverload("string_size", [STRING], INT),
    memberOverload("list_size", [listType(A)], INT),
  ),
  func("type", overload("type", [A], typeType(A))),
  func("optional.of", overload("optional_of", [A], optionalType(A))),
  func("base64.encode", overload("base64_encode_string", [STRING], STRING)),
];

const TEST_LIB = { name: "test", functions: TEST_FUNCTIONS };

/** A fake provider: message `test.Obj` {i: int, s: string, w: wrapper(int), child: test.Obj, m: map(string, int)} and enum constant `test.Color.RED`. */
const FAKE_PROVIDER: TypeProvider = {
  findType(name) {
    return name === "test.Obj" ? messageType("test.Obj") : undefined;
  },
  findFieldType(typeName, field) {
    if (typeName !== "test.Obj") return undefined;
    switch (field) {
      case "i":
        return INT;
      case "s":
        return STRING;
      case "w":
        return wrapperType(INT);
      case "child":
        return messageType("test.Obj");
      case "m":
        return mapType(STRING, INT);
      default:
        return undefined;
    }
  },
  newValue() {
    throw new Error("not used");
  },
  findIdent(name) {
    return name === "test.Color.RED" ? { type: INT, value: 1n } : undefined;
  },
};

function env(opts: EnvOptions = {}): Env {
  return new Env({ ...opts, libraries: [TEST_LIB, ...(opts.libraries ?? [])], typeProvider: FAKE_PROVIDER });
}

function errorsOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof CelCompileError) return e.issues.map((i) => `${i.line}:${i.column}: ${i.message}`).join("\n");
    throw e;
  }
  throw new Error("expected a compile error");
}

function typeOf(c: CheckedExpr, e: Expr): string {
  return formatType(c.typeMap.get(e.id)!);
}

// ------------------------------------------------------------------ cases

describe("checker: literals, identifiers and overloads", () => {
  it("types constants", () => {
    const b = new B();
    const cases: [Expr, CelType][] = [
      [b.c(1n), INT],
      [b.u(1n), UINT],
      [b.c(1.5), DOUBLE],
      [b.c("s"), STRING],
      [b.c(true), BOOL],
      [b.c(null), NULL_TYPE],
      [b.c({ kind: "bytes", value: new Uint8Array() }), BYTES],
    ];
    for (const [e, t] of cases) expect(check(b.parsed(e), env()).type).toBe(t);
  });

  it("resolves a declared variable and records its reference", () => {
    const b = new B();
    const e = b.i("x");
    const c = check(b.parsed(e), env({ variables: { x: STRING } }));
    expect(c.type).toBe(STRING);
    expect(c.referenceMap.get(e.id)).toEqual({ name: "x" });
  });

  it("reports an undeclared reference with its position", () => {
    const b = new B();
    const e = b.call("_+_", b.c(1n), b.at(5).i("x"));
    expect(errorsOf(() => check(b.parsed(e, "1 + x"), env()))).toBe("1:5: undeclared reference to 'x' (in container '')");
  });

  it("does not cascade an error through enclosing calls", () => {
    const b = new B();
    const e = b.call("_+_", b.call("_+_", b.at(1).i("nope"), b.c(1n)), b.c(2n));
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe("1:1: undeclared reference to 'nope' (in container '')");
  });

  it("picks the single matching overload", () => {
    const b = new B();
    const e = b.call("_+_", b.c(1n), b.c(2n));
    const c = check(b.parsed(e), env());
    expect(c.type).toBe(INT);
    expect(c.referenceMap.get(e.id)).toEqual({ overloadIds: ["add_int64"] });
  });

  it("reports no matching overload, cel-go's wording", () => {
    const b = new B();
    const e = b.at(3).call("_+_", b.c(1n), b.c("a"));
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe(
      "1:3: found no matching overload for '_+_' applied to '(int, string)'",
    );
  });

  it("reports member calls as 'target.(args)'", () => {
    const b = new B();
    const e = b.at(2).mcall(b.c(1n), "size");
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe("1:2: found no matching overload for 'size' applied to 'int.()'");
  });

  it("distinguishes global and member call styles", () => {
    const b = new B();
    const g = b.call("size", b.c("abc"));
    const m = b.mcall(b.c("abc"), "size");
    const e = b.call("_==_", g, m);
    const c = check(b.parsed(e), env());
    expect(c.referenceMap.get(g.id)).toEqual({ overloadIds: ["size_string"] });
    expect(c.referenceMap.get(m.id)).toEqual({ overloadIds: ["string_size"] });
  });

  it("keeps every candidate overload for dyn arguments and joins the result to dyn", () => {
    const b = new B();
    const e = b.call("_+_", b.i("d"), b.i("d"));
    const c = check(b.parsed(e), env({ variables: { d: DYN } }));
    expect(c.referenceMap.get(e.id)?.overloadIds).toEqual(
      expect.arrayContaining(["add_int64", "add_uint64", "add_double", "add_string", "add_list"]),
    );
    expect(c.type).toBe(DYN);
  });

  it("narrows candidates with the known argument", () => {
    const b = new B();
    const e = b.call("_+_", b.i("d"), b.c(1n));
    const c = check(b.parsed(e), env({ variables: { d: DYN } }));
    expect(c.referenceMap.get(e.id)?.overloadIds).toEqual(["add_int64"]);
    expect(c.type).toBe(INT);
  });

  it("unifies type parameters (list(A) + list(A), index, conditional)", () => {
    const b = new B();
    const sum = b.call("_+_", b.list([b.c(1n)]), b.list([]));
    const idx = b.call("_[_]", sum, b.c(0n));
    const cond = b.call("_?_:_", b.c(true), idx, b.c(2n));
    const c = check(b.parsed(cond), env());
    expect(typeOf(c, sum)).toBe("list(int)");
    expect(typeOf(c, idx)).toBe("int");
    expect(c.type).toBe(INT);
  });

  it("finalises free type parameters to dyn", () => {
    const b = new B();
    const e = b.list([]);
    const c = check(b.parsed(e), env());
    expect(formatType(c.type)).toBe("list(dyn)");
    const b2 = new B();
    const m = b2.map();
    expect(formatType(check(b2.parsed(m), env()).type)).toBe("map(dyn, dyn)");
  });

  it("types type(x) and type names as identifiers", () => {
    const b = new B();
    const t = b.call("type", b.c(1n));
    const intName = b.i("int");
    const e = b.call("_==_", t, intName);
    const c = check(b.parsed(e), env());
    expect(typeOf(c, t)).toBe("type(int)");
    expect(typeOf(c, intName)).toBe("type(int)");
    expect(c.referenceMap.get(intName.id)).toEqual({ name: "int" });
    expect(c.type).toBe(BOOL);
  });

  it("requires bool operands for && and ||", () => {
    const b = new B();
    const e = b.call("_&&_", b.c(true), b.at(9).c(1n));
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe("1:9: expected type 'bool' but found 'int'");
  });

  it("accepts dyn operands for && and records the overload", () => {
    const b = new B();
    const e = b.call("_||_", b.i("d"), b.c(false));
    const c = check(b.parsed(e), env({ variables: { d: DYN } }));
    expect(c.referenceMap.get(e.id)).toEqual({ overloadIds: ["logical_or"] });
  });

  it("reports an undeclared function at the call", () => {
    const b = new B();
    const e = b.at(4).call("fun");
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe("1:4: undeclared reference to 'fun' (in container '')");
  });

  it("sorts several errors by position", () => {
    const b = new B();
    const e = b.call("_&&_", b.call("_==_", b.at(10).i("b"), b.c(1n)), b.call("_==_", b.at(2).i("a"), b.c(1n)));
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe(
      "1:2: undeclared reference to 'a' (in container '')\n1:10: undeclared reference to 'b' (in container '')",
    );
  });
});

describe("checker: cross-type numeric comparisons", () => {
  it("disables mixed comparisons by default", () => {
    const b = new B();
    const e = b.at(3).call("_<_", b.c(1n), b.c(2.0));
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe(
      "1:3: found no matching overload for '_<_' applied to '(int, double)'",
    );
  });

  it("allows them when the option is on", () => {
    const b = new B();
    const e = b.call("_<_", b.c(1n), b.c(2.0));
    const c = check(b.parsed(e), env({ crossTypeNumericComparisons: true }));
    expect(c.referenceMap.get(e.id)).toEqual({ overloadIds: ["less_int64_double"] });
  });

  it("with dyn, lists the mixed overloads only when enabled", () => {
    const b = new B();
    const e = b.call("_<_", b.i("d"), b.c(2.0));
    const off = check(b.parsed(e), env({ variables: { d: DYN } })).referenceMap.get(e.id)?.overloadIds;
    expect(off).toContain("less_double");
    expect(off).not.toContain("less_int64_double");
    const on = check(b.parsed(e), env({ variables: { d: DYN }, crossTypeNumericComparisons: true })).referenceMap.get(
      e.id,
    )?.overloadIds;
    expect(on).toEqual(expect.arrayContaining(["less_double", "less_int64_double"]));
  });
});

describe("checker: aggregate literals", () => {
  it("joins mixed list elements to dyn by default", () => {
    const b = new B();
    const e = b.list([b.c(1n), b.c("a")]);
    expect(formatType(check(b.parsed(e), env()).type)).toBe("list(dyn)");
  });

  it("rejects mixed list elements with homogeneousAggregateLiterals", () => {
    const b = new B();
    const e = b.list([b.c(1n), b.at(5).c("a")]);
    expect(errorsOf(() => check(b.parsed(e), env({ homogeneousAggregateLiterals: true })))).toBe(
      "1:5: expected type 'int' but found 'string'",
    );
  });

  it("rejects mixed map keys and values with homogeneousAggregateLiterals", () => {
    const b = new B();
    const e = b.map([b.c("a"), b.c(1n)], [b.at(10).c(2n), b.at(13).c("x")]);
    expect(errorsOf(() => check(b.parsed(e), env({ homogeneousAggregateLiterals: true })))).toBe(
      "1:10: expected type 'string' but found 'int'\n1:13: expected type 'int' but found 'string'",
    );
  });

  it("homogeneous literals compare exact types: dyn and null do not match int", () => {
    const b = new B();
    const e = b.list([b.c(1n), b.at(5).i("d"), b.at(8).c(null)]);
    // cel-go's validator stops at the first mismatch of a list.
    expect(errorsOf(() => check(b.parsed(e), env({ variables: { d: DYN }, homogeneousAggregateLiterals: true })))).toBe(
      "1:5: expected type 'int' but found 'dyn'",
    );
    const b2 = new B();
    const ok = b2.list([b2.i("d"), b2.i("d")]);
    expect(formatType(check(b2.parsed(ok), env({ variables: { d: DYN }, homogeneousAggregateLiterals: true })).type)).toBe(
      "list(dyn)",
    );
  });

  it("homogeneous literals apply inside macros and nested literals", () => {
    const b = new B();
    // [[1], [2, 2.5]]: the inner list mixes int and double, so the outer mixes list(int) and list(dyn).
    const e = b.list([b.list([b.c(1n)]), b.at(7).list([b.c(2n), b.at(11).c(2.5)])]);
    expect(errorsOf(() => check(b.parsed(e), env({ homogeneousAggregateLiterals: true })))).toBe(
      "1:7: expected type 'list(int)' but found 'list(dyn)'\n1:11: expected type 'int' but found 'double'",
    );
  });

  it("homogeneous literal errors are reported only when the expression type-checks", () => {
    const b = new B();
    const e = b.list([b.c(1n), b.c("a"), b.at(12).i("nope")]);
    expect(errorsOf(() => check(b.parsed(e), env({ homogeneousAggregateLiterals: true })))).toBe(
      "1:12: undeclared reference to 'nope' (in container '')",
    );
  });

  it("homogeneous literals see final types: an empty list unified with dyn is list(dyn)", () => {
    // d == [[80], []]: joining [80] and [] binds []'s element variable to int, but
    // unifying the literal with dyn's list(list(dyn)) in _==_ rebinds it to dyn (cel-go's
    // isValidTypeSubstitution keeps the more general type), so the validator compares
    // list(int) with list(dyn), as cel-go v0.26 does.
    const b = new B();
    const lit = b.list([b.list([b.c(80n)]), b.at(14).list([])]);
    const e = b.call("_==_", b.i("d"), lit);
    const vars = { variables: { d: listType(listType(DYN)) } };
    expect(formatType(check(b.parsed(e), env(vars)).typeMap.get(lit.id)!)).toBe(
      "list(list(dyn))",
    );
    expect(errorsOf(() => check(b.parsed(e), env({ ...vars, homogeneousAggregateLiterals: true })))).toBe(
      "1:14: expected type 'list(int)' but found 'list(dyn)'",
    );
    // Without the dyn side the empty list stays list(int).
    const b2 = new B();
    const ok = b2.list([b2.list([b2.c(80n)]), b2.list([])]);
    expect(formatType(check(b2.parsed(ok), env({ homogeneousAggregateLiterals: true })).type)).toBe("list(list(int))");
  });

  it("homogeneous literals: format() arguments are exempt with the strings extension", () => {
    const b = new B();
    const fmt = b.mcall(b.c("%s %d"), "format", b.list([b.c("a"), b.c(1n)]));
    const strings = { libraries: [stringsLibrary(2)], homogeneousAggregateLiterals: true };
    expect(check(b.parsed(fmt), env(strings)).type).toBe(STRING);
    const b2 = new B();
    const outside = b2.call("_+_", b2.list([b2.c("a"), b2.at(6).c(1n)]), b2.list([]));
    expect(errorsOf(() => check(b2.parsed(outside), env(strings)))).toBe("1:6: expected type 'string' but found 'int'");
  });

  it("the Kubernetes validators reject bad duration, timestamp and regex literals", () => {
    const b = new B();
    const e = b.call(
      "_&&_",
      b.call("_<_", b.call("duration", b.at(10).c("5 parsecs")), b.call("duration", b.c("1s"))),
      b.mcall(b.c("abc"), "matches", b.at(30).c("a(")),
    );
    expect(errorsOf(() => check(b.parsed(e), env({ validateLiterals: true })))).toBe(
      "1:10: invalid duration argument\n1:30: invalid matches argument",
    );
    // Outside the Kubernetes validator set they are left to evaluation; homogeneous literals alone do not turn them on.
    expect(check(b.parsed(e), env()).type).toBe(BOOL);
    expect(check(b.parsed(e), env({ homogeneousAggregateLiterals: true })).type).toBe(BOOL);
    const b2 = new B();
    const ts = b2.call("timestamp", b2.at(11).c("yesterday"));
    expect(errorsOf(() => check(b2.parsed(ts), env({ validateLiterals: true })))).toBe(
      "1:11: invalid timestamp argument",
    );
  });

  it("string.format calls are validated with the strings extension", () => {
    const b = new B();
    const fmt = b.mcall(b.c("%d"), "format", b.list([b.at(11).c("a")]));
    expect(errorsOf(() => check(b.parsed(fmt), env({ libraries: [stringsLibrary(2)] })))).toBe(
      "1:11: error during formatting: decimal clause can only be used on integers, was given string",
    );
  });

  it("types maps", () => {
    const b = new B();
    const e = b.map([b.c("a"), b.c(1n)], [b.c("b"), b.c(2n)]);
    expect(formatType(check(b.parsed(e), env()).type)).toBe("map(string, int)");
  });

  it("joins null and messages to the later type unless it is less specific (cel-go's mostGeneral)", () => {
    const b = new B();
    const vars = { variables: { o: messageType("test.Obj") } };
    expect(formatType(check(b.parsed(b.list([b.c(null), b.i("o")])), env(vars)).type)).toBe("list(test.Obj)");
    expect(formatType(check(b.parsed(b.list([b.i("o"), b.c(null)])), env(vars)).type)).toBe("list(null)");
  });
});

describe("checker: names and the container", () => {
  it("resolves names from the most qualified candidate", () => {
    const b = new B();
    const e = b.i("c");
    const c = check(b.parsed(e), env({ container: "a.b", variables: { "a.b.c": INT, c: STRING } }));
    expect(c.type).toBe(INT);
    expect(c.referenceMap.get(e.id)).toEqual({ name: "a.b.c" });
    expect(c.expr).toEqual({ kind: "ident", id: e.id, name: "a.b.c" });
  });

  it("falls back to less qualified candidates", () => {
    const b = new B();
    const e = b.i("c");
    const c = check(b.parsed(e), env({ container: "a.b", variables: { "a.c": INT } }));
    expect(c.referenceMap.get(e.id)).toEqual({ name: "a.c" });
  });

  it("treats a leading dot as root-scoped", () => {
    const b = new B();
    const e = b.i(".c");
    const c = check(b.parsed(e), env({ container: "a.b", variables: { "a.b.c": INT, c: STRING } }));
    expect(c.type).toBe(STRING);
    expect(c.referenceMap.get(e.id)).toEqual({ name: "c" });
  });

  it("reports the container in undeclared references", () => {
    const b = new B();
    const e = b.at(1).i("zz");
    expect(errorsOf(() => check(b.parsed(e), env({ container: "a.b" })))).toBe(
      "1:1: undeclared reference to 'zz' (in container 'a.b')",
    );
  });

  it("reads a select chain as a qualified variable name", () => {
    const b = new B();
    const e = b.sel(b.sel(b.i("a"), "b"), "c");
    const c = check(b.parsed(e), env({ variables: { "a.b.c": INT } }));
    expect(c.type).toBe(INT);
    expect(c.referenceMap.get(e.id)).toEqual({ name: "a.b.c" });
    expect(c.expr).toEqual({ kind: "ident", id: e.id, name: "a.b.c" });
  });

  it("selects a field of the longest variable prefix", () => {
    const b = new B();
    const ab = b.sel(b.i("a"), "b");
    const e = b.sel(ab, "c");
    const c = check(b.parsed(e), env({ variables: { "a.b": mapType(STRING, INT) } }));
    expect(c.type).toBe(INT);
    expect(c.referenceMap.get(ab.id)).toEqual({ name: "a.b" });
    expect(c.expr).toEqual({ kind: "select", id: e.id, operand: { kind: "ident", id: ab.id, name: "a.b" }, field: "c", testOnly: false });
  });

  it("resolves enum constants through the type provider", () => {
    const b = new B();
    const e = b.sel(b.sel(b.i("Color"), "RED"), "x");
    // Color.RED.x: the chain Color.RED resolves in container 'test'; selecting on an int is an error.
    const inner = (e as { operand: Expr }).operand;
    const b2 = new B();
    const ok = b2.sel(b2.i("Color"), "RED");
    const c = check(b2.parsed(ok), env({ container: "test" }));
    expect(c.type).toBe(INT);
    expect(c.referenceMap.get(ok.id)).toEqual({ name: "test.Color.RED", value: 1n });
    expect(inner.kind).toBe("select");
  });

  it("calls a namespaced function, dropping the target", () => {
    const b = new B();
    const e = b.mcall(b.i("base64"), "encode", b.c("hi"));
    const c = check(b.parsed(e), env());
    expect(c.type).toBe(STRING);
    expect(c.referenceMap.get(e.id)).toEqual({ overloadIds: ["base64_encode_string"] });
    expect(c.expr).toMatchObject({ kind: "call", fn: "base64.encode" });
    expect((c.expr as { target?: Expr }).target).toBeUndefined();
  });

  it("resolves functions against the container", () => {
    const b = new B();
    const e = b.call("encode", b.c("hi"));
    const c = check(b.parsed(e), env({ container: "base64" }));
    expect(c.expr).toMatchObject({ kind: "call", fn: "base64.encode" });
  });

  it("a local shadows a global; .name reaches the global", () => {
    const b = new B();
    // [1].exists(x, .x == 'a'): x local int, .x global string
    const gx = b.i(".x");
    const lx = b.i("x");
    const e = b.comp(
      "x",
      b.list([b.c(1n)]),
      b.c(false),
      b.c(true),
      b.call("_||_", b.i("@result"), b.call("_&&_", b.call("_==_", gx, b.c("a")), b.call("_==_", lx, b.c(1n)))),
      b.i("@result"),
    );
    const c = check(b.parsed(e), env({ variables: { x: STRING } }));
    expect(typeOf(c, gx)).toBe("string");
    expect(c.referenceMap.get(gx.id)).toEqual({ name: ".x" });
    expect(typeOf(c, lx)).toBe("int");
  });
});

describe("checker: messages, fields and has()", () => {
  const vars = { o: messageType("test.Obj") };

  it("types field selection", () => {
    const b = new B();
    const e = b.sel(b.sel(b.i("o"), "child"), "i");
    expect(check(b.parsed(e), env({ variables: vars })).type).toBe(INT);
  });

  it("reports undefined fields at the select", () => {
    const b = new B();
    const e = b.at(2).sel(b.i("o"), "nope");
    expect(errorsOf(() => check(b.parsed(e), env({ variables: vars })))).toBe("1:2: undefined field 'nope'");
  });

  it("reports selection on types without fields", () => {
    const b = new B();
    const e = b.at(3).sel(b.list([]), "length");
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe("1:3: type 'list(_var0)' does not support field selection");
  });

  it("types has() as bool", () => {
    const b = new B();
    const e = b.sel(b.i("o"), "s", true);
    const c = check(b.parsed(e), env({ variables: vars }));
    expect(c.type).toBe(BOOL);
    expect(c.referenceMap.get(e.id)).toBeUndefined();
  });

  it("selects from maps and dyn", () => {
    const b = new B();
    const m = b.sel(b.sel(b.i("o"), "m"), "k");
    const d = b.sel(b.i("d"), "k");
    const c = check(b.parsed(b.list([m, d])), env({ variables: { ...vars, d: DYN } }));
    expect(typeOf(c, m)).toBe("int");
    expect(typeOf(c, d)).toBe("dyn");
  });

  it("constructs messages, resolving the name against the container", () => {
    const b = new B();
    const e = b.struct("Obj", ["i", b.c(1n)], ["w", b.c(null)], ["s", b.c("x")]);
    const c = check(b.parsed(e), env({ container: "test" }));
    expect(formatType(c.type)).toBe("test.Obj");
    expect(c.referenceMap.get(e.id)).toEqual({ name: "test.Obj" });
    expect(c.expr).toMatchObject({ kind: "struct", typeName: "test.Obj" });
  });

  it("reports unknown fields and mismatched field types at the field", () => {
    const b = new B();
    const e = b.struct("test.Obj", ["i", b.u(1n), false, 11], ["zz", b.c(2n), false, 20]);
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe(
      "1:11: expected type of field 'i' is 'int' but provided type is 'uint'\n1:20: undefined field 'zz'",
    );
  });

  it("reports unknown message names and non-message types", () => {
    const b = new B();
    const e = b.at(4).struct("Msg");
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe("1:4: undeclared reference to 'Msg' (in container '')");
    const b2 = new B();
    const e2 = b2.at(4).struct("int");
    expect(errorsOf(() => check(b2.parsed(e2), env()))).toBe("1:4: 'int' is not a message type");
  });

  it("treats wrappers as nullable primitives", () => {
    const b = new B();
    const isNull = b.call("_==_", b.sel(b.i("o"), "w"), b.c(null));
    const plus = b.call("_+_", b.sel(b.i("o"), "w"), b.c(1n));
    const c = check(b.parsed(b.list([isNull, plus])), env({ variables: vars }));
    expect(typeOf(c, isNull)).toBe("bool");
    expect(typeOf(c, plus)).toBe("int");
    expect(c.referenceMap.get(plus.id)).toEqual({ overloadIds: ["add_int64"] });
  });

  it("rejects null for a plain int", () => {
    const b = new B();
    const e = b.at(5).call("_==_", b.sel(b.i("o"), "i"), b.c(null));
    expect(errorsOf(() => check(b.parsed(e), env({ variables: vars })))).toBe(
      "1:5: found no matching overload for '_==_' applied to '(int, null)'",
    );
  });
});

describe("checker: comprehensions", () => {
  /** `range.all(v, pred)` as cel-go expands it. */
  function all(b: B, range: Expr, v: string, pred: (b: B) => Expr): Expr {
    return b.comp(
      v,
      range,
      b.c(true),
      b.call("@not_strictly_false", b.i("@result")),
      b.call("_&&_", b.i("@result"), pred(b)),
      b.i("@result"),
    );
  }

  it("types the iteration variable from a list", () => {
    const b = new B();
    let x!: Expr;
    const e = all(b, b.list([b.c(1n)]), "x", (b) => b.call("_<_", (x = b.i("x")), b.c(2n)));
    const c = check(b.parsed(e), env());
    expect(typeOf(c, x)).toBe("int");
    expect(c.type).toBe(BOOL);
  });

  it("two-variable: list gives (int, elem), map gives (key, value)", () => {
    const b = new B();
    let i!: Expr, v!: Expr, k!: Expr, mv!: Expr;
    const overList = b.comp(
      "i",
      b.list([b.c("a")]),
      b.c(true),
      b.c(true),
      b.call("_&&_", b.call("_==_", (i = b.i("i")), b.c(0n)), b.call("_==_", (v = b.i("v")), b.c("a"))),
      b.i("@result"),
      "v",
    );
    const overMap = b.comp(
      "k",
      b.map([b.c("a"), b.c(1.5)]),
      b.c(true),
      b.c(true),
      b.call("_&&_", b.call("_==_", (k = b.i("k")), b.c("a")), b.call("_==_", (mv = b.i("v")), b.c(1.5))),
      b.i("@result"),
      "v",
    );
    const c = check(b.parsed(b.list([overList, overMap])), env());
    expect([typeOf(c, i), typeOf(c, v), typeOf(c, k), typeOf(c, mv)]).toEqual(["int", "string", "string", "double"]);
  });

  it("ranges over dyn with dyn variables", () => {
    const b = new B();
    let x!: Expr;
    const e = all(b, b.i("d"), "x", (b) => b.call("_==_", (x = b.i("x")), b.c(1n)));
    const c = check(b.parsed(e), env({ variables: { d: DYN } }));
    expect(typeOf(c, x)).toBe("dyn");
  });

  it("rejects a non-iterable range and a non-bool predicate", () => {
    const b = new B();
    const e = all(b, b.at(1).c(true), "x", (b) => b.at(10).c(0n));
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe(
      "1:1: expression of type 'bool' cannot be range of a comprehension (must be list, map, or dynamic)\n" +
        "1:10: expected type 'bool' but found 'int'",
    );
  });

  it("iteration variables are not visible outside", () => {
    const b = new B();
    const e = b.call("_&&_", all(b, b.list([b.c(1n)]), "y", (b) => b.c(true)), b.call("_==_", b.at(20).i("y"), b.c(1n)));
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe("1:20: undeclared reference to 'y' (in container '')");
  });

  it("map() builds list(result type)", () => {
    const b = new B();
    // [1].map(x, [x, x])
    const e = b.comp(
      "x",
      b.list([b.c(1n)]),
      b.list([]),
      b.c(true),
      b.call("_+_", b.i("@result"), b.list([b.list([b.i("x"), b.i("x")])])),
      b.i("@result"),
    );
    expect(formatType(check(b.parsed(e), env()).type)).toBe("list(list(int))");
  });
});

describe("checker: optionals", () => {
  it("a.?b on a map gives optional_type(value)", () => {
    const b = new B();
    const e = b.call("_?._", b.i("m"), b.c("k"));
    const c = check(b.parsed(e), env({ variables: { m: mapType(STRING, INT) } }));
    expect(formatType(c.type)).toBe("optional_type(int)");
    expect(c.referenceMap.get(e.id)).toEqual({ overloadIds: ["select_optional_field"] });
  });

  it("selection on an optional stays optional", () => {
    const b = new B();
    const e = b.sel(b.i("a"), "b");
    const c = check(b.parsed(e), env({ variables: { a: optionalType(mapType(STRING, STRING)) } }));
    expect(formatType(c.type)).toBe("optional_type(string)");
  });

  it("a[?i] through the declared overloads", () => {
    const b = new B();
    const e = b.call("_[?_]", b.list([b.c(1n)]), b.c(0n));
    expect(formatType(check(b.parsed(e), env()).type)).toBe("optional_type(int)");
  });

  it("optional list elements and map entries unwrap", () => {
    const b = new B();
    const l = b.list([b.i("o"), b.c(2n)], [0]);
    const m = b.map([b.c("k"), b.i("o"), true]);
    const c = check(b.parsed(b.list([l])), env({ variables: { o: optionalType(INT) } }));
    expect(typeOf(c, l)).toBe("list(int)");
    const c2 = check(b.parsed(m), env({ variables: { o: optionalType(INT) } }));
    expect(formatType(c2.type)).toBe("map(string, int)");
  });

  it("a non-optional in an optional entry is an error", () => {
    const b = new B();
    const e = b.list([b.at(3).c(1n)], [0]);
    expect(errorsOf(() => check(b.parsed(e), env()))).toBe("1:3: expected type 'optional_type(int)' but found 'int'");
  });

  it("optional struct fields", () => {
    const b = new B();
    const e = b.struct("test.Obj", ["i", b.i("o"), true]);
    expect(formatType(check(b.parsed(e), env({ variables: { o: optionalType(INT) } })).type)).toBe("test.Obj");
  });

  it("optional.of(x) infers its parameter", () => {
    const b = new B();
    const e = b.call("optional.of", b.c("s"));
    expect(formatType(check(b.parsed(e), env()).type)).toBe("optional_type(string)");
  });
});

describe("checker: speed", () => {
  it("checks a small expression in a few microseconds", () => {
    const b = new B();
    const e = b.call(
      "_&&_",
      b.call("_<_", b.sel(b.i("o"), "i"), b.c(10n)),
      b.call("_==_", b.call("size", b.sel(b.i("o"), "s")), b.c(3n)),
    );
    const p = b.parsed(e);
    const en = env({ variables: { o: messageType("test.Obj") } });
    for (let i = 0; i < 2000; i++) check(p, en);
    const n = 20000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) check(p, en);
    const us = ((performance.now() - t0) * 1000) / n;
    // Generous bound for shared CI machines; typically ~1-3 µs.
    expect(us).toBeLessThan(50);
  });
});

// ------------------------------------------------------------------ table, through the real parser

describe("checker: table of expressions (parsed)", () => {
  const O = messageType("test.Obj");
  const base: EnvOptions = {
    variables: { d: DYN, o: O, m: mapType(STRING, INT), l: listType(INT), w: wrapperType(INT), opt: optionalType(STRING) },
  };
  type Row = [expr: string, want: string, opts?: EnvOptions];
  /** `want` is the result type, or `ERR ` and the issues as `line:col: message` joined by ` | `. */
  const rows: Row[] = [
    ["1 + 2", "int"],
    ["1 + 2u", "ERR 1:3: found no matching overload for '_+_' applied to '(int, uint)'"],
    ["'a' + 1", "ERR 1:5: found no matching overload for '_+_' applied to '(string, int)'"],
    ["d + 1", "int"],
    ["d + d", "dyn"],
    ["l[0] + m['k']", "int"],
    ["l[d]", "int"],
    ["m[1]", "ERR 1:2: found no matching overload for '_[_]' applied to '(map(string, int), int)'"],
    ["[1, 'a']", "list(dyn)"],
    ["[1, 'a']", "ERR 1:5: expected type 'int' but found 'string'", { homogeneousAggregateLiterals: true }],
    ["{'a': 1, 'b': 2u}", "map(string, dyn)"],
    ["{'a': 1, 'b': 2u}", "ERR 1:15: expected type 'int' but found 'uint'", { homogeneousAggregateLiterals: true }],
    ["[d, d]", "list(dyn)", { homogeneousAggregateLiterals: true }],
    ["1 < 2.0", "ERR 1:3: found no matching overload for '_<_' applied to '(int, double)'"],
    ["1 < 2.0", "bool", { crossTypeNumericComparisons: true }],
    ["o.i == 1 && o.s == 'x'", "bool"],
    ["o.nope", "ERR 1:2: undefined field 'nope'"],
    ["has(o.s) && has(m.k)", "bool"],
    // has() is expanded at the macro call: its select carries the call's position.
    ["has(o.nope)", "ERR 1:4: undefined field 'nope'"],
    ["o.child.child.w + 1", "int"],
    ["w == null && o.w == null", "bool"],
    ["o.i == null", "ERR 1:5: found no matching overload for '_==_' applied to '(int, null)'"],
    ["test.Obj{i: 1, s: 'x'}", "test.Obj"],
    ["Obj{i: 1}", "test.Obj", { container: "test" }],
    ["test.Obj{i: 'x'}", "ERR 1:11: expected type of field 'i' is 'int' but provided type is 'string'"],
    ["test.Obj{zz: 1}", "ERR 1:12: undefined field 'zz'"],
    ["Nope{}", "ERR 1:5: undeclared reference to 'Nope' (in container '')"],
    ["test.Color.RED + 1", "int"],
    ["type(1) == int && type(o) == test.Obj", "bool"],
    ["x", "ERR 1:1: undeclared reference to 'x' (in container '')"],
    ["nope(1)", "ERR 1:5: undeclared reference to 'nope' (in container '')"],
    ["1.size()", "ERR 1:7: found no matching overload for 'size' applied to 'int.()'"],
    ["l.all(x, x > 0)", "bool"],
    ["l.map(x, x * 2)", "list(int)"],
    ["m.map(k, k + '!')", "list(string)"],
    ["l.exists(x, x)", "ERR 1:13: expected type 'bool' but found 'int'"],
    ["true.all(x, x)", "ERR 1:1: expression of type 'bool' cannot be range of a comprehension (must be list, map, or dynamic)"],
    ["l.filter(x, x > 0).size() + y", "ERR 1:29: undeclared reference to 'y' (in container '')"],
    ["[1, 2].length", "ERR 1:7: type 'list(int)' does not support field selection"],
    ["d.a.b.c", "dyn"],
    ["opt.orValue('x')", "string", { libraries: [OPTIONAL_LIBRARY] }],
    ["m.?k.orValue(0) + l[?0].orValue(1)", "int", { libraries: [OPTIONAL_LIBRARY] }],
    ["[?opt, 'b']", "list(string)", { libraries: [OPTIONAL_LIBRARY] }],
    ["{?'k': opt}", "map(string, string)", { libraries: [OPTIONAL_LIBRARY] }],
  ];
  it.each(rows)("%s → %s", (expr, want, opts) => {
    const e = env({ ...base, ...opts, variables: { ...base.variables, ...opts?.variables } });
    let got: string;
    try {
      got = formatType(e.check(e.parse(expr)).type);
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err;
      got = `ERR ${err.issues.map((i) => `${i.line}:${i.column}: ${i.message}`).join(" | ")}`;
    }
    expect(got).toBe(want);
  });
});

describe("checker: qualified names in select chains (warm name trie)", () => {
  it("resolves a dotted variable under a longer chain and a field chain on a plain variable, compile after compile", () => {
    const env = new Env({ variables: { x: DYN, "a.b": mapType(STRING, mapType(STRING, INT)), "p.q.r": INT } });
    for (let round = 0; round < 3; round++) {
      const c = env.compile("a.b.c.d + p.q.r + x.y.z.w");
      const refs: string[] = [];
      c.referenceMap.forEach((r) => {
        if (r.name !== undefined) refs.push(r.name);
      });
      expect(refs.sort()).toEqual(["a.b", "p.q.r", "x"]);
      const out = env.program(c).eval({
        "a.b": new Map([["c", new Map([["d", 1n]])]]),
        "p.q.r": 2n,
        x: new Map([["y", new Map([["z", new Map([["w", 3n]])]])]]),
      });
      expect(out).toBe(6n);
    }
  });
});
