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
  ACCUMULATOR,
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
  appendTypeKey,
  collectTypeParams,
  declaredTypeName,
  formatArgTypes,
  formatType,
  freshTypeVar,
  fromTemplate,
  hasPlaceholder,
  instantiate,
  type Placeholder,
  internalIsAssignable,
  internalIsAssignableList,
  isDyn,
  isDynOrError,
  isExactType,
  isOptional,
  Mapping,
  mostGeneral,
  quickKind,
  substitute,
  toTemplate,
  typeAtom,
} from "./check-types.js";
import type { CheckedExpr, Reference } from "./checked.js";
import { V_FORMAT, V_HOMOGENEOUS, V_REGEX, V_TIME, validate, validatorMask } from "./check-validators.js";
import type { FunctionDecl, OverloadDecl } from "./decls.js";
import type { Env } from "./env.js";
import { type CelIssue, CelCompileError, locate } from "./errors.js";
import { closeInferred } from "./inferred.js";
import { idCount } from "./parser.js";
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
  typeType,
  UINT,
} from "./types.js";
import type { CelValue } from "./values.js";

/** Throws {@link CelCompileError} listing every type error with its position. */
export function check(parsed: ParsedExpr, env: Env): CheckedExpr {
  const info = envInfo(env);
  const c = new Checker(parsed, env, info);
  const expr = c.check(parsed.expr);
  if (c.issues.length > 0) {
    throw new CelCompileError(c.sortedIssues(), parsed.sourceInfo.text, parsed.sourceInfo.description);
  }
  // Substitute bound type parameters everywhere and turn free ones into dyn.
  const typeMap = c.typeMap;
  const own = typeMap.substituteAll(c.mapping);
  const inferred = own === undefined ? undefined : closeInferred(expr, own);
  const checked: CheckedExpr = {
    expr,
    sourceInfo: parsed.sourceInfo,
    typeMap,
    referenceMap: c.referenceMap,
    type: typeMap.get(parsed.expr.id) ?? DYN,
    ...(inferred === undefined ? {} : { inferred }),
  };
  // cel-go's AST validators run only on a tree that checked without errors; the
  // checker noted which of them can find anything in this tree.
  const validators = c.validators & info.validators;
  if (validators !== 0) {
    for (const issue of validate(checked, env, validators)) c.report(issue.id, issue.message);
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

// ---------------------------------------------------------------------------
// Per-environment data, shared by every expression checked against the environment

/** An overload with what resolution needs of it precomputed. */
interface OverloadInfo {
  readonly decl: OverloadDecl;
  readonly member: boolean;
  readonly arity: number;
  /** Type parameter names, in cel-go's instantiation order. */
  readonly typeParams: readonly string[];
  /** {@link quickKind} of each parameter (undefined: no quick test for any). */
  readonly quickKinds: readonly (string | undefined)[] | undefined;
  /** `{ overloadIds: [id] }`: the reference of a call resolved to this overload alone (logical operators). */
  readonly reference: Reference;
}

/**
 * A successful overload resolution, replayable on arguments of the same
 * structure: type variables are placeholders (see `check-types.ts` templates).
 */
interface Resolution {
  /** How many fresh type variables the resolution numbered. */
  readonly consumed: number;
  readonly result: CelType;
  readonly resultHasPlaceholder: boolean;
  readonly reference: Reference;
  /** The substitutions it made, as (variable, value) template pairs in order. */
  readonly bindings: readonly CelType[];
}

interface FunctionInfo {
  readonly decl: FunctionDecl;
  /** The overloads the environment enables. */
  readonly overloads: readonly OverloadInfo[];
  /**
   * Resolutions by argument type atoms (see `typeAtom`): a tree of maps, one
   * level per argument, one tree per (arity, receiver style); at most
   * {@link MAX_RESOLUTIONS} in all.
   */
  byAtoms: (AtomLevel | Resolution | undefined)[];
  atomCount: number;
  /** Resolutions by the structural key of (receiver style, argument types) where there are no atoms. */
  readonly resolutions: Map<string, Resolution>;
}

/** A node of the per-environment name trie: a (possibly qualified) name as written, segment by segment. */
interface NameNode {
  /** What the name resolves to globally; null: nothing; undefined: not looked up yet. */
  resolved: GlobalName | null | undefined;
  children: Map<string, NameNode> | undefined;
  /** The child looked up last and its segment (in front of {@link children}). */
  lastField: string | undefined;
  lastChild: NameNode | undefined;
}

interface GlobalName extends Resolved {
  readonly reference: Reference;
}

interface EnvInfo {
  /** "a.b.c" → ["a.b.c.", "a.b.", "a.", ""]: candidate prefixes from most to least qualified. */
  readonly prefixes: readonly string[];
  readonly disabled: ReadonlySet<string> | undefined;
  /** Global names resolved so far (variables, types, constants), by first segment. */
  readonly names: Map<string, NameNode>;
  nameNodes: number;
  /** The root last looked up in {@link names} and its node. */
  lastRoot: string | undefined;
  lastRootNode: NameNode | undefined;
  /** Functions looked up so far by the name as written. */
  readonly functions: Map<string, FunctionInfo | null>;
  /**
   * In front of {@link functions}: a direct-mapped table of names looked up lately (by their
   * length and second character: operators differ there) and what they name; cheaper than a
   * Map lookup, which every call would make (names from the parser are interned, so the test
   * is a pointer comparison). A collision only replaces an entry; "" fills the empty slots.
   */
  readonly fnKeys: string[];
  readonly fnValues: (FunctionInfo | undefined)[];
  /**
   * With the root container only: first segments of every dotted function name,
   * so that `x.f(...)` needs no `x.f` lookup unless some function is named `x.…`.
   */
  readonly namespaceRoots: ReadonlySet<string> | undefined;
  readonly functionInfos: Map<FunctionDecl, FunctionInfo>;
  /** The validators the environment enables (`check-validators.ts` flags). */
  readonly validators: number;
}

const ENV_INFO = new WeakMap<Env, EnvInfo>();
/** Bounds on the per-environment caches (names and resolutions of unbounded variety). */
const MAX_NAME_NODES = 50_000;
const MAX_CACHED_FUNCTIONS = 10_000;
const MAX_RESOLUTIONS = 2_000;
const FN_SLOT_MASK = 255;

/** The environment checked against last and its data (most programs compile against one environment in a row). */
const LAST_ENV: { env: Env | undefined; info: EnvInfo | undefined } = { env: undefined, info: undefined };

function envInfo(env: Env): EnvInfo {
  if (LAST_ENV.env === env) return LAST_ENV.info!;
  let info = ENV_INFO.get(env);
  if (info === undefined) {
    const prefixes: string[] = [];
    const container = env.container;
    if (container !== "") {
      let next = container;
      prefixes.push(`${next}.`);
      for (let i = next.lastIndexOf("."); i >= 0; i = next.lastIndexOf(".")) {
        next = next.slice(0, i);
        prefixes.push(`${next}.`);
      }
    }
    prefixes.push("");
    let namespaceRoots: Set<string> | undefined;
    if (container === "") {
      namespaceRoots = new Set();
      for (const name of env.functions.keys()) {
        const dot = name.indexOf(".");
        if (dot >= 0) namespaceRoots.add(name.slice(0, dot));
      }
    }
    info = {
      prefixes,
      disabled: env.crossTypeNumericComparisons ? undefined : CROSS_TYPE_NUMERIC_OVERLOADS,
      names: new Map(),
      nameNodes: 0,
      lastRoot: undefined,
      lastRootNode: undefined,
      functions: new Map(),
      fnKeys: new Array<string>(FN_SLOT_MASK + 1).fill(""),
      fnValues: new Array<FunctionInfo | undefined>(FN_SLOT_MASK + 1).fill(undefined),
      namespaceRoots,
      functionInfos: new Map(),
      validators: validatorMask(env),
    };
    ENV_INFO.set(env, info);
  }
  LAST_ENV.env = env;
  LAST_ENV.info = info;
  return info;
}

function functionInfo(info: EnvInfo, fn: FunctionDecl): FunctionInfo {
  let fi = info.functionInfos.get(fn);
  if (fi === undefined) {
    const overloads: OverloadInfo[] = [];
    for (const o of fn.overloads) {
      if (info.disabled !== undefined && info.disabled.has(o.id)) continue;
      const quick = o.params.map(quickKind);
      overloads.push({
        decl: o,
        member: o.member,
        arity: o.params.length,
        typeParams: overloadTypeParams(o),
        quickKinds: quick.some((k) => k !== undefined) ? quick : undefined,
        reference: Object.freeze({ overloadIds: Object.freeze([o.id]) }),
      });
    }
    fi = { decl: fn, overloads, byAtoms: [], atomCount: 0, resolutions: new Map() };
    info.functionInfos.set(fn, fi);
  }
  return fi;
}

/** Scratch: the argument types of a call of one or two arguments being resolved (receiver included). */
const ARG_TYPES_1: CelType[] = [DYN];
const ARG_TYPES_2: CelType[] = [DYN, DYN];

/** Scratch: the type variables of the arguments of the call being resolved. */
const ARG_VARS: CelType[] = [];

/** Scratch: the fields of a select chain, outermost first (used between recursive calls only). */
const FIELDS: string[] = [];

/** Shared `{ name }` references of locals (immutable). */
const LOCAL_REFERENCES = new Map<string, Reference>();

/** The reference of the accumulator of macro expansions, which nearly every comprehension has. */
const ACCUMULATOR_REFERENCE: Reference = Object.freeze({ name: ACCUMULATOR });

function localReference(name: string): Reference {
  if (name === ACCUMULATOR) return ACCUMULATOR_REFERENCE;
  let r = LOCAL_REFERENCES.get(name);
  if (r === undefined) {
    r = Object.freeze({ name });
    if (LOCAL_REFERENCES.size > MAX_NAME_NODES) LOCAL_REFERENCES.clear();
    LOCAL_REFERENCES.set(name, r);
  }
  return r;
}

function referenceOf(r: Resolved): Reference {
  return Object.freeze(r.value === undefined ? { name: r.name } : { name: r.name, value: r.value });
}

/** Tries each candidate name for `name` in the container, most qualified first. */
function resolveCandidates<T>(prefixes: readonly string[], name: string, fn: (candidate: string) => T | undefined): T | undefined {
  if (isRootScoped(name)) return fn(name.slice(1));
  for (let i = 0; i < prefixes.length; i++) {
    const r = fn(prefixes[i] === "" ? name : prefixes[i] + name);
    if (r !== undefined) return r;
  }
  return undefined;
}

/** Type names every environment knows, plus `optional_type` with the optional library. */
function builtinType(env: Env, name: string): CelType | undefined {
  const t = BUILTIN_TYPE_NAMES.get(name);
  if (t !== undefined) return t;
  if (name === OPTIONAL_NAME && env.optionalSyntax) return OPTIONAL_TYPE_VALUE;
  return undefined;
}

/** A global identifier: a declared variable, a type name, or a constant (enum value). */
function lookupGlobal(env: Env, candidate: string): Resolved | undefined {
  const v = env.variables.get(candidate);
  if (v !== undefined) return { name: candidate, type: v };
  const builtin = builtinType(env, candidate);
  if (builtin !== undefined) return { name: candidate, type: typeType(builtin) };
  const provider = env.typeProvider;
  if (provider === undefined) return undefined;
  const ident = provider.findIdent?.(candidate);
  if (ident !== undefined) {
    if (ident.value instanceof CelType) return { name: candidate, type: typeType(ident.value) };
    return { name: candidate, type: ident.type, value: ident.value };
  }
  const t = provider.findType(candidate);
  if (t !== undefined) return { name: candidate, type: typeType(t) };
  return undefined;
}

class Checker {
  readonly typeMap: DenseMap<CelType>;
  readonly referenceMap: DenseMap<Reference>;
  readonly mapping = new Mapping();
  readonly issues: (CelIssue & { seq: number })[] = [];
  /** Validators (`check-validators.ts` flags) that may find something in the tree. */
  validators = 0;
  private freeTypeVarCounter = 0;
  /** Local variables (comprehension scopes), innermost last; a scope is a run of entries. */
  /** Three slots a local: name, type, reference; created with the first local. */
  private locals: (string | CelType | Reference)[] | undefined;
  /** Scratch: the fields of a select chain, outermost first. */


  constructor(
    private readonly parsed: ParsedExpr,
    private readonly env: Env,
    private readonly info: EnvInfo,
  ) {
    // Ids are allocated densely by the parser: the maps are made that large at once.
    const ids = idCount(parsed.sourceInfo);
    this.typeMap = new DenseMap<CelType>(ids);
    this.referenceMap = new DenseMap<Reference>(ids);
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
    this.report(id, `undeclared reference to '${name}' (in container '${this.env.container}')`);
  }

  // ---------------------------------------------------------------- types

  // (Types are set and read by id, the node's id read where the node's kind is
  // known: a shared helper reading `e.id` would see every kind of node and make
  // that read megamorphic.)

  /**
   * Records the type of node `id`, also as {@link last}: every check of a node records the
   * node's own type last (after its children's), so that the caller of `check` can read the
   * type there instead of by node id from the type map (reading `id` off nodes of every kind
   * is a megamorphic property load). A check that records no type leaves `last` the error type.
   */
  private setType(id: number, t: CelType): void {
    this.typeMap.set(id, t);
    this.last = t;
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
    return freshTypeVar(this.freeTypeVarCounter++);
  }

  // ---------------------------------------------------------------- names

  /** Slot of the innermost local named `name` (a leading dot ignored), or -1. */
  private localIndex(name: string): number {
    const locals = this.locals;
    if (locals === undefined || locals.length === 0) return -1;
    const n = name.charCodeAt(0) === 46 ? name.slice(1) : name;
    for (let i = locals.length - 3; i >= 0; i -= 3) {
      if (locals[i] === n) return i;
    }
    return -1;
  }

  private pushLocal(name: string, type: CelType): void {
    (this.locals ??= []).push(name, type, localReference(name));
  }

  private popLocal(): void {
    const locals = this.locals!;
    locals.pop();
    locals.pop();
    locals.pop();
  }

  /** The name trie node of `root` followed by `FIELDS` (outermost last), created as needed. */
  private nameNode(root: string, fieldCount: number): NameNode {
    const info = this.info;
    if (info.nameNodes > MAX_NAME_NODES) {
      info.names.clear();
      info.nameNodes = 0;
      info.lastRoot = undefined;
    }
    // Most names in a program start with one or two roots (`object`, `self`): the last one is kept.
    let node: NameNode | undefined;
    if (root === info.lastRoot) node = info.lastRootNode!;
    else {
      node = info.names.get(root);
      if (node === undefined) {
        node = { resolved: undefined, children: undefined, lastField: undefined, lastChild: undefined };
        info.names.set(root, node);
        info.nameNodes++;
      }
      info.lastRoot = root;
      info.lastRootNode = node;
    }
    // Whether every shorter name with a field on the way is known not to resolve (see `checkSelect`).
    let prefixesNull = true;
    const fields = FIELDS;
    for (let i = fieldCount - 1; i >= 0; i--) {
      if (i < fieldCount - 1) prefixesNull &&= node.resolved === null;
      const f = fields[i]!;
      if (node.lastField === f) {
        node = node.lastChild!;
        continue;
      }
      let children: Map<string, NameNode> | undefined = node.children;
      if (children === undefined) {
        children = new Map();
        node.children = children;
      }
      let next: NameNode | undefined = children.get(f);
      if (next === undefined) {
        next = { resolved: undefined, children: undefined, lastField: undefined, lastChild: undefined };
        children.set(f, next);
        info.nameNodes++;
      }
      node.lastField = f;
      node.lastChild = next;
      node = next;
    }
    this.prefixesNull = prefixesNull;
    return node;
  }

  /** Set by {@link nameNode}: every proper prefix of the name it walked is known not to resolve. */
  private prefixesNull = false;

  /** The global that `root.fields…` names (memoized per environment). */
  private resolveGlobal(root: string, fieldCount: number): GlobalName | undefined {
    const node = this.nameNode(root, fieldCount);
    let r = node.resolved;
    if (r === undefined) {
      let name = root;
      for (let i = fieldCount - 1; i >= 0; i--) name += `.${FIELDS[i]!}`;
      const env = this.env;
      const found = resolveCandidates(this.info.prefixes, name, (candidate) => lookupGlobal(env, candidate));
      r = found === undefined ? null : { ...found, reference: referenceOf(found) };
      node.resolved = r;
    }
    return r ?? undefined;
  }

  /** The type named in a message literal: a type name known to the environment, as `type(T)`. */
  private resolveTypeIdent(name: string): Resolved | undefined {
    const env = this.env;
    return resolveCandidates(this.info.prefixes, name, (candidate) => {
      const builtin = builtinType(env, candidate);
      if (builtin !== undefined) return { name: candidate, type: typeType(builtin) };
      const provider = env.typeProvider;
      if (provider === undefined) return undefined;
      const ident = provider.findIdent?.(candidate);
      if (ident !== undefined && ident.value instanceof CelType) return { name: candidate, type: typeType(ident.value) };
      const t = provider.findType(candidate);
      if (t !== undefined) return { name: candidate, type: typeType(t) };
      return undefined;
    });
  }

  /** The function `name` (as written) names, with its per-environment data. */
  private lookupFunction(name: string): FunctionInfo | undefined {
    const info = this.info;
    // First the slot of the name's length and second character (see `EnvInfo.fnKeys`).
    const n = name.length;
    const slot = (n * 8 + (n > 1 ? name.charCodeAt(1) : 0)) & FN_SLOT_MASK;
    if (info.fnKeys[slot] === name) return info.fnValues[slot];
    const cache = info.functions;
    let fi = cache.get(name);
    if (fi !== undefined) {
      if (n > 0) {
        info.fnKeys[slot] = name;
        info.fnValues[slot] = fi ?? undefined;
      }
    } else {
      const fns = this.env.functions;
      const fn = resolveCandidates(this.info.prefixes, name, (candidate) => fns.get(candidate));
      fi = fn === undefined ? null : functionInfo(this.info, fn);
      if (cache.size > MAX_CACHED_FUNCTIONS) cache.clear();
      cache.set(name, fi);
    }
    return fi ?? undefined;
  }

  // ---------------------------------------------------------------- traversal

  check(e: Expr): Expr {
    switch (e.kind) {
      case "const":
        this.setType(e.id, constantType(e.value));
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
    return this.checkIdentAt(e, this.localIndex(e.name));
  }

  /** {@link checkIdent} given the slot of the local `e` names (-1: none). */
  private checkIdentAt(e: IdentExpr, li: number): Expr {
    const name = e.name;
    const local = li < 0 ? undefined : (this.locals![li + 1] as CelType);
    const rootScoped = name.charCodeAt(0) === 46;
    if (local !== undefined && !rootScoped) {
      // The name as written is the local's name (no leading dot).
      this.setType(e.id, local);
      this.referenceMap.set(e.id, this.locals![li + 2] as Reference);
      return e;
    }
    const r = this.resolveGlobal(name, 0);
    if (r !== undefined) {
      this.setType(e.id, r.type);
      if (local === undefined) {
        this.referenceMap.set(e.id, r.reference);
        return r.name === name ? e : { kind: "ident", id: e.id, name: r.name };
      }
      // A global shadowed by a local must be written with a leading dot to stay unambiguous.
      const shadowed = `.${r.name}`;
      this.referenceMap.set(e.id, r.value === undefined ? { name: shadowed } : { name: shadowed, value: r.value });
      return shadowed === name ? e : { kind: "ident", id: e.id, name: shadowed };
    }
    this.setType(e.id, ERROR);
    this.undeclaredReference(e.id, e.name);
    return e;
  }

  private checkSelect(e: SelectExpr): Expr {
    if (e.testOnly) {
      // `has(a.b.c)`: the operand is a select chain (the macro's rule), checked without the dispatch.
      const op = e.operand;
      const operand = op.kind === "select" ? this.checkSelect(op) : this.check(op);
      this.selectField(e, e.field, false);
      this.setType(e.id, BOOL);
      return operand === op ? e : { ...e, operand };
    }
    // First try to read the whole chain as a qualified name (a variable `a.b.c`, an enum constant).
    // The chain: plain selects down to an identifier (`FIELDS` their fields, outermost first).
    const fields = FIELDS;
    let n = 0;
    let cur: Expr = e;
    while (cur.kind === "select" && !cur.testOnly) {
      fields[n++] = cur.field;
      cur = cur.operand;
    }
    if (cur.kind === "ident") {
      const first = cur.name;
      const li = this.localIndex(first);
      // A field selection on a local names no global, nor does any select in its chain.
      let inner = li >= 0 && !isRootScoped(first);
      if (!inner) {
        const r = this.resolveGlobal(first, n);
        if (r !== undefined) {
          this.setType(e.id, r.type);
          if (li < 0) {
            this.referenceMap.set(e.id, r.reference);
            return { kind: "ident", id: e.id, name: r.name };
          }
          const name = `.${r.name}`;
          this.referenceMap.set(e.id, r.value === undefined ? { name } : { name, value: r.value });
          return { kind: "ident", id: e.id, name };
        }
        // The selects inside the chain name its shorter prefixes: none of them resolves either.
        inner = this.prefixesNull;
      }
      if (inner) {
        // Then the chain is field selections from its identifier up, typed here in a loop rather
        // than by recursion (each select's check would walk its chain and the name trie again).
        // (The selects are found again from `e` rather than kept in a scratch array: storing fresh
        // nodes into a long-lived array costs a write barrier each.)
        let operand = this.checkIdentAt(cur, li);
        for (let i = n - 1; i >= 0; i--) {
          let s = e;
          for (let k = 0; k < i; k++) s = s.operand as SelectExpr;
          this.selectField(s, s.field, false);
          this.setType(s.id, substitute(this.mapping, this.selectType, false));
          operand = operand === s.operand ? s : { ...s, operand };
        }
        return operand;
      }
    }
    const operand = this.checkSelectField(e, e.operand, e.field, false);
    this.setType(e.id, substitute(this.mapping, this.selectType, false));
    return operand === e.operand ? e : { ...e, operand };
  }

  /** Type of the field selected by the last {@link checkSelectField}. */
  private selectType: CelType = ERROR;
  /** The type of the node whose check returned last (see {@link setType}). */
  private last: CelType = ERROR;

  /**
   * Types `operand.field` (or `operand.?field`); returns the rewritten operand
   * and leaves the field's type in {@link selectType}.
   */
  private checkSelectField(e: { readonly id: number }, operandExpr: Expr, field: string, optional: boolean): Expr {
    const operand = this.check(operandExpr);
    this.selectField(e, field, optional);
    return operand;
  }

  /** Types `operand.field` (or `operand.?field`) for the operand just checked: leaves it in {@link selectType}. */
  private selectField(e: { readonly id: number }, field: string, optional: boolean): void {
    // (The operand has just been checked: its type is `last`.)
    const operandType = substitute(this.mapping, this.last, false);
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
    this.selectType = isOpt || optional ? optionalType(result) : result;
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
      this.last = ERROR;
      return e;
    }
    const fieldExpr = e.args[1]!;
    if (fieldExpr.kind !== "const" || fieldExpr.value.kind !== "string") {
      this.report(fieldExpr.id, `unsupported optional field selection: ${describeExpr(fieldExpr)}`);
      this.last = ERROR;
      return e;
    }
    const operand = this.checkSelectField(e, e.args[0]!, fieldExpr.value.value, true);
    this.setType(e.id, substitute(this.mapping, this.selectType, false));
    this.referenceMap.set(e.id, OPT_SELECT_REFERENCE);
    return operand === e.args[0] ? e : { ...e, args: [operand, fieldExpr] };
  }

  private checkCall(e: CallExpr): Expr {
    if (e.fn === Op.optSelect) return this.checkOptSelect(e);
    const call = this.checkCallExpr(e);
    // Note the calls an AST validator looks at (by the function name in the checked tree).
    switch (call.fn) {
      case "timestamp":
      case "duration":
        this.validators |= V_TIME;
        break;
      case "matches":
        this.validators |= V_REGEX;
        break;
      case "format":
        this.validators |= V_FORMAT;
        break;
    }
    return call;
  }

  private checkCallExpr(e: CallExpr): CallExpr {
    // The arguments, keeping the type each check leaves in `last`: the first two, and all of
    // them when there are more.
    const es = e.args;
    const na = es.length;
    let out: Expr[] | undefined;
    let t0: CelType = ERROR;
    let t1: CelType = ERROR;
    let more: CelType[] | undefined;
    for (let i = 0; i < na; i++) {
      const a = es[i]!;
      const c = this.check(a);
      const t = this.last;
      if (i === 0) t0 = t;
      else if (i === 1) t1 = t;
      else (more ??= [t0, t1]).push(t);
      if (c !== a && out === undefined) out = es.slice(0, i);
      if (out !== undefined) out.push(c);
    }
    const args = out ?? es;

    if (e.target === undefined) {
      const fi = this.lookupFunction(e.fn);
      if (fi === undefined) {
        this.undeclaredReference(e.id, e.fn);
        this.setType(e.id, ERROR);
        return args === e.args ? e : { ...e, args };
      }
      const name = fi.decl.name;
      const call: CallExpr = name === e.fn && args === e.args ? e : { kind: "call", id: e.id, fn: name, args };
      this.resolveOverloadOrError(call, fi, undefined, args, ERROR, t0, t1, more);
      return call;
    }

    // `a.b.f(x)` is either the namespaced function `a.b.f` or `f` with receiver `a.b`.
    const prefix = this.namespacePrefix(e.target);
    if (prefix !== undefined) {
      const fi = this.lookupFunction(`${prefix}.${e.fn}`);
      if (fi !== undefined) {
        const call: CallExpr = { kind: "call", id: e.id, fn: fi.decl.name, args };
        this.resolveOverloadOrError(call, fi, undefined, args, ERROR, t0, t1, more);
        return call;
      }
    }

    const target = this.check(e.target);
    const targetType = this.last;
    const call: CallExpr = target === e.target && args === e.args ? e : { ...e, target, args };
    const fi = this.lookupFunction(e.fn);
    if (fi !== undefined) {
      this.resolveOverloadOrError(call, fi, target, args, targetType, t0, t1, more);
      return call;
    }
    this.setType(e.id, ERROR);
    this.undeclaredReference(e.id, e.fn);
    return call;
  }

  /**
   * The dotted name a call's target spells (`a.b` in `a.b.f(x)`), when some
   * function could be named after it.
   */
  private namespacePrefix(target: Expr): string | undefined {
    const roots = this.info.namespaceRoots;
    if (roots !== undefined) {
      // Root container: only a name starting with a function's first segment can name a function.
      let root: Expr = target;
      while (root.kind === "select" && !root.testOnly) root = root.operand;
      if (root.kind !== "ident") return undefined;
      const name = root.name;
      if (!roots.has(name.charCodeAt(0) === 46 ? name.slice(1) : name)) return undefined;
    }
    return qualifiedName(target);
  }

  /**
   * `targetType`: the receiver's type (member calls); `t0`, `t1`: the first two arguments'
   * types; `more`: every argument's type when there are more than two.
   */
  private resolveOverloadOrError(
    call: CallExpr,
    fi: FunctionInfo,
    target: Expr | undefined,
    args: readonly Expr[],
    targetType: CelType,
    t0: CelType,
    t1: CelType,
    more: readonly CelType[] | undefined,
  ): void {
    const fn = fi.decl;
    const isMember = target !== undefined;
    // (Made to measure for the usual arities: a push onto an empty array reserves 17 elements.)
    // (Resolution neither recurses nor keeps the argument types: one or two of them go in shared scratch arrays.)
    let argTypes: CelType[];
    const na = args.length;
    if (!isMember && na === 2) {
      argTypes = ARG_TYPES_2;
      argTypes[0] = t0;
      argTypes[1] = t1;
    } else if (isMember && na === 1) {
      argTypes = ARG_TYPES_2;
      argTypes[0] = targetType;
      argTypes[1] = t0;
    } else if (!isMember && na === 1) {
      argTypes = ARG_TYPES_1;
      argTypes[0] = t0;
    } else if (isMember && na === 0) {
      argTypes = ARG_TYPES_1;
      argTypes[0] = targetType;
    } else {
      argTypes = [];
      if (isMember) argTypes.push(targetType);
      if (more !== undefined) for (const t of more) argTypes.push(t);
      else if (na === 2) argTypes.push(t0, t1);
      else if (na === 1) argTypes.push(t0);
    }

    if (fn.name === Op.logicalAnd || fn.name === Op.logicalOr) {
      this.resolveLogical(call, fi, isMember, args, argTypes);
      return;
    }

    // The resolution depends only on the structure of the argument types (free
    // type variables up to renaming): replay an earlier one when there is one.
    // (A shared scratch array on the way to a replay; resolution does not recurse.)
    let argVars = ARG_VARS;
    // (pop, not `length = 0`: a length store is a runtime call in optimized code.)
    while (argVars.length > 0) argVars.pop();
    const below = this.freeTypeVarCounter;
    const n = argTypes.length;
    const root = n * 2 + (isMember ? 1 : 0);
    let node = fi.byAtoms[root];
    let atomsOk = true;
    for (let i = 0; i < n; i++) {
      const a = typeAtom(argTypes[i]!, this.mapping, argVars, below);
      if (a === undefined) {
        atomsOk = false;
        break;
      }
      if (node !== undefined) node = (node as AtomLevel).get(a);
    }
    let atoms: CelType[] | undefined;
    let key: string | undefined;
    if (atomsOk) {
      if (node !== undefined) {
        this.replay(call, node as Resolution, argVars);
        return;
      }
      // Not seen yet: the atoms again (the mapping has not changed), to store the resolution under.
      argVars = [];
      atoms = [];
      for (let i = 0; i < n; i++) atoms.push(typeAtom(argTypes[i]!, this.mapping, argVars, below)!);
    } else {
      argVars = [];
      key = isMember ? "m" : "g";
      for (let i = 0; i < n && key !== undefined; i++) key = appendTypeKey(`${key};`, argTypes[i]!, this.mapping, argVars, below);
      if (key !== undefined) {
        const cached = fi.resolutions.get(key);
        if (cached !== undefined) {
          this.replay(call, cached, argVars);
          return;
        }
      }
    }

    const base = this.freeTypeVarCounter;
    const mark = this.mapping.mark();
    let resultType: CelType | undefined;
    let ids: string[] | undefined;
    let quick: (string | undefined)[] | undefined;

    const overloads = fi.overloads;
    for (let oi = 0; oi < overloads.length; oi++) {
      const o = overloads[oi]!;
      if (o.member !== isMember) continue;
      const tps = o.typeParams;
      if (o.arity !== argTypes.length) {
        // Cannot match; cel-go still instantiates it, which numbers the fresh type variables.
        this.freeTypeVarCounter += tps.length;
        continue;
      }
      const qk = o.quickKinds;
      if (qk !== undefined) {
        // A parameter of another primitive kind (or list/map) than its argument: it cannot match.
        quick ??= argTypes.map(quickKind);
        let rejected = false;
        for (let i = 0; i < qk.length; i++) {
          const a = quick[i];
          const p = qk[i];
          if (a !== undefined && p !== undefined && a !== p) {
            rejected = true;
            break;
          }
        }
        if (rejected) {
          this.freeTypeVarCounter += tps.length;
          continue;
        }
      }
      const overload = o.decl;
      let params = overload.params;
      let result = overload.result;
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
      this.report(call.id, `found no matching overload for '${fn.name}' applied to '${formatArgTypes(shown, isMember)}'`);
      this.setType(call.id, ERROR);
      return;
    }
    const reference: Reference = Object.freeze({ overloadIds: Object.freeze(ids!) });
    this.setType(call.id, resultType);
    this.referenceMap.set(call.id, reference);
    if (atoms !== undefined || key !== undefined) {
      const r = this.resolution(argVars, base, mark, resultType, reference);
      if (r === undefined) return;
      if (key !== undefined) {
        if (fi.resolutions.size >= MAX_RESOLUTIONS) fi.resolutions.clear();
        fi.resolutions.set(key, r);
      } else {
        storeAtoms(fi, isMember, atoms!, r);
      }
    }
  }

  /** The resolution just made, for replay, when it can be expressed over placeholders. */
  private resolution(
    argVars: readonly CelType[],
    base: number,
    mark: number,
    result: CelType,
    reference: Reference,
  ): Resolution | undefined {
    const resultTemplate = toTemplate(result, argVars, base);
    if (resultTemplate === undefined) return undefined;
    // Only the final substitutions matter (the journal is never rolled back past
    // a resolution), and only those of the arguments' variables and of fresh
    // variables reachable from them or from the result: the others belong to
    // instantiated signatures nothing refers to any more.
    const finals = new Map<CelType, CelType>();
    const m = this.mapping;
    for (let i = mark; i < m.mark(); i++) {
      const v = toTemplate(m.trailVar(i), argVars, base);
      const to = toTemplate(m.trailValue(i), argVars, base);
      if (v === undefined || to === undefined) return undefined;
      finals.set(v, to);
    }
    const keep = new Set<CelType>();
    const pending: CelType[] = [resultTemplate];
    for (const [v, to] of finals) {
      if ((v as Placeholder).fromArg) {
        keep.add(v);
        pending.push(to);
      }
    }
    while (pending.length > 0) {
      const t = pending.pop()!;
      forEachPlaceholder(t, (p) => {
        if (keep.has(p)) return;
        const to = finals.get(p);
        if (to === undefined) return;
        keep.add(p);
        pending.push(to);
      });
    }
    const bindings: CelType[] = [];
    for (const [v, to] of finals) if (keep.has(v)) bindings.push(v, to);
    return {
      consumed: this.freeTypeVarCounter - base,
      result: resultTemplate,
      resultHasPlaceholder: hasPlaceholder(resultTemplate),
      reference,
      bindings,
    };
  }

  private replay(call: CallExpr, r: Resolution, argVars: readonly CelType[]): void {
    const base = this.freeTypeVarCounter;
    this.freeTypeVarCounter = base + r.consumed;
    const b = r.bindings;
    for (let i = 0; i < b.length; i += 2) {
      this.mapping.add(fromTemplate(b[i]!, argVars, base), fromTemplate(b[i + 1]!, argVars, base));
    }
    this.setType(call.id, r.resultHasPlaceholder ? fromTemplate(r.result, argVars, base) : r.result);
    this.referenceMap.set(call.id, r.reference);
  }

  /** Logical operators: every argument must be a bool; the first overload decides. */
  private resolveLogical(
    call: CallExpr,
    fi: FunctionInfo,
    isMember: boolean,
    args: readonly Expr[],
    argTypes: readonly CelType[],
  ): void {
    for (const o of fi.overloads) {
      if (o.member !== isMember) continue;
      let failed = false;
      for (let i = 0; i < argTypes.length; i++) {
        const t = argTypes[i]!;
        if (t !== BOOL && !this.isAssignable(t, BOOL)) {
          this.typeMismatch(args[i]!.id, BOOL, t);
          failed = true;
        }
      }
      if (failed) {
        this.setType(call.id, ERROR);
        return;
      }
      this.setType(call.id, BOOL);
      this.referenceMap.set(call.id, o.reference);
      return;
    }
    const shown = argTypes.map((t) => substitute(this.mapping, t, true));
    this.report(call.id, `found no matching overload for '${call.fn}' applied to '${formatArgTypes(shown, isMember)}'`);
    this.setType(call.id, ERROR);
  }

  private checkList(e: ListExpr): Expr {
    // The elements, keeping the types their checks leave in `last`: the first, and all of them
    // when there are more.
    const es = e.elements;
    const n = es.length;
    let out: Expr[] | undefined;
    let t0: CelType = ERROR;
    let types: CelType[] | undefined;
    for (let i = 0; i < n; i++) {
      const el = es[i]!;
      const c = this.check(el);
      if (i === 0) t0 = this.last;
      else (types ??= [t0]).push(this.last);
      if (c !== el && out === undefined) out = es.slice(0, i);
      if (out !== undefined) out.push(c);
    }
    const elements = out ?? es;
    let elemsType: CelType | undefined;
    const optionals = e.optionalIndices;
    if (n >= 2 && !sameFinalTypes(types!)) this.validators |= V_HOMOGENEOUS;
    for (let i = 0; i < n; i++) {
      let t = i === 0 ? t0 : types![i]!;
      if (optionals.length > 0 && optionals.includes(i)) {
        if (isOptional(t)) t = t.params[0]!;
        else {
          const el = elements[i]!;
          if (!isDyn(t)) this.typeMismatch(el.id, optionalType(t), t);
        }
      }
      elemsType = this.joinTypes(elemsType, t);
    }
    this.setType(e.id, listType(elemsType ?? this.newTypeVar()));
    return elements === e.elements ? e : { ...e, elements };
  }

  private checkMap(e: MapExpr): Expr {
    let keyType: CelType | undefined;
    let valueType: CelType | undefined;
    let entries: MapEntry[] | undefined;
    // Whether every key, and every value, has one final type (see `sameFinalTypes`): the
    // first entry's key and value types as their checks left them in `last`.
    let k0: CelType = ERROR;
    let v0: CelType = ERROR;
    let same = true;
    for (let i = 0; i < e.entries.length; i++) {
      const entry = e.entries[i]!;
      const key = this.check(entry.key);
      const kt = this.last;
      keyType = this.joinTypes(keyType, kt);
      const value = this.check(entry.value);
      let vt = this.last;
      if (i === 0) {
        k0 = kt;
        v0 = vt;
        same = isFinalLeaf(kt) && isFinalLeaf(vt);
      } else if (kt !== k0 || vt !== v0) {
        same = false;
      }
      if (entry.optional) {
        if (isOptional(vt)) vt = vt.params[0]!;
        else if (!isDyn(vt)) this.typeMismatch(value.id, optionalType(vt), vt);
      }
      valueType = this.joinTypes(valueType, vt);
      if ((key !== entry.key || value !== entry.value) && entries === undefined) entries = e.entries.slice(0, i);
      if (entries !== undefined) entries.push(key === entry.key && value === entry.value ? entry : { ...entry, key, value });
    }
    if (e.entries.length >= 2 && !same) this.validators |= V_HOMOGENEOUS;
    if (keyType === undefined || valueType === undefined) {
      keyType = this.newTypeVar();
      valueType = this.newTypeVar();
    }
    this.setType(e.id, mapType(keyType, valueType));
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
      this.setType(e.id, ERROR);
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
    this.setType(e.id, resultType);

    let fields: StructField[] | undefined;
    for (let i = 0; i < e.fields.length; i++) {
      const f = e.fields[i]!;
      const value = this.check(f.value);
      let vt = this.last;
      const fieldType = this.lookupFieldType(f.id, typeName, f.field) ?? ERROR;
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
    // (The fields' checks came after the struct's type was recorded.)
    this.last = resultType;
    if (ident.name === e.typeName && fields === undefined) return e;
    return { ...e, typeName: ident.name, fields: fields ?? e.fields };
  }

  private checkComprehension(e: ComprehensionExpr): Expr {
    const iterRange = this.check(e.iterRange);
    const iterRangeType = this.last;
    const accuInit = this.check(e.accuInit);
    const accuType = this.last;
    const rangeType = substitute(this.mapping, iterRangeType, false);

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

    // The accumulator, then the loop scope: the iteration variables (the second one wins when they
    // are the same). The first comprehension makes the locals array with both at once (a push onto
    // an empty array reserves 20 elements).
    let locals = this.locals;
    let outer: number;
    if (locals === undefined) {
      locals = [e.accuVar, accuType, localReference(e.accuVar), e.iterVar, varType, localReference(e.iterVar)];
      this.locals = locals;
      outer = 3;
    } else {
      outer = locals.length + 3;
      locals.push(e.accuVar, accuType, localReference(e.accuVar), e.iterVar, varType, localReference(e.iterVar));
    }
    if (twoVar) this.pushLocal(e.iterVar2!, var2Type!);
    const loopCondition = this.check(e.loopCondition);
    this.assertType(loopCondition, this.last, BOOL);
    const loopStep = this.check(e.loopStep);
    this.assertType(loopStep, this.last, accuType);
    while (locals.length > outer) this.popLocal();
    const result = this.check(e.result);
    this.popLocal();
    this.setType(e.id, substitute(this.mapping, this.last, false));

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

  /** That `e`, of type `actual`, is assignable to `t`. */
  private assertType(e: Expr, actual: CelType, t: CelType): void {
    if (!this.isAssignable(t, actual)) this.typeMismatch(e.id, t, actual);
  }
}

/**
 * A type that substitution leaves as it is (no parameters, not a type
 * parameter): the final type of a node typed with it is this very object.
 */
function isFinalLeaf(t: CelType | undefined): t is CelType {
  return t !== undefined && t.params.length === 0 && t.kind !== "typeParam";
}

/**
 * Whether the elements of a list literal all have one final type: then the
 * homogeneous-literal validator can find nothing in it and need not run for it
 * (elements typed with parameterized types, optional ones included, are left to it).
 */
function sameFinalTypes(types: readonly CelType[]): boolean {
  const t0 = types[0];
  if (!isFinalLeaf(t0)) return false;
  for (let i = 1; i < types.length; i++) if (types[i] !== t0) return false;
  return true;
}

function forEachPlaceholder(t: CelType, fn: (p: CelType) => void): void {
  if (t.kind === "typeParam") fn(t);
  for (const p of t.params) forEachPlaceholder(p, fn);
}

function storeAtoms(fi: FunctionInfo, isMember: boolean, atoms: readonly CelType[], r: Resolution): void {
  if (fi.atomCount >= MAX_RESOLUTIONS) {
    fi.byAtoms = [];
    fi.atomCount = 0;
  }
  fi.atomCount++;
  const root = atoms.length * 2 + (isMember ? 1 : 0);
  if (atoms.length === 0) {
    fi.byAtoms[root] = r;
    return;
  }
  let node = fi.byAtoms[root] as AtomLevel | undefined;
  if (node === undefined) {
    node = new AtomLevel();
    fi.byAtoms[root] = node;
  }
  for (let i = 0; i < atoms.length - 1; i++) {
    let next = node.get(atoms[i]!) as AtomLevel | undefined;
    if (next === undefined) {
      next = new AtomLevel();
      node.set(atoms[i]!, next);
    }
    node = next;
  }
  node.set(atoms[atoms.length - 1]!, r);
}

/**
 * One level of a function's resolution tree: type atom → the next level (a resolution at the
 * last). Atoms are canonical objects, so a level holds few and is scanned by identity (cheaper
 * than a Map lookup), in a Map once it holds more than {@link ATOM_SCAN}.
 */
class AtomLevel {
  private keys: CelType[] | undefined = undefined;
  private values: (AtomLevel | Resolution)[] | undefined = undefined;
  private map: Map<CelType, AtomLevel | Resolution> | undefined = undefined;

  get(k: CelType): AtomLevel | Resolution | undefined {
    const keys = this.keys;
    if (keys !== undefined) {
      for (let i = 0; i < keys.length; i++) if (keys[i] === k) return this.values![i];
      return undefined;
    }
    return this.map?.get(k);
  }

  set(k: CelType, v: AtomLevel | Resolution): void {
    const map = this.map;
    if (map !== undefined) {
      map.set(k, v);
      return;
    }
    const keys = this.keys;
    if (keys === undefined) {
      this.keys = [k];
      this.values = [v];
      return;
    }
    const values = this.values!;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === k) {
        values[i] = v;
        return;
      }
    }
    if (keys.length < ATOM_SCAN) {
      keys.push(k);
      values.push(v);
      return;
    }
    const m = new Map<CelType, AtomLevel | Resolution>();
    for (let i = 0; i < keys.length; i++) m.set(keys[i]!, values[i]!);
    m.set(k, v);
    this.map = m;
    this.keys = this.values = undefined;
  }
}

const ATOM_SCAN = 8;

const OPT_SELECT_REFERENCE: Reference = Object.freeze({ overloadIds: Object.freeze(["select_optional_field"]) });

/**
 * Expression id → value, stored densely by id (ids are small and allocated in
 * sequence), as the checker's `typeMap` and `referenceMap`. Iterates in id order.
 */
class DenseMap<V> implements ReadonlyMap<number, V> {
  private readonly items: (V | undefined)[];

  /** `capacity`: ids expected below it (the map grows past it as needed). */
  constructor(capacity = 0) {
    // (Holey: a hole reads as undefined, as an unset id should.)
    this.items = capacity > 0 ? new Array<V | undefined>(capacity) : [];
  }

  get size(): number {
    let n = 0;
    for (const v of this.items) if (v !== undefined) n++;
    return n;
  }
  get(id: number): V | undefined {
    return this.items[id];
  }
  has(id: number): boolean {
    return this.items[id] !== undefined;
  }
  set(id: number, v: V): void {
    const a = this.items;
    // Fill any gap so the array stays packed.
    while (a.length < id) a.push(undefined);
    a[id] = v;
  }
  /**
   * Type maps: replaces bound type parameters by their substitutions and free ones by dyn.
   * Returns the ids whose type held a type parameter (undefined when none did).
   */
  substituteAll(this: DenseMap<CelType>, m: Mapping): Set<number> | undefined {
    const a = this.items;
    let inferred: Set<number> | undefined;
    // Many ids share a type object (an accumulator's, for one): the last substitution is reused.
    let lastIn: CelType | undefined;
    let lastOut: CelType | undefined;
    for (let i = 0; i < a.length; i++) {
      const t = a[i];
      if (t === undefined) continue;
      if (t === lastIn) {
        a[i] = lastOut;
        (inferred ??= new Set()).add(i);
      } else if (CelType.mayBeParametric(t)) {
        lastIn = t;
        a[i] = lastOut = substitute(m, t, true);
        (inferred ??= new Set()).add(i);
      }
    }
    return inferred;
  }
  forEach(cb: (value: V, key: number, map: ReadonlyMap<number, V>) => void, thisArg?: unknown): void {
    const a = this.items;
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (v !== undefined) cb.call(thisArg, v, i, this);
    }
  }
  *entries(): MapIterator<[number, V]> {
    const a = this.items;
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (v !== undefined) yield [i, v];
    }
  }
  *keys(): MapIterator<number> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): MapIterator<[number, V]> {
    return this.entries();
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

/** Whether a name is written with a leading dot (root-scoped): a character test, not a `startsWith` call. */
function isRootScoped(name: string): boolean {
  return name.charCodeAt(0) === 46;
}
