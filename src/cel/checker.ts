/**
 * The type checker: gradual typing over {@link CelType} with `dyn`, type
 * parameters and unification, overload resolution over every overload of a
 * function, name resolution against the container, and cel-go's error messages
 * and positions.
 *
 * It follows cel-go's `checker/checker.go` rule for rule (see the notes by each
 * method), so that the types, references and errors it produces are the ones
 * cel-go produces. Like cel-go it rewrites the tree where a name resolves to
 * something other than what was written: a select chain naming a variable
 * (`a.b.c`) becomes an identifier, a namespaced call (`base64.encode(x)`) loses
 * its target, and names become fully qualified. The input tree is never
 * mutated; changed nodes are copied.
 */
import {
  type CallExpr,
  type ComprehensionExpr,
  type Constant,
  type Expr,
  type IdentExpr,
  type ListExpr,
  type MapEntry,
  type MapExpr,
  Op,
  type ParsedExpr,
  type SelectExpr,
  type StructExpr,
  type StructField,
} from "./ast.js";
import {
  collectTypeParams,
  declaredTypeName,
  formatArgTypes,
  formatType,
  instantiate,
  internalIsAssignable,
  internalIsAssignableList,
  isDyn,
  isDynOrError,
  isExactType,
  isOptional,
  Mapping,
  mostGeneral,
  substitute,
} from "./check-types.js";
import type { CheckedExpr, Reference } from "./checked.js";
import { hasValidators, validate } from "./check-validators.js";
import type { FunctionDecl, OverloadDecl } from "./decls.js";
import type { Env } from "./env.js";
import { type CelIssue, CelCompileError, locate } from "./errors.js";
import {
  BOOL,
  BUILTIN_TYPE_NAMES,
  BYTES,
  CelType,
  DOUBLE,
  DYN,
  ERROR,
  INT,
  listType,
  mapType,
  NULL_TYPE,
  OPTIONAL_NAME,
  opaqueType,
  optionalType,
  STRING,
  typeParam,
  typeType,
  UINT,
} from "./types.js";
import type { CelValue } from "./values.js";

/** Throws {@link CelCompileError} listing every type error with its position. */
export function check(parsed: ParsedExpr, env: Env): CheckedExpr {
  const c = new Checker(parsed, env);
  const expr = c.check(parsed.expr);
  if (c.issues.length > 0) {
    throw new CelCompileError(c.sortedIssues(), parsed.sourceInfo.text, parsed.sourceInfo.description);
  }
  // Substitute bound type parameters everywhere and turn free ones into dyn.
  const typeMap = c.typeMap;
  for (const [id, t] of typeMap) {
    const s = substitute(c.mapping, t, true);
    if (s !== t) typeMap.set(id, s);
  }
  const checked: CheckedExpr = {
    expr,
    sourceInfo: parsed.sourceInfo,
    typeMap,
    referenceMap: c.referenceMap,
    type: typeMap.get(parsed.expr.id) ?? DYN,
  };
  // cel-go's AST validators run only on a tree that checked without errors.
  if (hasValidators(env)) {
    for (const issue of validate(checked, env)) c.report(issue.id, issue.message);
    if (c.issues.length > 0) {
      throw new CelCompileError(c.sortedIssues(), parsed.sourceInfo.text, parsed.sourceInfo.description);
    }
  }
  return checked;
}

/** Overload ids that `crossTypeNumericComparisons: false` disables (as cel-go does). */
const CROSS_TYPE_NUMERIC_OVERLOADS: ReadonlySet<string> = new Set(
  ["less", "less_equals", "greater", "greater_equals"].flatMap((op) => [
    `${op}_double_int64`,
    `${op}_double_uint64`,
    `${op}_int64_double`,
    `${op}_int64_uint64`,
    `${op}_uint64_double`,
    `${op}_uint64_int64`,
  ]),
);

/** Names cel-go uses when a message literal names a well-known type by its protobuf name. */
function wellKnownTypeName(t: CelType): string | undefined {
  switch (t.kind) {
    case "any":
      return "google.protobuf.Any";
    case "timestamp":
      return "google.protobuf.Timestamp";
    case "duration":
      return "google.protobuf.Duration";
    case "dyn":
      return "google.protobuf.Value";
    case "null":
      return "google.protobuf.NullValue";
    case "wrapper":
      return t.name;
    case "list":
      return t.params[0]!.kind === "dyn" ? "google.protobuf.ListValue" : undefined;
    case "map":
      return t.params[0]!.kind === "string" && t.params[1]!.kind === "dyn" ? "google.protobuf.Struct" : undefined;
    default:
      return undefined;
  }
}

interface Resolved {
  readonly name: string;
  readonly type: CelType;
  readonly value?: CelValue;
}

const typeParamsCache = new WeakMap<OverloadDecl, readonly string[]>();

function overloadTypeParams(o: OverloadDecl): readonly string[] {
  let ps = typeParamsCache.get(o);
  if (ps === undefined) {
    const found: string[] = [];
    collectTypeParams(o.result, found);
    for (const p of o.params) collectTypeParams(p, found);
    for (const p of o.typeParams ?? []) if (!found.includes(p)) found.push(p);
    ps = found;
    typeParamsCache.set(o, ps);
  }
  return ps;
}

const MAX_ISSUES = 100;

/** cel-go v0.26's `types.OptionalType`: the parameterless opaque `optional_type` (later versions: `optional_type(dyn)`). */
const OPTIONAL_TYPE_VALUE = opaqueType(OPTIONAL_NAME);

class Checker {
  readonly typeMap = new Map<number, CelType>();
  readonly referenceMap = new Map<number, Reference>();
  readonly mapping = new Mapping();
  readonly issues: (CelIssue & { seq: number })[] = [];
  private freeTypeVarCounter = 0;
  /** Local scopes (comprehension variables), innermost last. */
  private readonly scopes: Map<string, CelType>[] = [];
  private readonly container: string;
  private readonly containerPrefixes: readonly string[];

  constructor(
    private readonly parsed: ParsedExpr,
    private readonly env: Env,
  ) {
    this.container = env.container;
    // "a.b.c" → ["a.b.c.", "a.b.", "a.", ""]: candidate prefixes from most to least qualified.
    const prefixes: string[] = [];
    if (this.container !== "") {
      let next = this.container;
      prefixes.push(`${next}.`);
      for (let i = next.lastIndexOf("."); i >= 0; i = next.lastIndexOf(".")) {
        next = next.slice(0, i);
        prefixes.push(`${next}.`);
      }
    }
    prefixes.push("");
    this.containerPrefixes = prefixes;
  }

  // ---------------------------------------------------------------- errors

  report(id: number, message: string): void {
    if (this.issues.length >= MAX_ISSUES) return;
    const offset = this.parsed.sourceInfo.positions.get(id);
    if (offset === undefined) {
      this.issues.push({ message, offset: -1, line: 0, column: 0, seq: this.issues.length });
      return;
    }
    const { line, column } = locate(this.parsed.sourceInfo, offset);
    this.issues.push({ message, offset, line, column, seq: this.issues.length });
  }

  /** cel-go sorts issues by position (stably) when displaying them. */
  sortedIssues(): CelIssue[] {
    return [...this.issues]
      .sort((a, b) => a.line - b.line || a.column - b.column || a.seq - b.seq)
      .map(({ message, offset, line, column }) => ({ message, offset, line, column }));
  }

  private typeMismatch(id: number, expected: CelType, actual: CelType): void {
    this.report(id, `expected type '${formatType(expected)}' but found '${formatType(actual)}'`);
  }

  private undeclaredReference(id: number, name: string): void {
    this.report(id, `undeclared reference to '${name}' (in container '${this.container}')`);
  }

  // ---------------------------------------------------------------- types

  private setType(e: { readonly id: number }, t: CelType): void {
    this.typeMap.set(e.id, t);
  }

  private getType(e: { readonly id: number }): CelType {
    return this.typeMap.get(e.id) ?? ERROR;
  }

  private isAssignable(t1: CelType, t2: CelType): boolean {
    const mark = this.mapping.mark();
    if (internalIsAssignable(this.mapping, t1, t2)) return true;
    this.mapping.rollback(mark);
    return false;
  }

  private isAssignableList(l1: readonly CelType[], l2: readonly CelType[]): boolean {
    const mark = this.mapping.mark();
    if (internalIsAssignableList(this.mapping, l1, l2)) return true;
    this.mapping.rollback(mark);
    return false;
  }

  private newTypeVar(): CelType {
    return typeParam(`_var${this.freeTypeVarCounter++}`);
  }

  // ---------------------------------------------------------------- names

  /** Tries each candidate name for `name` in the container, most qualified first. */
  private resolveCandidates<T>(name: string, fn: (candidate: string) => T | undefined): T | undefined {
    if (name.startsWith(".")) return fn(name.slice(1));
    const prefixes = this.containerPrefixes;
    for (let i = 0; i < prefixes.length; i++) {
      const r = fn(prefixes[i] === "" ? name : prefixes[i] + name);
      if (r !== undefined) return r;
    }
    return undefined;
  }

  private lookupLocal(name: string): CelType | undefined {
    const n = name.startsWith(".") ? name.slice(1) : name;
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i]!.get(n);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  /** A global identifier: a declared variable, a type name, or a constant (enum value). */
  private lookupGlobal = (candidate: string): Resolved | undefined => {
    const v = this.env.variables.get(candidate);
    if (v !== undefined) return { name: candidate, type: v };
    const builtin = this.builtinType(candidate);
    if (builtin !== undefined) return { name: candidate, type: typeType(builtin) };
    const provider = this.env.typeProvider;
    if (provider === undefined) return undefined;
    const ident = provider.findIdent?.(candidate);
    if (ident !== undefined) {
      if (ident.value instanceof CelType) return { name: candidate, type: typeType(ident.value) };
      return { name: candidate, type: ident.type, value: ident.value };
    }
    const t = provider.findType(candidate);
    if (t !== undefined) return { name: candidate, type: typeType(t) };
    return undefined;
  };

  private resolveSimpleIdent(name: string): Resolved | undefined {
    const local = this.lookupLocal(name);
    const rootScoped = name.startsWith(".");
    if (local !== undefined && !rootScoped) return { name, type: local };
    const r = this.resolveCandidates(name, this.lookupGlobal);
    if (r === undefined) return undefined;
    // A global shadowed by a local must be written with a leading dot to stay unambiguous.
    return local !== undefined ? { ...r, name: `.${r.name}` } : r;
  }

  private resolveQualifiedIdent(qualifiers: readonly string[]): Resolved | undefined {
    if (qualifiers.length === 1) return this.resolveSimpleIdent(qualifiers[0]!);
    const first = qualifiers[0]!;
    const local = this.lookupLocal(first);
    if (local !== undefined && !first.startsWith(".")) return undefined; // a field selection on a local
    const r = this.resolveCandidates(qualifiers.join("."), this.lookupGlobal);
    if (r === undefined) return undefined;
    return local !== undefined ? { ...r, name: `.${r.name}` } : r;
  }

  /** The type named in a message literal: a type name known to the environment, as `type(T)`. */
  private resolveTypeIdent(name: string): Resolved | undefined {
    return this.resolveCandidates(name, (candidate) => {
      const builtin = this.builtinType(candidate);
      if (builtin !== undefined) return { name: candidate, type: typeType(builtin) };
      const provider = this.env.typeProvider;
      if (provider === undefined) return undefined;
      const ident = provider.findIdent?.(candidate);
      if (ident !== undefined && ident.value instanceof CelType) return { name: candidate, type: typeType(ident.value) };
      const t = provider.findType(candidate);
      if (t !== undefined) return { name: candidate, type: typeType(t) };
      return undefined;
    });
  }

  /** Type names every environment knows, plus `optional_type` with the optional library. */
  private builtinType(name: string): CelType | undefined {
    const t = BUILTIN_TYPE_NAMES.get(name);
    if (t !== undefined) return t;
    if (name === OPTIONAL_NAME && this.env.optionalSyntax) return OPTIONAL_TYPE_VALUE;
    return undefined;
  }

  private lookupFunction(name: string): FunctionDecl | undefined {
    const fns = this.env.functions;
    return this.resolveCandidates(name, (candidate) => fns.get(candidate));
  }

  // ---------------------------------------------------------------- traversal

  check(e: Expr): Expr {
    switch (e.kind) {
      case "const":
        this.setType(e, constantType(e.value));
        return e;
      case "ident":
        return this.checkIdent(e);
      case "select":
        return this.checkSelect(e);
      case "call":
        return this.checkCall(e);
      case "list":
        return this.checkList(e);
      case "map":
        return this.checkMap(e);
      case "struct":
        return this.checkStruct(e);
      case "comprehension":
        return this.checkComprehension(e);
    }
  }

  private checkIdent(e: IdentExpr): Expr {
    const r = this.resolveSimpleIdent(e.name);
    if (r !== undefined) {
      const name = r.name;
      this.setType(e, r.type);
      this.referenceMap.set(e.id, r.value === undefined ? { name } : { name, value: r.value });
      return name === e.name ? e : { kind: "ident", id: e.id, name };
    }
    this.setType(e, ERROR);
    this.undeclaredReference(e.id, e.name);
    return e;
  }

  private checkSelect(e: SelectExpr): Expr {
    // First try to read the whole chain as a qualified name (a variable `a.b.c`, an enum constant).
    if (!e.testOnly) {
      const qualifiers = qualifiersOf(e);
      if (qualifiers !== undefined) {
        const r = this.resolveQualifiedIdent(qualifiers);
        if (r !== undefined) {
          this.setType(e, r.type);
          this.referenceMap.set(e.id, r.value === undefined ? { name: r.name } : { name: r.name, value: r.value });
          return { kind: "ident", id: e.id, name: r.name };
        }
      }
    }
    const [operand, resultType] = this.checkSelectField(e, e.operand, e.field, false);
    this.setType(e, e.testOnly ? BOOL : substitute(this.mapping, resultType, false));
    return operand === e.operand ? e : { ...e, operand };
  }

  /** Types `operand.field` (or `operand.?field`); returns the rewritten operand and the field's type. */
  private checkSelectField(
    e: { readonly id: number },
    operandExpr: Expr,
    field: string,
    optional: boolean,
  ): [Expr, CelType] {
    const operand = this.check(operandExpr);
    const operandType = substitute(this.mapping, this.getType(operand), false);
    const isOpt = isOptional(operandType);
    const target = isOpt ? operandType.params[0]! : operandType;
    let result: CelType = ERROR;
    switch (target.kind) {
      case "map":
        result = target.params[1]!;
        break;
      case "message": {
        const ft = this.lookupFieldType(e.id, target.name, field);
        if (ft !== undefined) result = ft;
        break;
      }
      case "typeParam":
        // Pin the parameter to dyn so it cannot later be bound to an incompatible type.
        this.isAssignable(DYN, target);
        result = DYN;
        break;
      default:
        if (!isDynOrError(target)) {
          this.report(e.id, `type '${formatType(target)}' does not support field selection`);
        }
        result = DYN;
    }
    return [operand, isOpt || optional ? optionalType(result) : result];
  }

  private lookupFieldType(id: number, typeName: string, field: string): CelType | undefined {
    const provider = this.env.typeProvider;
    if (provider === undefined || provider.findType(typeName) === undefined) {
      this.report(id, `unexpected failed resolution of '${typeName}'`);
      return undefined;
    }
    const ft = provider.findFieldType(typeName, field);
    if (ft !== undefined) return ft;
    this.report(id, `undefined field '${field}'`);
    return undefined;
  }

  private checkOptSelect(e: CallExpr): Expr {
    if (e.args.length !== 2 || e.target !== undefined) {
      const member = e.target !== undefined ? " member call with" : "";
      this.report(
        e.id,
        `unsupported optional field selection: incorrect signature.${member} argument count: ${e.args.length}`,
      );
      return e;
    }
    const fieldExpr = e.args[1]!;
    if (fieldExpr.kind !== "const" || fieldExpr.value.kind !== "string") {
      this.report(fieldExpr.id, `unsupported optional field selection: ${describeExpr(fieldExpr)}`);
      return e;
    }
    const [operand, resultType] = this.checkSelectField(e, e.args[0]!, fieldExpr.value.value, true);
    this.setType(e, substitute(this.mapping, resultType, false));
    this.referenceMap.set(e.id, { overloadIds: ["select_optional_field"] });
    return operand === e.args[0] ? e : { ...e, args: [operand, fieldExpr] };
  }

  private checkCall(e: CallExpr): Expr {
    if (e.fn === Op.optSelect) return this.checkOptSelect(e);
    const args = this.checkAll(e.args);

    if (e.target === undefined) {
      const fn = this.lookupFunction(e.fn);
      if (fn === undefined) {
        this.undeclaredReference(e.id, e.fn);
        this.setType(e, ERROR);
        return args === e.args ? e : { ...e, args };
      }
      const call: CallExpr = fn.name === e.fn && args === e.args ? e : { kind: "call", id: e.id, fn: fn.name, args };
      this.resolveOverloadOrError(call, fn, undefined, args);
      return call;
    }

    // `a.b.f(x)` is either the namespaced function `a.b.f` or `f` with receiver `a.b`.
    const prefix = qualifiedName(e.target);
    if (prefix !== undefined) {
      const fn = this.lookupFunction(`${prefix}.${e.fn}`);
      if (fn !== undefined) {
        const call: CallExpr = { kind: "call", id: e.id, fn: fn.name, args };
        this.resolveOverloadOrError(call, fn, undefined, args);
        return call;
      }
    }

    const target = this.check(e.target);
    const call: CallExpr = target === e.target && args === e.args ? e : { ...e, target, args };
    const fn = this.lookupFunction(e.fn);
    if (fn !== undefined) {
      this.resolveOverloadOrError(call, fn, target, args);
      return call;
    }
    this.setType(e, ERROR);
    this.undeclaredReference(e.id, e.fn);
    return call;
  }

  private checkAll(es: readonly Expr[]): readonly Expr[] {
    let out: Expr[] | undefined;
    for (let i = 0; i < es.length; i++) {
      const c = this.check(es[i]!);
      if (c !== es[i] && out === undefined) out = es.slice(0, i);
      if (out !== undefined) out.push(c);
    }
    return out ?? es;
  }

  private resolveOverloadOrError(
    call: CallExpr,
    fn: FunctionDecl,
    target: Expr | undefined,
    args: readonly Expr[],
  ): void {
    const argTypes: CelType[] = [];
    if (target !== undefined) argTypes.push(this.getType(target));
    for (const a of args) argTypes.push(this.getType(a));

    const disabled = this.env.crossTypeNumericComparisons ? undefined : CROSS_TYPE_NUMERIC_OVERLOADS;
    const isMember = target !== undefined;
    let resultType: CelType | undefined;
    let ids: string[] | undefined;

    for (const overload of fn.overloads) {
      if (disabled !== undefined && disabled.has(overload.id)) continue;
      if (overload.member !== isMember) continue;

      // Logical operators: every argument must be a bool; the first overload decides.
      if (fn.name === Op.logicalAnd || fn.name === Op.logicalOr) {
        let failed = false;
        for (let i = 0; i < argTypes.length; i++) {
          if (!this.isAssignable(argTypes[i]!, BOOL)) {
            this.typeMismatch(args[i]!.id, BOOL, argTypes[i]!);
            failed = true;
          }
        }
        if (failed) {
          this.setType(call, ERROR);
          return;
        }
        this.setType(call, BOOL);
        this.referenceMap.set(call.id, { overloadIds: [overload.id] });
        return;
      }

      let params = overload.params;
      let result = overload.result;
      const tps = overloadTypeParams(overload);
      if (params.length !== argTypes.length) {
        // Cannot match; cel-go still instantiates it, which numbers the fresh type variables.
        this.freeTypeVarCounter += tps.length;
        continue;
      }
      if (tps.length > 0) {
        const subs = new Map<string, CelType>();
        for (const tp of tps) subs.set(tp, this.newTypeVar());
        params = params.map((p) => instantiate(p, subs));
        result = instantiate(result, subs);
      }
      if (!this.isAssignableList(argTypes, params)) continue;

      (ids ??= []).push(overload.id);
      const fnResult = substitute(this.mapping, result, false);
      if (resultType === undefined) resultType = fnResult;
      else if (!isDyn(resultType) && !isExactType(fnResult, resultType)) resultType = DYN;
    }

    if (resultType === undefined) {
      const shown = argTypes.map((t) => substitute(this.mapping, t, true));
      this.report(
        call.id,
        `found no matching overload for '${fn.name}' applied to '${formatArgTypes(shown, isMember)}'`,
      );
      this.setType(call, ERROR);
      return;
    }
    this.setType(call, resultType);
    this.referenceMap.set(call.id, { overloadIds: ids! });
  }

  private checkList(e: ListExpr): Expr {
    const elements = this.checkAll(e.elements);
    let elemsType: CelType | undefined;
    const optionals = e.optionalIndices;
    for (let i = 0; i < elements.length; i++) {
      const el = elements[i]!;
      let t = this.getType(el);
      if (optionals.length > 0 && optionals.includes(i)) {
        if (isOptional(t)) t = t.params[0]!;
        else if (!isDyn(t)) this.typeMismatch(el.id, optionalType(t), t);
      }
      elemsType = this.joinTypes(elemsType, t);
    }
    this.setType(e, listType(elemsType ?? this.newTypeVar()));
    return elements === e.elements ? e : { ...e, elements };
  }

  private checkMap(e: MapExpr): Expr {
    let keyType: CelType | undefined;
    let valueType: CelType | undefined;
    let entries: MapEntry[] | undefined;
    for (let i = 0; i < e.entries.length; i++) {
      const entry = e.entries[i]!;
      const key = this.check(entry.key);
      keyType = this.joinTypes(keyType, this.getType(key));
      const value = this.check(entry.value);
      let vt = this.getType(value);
      if (entry.optional) {
        if (isOptional(vt)) vt = vt.params[0]!;
        else if (!isDyn(vt)) this.typeMismatch(value.id, optionalType(vt), vt);
      }
      valueType = this.joinTypes(valueType, vt);
      if ((key !== entry.key || value !== entry.value) && entries === undefined) entries = e.entries.slice(0, i);
      if (entries !== undefined) entries.push(key === entry.key && value === entry.value ? entry : { ...entry, key, value });
    }
    if (keyType === undefined || valueType === undefined) {
      keyType = this.newTypeVar();
      valueType = this.newTypeVar();
    }
    this.setType(e, mapType(keyType, valueType));
    return entries === undefined ? e : { ...e, entries };
  }

  /**
   * The common type of aggregate literal elements: the more general one, else dyn.
   * (`homogeneousAggregateLiterals` is enforced afterwards by a validator, as in
   * cel-go's `cel` package, see `check-validators.ts`.)
   */
  private joinTypes(previous: CelType | undefined, current: CelType): CelType {
    if (previous === undefined) return current;
    if (this.isAssignable(previous, current)) return mostGeneral(previous, current);
    return DYN;
  }

  private checkStruct(e: StructExpr): Expr {
    const ident = this.resolveTypeIdent(e.typeName);
    if (ident === undefined) {
      this.undeclaredReference(e.id, e.typeName);
      this.setType(e, ERROR);
      // cel-go stops here: the field initializers are not checked.
      return e;
    }
    let typeName = ident.name;
    this.referenceMap.set(e.id, { name: typeName });
    let resultType: CelType = ERROR;
    const identType = ident.type;
    if (identType.kind !== "error") {
      if (identType.kind !== "type") {
        this.report(e.id, `'${declaredTypeName(identType)}' is not a type`);
      } else {
        resultType = identType.params[0]!;
        const wkt = wellKnownTypeName(resultType);
        if (wkt !== undefined) {
          typeName = wkt;
        } else if (resultType.kind === "message") {
          typeName = resultType.name;
        } else {
          this.report(e.id, `'${declaredTypeName(resultType)}' is not a message type`);
          resultType = ERROR;
        }
      }
    }
    this.setType(e, resultType);

    let fields: StructField[] | undefined;
    for (let i = 0; i < e.fields.length; i++) {
      const f = e.fields[i]!;
      const value = this.check(f.value);
      const fieldType = this.lookupFieldType(f.id, typeName, f.field) ?? ERROR;
      let vt = this.getType(value);
      if (f.optional) {
        if (isOptional(vt)) vt = vt.params[0]!;
        else if (!isDyn(vt)) this.typeMismatch(value.id, optionalType(vt), vt);
      }
      if (!this.isAssignable(fieldType, vt)) {
        this.report(
          f.id,
          `expected type of field '${f.field}' is '${formatType(fieldType)}' but provided type is '${formatType(vt)}'`,
        );
      }
      if (value !== f.value && fields === undefined) fields = e.fields.slice(0, i);
      if (fields !== undefined) fields.push(value === f.value ? f : { ...f, value });
    }
    if (ident.name === e.typeName && fields === undefined) return e;
    return { ...e, typeName: ident.name, fields: fields ?? e.fields };
  }

  private checkComprehension(e: ComprehensionExpr): Expr {
    const iterRange = this.check(e.iterRange);
    const accuInit = this.check(e.accuInit);
    const rangeType = substitute(this.mapping, this.getType(iterRange), false);
    const accuType = this.getType(accuInit);
    this.scopes.push(new Map([[e.accuVar, accuType]]));

    const twoVar = e.iterVar2 !== undefined && e.iterVar2 !== "";
    let varType: CelType;
    let var2Type: CelType | undefined;
    switch (rangeType.kind) {
      case "list":
        varType = rangeType.params[0]!;
        if (twoVar) {
          var2Type = varType;
          varType = INT;
        }
        break;
      case "map":
        varType = rangeType.params[0]!;
        if (twoVar) var2Type = rangeType.params[1]!;
        break;
      case "dyn":
      case "error":
      case "typeParam":
        this.isAssignable(DYN, rangeType);
        varType = DYN;
        if (twoVar) var2Type = DYN;
        break;
      default:
        this.report(
          iterRange.id,
          `expression of type '${formatType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
        );
        varType = ERROR;
        if (twoVar) var2Type = ERROR;
    }

    const loopScope = new Map<string, CelType>([[e.iterVar, varType]]);
    if (twoVar) loopScope.set(e.iterVar2!, var2Type!);
    this.scopes.push(loopScope);
    const loopCondition = this.check(e.loopCondition);
    this.assertType(loopCondition, BOOL);
    const loopStep = this.check(e.loopStep);
    this.assertType(loopStep, accuType);
    this.scopes.pop();
    const result = this.check(e.result);
    this.scopes.pop();
    this.setType(e, substitute(this.mapping, this.getType(result), false));

    if (
      iterRange === e.iterRange &&
      accuInit === e.accuInit &&
      loopCondition === e.loopCondition &&
      loopStep === e.loopStep &&
      result === e.result
    ) {
      return e;
    }
    return { ...e, iterRange, accuInit, loopCondition, loopStep, result };
  }

  private assertType(e: Expr, t: CelType): void {
    const actual = this.getType(e);
    if (!this.isAssignable(t, actual)) this.typeMismatch(e.id, t, actual);
  }
}

function constantType(c: Constant): CelType {
  switch (c.kind) {
    case "null":
      return NULL_TYPE;
    case "bool":
      return BOOL;
    case "int":
      return INT;
    case "uint":
      return UINT;
    case "double":
      return DOUBLE;
    case "string":
      return STRING;
    case "bytes":
      return BYTES;
  }
}

/** `a.b.c` → ["a", "b", "c"] when the chain is idents and plain selects only. */
function qualifiersOf(e: SelectExpr): string[] | undefined {
  const out: string[] = [];
  let cur: Expr = e;
  while (cur.kind === "select") {
    if (cur.testOnly) return undefined;
    out.push(cur.field);
    cur = cur.operand;
  }
  if (cur.kind !== "ident") return undefined;
  out.push(cur.name);
  return out.reverse();
}

/** The dotted name an expression spells (`a.b.c`), if it is one. */
function qualifiedName(e: Expr): string | undefined {
  if (e.kind === "ident") return e.name;
  if (e.kind === "select" && !e.testOnly) {
    const q = qualifiedName(e.operand);
    return q === undefined ? undefined : `${q}.${e.field}`;
  }
  return undefined;
}

function describeExpr(e: Expr): string {
  if (e.kind === "const") return `${e.value.kind === "string" ? JSON.stringify(e.value.value) : String((e.value as { value?: unknown }).value)}`;
  if (e.kind === "ident") return e.name;
  return e.kind;
}
