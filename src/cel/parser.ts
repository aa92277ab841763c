/**
 * CEL source → {@link ParsedExpr}: a hand-written recursive-descent parser over
 * the token stream of {@link lex}, producing the same trees as cel-go's ANTLR
 * parser (balanced `&&`/`||` chains, `-` folded into numeric literals, macros
 * expanded as cel-go expands them) and reporting errors with cel-go's wording
 * where it can.
 *
 * Error handling: lexer errors, syntax errors in ANTLR's words ("mismatched
 * input", "extraneous input", "missing", "no viable alternative"; a stray token
 * is dropped and a closer missing at the end is assumed, as ANTLR recovers,
 * otherwise parsing stops at the first syntax error where cel-go would try
 * harder) and every semantic error met on the way (reserved identifier, bad
 * literal, unsupported syntax, malformed macro) are collected and thrown
 * together as one {@link CelCompileError}, sorted by position. Two limits, as
 * in cel-go: grammar rules nested deeper than `maxRecursionDepth`
 * ("expression recursion limit exceeded: N") and operator/member chains deeper
 * than it ("max recursion depth exceeded").
 *
 * Positions are code-point offsets; node ids are numbered in cel-go's order.
 */
import type { Constant, Expr, ParsedExpr, SourceInfo, StructField, MapEntry } from "./ast.js";
import { ACCUMULATOR, Op } from "./ast.js";
import type { MacroSet } from "./decls.js";
import { CelCompileError, type CelIssue, locate } from "./errors.js";
import { decodeBytes, decodeString, formatTokenSet, lex, PLAIN_STRING, Tok, UnescapeError, type LexError } from "./lexer.js";
import { type MacroDef, type MacroHelper, macroTable, type MacroTable, matchMacro } from "./macros.js";

export interface ParseOptions {
  /** Macro families to expand; none when absent. */
  readonly macros?: ReadonlySet<MacroSet>;
  /** Accept `a.?b`, `a[?b]`, `[?x]`, `{?k: v}`. */
  readonly enableOptionalSyntax?: boolean;
  /** cel-go default 250; -1 for no limit. */
  readonly maxRecursionDepth?: number;
  /** cel-go default 100,000 code points; -1 for no limit. */
  readonly expressionSizeCodePointLimit?: number;
  /** Name used in error messages, `<input>` by default. */
  readonly description?: string;
  /** Accept backquoted field names, ``a.`b-c` `` and ``T{`in`: 1}`` (cel-go `EnableIdentifierEscapeSyntax`); off by default. */
  readonly enableIdentEscapeSyntax?: boolean;
}

/**
 * Throws {@link CelCompileError} with every syntax error found.
 *
 * One {@link Parser} serves every parse (its state is reset, not made again): parsing is
 * synchronous, and nothing it calls parses (a macro expander only builds nodes), so parses never
 * overlap; a nested one, were it ever to happen, would get a Parser of its own.
 */
export function parse(source: string, options: ParseOptions = {}): ParsedExpr {
  const shared = sharedIdle;
  const parser = shared ? SHARED_PARSER : new Parser();
  sharedIdle = false;
  try {
    parser.init(source, options);
    return parser.run();
  } catch (e) {
    if (e instanceof CelCompileError) throw e;
    // A stack overflow on absurd input, or a bug: never let anything but a compile error escape.
    const message =
      e instanceof RangeError ? "max recursion depth exceeded" : `internal parser error: ${String((e as Error)?.message ?? e)}`;
    throw new CelCompileError([{ message, offset: -1, line: 0, column: 0 }], String(source), options.description ?? "<input>");
  } finally {
    if (shared) {
      parser.release();
      sharedIdle = true;
    }
  }
}

const RESERVED = new Set([
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

/** Whether `name` is reserved: a cheap length and first-letter test before the set lookup. */
function isReserved(name: string): boolean {
  const n = name.length;
  if (n < 2 || n > 9) return false;
  switch (name.charCodeAt(0)) {
    case 97: // a
    case 98: // b
    case 99: // c
    case 101: // e
    case 102: // f
    case 105: // i
    case 108: // l
    case 110: // n
    case 112: // p
    case 114: // r
    case 118: // v
    case 119: // w
      return RESERVED.has(name);
    default:
      return false;
  }
}

/**
 * The macro calls of a parse, by expansion id: in parallel arrays scanned from the newest (a parse
 * expands a few macros; a Map costs more to make), in a Map once there are more than 8.
 */
class MacroCalls implements ReadonlyMap<number, Expr> {
  /** The first entries, in arrays made for 8 at once (growing a pushed-to array costs a copy); `n` of them in use. */
  private ids: number[] | undefined = undefined;
  private calls: Expr[] | undefined = undefined;
  private n = 0;
  private map: Map<number, Expr> | undefined = undefined;

  set(id: number, call: Expr): void {
    if (this.map !== undefined) {
      this.map.set(id, call);
      return;
    }
    const ids = this.ids;
    if (ids === undefined) {
      this.ids = [id, 0, 0, 0, 0, 0, 0, 0];
      this.calls = [call, call, call, call, call, call, call, call];
      this.n = 1;
      return;
    }
    const calls = this.calls!;
    const n = this.n;
    for (let i = 0; i < n; i++) {
      if (ids[i] === id) {
        calls[i] = call;
        return;
      }
    }
    if (n < 8) {
      ids[n] = id;
      calls[n] = call;
      this.n = n + 1;
      return;
    }
    const m = new Map<number, Expr>();
    for (let i = 0; i < n; i++) m.set(ids[i]!, calls[i]!);
    m.set(id, call);
    this.map = m;
    this.ids = this.calls = undefined;
    this.n = 0;
  }
  get(id: number): Expr | undefined {
    if (this.map !== undefined) return this.map.get(id);
    const ids = this.ids;
    if (ids === undefined) return undefined;
    for (let i = this.n - 1; i >= 0; i--) if (ids[i] === id) return this.calls![i];
    return undefined;
  }
  has(id: number): boolean {
    return this.get(id) !== undefined;
  }
  get size(): number {
    return this.map !== undefined ? this.map.size : this.n;
  }
  forEach(cb: (value: Expr, key: number, map: ReadonlyMap<number, Expr>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
  }
  *entries(): MapIterator<[number, Expr]> {
    if (this.map !== undefined) {
      yield* this.map.entries();
      return;
    }
    const ids = this.ids ?? [];
    for (let i = 0; i < this.n; i++) yield [ids[i]!, this.calls![i]!];
  }
  *keys(): MapIterator<number> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): MapIterator<Expr> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): MapIterator<[number, Expr]> {
    return this.entries();
  }
}

/** The macro calls of a parse that expanded none: shared, so it refuses changes. */
class NoMacroCalls extends Map<number, Expr> {
  override set(): this {
    throw new TypeError("SourceInfo.macroCalls is read-only");
  }
}
const NO_MACRO_CALLS: ReadonlyMap<number, Expr> = new NoMacroCalls();

/** The line offsets of a one-line text (shared: a parse that saw no line feed makes none). */
const NO_LINE_OFFSETS: readonly number[] = Object.freeze([]);

const NULL_CONST: Constant = { kind: "null" };
const TRUE_CONST: Constant = { kind: "bool", value: true };
const FALSE_CONST: Constant = { kind: "bool", value: false };
const EMPTY: readonly never[] = [];
const EMPTY_KINDS = new Uint8Array(1);
const EMPTY_OFFSETS = new Int32Array(1);
const NO_LEX_ERRORS: readonly LexError[] = [];

/** 0n to 99n, for the literals of one or two digits. */
const SMALL_INTS: readonly bigint[] = Array.from({ length: 100 }, (_, i) => BigInt(i));

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

function tokenTable(kinds: readonly Tok[]): Uint8Array {
  const t = new Uint8Array(64);
  for (const k of kinds) t[k] = 1;
  return t;
}

const PRIMARY_START: readonly Tok[] = [
  Tok.LBRACKET,
  Tok.LBRACE,
  Tok.LPAREN,
  Tok.DOT,
  Tok.MINUS,
  Tok.TRUE,
  Tok.FALSE,
  Tok.NULL,
  Tok.NUM_FLOAT,
  Tok.NUM_INT,
  Tok.NUM_UINT,
  Tok.STRING,
  Tok.BYTES,
  Tok.IDENTIFIER,
];
const UNARY_START: readonly Tok[] = [...PRIMARY_START, Tok.EXCLAM];
const LIST_START: readonly Tok[] = [...UNARY_START, Tok.RBRACKET, Tok.COMMA, Tok.QUESTION];
const MAP_START: readonly Tok[] = [...UNARY_START, Tok.RBRACE, Tok.COMMA, Tok.QUESTION];
const ARGS_START: readonly Tok[] = [...UNARY_START, Tok.RPAREN];
const FIELD_START: readonly Tok[] = [Tok.RBRACE, Tok.COMMA, Tok.QUESTION, Tok.IDENTIFIER, Tok.ESC_IDENTIFIER];
const ESC_IDENT: readonly Tok[] = [Tok.IDENTIFIER, Tok.ESC_IDENTIFIER];

const IS_PRIMARY_START = tokenTable(PRIMARY_START);
const IS_UNARY_START = tokenTable(UNARY_START);
/** Tokens where parseUnary() would go straight to parseMember(): a primary's start other than '-'. */
const IS_MEMBER_START = tokenTable(PRIMARY_START.filter((k) => k !== Tok.MINUS));
const IS_OPT_EXPR_START = tokenTable([...UNARY_START, Tok.QUESTION]);
const IS_FIELD_START = tokenTable([Tok.QUESTION, Tok.IDENTIFIER, Tok.ESC_IDENTIFIER]);
/**
 * Tokens that continue an expression after an operand: binary, logical and conditional operators
 * (also where ANTLR resumes after a missing operand).
 */
const IS_OPERATOR = tokenTable([
  Tok.EQUALS,
  Tok.NOT_EQUALS,
  Tok.IN,
  Tok.LESS,
  Tok.LESS_EQUALS,
  Tok.GREATER_EQUALS,
  Tok.GREATER,
  Tok.LOGICAL_AND,
  Tok.LOGICAL_OR,
  Tok.QUESTION,
  Tok.PLUS,
  Tok.MINUS,
  Tok.STAR,
  Tok.SLASH,
  Tok.PERCENT,
]);

/** Binary operator precedence by token (0: not a binary operator) and function names. */
const BIN_PREC = new Uint8Array(64);
const BIN_FN: string[] = [];
for (const [t, p, fn] of [
  [Tok.EQUALS, 1, Op.equals],
  [Tok.NOT_EQUALS, 1, Op.notEquals],
  [Tok.IN, 1, Op.in],
  [Tok.LESS, 1, Op.less],
  [Tok.LESS_EQUALS, 1, Op.lessEquals],
  [Tok.GREATER_EQUALS, 1, Op.greaterEquals],
  [Tok.GREATER, 1, Op.greater],
  [Tok.PLUS, 2, Op.add],
  [Tok.MINUS, 2, Op.subtract],
  [Tok.STAR, 3, Op.multiply],
  [Tok.SLASH, 3, Op.divide],
  [Tok.PERCENT, 3, Op.modulo],
] as const) {
  BIN_PREC[t] = p;
  BIN_FN[t] = fn;
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]/;
/** cel-go's pattern (`'.(true|false|null)'`, any one character before the keyword). */
const RESERVED_LITERAL_AFTER_ONE = /^.(true|false|null)$/su;

/** Tokens dropped in error recovery before giving up (cel-go's default error recovery limit). */
const RECOVERY_LIMIT = 30;

/** Internal: unwinds the parser after a fatal error has been recorded. */
const ABORT = { abort: true };

interface Issue {
  /** UTF-16 offset, -1 when unknown. */
  readonly offset: number;
  readonly message: string;
  readonly syntax: boolean;
}

/**
 * Identifier interning: a small direct-mapped table of recently seen names
 * (identifiers, fields, function names), indexed by the hash the lexer computed
 * while scanning each identifier, so that a name seen before comes back as the
 * same string object. That string carries its hash already, which the
 * checker's, planner's and macro tables would otherwise compute again (in a
 * runtime call) for every fresh substring they look up. A collision only
 * replaces an entry.
 */
const INTERN_SIZE = 512;
const INTERNED: string[] = new Array<string>(INTERN_SIZE).fill("");
/**
 * By intern slot, while the slot holds the same name: the macro table last looked up with that
 * name and what it holds for it (a memo of the environment's immutable macro tables, by name, so
 * that a call finds its macros without a Map lookup).
 */
const SLOT_MACRO_TABLE: (MacroTable | undefined)[] = new Array<MacroTable | undefined>(INTERN_SIZE).fill(undefined);
const SLOT_MACRO_DEFS: (readonly MacroDef[] | undefined)[] = new Array<readonly MacroDef[] | undefined>(INTERN_SIZE).fill(undefined);
/** By intern slot: 1 when the slot's name is a reserved word (set with the name, so that a name's test costs no Set lookup). */
const SLOT_RESERVED = new Uint8Array(INTERN_SIZE);

/** The intern table slot of IDENTIFIER token hash `h`. */
function internSlot(h: number): number {
  return (h ^ (h >>> 9)) & (INTERN_SIZE - 1);
}

/**
 * The engine's unique copy of `s` (V8's internalized string, the one a string literal or property
 * key with these characters is): names from the intern table then compare by identity with the
 * literals and declared names they meet (a Map key, a macro or function name, a `case` label),
 * where a string made from the source would be compared character by character. Property keys are
 * internalized, and `Object.keys` returns them. (Made only when a name enters the table; a flat
 * copy of its own either way, never a slice that would keep the source text alive.)
 */
function internalized(s: string): string {
  const o: Record<string, number> = {};
  o[s] = 0;
  return Object.keys(o)[0] ?? s;
}

/** Enters `s` in the intern table at `slot`, in place of the name there; returns the unique copy. */
function internNew(s: string, slot: number): string {
  const u = internalized(s);
  INTERNED[slot] = u;
  SLOT_MACRO_TABLE[slot] = undefined;
  SLOT_RESERVED[slot] = isReserved(u) ? 1 : 0;
  return u;
}

function escapeWS(s: string): string {
  return s.replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
}

class Parser implements MacroHelper {
  // Every field is set by init(); the initial values only fix the field types.
  private src = "";
  private kinds: Uint8Array = EMPTY_KINDS;
  private starts: Int32Array = EMPTY_OFFSETS;
  private ends: Int32Array = EMPTY_OFFSETS;
  /** The lexer's identifier hashes (see Tokens.hashes). */
  private hashes: Int32Array = EMPTY_OFFSETS;
  /** The lexer's errors and flags (see Tokens in lexer.ts). */
  private lexErrors: readonly LexError[] = NO_LEX_ERRORS;
  private mayHaveSurrogates = true;
  private mayHaveNewlines = true;
  private p = 0;
  private nextId = 1;
  /** Identifiers named {@link ACCUMULATOR} made so far (macro expansions only: source cannot name it) and the last one's id. */
  private accuIdents = 0;
  private lastAccuId = 0;
  /**
   * Offsets by expression id (-1: none), for the PositionMap made when the parse succeeds. Kept
   * from parse to parse (entries from `nextId` on are stale): this array, like the parser, soon
   * lives in the old generation, where storing numbers costs no write barrier, while storing a
   * new PositionMap in the parser would cost one.
   */
  private offsets: number[] = [-1];
  /** Made on the first expanded macro (most expressions have none); {@link NO_MACRO_CALLS} otherwise. */
  private macroCalls: MacroCalls | undefined = undefined;
  /** Replaced (not emptied) by init() after a parse that had issues: fail() has handed them on. */
  private issues: Issue[] = [];
  private macros: MacroTable = macroTable(undefined);
  private optional = false;
  private identEscape = false;
  private maxDepth = 0;
  private sizeLimit = 0;
  private description = "";
  private exprDepth = 0;
  /** Constructs still waiting for their closing token (or a ternary for its ':'). */
  private pending = 0;
  private calcDepth = 0;
  private relDepth = 0;
  private recoveries = 0;
  /** Token index of the last recovered error; while still there, ANTLR reports no further errors. */
  private errorP = -1;
  /** Height of the last parsed subtree in cel-go's visitor-depth terms. */
  private h = 0;
  /** Position (UTF-16) given to nodes created by the macro being expanded. */
  private macroPos = 0;
  private tooLarge = false;

  /** Readies this parser for `source`. */
  init(source: string, options: ParseOptions): void {
    this.src = source;
    this.p = 0;
    this.nextId = 1;
    this.accuIdents = 0;
    this.lastAccuId = 0;
    this.macroCalls = undefined;
    if (this.issues.length !== 0) this.issues = [];
    this.exprDepth = 0;
    this.pending = 0;
    this.calcDepth = 0;
    this.relDepth = 0;
    this.recoveries = 0;
    this.errorP = -1;
    this.h = 0;
    this.macroPos = 0;
    this.tooLarge = false;
    this.macros = macroTable(options.macros);
    this.optional = options.enableOptionalSyntax === true;
    this.identEscape = options.enableIdentEscapeSyntax === true;
    const depth = options.maxRecursionDepth;
    this.maxDepth = depth === undefined || depth === 0 ? 250 : depth < 0 ? Number.POSITIVE_INFINITY : depth;
    const limit = options.expressionSizeCodePointLimit;
    this.sizeLimit = limit === undefined || limit === 0 ? 100_000 : limit < 0 ? Number.POSITIVE_INFINITY : limit;
    this.description = options.description ?? "<input>";
    if (source.length > this.sizeLimit) {
      // Checked before lexing so that a huge input costs nothing.
      const size = countCodePoints(source);
      if (size > this.sizeLimit) {
        this.lexErrors = NO_LEX_ERRORS;
        this.mayHaveSurrogates = true;
        this.mayHaveNewlines = true;
        this.kinds = EMPTY_KINDS;
        this.starts = EMPTY_OFFSETS;
        this.ends = EMPTY_OFFSETS;
        this.hashes = EMPTY_OFFSETS;
        this.issues.push({
          offset: -1,
          message: `expression code point size exceeds limit: size: ${size}, limit ${this.sizeLimit}`,
          syntax: true,
        });
        this.tooLarge = true;
        return;
      }
    }
    const tokens = lex(source);
    // (Its parts, not the Tokens object: a new object stored in this old one costs a write barrier.)
    this.mayHaveSurrogates = tokens.mayHaveSurrogates !== false;
    this.mayHaveNewlines = tokens.mayHaveNewlines !== false;
    this.kinds = tokens.kinds;
    this.starts = tokens.starts;
    this.ends = tokens.ends;
    this.hashes = tokens.hashes ?? EMPTY_OFFSETS;
    const errors = tokens.errors;
    this.lexErrors = errors;
    for (let i = 0; i < errors.length; i++) {
      const e = errors[i] as LexError;
      this.issues.push({ offset: e.offset, message: `Syntax error: token recognition error at: '${e.text}'`, syntax: true });
    }
  }

  /** Drops what the last parse referred to (its text, its position and macro-call maps), so that this parser, kept for the next one, holds nothing of it. */
  release(): void {
    this.src = "";
    this.lexErrors = NO_LEX_ERRORS;
    this.macroCalls = undefined;
    // A huge expression's offsets are not kept for the next parse.
    if (this.offsets.length > 4096) this.offsets = [-1];
  }

  run(): ParsedExpr {
    let expr: Expr | undefined;
    if (!this.tooLarge) {
      try {
        expr = this.parseExpr();
        while (this.kinds[this.p] !== Tok.EOF) this.syncError([Tok.EOF]);
        if (this.h > this.maxDepth) {
          this.issues.push({ offset: -1, message: "max recursion depth exceeded", syntax: false });
        }
      } catch (e) {
        if (e !== ABORT) throw e;
        expr = undefined;
      }
    }
    const cp = this.codePointMap();
    if (this.issues.length > 0 || expr === undefined) this.fail(cp);
    const lineOffsets = this.mayHaveNewlines ? this.lineOffsets(cp) : NO_LINE_OFFSETS;
    const positions = new PositionMap(this.offsets.slice(0, this.nextId), this.nextId);
    if (cp !== undefined) positions.remap(cp);
    const sourceInfo: SourceInfo = {
      text: this.src,
      description: this.description,
      lineOffsets,
      positions,
      macroCalls: this.macroCalls ?? NO_MACRO_CALLS,
    };
    return { expr: expr as Expr, sourceInfo };
  }

  // -------------------------------------------------------------------------
  // Errors and positions

  /** UTF-16 index → code-point index, or undefined when they coincide. */
  private codePointMap(): Int32Array | undefined {
    const s = this.src;
    if (!this.mayHaveSurrogates || !HIGH_SURROGATE.test(s)) return undefined;
    const n = s.length;
    const map = new Int32Array(n + 1);
    let cp = 0;
    for (let j = 0; j < n; j++) {
      map[j] = cp;
      const c = s.charCodeAt(j);
      if (c >= 0xd800 && c <= 0xdbff && j + 1 < n) {
        const d = s.charCodeAt(j + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          map[j + 1] = cp;
          j++;
        }
      }
      cp++;
    }
    map[n] = cp;
    return map;
  }

  private lineOffsets(cp: Int32Array | undefined): number[] {
    const out: number[] = [];
    const s = this.src;
    let i = s.indexOf("\n");
    while (i >= 0) {
      out.push(cp === undefined ? i + 1 : (cp[i + 1] as number));
      i = s.indexOf("\n", i + 1);
    }
    return out;
  }

  private fail(cp: Int32Array | undefined): never {
    const info = { lineOffsets: this.lineOffsets(cp) };
    const issues: CelIssue[] = this.issues.map((i) => {
      if (i.offset < 0) return { message: i.message, offset: -1, line: 0, column: 0 };
      const offset = cp === undefined ? i.offset : (cp[i.offset] as number);
      const { line, column } = locate(info, offset);
      return { message: i.message, offset, line, column };
    });
    issues.sort((a, b) => (a.line !== b.line ? a.line - b.line : a.column - b.column));
    if (issues.length === 0) issues.push({ message: "unknown parse error", offset: -1, line: 0, column: 0 });
    throw new CelCompileError(issues, this.src, this.description);
  }

  /** Forgets semantic errors found since `mark`: cel-go never visits that part of the tree. */
  private dropSemanticSince(mark: number): void {
    for (let i = this.issues.length - 1; i >= mark; i--) {
      if (!(this.issues[i] as Issue).syntax) this.issues.splice(i, 1);
    }
  }

  private semanticError(offset: number, message: string): Expr {
    this.issues.push({ offset, message, syntax: false });
    return this.errorNode(offset);
  }

  /** Placeholder for a node whose construction failed (cel-go's unspecified expression). */
  private errorNode(offset: number): Expr {
    return { kind: "const", id: this.newId(offset), value: NULL_CONST };
  }

  private syntaxError(offset: number, message: string): never {
    // In ANTLR's error-recovery mode (no token consumed since the last error) errors are not reported.
    if (this.p !== this.errorP) this.issues.push({ offset, message: `Syntax error: ${message}`, syntax: true });
    throw ABORT;
  }

  /**
   * Reports an operand that cannot start where the current token stands, when
   * that token is an operator: as ANTLR does, the operand becomes an error
   * node and parsing resumes at the operator.
   */
  private missingOperand(message: string, offset: number): Expr | undefined {
    if (!IS_OPERATOR[this.kinds[this.p] as number] || this.p === this.errorP || this.recoveries >= RECOVERY_LIMIT) {
      return undefined;
    }
    this.recoveries++;
    this.errorP = this.p;
    this.issues.push({ offset, message: `Syntax error: ${message}`, syntax: true });
    return this.errorNode(offset);
  }

  private tokenDisplay(i: number): string {
    if (this.kinds[i] === Tok.EOF) return "'<EOF>'";
    return `'${escapeWS(this.src.slice(this.starts[i], this.ends[i]))}'`;
  }

  /** ANTLR's report when the current token cannot start what the grammar expects here. */
  /**
   * ANTLR's report when the current token cannot start what the grammar expects
   * here. When the token after it would do, the token is dropped and parsing
   * goes on ("extraneous input", ANTLR's single-token deletion); otherwise
   * parsing stops ("mismatched input").
   */
  private syncError(expected: readonly Tok[]): void {
    const p = this.p;
    const next = this.kinds[p + 1] as Tok;
    const display = `input ${this.tokenDisplay(p)} expecting ${formatTokenSet(expected)}`;
    if (p === this.errorP) throw ABORT;
    if (this.kinds[p] !== Tok.EOF && expected.includes(next) && this.recoveries < RECOVERY_LIMIT) {
      this.recoveries++;
      this.issues.push({ offset: this.starts[p] as number, message: `Syntax error: extraneous ${display}`, syntax: true });
      this.p++;
      return;
    }
    this.syntaxError(this.starts[p] as number, `mismatched ${display}`);
  }

  /** Consumes a required token (small, to be inlined: a missing token takes {@link expectMissing}). */
  private expect(t: Tok): void {
    if (this.kinds[this.p] === t) this.p++;
    else this.expectMissing(t);
  }

  /** {@link expect} where the current token is not `t`. */
  private expectMissing(t: Tok): void {
    const k = this.kinds[this.p];
    if (
      k === Tok.EOF &&
      this.pending === 1 &&
      (t === Tok.RPAREN || t === Tok.RBRACKET || t === Tok.RBRACE) &&
      this.recoveries < RECOVERY_LIMIT
    ) {
      // ANTLR's single-token insertion: the input ends where only this closer is missing.
      this.recoveries++;
      this.issues.push({
        offset: this.starts[this.p] as number,
        message: `Syntax error: missing ${formatTokenSet([t])} at '<EOF>'`,
        syntax: true,
      });
      return;
    }
    this.syncError([t]);
    this.p++;
  }

  /** ANTLR's "no viable alternative": the text from the decision's first token through the offending one. */
  private noViable(first: number, offending: number): never {
    this.syntaxError(this.starts[offending] as number, this.noViableMessage(first, offending));
  }

  private noViableMessage(first: number, offending: number): string {
    const start = this.starts[first] as number;
    const end = this.kinds[offending] === Tok.EOF ? this.src.length : (this.ends[offending] as number);
    // ANTLR joins the tokens (hidden whitespace and comments included); characters the lexer rejected are not tokens.
    let raw = "";
    let from = start;
    for (const e of this.lexErrors) {
      if (e.offset < from || e.offset >= end) continue;
      raw += this.src.slice(from, e.offset);
      from = e.offset + e.text.length;
    }
    raw += this.src.slice(from, end);
    const text = escapeWS(raw);
    // cel-go rewrites the message when a literal keyword stands where a name was expected (`a.true`).
    const m = RESERVED_LITERAL_AFTER_ONE.exec(text);
    if (m !== null) return `mismatched input '${m[1]}' expecting IDENTIFIER`;
    return `no viable alternative at input '${text}'`;
  }

  /** The offset of expression `id` (made by this parse), if it has one. */
  private position(id: number): number | undefined {
    const o = this.offsets[id] as number;
    return o < 0 ? undefined : o;
  }

  private newId(offset: number): number {
    const id = this.nextId++;
    this.offsets[id] = offset;
    return id;
  }

  // -------------------------------------------------------------------------
  // Grammar

  /**
   * cel-go's parse-tree listener counts nested invocations of each grammar rule
   * and aborts the whole parse when one exceeds the limit: only syntax errors
   * found so far survive.
   */
  private recursionLimit(): never {
    for (let i = this.issues.length - 1; i >= 0; i--) {
      const issue = this.issues[i] as Issue;
      if (!issue.syntax || issue.offset > (this.starts[this.p] as number)) this.issues.splice(i, 1);
    }
    this.issues.push({ offset: -1, message: `expression recursion limit exceeded: ${this.maxDepth}`, syntax: true });
    throw ABORT;
  }

  /**
   * `expr`: a conditional over `||` over `&&` over binary operators. The first operand is parsed
   * here, with the depth counts of the rules it passes through (`parseOr` and `parseAnd` keep none,
   * `parseBinary(1)` both), so that an operand standing alone, the usual argument, element or
   * index, returns without a frame for each precedence level.
   */
  private parseExpr(): Expr {
    if (++this.exprDepth > this.maxDepth) this.recursionLimit();
    if (++this.relDepth > this.maxDepth) this.recursionLimit();
    if (++this.calcDepth > this.maxDepth) this.recursionLimit();
    const first = IS_MEMBER_START[this.kinds[this.p] as number] ? this.parseMember() : this.parseUnary();
    if (!IS_OPERATOR[this.kinds[this.p] as number]) {
      this.calcDepth--;
      this.relDepth--;
      this.exprDepth--;
      return first;
    }
    // (parseAnd and parseOr return their argument unless their operator follows: not called then.)
    let cond = this.parseBinaryRest(1, first);
    if (this.kinds[this.p] === Tok.LOGICAL_AND) cond = this.parseAnd(cond);
    if (this.kinds[this.p] === Tok.LOGICAL_OR) cond = this.parseOr(cond);
    if (this.kinds[this.p] !== Tok.QUESTION) {
      this.exprDepth--;
      return cond;
    }
    let h = this.h;
    const opId = this.newId(this.starts[this.p++] as number);
    this.pending++;
    let ifTrue = this.parseBinary(1);
    if (this.kinds[this.p] === Tok.LOGICAL_AND) ifTrue = this.parseAnd(ifTrue);
    if (this.kinds[this.p] === Tok.LOGICAL_OR) ifTrue = this.parseOr(ifTrue);
    if (this.h > h) h = this.h;
    this.expect(Tok.COLON);
    this.pending--;
    const ifFalse = this.parseExpr();
    if (this.h > h) h = this.h;
    this.h = h + 1;
    this.exprDepth--;
    return { kind: "call", id: opId, fn: Op.conditional, args: [cond, ifTrue, ifFalse] };
  }

  /** The `||` chain whose first term is `first`. */
  private parseOr(first: Expr): Expr {
    return this.parseLogical(first, true);
  }

  /** The `&&` chain whose first term is `first`. */
  private parseAnd(first: Expr): Expr {
    return this.parseLogical(first, false);
  }

  /** A term of `||`: an `&&` chain (parseAnd called only when its operator follows). */
  private parseAndTerm(): Expr {
    const first = this.parseBinary(1);
    return this.kinds[this.p] === Tok.LOGICAL_AND ? this.parseAnd(first) : first;
  }

  /** A term of an `||` (`or`) or `&&` chain. */
  private logicalTerm(or: boolean): Expr {
    return or ? this.parseAndTerm() : this.parseBinary(1);
  }

  /** The `||` (`or`) or `&&` chain whose first term is `first`, balanced as cel-go balances it. */
  private parseLogical(first: Expr, or: boolean): Expr {
    const tok = or ? Tok.LOGICAL_OR : Tok.LOGICAL_AND;
    if (this.kinds[this.p] !== tok) return first;
    const fn = or ? Op.logicalOr : Op.logicalAnd;
    let h = this.h;
    const pos0 = this.starts[this.p++] as number;
    const second = this.logicalTerm(or);
    if (this.h > h) h = this.h;
    const id0 = this.newId(pos0);
    if (this.kinds[this.p] !== tok) {
      // Two terms (the usual case): the one call balanced() would make, without its arrays.
      this.h = h;
      return { kind: "call", id: id0, fn, args: [first, second] };
    }
    // Three terms or more (arrays made to measure for three: a push onto a full array grows it).
    const pos2 = this.starts[this.p++] as number;
    const third = this.logicalTerm(or);
    if (this.h > h) h = this.h;
    const terms: Expr[] = [first, second, third];
    const ops: number[] = [id0, this.newId(pos2)];
    while (this.kinds[this.p] === tok) {
      const pos = this.starts[this.p++] as number;
      terms.push(this.logicalTerm(or));
      if (this.h > h) h = this.h;
      ops.push(this.newId(pos));
    }
    this.h = h;
    return balanced(fn, terms, ops, 0, ops.length - 1);
  }

  /**
   * Relations (1), additive (2) and multiplicative (3) operators, all
   * left-associative. Each call stands for an invocation of the grammar's
   * `calc` rule, and of `relation` too below relation precedence; their nesting
   * counts towards the recursion limit as in cel-go.
   */
  private parseBinary(minPrec: number): Expr {
    if (minPrec <= 2 && ++this.relDepth > this.maxDepth) this.recursionLimit();
    if (++this.calcDepth > this.maxDepth) this.recursionLimit();
    const left = IS_MEMBER_START[this.kinds[this.p] as number] ? this.parseMember() : this.parseUnary();
    return this.parseBinaryRest(minPrec, left);
  }

  /** {@link parseBinary} after its first operand `left` (its depth counts taken). */
  private parseBinaryRest(minPrec: number, left: Expr): Expr {
    // The `calc` invocation for a relation's first operand ends at its first relational operator.
    let inCalc = true;
    let h = this.h;
    for (;;) {
      const op = this.kinds[this.p] as Tok;
      const prec = BIN_PREC[op] as number;
      if (prec === 0 || prec < minPrec) break;
      if (prec === 1 && inCalc) {
        this.calcDepth--;
        inCalc = false;
      }
      const id = this.newId(this.starts[this.p++] as number);
      const right = this.parseBinary(prec + 1);
      left = { kind: "call", id, fn: BIN_FN[op] as string, args: [left, right] };
      h = (this.h > h ? this.h : h) + 1;
    }
    this.h = h;
    if (inCalc) this.calcDepth--;
    if (minPrec <= 2) this.relDepth--;
    return left;
  }

  private parseUnary(): Expr {
    const kinds = this.kinds;
    const k = kinds[this.p] as Tok;
    if (k === Tok.EXCLAM) {
      const first = this.p;
      while (kinds[this.p] === Tok.EXCLAM) this.p++;
      const count = this.p - first;
      if (count % 2 === 0) return this.parseMember();
      const id = this.newId(this.starts[first] as number);
      const operand = this.parseMember();
      return { kind: "call", id, fn: Op.not, args: [operand] };
    }
    if (k === Tok.MINUS) {
      const next = kinds[this.p + 1];
      // `-1`, `-1.5`: the sign belongs to the literal (and `-1.f()` calls f on -1), as in cel-go.
      if (next === Tok.NUM_INT || next === Tok.NUM_FLOAT) return this.parseMember();
      const first = this.p;
      while (kinds[this.p] === Tok.MINUS) this.p++;
      const count = this.p - first;
      if (!IS_PRIMARY_START[kinds[this.p] as number]) {
        // The decision fails at the last '-', which can still be read as a binary minus.
        const offending = this.p;
        this.p--;
        const err = this.missingOperand(this.noViableMessage(this.p, offending), this.starts[offending] as number);
        if (err !== undefined) return err;
        this.p = offending;
        this.noViable(offending - 1, offending);
      }
      if (count % 2 === 0) return this.parseMember();
      const id = this.newId(this.starts[first] as number);
      const operand = this.parseMember();
      return { kind: "call", id, fn: Op.negate, args: [operand] };
    }
    if (!IS_UNARY_START[k]) {
      if (k !== Tok.EOF && IS_UNARY_START[kinds[this.p + 1] as number]) {
        this.syncError(UNARY_START);
        return this.parseUnary();
      }
      const err = this.missingOperand(
        `mismatched input ${this.tokenDisplay(this.p)} expecting ${formatTokenSet(UNARY_START)}`,
        this.starts[this.p] as number,
      );
      if (err !== undefined) return err;
      this.syncError(UNARY_START);
    }
    return this.parseMember();
  }

  private parseMember(): Expr {
    const kinds = this.kinds;
    let e: Expr;
    const p = this.p;
    if (kinds[p] === Tok.IDENTIFIER) {
      // parsePrimary's commonest case, without its frame; and a plain name (not a call, not the
      // type of a message: IDENT ('.' IDENT)* '{') without parseIdentPrimary's.
      this.h = 0;
      let plain = kinds[p + 1] !== Tok.LPAREN;
      if (plain) {
        let j = p + 1;
        while (kinds[j] === Tok.DOT && kinds[j + 1] === Tok.IDENTIFIER) j += 2;
        plain = kinds[j] !== Tok.LBRACE;
      }
      if (plain) {
        const name = this.name(p);
        this.p = p + 1;
        const start = this.starts[p] as number;
        e = this.isReservedName(p, name)
          ? this.semanticError(start, `reserved identifier: ${name}`)
          : { kind: "ident", id: this.newId(start), name };
      } else e = this.parseIdentPrimary(p, false);
    } else if (kinds[p] === Tok.STRING && this.hashes[p] === PLAIN_STRING) {
      // A quoted single line without escapes (see parsePrimary), also without its frame.
      this.h = 0;
      this.p = p + 1;
      const start = this.starts[p] as number;
      const value = this.src.slice(start + 1, (this.ends[p] as number) - 1);
      e = { kind: "const", id: this.newId(start), value: { kind: "string", value } };
    } else e = this.parsePrimary();
    let h = this.h;
    for (;;) {
      const k = kinds[this.p];
      if (k === Tok.DOT) {
        const dot = this.p;
        const dotPos = this.starts[dot] as number;
        let t = dot + 1;
        const opt = kinds[t] === Tok.QUESTION;
        if (opt) t++;
        const nameKind = kinds[t];
        if (nameKind === Tok.IDENTIFIER && !opt && kinds[t + 1] === Tok.LPAREN) {
          // Member call.
          const name = this.name(t);
          this.p = t + 1;
          const id = this.newId(this.starts[this.p++] as number);
          const args = this.parseArgs();
          h = (this.h > h ? this.h : h) + 1;
          e = this.callOrMacro(id, name, e, args, t);
          continue;
        }
        if (nameKind !== Tok.IDENTIFIER && nameKind !== Tok.ESC_IDENTIFIER) this.noViable(dot, t);
        this.p = t + 1;
        const field = nameKind === Tok.IDENTIFIER ? this.name(t) : this.fieldName(t);
        h++;
        if (opt) {
          if (!this.optional) {
            e = this.semanticError(dotPos, "unsupported syntax '.?'");
            continue;
          }
          const lit: Expr = { kind: "const", id: this.newId(this.starts[t] as number), value: { kind: "string", value: field } };
          e = { kind: "call", id: this.newId(dotPos), fn: Op.optSelect, args: [e, lit] };
        } else {
          e = { kind: "select", id: this.newId(dotPos), operand: e, field, testOnly: false };
        }
        continue;
      }
      if (k === Tok.LBRACKET) {
        const pos = this.starts[this.p++] as number;
        const opt = kinds[this.p] === Tok.QUESTION;
        if (opt) this.p++;
        const id = this.newId(pos);
        this.pending++;
        const index = this.parseExpr();
        h = (this.h > h ? this.h : h) + 1;
        this.expect(Tok.RBRACKET);
        this.pending--;
        if (opt && !this.optional) {
          this.offsets[id] = -1;
          e = this.semanticError(pos, "unsupported syntax '[?'");
          continue;
        }
        e = { kind: "call", id, fn: opt ? Op.optIndex : Op.index, args: [e, index] };
        continue;
      }
      break;
    }
    this.h = h;
    return e;
  }

  /** The text of IDENTIFIER token `t`, interned (see {@link INTERNED}). */
  private name(t: number): string {
    // Small, to be inlined where it is called; a name not in the table takes internNew().
    const s = this.src.slice(this.starts[t], this.ends[t]);
    const slot = internSlot(this.hashes[t] as number);
    const cand = INTERNED[slot] as string;
    return cand === s ? cand : internNew(s, slot);
  }

  /** Whether `name`, which {@link name} just made of IDENTIFIER token `t`, is reserved. */
  private isReservedName(t: number, name: string): boolean {
    const slot = internSlot(this.hashes[t] as number);
    return INTERNED[slot] === name ? SLOT_RESERVED[slot] === 1 : isReserved(name);
  }

  /** The name of an IDENTIFIER or ESC_IDENTIFIER token used as a field. */
  private fieldName(t: number, errorAt?: number): string {
    const start = this.starts[t] as number;
    const end = this.ends[t] as number;
    if (this.kinds[t] === Tok.ESC_IDENTIFIER) {
      if (!this.identEscape) this.semanticError(errorAt ?? start, "unsupported syntax: '`'");
      return this.src.slice(start + 1, end - 1);
    }
    return this.name(t);
  }

  private parsePrimary(): Expr {
    const kinds = this.kinds;
    const p = this.p;
    const k = kinds[p] as Tok;
    const start = this.starts[p] as number;
    this.h = 0;
    switch (k) {
      case Tok.IDENTIFIER:
        return this.parseIdentPrimary(p, false);
      case Tok.DOT:
        if (kinds[p + 1] !== Tok.IDENTIFIER) this.noViable(p, p + 1);
        return this.parseIdentPrimary(p + 1, true);
      case Tok.LPAREN: {
        this.p++;
        this.pending++;
        const e = this.parseExpr();
        this.expect(Tok.RPAREN);
        this.pending--;
        return e;
      }
      case Tok.LBRACKET:
        return this.parseList();
      case Tok.LBRACE:
        return this.parseMap();
      case Tok.MINUS: {
        const next = kinds[p + 1];
        if (next !== Tok.NUM_INT && next !== Tok.NUM_FLOAT) this.noViable(p, p + 1);
        this.p += 2;
        return next === Tok.NUM_INT ? this.intLiteral(start, p + 1, true) : this.doubleLiteral(start, p + 1, true);
      }
      case Tok.NUM_INT:
        this.p++;
        return this.intLiteral(start, p, false);
      case Tok.NUM_FLOAT:
        this.p++;
        return this.doubleLiteral(start, p, false);
      case Tok.NUM_UINT: {
        this.p++;
        let text = this.src.slice(start, (this.ends[p] as number) - 1);
        if (text.length > 2 && text.charCodeAt(1) === 120) text = `0x${text.slice(2)}`;
        const v = BigInt(text);
        if (v > UINT64_MAX) return this.semanticError(start, "invalid uint literal");
        return { kind: "const", id: this.newId(start), value: { kind: "uint", value: v } };
      }
      case Tok.STRING: {
        this.p++;
        let value: string;
        if (this.hashes[p] === PLAIN_STRING) {
          // The lexer saw a quoted single line without escapes: no second scan.
          value = this.src.slice(start + 1, (this.ends[p] as number) - 1);
        } else {
          try {
            value = decodeString(this.src, start, this.ends[p] as number);
          } catch (e) {
            if (!(e instanceof UnescapeError)) throw e;
            return this.semanticError(start, e.message);
          }
        }
        return { kind: "const", id: this.newId(start), value: { kind: "string", value } };
      }
      case Tok.BYTES: {
        this.p++;
        let value: Uint8Array;
        try {
          value = decodeBytes(this.src, start, this.ends[p] as number);
        } catch (e) {
          if (!(e instanceof UnescapeError)) throw e;
          return this.semanticError(start, e.message);
        }
        return { kind: "const", id: this.newId(start), value: { kind: "bytes", value } };
      }
      case Tok.TRUE:
        this.p++;
        return { kind: "const", id: this.newId(start), value: TRUE_CONST };
      case Tok.FALSE:
        this.p++;
        return { kind: "const", id: this.newId(start), value: FALSE_CONST };
      case Tok.NULL:
        this.p++;
        return { kind: "const", id: this.newId(start), value: NULL_CONST };
      default:
        this.syncError(PRIMARY_START);
        return this.parsePrimary();
    }
  }

  private intLiteral(start: number, tok: number, negative: boolean): Expr {
    const src = this.src;
    const ts = this.starts[tok] as number;
    const te = this.ends[tok] as number;
    if (te - ts <= 2 && !negative) {
      // One or two decimal digits: a shared bigint (a value like any other), no conversion, no range test.
      const d = src.charCodeAt(ts) - 48;
      const value = SMALL_INTS[te - ts === 1 ? d : d * 10 + src.charCodeAt(ts + 1) - 48] as bigint;
      return { kind: "const", id: this.newId(start), value: { kind: "int", value } };
    }
    let v: bigint;
    if (te - ts > 2 && src.charCodeAt(ts + 1) === 120) {
      v = BigInt(`0x${src.slice(ts + 2, te)}`);
    } else if (te - ts < 16) {
      v = BigInt(Number(src.slice(ts, te)));
    } else {
      v = BigInt(src.slice(ts, te));
    }
    if (negative) v = -v;
    if (v < INT64_MIN || v > INT64_MAX) return this.semanticError(start, "invalid int literal");
    return { kind: "const", id: this.newId(start), value: { kind: "int", value: v } };
  }

  private doubleLiteral(start: number, tok: number, negative: boolean): Expr {
    let v = Number(this.src.slice(this.starts[tok], this.ends[tok]));
    if (negative) v = -v;
    if (!Number.isFinite(v)) return this.semanticError(start, "invalid double literal");
    return { kind: "const", id: this.newId(start), value: { kind: "double", value: v } };
  }

  /** Identifier, global call or message construction; `t` is the IDENTIFIER token, after any leading dot. */
  private parseIdentPrimary(t: number, leadingDot: boolean): Expr {
    const kinds = this.kinds;
    const src = this.src;
    const ctxStart = this.starts[leadingDot ? t - 1 : t] as number;
    const name = this.name(t);
    if (kinds[t + 1] === Tok.LPAREN) {
      this.p = t + 1;
      const reserved = this.isReservedName(t, name);
      const id = reserved ? 0 : this.newId(this.starts[this.p] as number);
      this.p++;
      const mark = this.issues.length;
      const args = this.parseArgs();
      if (reserved) {
        this.dropSemanticSince(mark);
        return this.semanticError(ctxStart, `reserved identifier: ${name}`);
      }
      return leadingDot ? this.callOrMacro(id, `.${name}`, undefined, args, -1) : this.callOrMacro(id, name, undefined, args, t);
    }
    // Message construction: IDENT ('.' IDENT)* '{'.
    let j = t + 1;
    while (kinds[j] === Tok.DOT && kinds[j + 1] === Tok.IDENTIFIER) j += 2;
    if (kinds[j] === Tok.LBRACE) {
      let typeName = leadingDot ? `.${name}` : name;
      for (let i = t + 2; i < j; i += 2) typeName += `.${src.slice(this.starts[i], this.ends[i])}`;
      this.p = j;
      return this.parseMessage(typeName);
    }
    this.p = t + 1;
    if (this.isReservedName(t, name)) return this.semanticError(ctxStart, `reserved identifier: ${name}`);
    return { kind: "ident", id: this.newId(this.starts[t] as number), name: leadingDot ? `.${name}` : name };
  }

  /** Arguments after `(`, through `)`. Sets `h`. */
  private parseArgs(): Expr[] {
    const kinds = this.kinds;
    if (!IS_UNARY_START[kinds[this.p] as number]) {
      if (kinds[this.p] !== Tok.RPAREN) this.syncError(ARGS_START);
      if (kinds[this.p] === Tok.RPAREN) {
        this.p++;
        this.h = 0;
        return [];
      }
    }
    this.pending++;
    // (Arrays made to measure for one or two arguments: a push onto an empty array reserves 17 elements.)
    let args: Expr[];
    const a0 = this.parseExpr();
    let h = this.h > 0 ? this.h : 0;
    if (kinds[this.p] !== Tok.COMMA) args = [a0];
    else {
      this.p++;
      const a1 = this.parseExpr();
      if (this.h > h) h = this.h;
      if (kinds[this.p] !== Tok.COMMA) args = [a0, a1];
      else {
        args = [a0, a1];
        while (kinds[this.p] === Tok.COMMA) {
          this.p++;
          args.push(this.parseExpr());
          if (this.h > h) h = this.h;
        }
      }
    }
    this.expect(Tok.RPAREN);
    this.pending--;
    this.h = h;
    return args;
  }

  /** After an element of a list/map/message: consumes a separating comma; false at the end. */
  private nextElement(close: Tok, isStart: Uint8Array): boolean {
    const kinds = this.kinds;
    if (kinds[this.p] !== Tok.COMMA) return false;
    const after = kinds[this.p + 1] as number;
    if (after === close) {
      this.p++;
      return false;
    }
    if (!isStart[after]) this.noViable(this.p, this.p + 1);
    this.p++;
    return true;
  }

  /** The `','? close` tail of a list/map/message. */
  private closeAggregate(close: Tok): void {
    const kinds = this.kinds;
    if (kinds[this.p] === Tok.COMMA) {
      this.p++;
      this.expect(close);
      return;
    }
    if (kinds[this.p] !== close) {
      this.syncError([Tok.COMMA, close]);
      this.closeAggregate(close);
      return;
    }
    this.p++;
  }

  private parseList(): Expr {
    const id = this.newId(this.starts[this.p++] as number);
    this.pending++;
    const kinds = this.kinds;
    if (!IS_OPT_EXPR_START[kinds[this.p] as number] && kinds[this.p] !== Tok.RBRACKET && kinds[this.p] !== Tok.COMMA) {
      this.syncError(LIST_START);
    }
    const k = kinds[this.p] as Tok;
    let elements: Expr[] = EMPTY as never;
    let optionalIndices: number[] | undefined;
    // Arrays made to measure for one or two elements, as in parseMap.
    let first: Expr | undefined;
    let count = 0;
    let h = 0;
    if (k !== Tok.RBRACKET && k !== Tok.COMMA) {
      do {
        let optPos = -1;
        if (kinds[this.p] === Tok.QUESTION) optPos = this.starts[this.p++] as number;
        const e = this.parseExpr();
        if (this.h > h) h = this.h;
        if (optPos >= 0) {
          if (!this.optional) this.semanticError(optPos, "unsupported syntax '?'");
          else (optionalIndices ??= []).push(count);
        }
        if (count === 0) first = e;
        else if (count === 1) elements = [first as Expr, e];
        else elements.push(e);
        count++;
      } while (this.nextElement(Tok.RBRACKET, IS_OPT_EXPR_START));
      if (count === 1) elements = [first as Expr];
    }
    this.closeAggregate(Tok.RBRACKET);
    this.pending--;
    this.h = h;
    return { kind: "list", id, elements, optionalIndices: optionalIndices ?? EMPTY };
  }

  private parseMap(): Expr {
    const id = this.newId(this.starts[this.p++] as number);
    this.pending++;
    const kinds = this.kinds;
    if (!IS_OPT_EXPR_START[kinds[this.p] as number] && kinds[this.p] !== Tok.RBRACE && kinds[this.p] !== Tok.COMMA) {
      this.syncError(MAP_START);
    }
    const k = kinds[this.p] as Tok;
    let entries: MapEntry[] = EMPTY as never;
    // The first entry waits here: arrays are made to measure for one or two entries (a push onto
    // an empty array reserves 17 slots).
    let first: MapEntry | undefined;
    let count = 0;
    let h = 0;
    if (k !== Tok.RBRACE && k !== Tok.COMMA) {
      do {
        let optPos = -1;
        if (kinds[this.p] === Tok.QUESTION) optPos = this.starts[this.p++] as number;
        const mark = this.issues.length;
        // cel-go numbers the entry (placed at its colon) before its key and value.
        const entryId = this.newId(-1);
        const key = this.parseExpr();
        if (this.h > h) h = this.h;
        this.offsets[entryId] = this.starts[this.p] as number;
        this.expect(Tok.COLON);
        const value = this.parseExpr();
        if (this.h > h) h = this.h;
        if (optPos >= 0 && !this.optional) {
          this.dropSemanticSince(mark);
          this.semanticError(optPos, "unsupported syntax '?'");
          continue;
        }
        const entry: MapEntry = { id: entryId, key, value, optional: optPos >= 0 };
        if (count === 0) first = entry;
        else if (count === 1) entries = [first as MapEntry, entry];
        else entries.push(entry);
        count++;
      } while (this.nextElement(Tok.RBRACE, IS_OPT_EXPR_START));
      if (count === 1) entries = [first as MapEntry];
    }
    this.closeAggregate(Tok.RBRACE);
    this.pending--;
    this.h = h;
    return { kind: "map", id, entries };
  }

  /** Message construction; the current token is `{`. */
  private parseMessage(typeName: string): Expr {
    const id = this.newId(this.starts[this.p++] as number);
    this.pending++;
    const kinds = this.kinds;
    if (!IS_FIELD_START[kinds[this.p] as number] && kinds[this.p] !== Tok.RBRACE && kinds[this.p] !== Tok.COMMA) {
      this.syncError(FIELD_START);
    }
    const k = kinds[this.p] as Tok;
    let fields: StructField[] = EMPTY as never;
    let h = 0;
    if (k !== Tok.RBRACE && k !== Tok.COMMA) {
      fields = [];
      // cel-go reports a bad escaped field name at the start of the whole initializer list.
      const listStart = this.starts[this.p] as number;
      do {
        let optPos = -1;
        if (kinds[this.p] === Tok.QUESTION) optPos = this.starts[this.p++] as number;
        const nk = kinds[this.p];
        if (nk !== Tok.IDENTIFIER && nk !== Tok.ESC_IDENTIFIER) this.syncError(ESC_IDENT);
        const nameTok = this.p++;
        const fieldId = this.newId(this.starts[this.p] as number);
        this.expect(Tok.COLON);
        const mark = this.issues.length;
        const value = this.parseExpr();
        if (this.h > h) h = this.h;
        if (optPos >= 0 && !this.optional) {
          this.dropSemanticSince(mark);
          this.semanticError(optPos, "unsupported syntax '?'");
          continue;
        }
        const field = this.fieldName(nameTok, listStart);
        fields.push({ id: fieldId, field, value, optional: optPos >= 0 });
      } while (this.nextElement(Tok.RBRACE, IS_FIELD_START));
    }
    this.closeAggregate(Tok.RBRACE);
    this.pending--;
    this.h = h;
    return { kind: "struct", id, typeName, fields };
  }

  // -------------------------------------------------------------------------
  // Calls and macros

  /** A call of `fn`, or its macro's expansion; `nameTok` is the IDENTIFIER token that named `fn`, or -1. */
  private callOrMacro(id: number, fn: string, target: Expr | undefined, args: Expr[], nameTok: number): Expr {
    const macros = this.macros;
    if (macros.size > 0) {
      let defs: readonly MacroDef[] | undefined;
      const slot = nameTok >= 0 ? internSlot(this.hashes[nameTok] as number) : -1;
      // The slot name() filled with `fn` may hold another name since (one met in the arguments).
      if (slot >= 0 && INTERNED[slot] === fn) {
        if (SLOT_MACRO_TABLE[slot] === macros) defs = SLOT_MACRO_DEFS[slot];
        else {
          defs = macros.get(fn);
          SLOT_MACRO_TABLE[slot] = macros;
          SLOT_MACRO_DEFS[slot] = defs;
        }
      } else defs = macros.get(fn);
      const def = matchMacro(defs, args.length, target !== undefined);
      if (def !== undefined) {
        const pos = this.offsets[id] as number;
        this.macroPos = pos;
        // The arguments were parsed after `id` was given: none names the accumulator if no such
        // identifier was made since.
        const argsAccuFree = this.lastAccuId < id;
        const accuBefore = this.accuIdents;
        const result = def.expand(this, target, args);
        if (result !== undefined) {
          if (
            result.kind === "comprehension" &&
            argsAccuFree &&
            result.accuVar === ACCUMULATOR &&
            (target === undefined || result.iterRange === target)
          ) {
            // Every accumulator reference in the expansion was made by the expander just now: the
            // arguments have none, and the target (whose node can occur only once) is the range.
            (result as { accuRefs: number }).accuRefs = this.accuIdents - accuBefore;
          }
          this.offsets[id] = -1;
          if (result.kind === "macroError") {
            const at = this.position(result.at.id) ?? pos;
            return this.semanticError(at, result.message);
          }
          (this.macroCalls ??= new MacroCalls()).set(
            result.id,
            target === undefined ? { kind: "call", id: 0, fn, args } : { kind: "call", id: 0, fn, target, args },
          );
          return result;
        }
      }
    }
    return target === undefined ? { kind: "call", id, fn, args } : { kind: "call", id, fn, target, args };
  }

  // MacroHelper: nodes positioned at the macro call.

  private macroId(): number {
    return this.newId(this.macroPos);
  }
  ident(name: string): Expr {
    const id = this.macroId();
    if (name === ACCUMULATOR) this.countAccu(id);
    return { kind: "ident", id, name };
  }
  accu(): Expr {
    const id = this.macroId();
    this.countAccu(id);
    return { kind: "ident", id, name: ACCUMULATOR };
  }
  private countAccu(id: number): void {
    this.accuIdents++;
    this.lastAccuId = id;
  }
  bool(value: boolean): Expr {
    return { kind: "const", id: this.macroId(), value: value ? TRUE_CONST : FALSE_CONST };
  }
  int(value: bigint): Expr {
    return { kind: "const", id: this.macroId(), value: { kind: "int", value } };
  }
  list(elements: readonly Expr[]): Expr {
    return { kind: "list", id: this.macroId(), elements, optionalIndices: EMPTY };
  }
  emptyMap(): Expr {
    return { kind: "map", id: this.macroId(), entries: EMPTY };
  }
  call(fn: string, args: readonly Expr[]): Expr {
    return { kind: "call", id: this.macroId(), fn, args };
  }
  memberCall(fn: string, target: Expr, args: readonly Expr[]): Expr {
    return { kind: "call", id: this.macroId(), fn, target, args };
  }
  presenceTest(operand: Expr, field: string): Expr {
    return { kind: "select", id: this.macroId(), operand, field, testOnly: true };
  }
  comprehension(
    iterRange: Expr,
    iterVar: string,
    iterVar2: string | undefined,
    accuVar: string,
    accuInit: Expr,
    loopCondition: Expr,
    loopStep: Expr,
    result: Expr,
  ): Expr {
    const id = this.macroId();
    return iterVar2 === undefined
      ? { kind: "comprehension", id, iterVar, iterRange, accuVar, accuInit, loopCondition, loopStep, result, accuRefs: -1 }
      : {
          kind: "comprehension",
          id,
          iterVar,
          iterVar2,
          iterRange,
          accuVar,
          accuInit,
          loopCondition,
          loopStep,
          result,
          accuRefs: -1,
        };
  }
  /** A deep copy with fresh ids, each at the position of the node it copies (cel-go `ExprHelper.Copy`). */
  copy(e: Expr): Expr {
    const id = this.newId(this.position(e.id) ?? this.macroPos);
    switch (e.kind) {
      case "const":
        return { kind: "const", id, value: e.value };
      case "ident":
        if (e.name === ACCUMULATOR) this.countAccu(id);
        return { kind: "ident", id, name: e.name };
      case "select":
        return { kind: "select", id, operand: this.copy(e.operand), field: e.field, testOnly: e.testOnly };
      case "call": {
        const args = e.args.map((a) => this.copy(a));
        if (e.target === undefined) return { kind: "call", id, fn: e.fn, args };
        return { kind: "call", id, fn: e.fn, target: this.copy(e.target), args };
      }
      case "list":
        return { kind: "list", id, elements: e.elements.map((x) => this.copy(x)), optionalIndices: e.optionalIndices };
      case "map":
        return {
          kind: "map",
          id,
          entries: e.entries.map((en) => ({
            id: this.macroId(),
            key: this.copy(en.key),
            value: this.copy(en.value),
            optional: en.optional,
          })),
        };
      case "struct":
        return {
          kind: "struct",
          id,
          typeName: e.typeName,
          fields: e.fields.map((f) => ({ id: this.macroId(), field: f.field, value: this.copy(f.value), optional: f.optional })),
        };
      case "comprehension": {
        const iterRange = this.copy(e.iterRange);
        const accuInit = this.copy(e.accuInit);
        const loopCondition = this.copy(e.loopCondition);
        const loopStep = this.copy(e.loopStep);
        const result = this.copy(e.result);
        const base = { kind: "comprehension" as const, id, iterVar: e.iterVar, iterRange, accuVar: e.accuVar };
        return e.iterVar2 === undefined
          ? { ...base, accuInit, loopCondition, loopStep, result, accuRefs: -1 }
          : { ...base, iterVar2: e.iterVar2, accuInit, loopCondition, loopStep, result, accuRefs: -1 };
      }
    }
  }
}

/** cel-go's balanced tree for a chain of the same logical operator. */
function balanced(fn: string, terms: readonly Expr[], ops: readonly number[], lo: number, hi: number): Expr {
  const mid = (lo + hi + 1) >> 1;
  const left = mid === lo ? (terms[mid] as Expr) : balanced(fn, terms, ops, lo, mid - 1);
  const right = mid === hi ? (terms[mid + 1] as Expr) : balanced(fn, terms, ops, mid + 1, hi);
  return { kind: "call", id: ops[mid] as number, fn, args: [left, right] };
}

/** One more than the largest expression id of a tree this parser made (0 when `info` is not the parser's). */
export function idCount(info: SourceInfo): number {
  const p = info.positions;
  return p instanceof PositionMap ? p.count : 0;
}

/**
 * Expression id → offset, stored densely by id (ids are allocated in sequence);
 * -1 marks an id without a position (a macro call replaced by its expansion).
 */
class PositionMap implements ReadonlyMap<number, number> {
  /** Offsets by id (-1: none). */
  private readonly offsets: number[];
  /** One more than the largest id given. */
  readonly count: number;

  constructor(offsets: number[], count: number) {
    this.offsets = offsets;
    this.count = count;
  }

  get size(): number {
    let n = 0;
    const a = this.offsets;
    for (let i = 1; i < this.count; i++) if ((a[i] as number) >= 0) n++;
    return n;
  }
  get(id: number): number | undefined {
    const o = this.offsets[id];
    return o === undefined || o < 0 ? undefined : o;
  }
  has(id: number): boolean {
    const o = this.offsets[id];
    return o !== undefined && o >= 0;
  }
  /** Rewrites every offset through `map` (UTF-16 index → code-point index). */
  remap(map: Int32Array): void {
    const a = this.offsets;
    for (let i = 1; i < this.count; i++) if ((a[i] as number) >= 0) a[i] = map[a[i] as number] as number;
  }
  forEach(cb: (value: number, key: number, map: ReadonlyMap<number, number>) => void, thisArg?: unknown): void {
    const a = this.offsets;
    for (let i = 1; i < this.count; i++) if ((a[i] as number) >= 0) cb.call(thisArg, a[i] as number, i, this);
  }
  *entries(): MapIterator<[number, number]> {
    const a = this.offsets;
    for (let i = 1; i < this.count; i++) if ((a[i] as number) >= 0) yield [i, a[i] as number];
  }
  *keys(): MapIterator<number> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): MapIterator<number> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): MapIterator<[number, number]> {
    return this.entries();
  }
}

function countCodePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The parser every parse uses while {@link sharedIdle} (see {@link parse}). */
const SHARED_PARSER = new Parser();
/** False while a parse is using {@link SHARED_PARSER}. */
let sharedIdle = true;
