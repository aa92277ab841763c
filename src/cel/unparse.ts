/**
 * AST → CEL source. The printed text parses back (with the same macro set, and
 * optional syntax / identifier escapes when the tree uses them) to a tree with
 * the same debug form. Macros are printed from `SourceInfo.macroCalls` as
 * written (`l.map(c, f(c))`, `has(a.b)`), not as their fold expansions; a
 * comprehension without a recorded macro call has no CEL source and throws.
 *
 * Parentheses follow CEL's grammar: operands of lower precedence are wrapped;
 * a right operand of the same (left-associative) precedence is wrapped; a
 * `&&`/`||` operand that is itself `&&`/`||` is always wrapped, because the
 * parser balances chains of those operators; unary operands that are constants
 * or unary calls are wrapped (`-(1)`, `!(!a)`) since `-1` is a literal and
 * `!!a` parses to `a`.
 */
import { Op, type Constant, type Expr, type SourceInfo } from "./ast.js";

export interface UnparseOptions {
  /** Macro calls by expansion id; `sourceInfo.macroCalls` of the parse. */
  readonly macroCalls?: ReadonlyMap<number, Expr>;
}

const PREC: Record<string, number> = {
  [Op.conditional]: 1,
  [Op.logicalOr]: 2,
  [Op.logicalAnd]: 3,
  [Op.equals]: 4,
  [Op.notEquals]: 4,
  [Op.less]: 4,
  [Op.lessEquals]: 4,
  [Op.greater]: 4,
  [Op.greaterEquals]: 4,
  [Op.in]: 4,
  [Op.add]: 5,
  [Op.subtract]: 5,
  [Op.multiply]: 6,
  [Op.divide]: 6,
  [Op.modulo]: 6,
  [Op.not]: 7,
  [Op.negate]: 7,
};

const SYMBOL: Record<string, string> = {
  [Op.logicalOr]: "||",
  [Op.logicalAnd]: "&&",
  [Op.equals]: "==",
  [Op.notEquals]: "!=",
  [Op.less]: "<",
  [Op.lessEquals]: "<=",
  [Op.greater]: ">",
  [Op.greaterEquals]: ">=",
  [Op.in]: "in",
  [Op.add]: "+",
  [Op.subtract]: "-",
  [Op.multiply]: "*",
  [Op.divide]: "/",
  [Op.modulo]: "%",
};

const RESERVED = new Set([
  "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
  "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
]);

const IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** Print a parsed expression back to CEL source. */
export function unparse(e: Expr, sourceInfo?: Pick<SourceInfo, "macroCalls"> | UnparseOptions): string {
  return new Printer(sourceInfo?.macroCalls ?? new Map()).print(e);
}

/** A field name as CEL source: plain when it is an identifier, backquoted otherwise. */
export function fieldName(name: string): string {
  return IDENT.test(name) && !RESERVED.has(name) ? name : "`" + name + "`";
}

function precedence(e: Expr): number {
  if (e.kind === "call" && e.target === undefined && PREC[e.fn] !== undefined) {
    if ((e.fn === Op.negate || e.fn === Op.not) && e.args.length !== 1) return 8;
    if (e.fn === Op.conditional && e.args.length !== 3) return 8;
    if (SYMBOL[e.fn] !== undefined && e.args.length !== 2) return 8;
    return PREC[e.fn] as number;
  }
  if (e.kind === "const" && (e.value.kind === "int" || e.value.kind === "double") && isNegative(e.value)) return 7;
  return 8;
}

/** Whether the member chain of `e` starts with a numeric literal (`1.5[a]`, `2.f()`). */
function leadingNumber(e: Expr, macroCalls: ReadonlyMap<number, Expr>): boolean {
  for (;;) {
    const m = macroCalls.get(e.id);
    if (m !== undefined && m !== e) {
      e = m;
      continue;
    }
    if (e.kind === "const") return e.value.kind === "int" || e.value.kind === "uint" || e.value.kind === "double";
    if (e.kind === "select") e = e.operand;
    else if (e.kind === "call" && e.target !== undefined) e = e.target;
    else if (e.kind === "call" && (e.fn === Op.index || e.fn === Op.optIndex || e.fn === Op.optSelect) && e.args.length === 2) e = e.args[0] as Expr;
    else return false;
  }
}

function isNegative(c: Constant): boolean {
  if (c.kind === "int") return c.value < 0n;
  if (c.kind === "double") return c.value < 0 || Object.is(c.value, -0);
  return false;
}

class Printer {
  constructor(private readonly macroCalls: ReadonlyMap<number, Expr>) {}

  print(e: Expr): string {
    const macro = e.kind === "comprehension" || e.kind === "call" || e.kind === "select" ? this.macroCalls.get(e.id) : undefined;
    if (macro !== undefined && macro !== e) return this.print(macro);
    switch (e.kind) {
      case "const":
        return constant(e.value);
      case "ident":
        return e.name;
      case "select": {
        const sel = `${this.member(e.operand)}.${fieldName(e.field)}`;
        return e.testOnly ? `has(${sel})` : sel;
      }
      case "list":
        return `[${e.elements.map((x, i) => (e.optionalIndices.includes(i) ? "?" : "") + this.print(x)).join(", ")}]`;
      case "map":
        return `{${e.entries.map((x) => `${x.optional ? "?" : ""}${this.print(x.key)}: ${this.print(x.value)}`).join(", ")}}`;
      case "struct":
        return `${e.typeName}{${e.fields.map((f) => `${f.optional ? "?" : ""}${fieldName(f.field)}: ${this.print(f.value)}`).join(", ")}}`;
      case "comprehension": {
        throw new Error(`unparse: comprehension ${e.id} has no recorded macro call`);
      }
      case "call":
        return this.call(e);
    }
  }

  private call(e: Extract<Expr, { kind: "call" }>): string {
    const { fn, args } = e;
    if (e.target === undefined) {
      const p = precedence(e);
      if (p !== 8) {
        if (fn === Op.conditional) {
          const [c, t, f] = args as [Expr, Expr, Expr];
          return `${this.wrap(c, precedence(c) <= 1)} ? ${this.wrap(t, precedence(t) <= 1)} : ${this.print(f)}`;
        }
        if (fn === Op.not || fn === Op.negate) {
          const a = args[0] as Expr;
          const pa = precedence(a);
          // `-1[a]` would lex as the literal -1: wrap an operand whose member chain starts with a number.
          const needs = pa <= 7 || (fn === Op.negate && leadingNumber(a, this.macroCalls));
          return `${fn === Op.not ? "!" : "-"}${this.wrap(a, needs)}`;
        }
        const [l, r] = args as [Expr, Expr];
        const pl = precedence(l);
        const pr = precedence(r);
        const logical = fn === Op.logicalAnd || fn === Op.logicalOr;
        const wl = pl < p || (logical && pl === p);
        const wr = pr <= p;
        return `${this.wrap(l, wl)} ${SYMBOL[fn]} ${this.wrap(r, wr)}`;
      }
      if (fn === Op.index && args.length === 2) return `${this.member(args[0] as Expr)}[${this.print(args[1] as Expr)}]`;
      if (fn === Op.optIndex && args.length === 2) return `${this.member(args[0] as Expr)}[?${this.print(args[1] as Expr)}]`;
      if (fn === Op.optSelect && args.length === 2) {
        const f = args[1] as Expr;
        if (f.kind === "const" && f.value.kind === "string") return `${this.member(args[0] as Expr)}.?${fieldName(f.value.value)}`;
      }
      if (!/^\.?[_a-zA-Z][_a-zA-Z0-9.]*$/.test(fn)) throw new Error(`unparse: function ${fn} has no CEL source form`);
      return `${fn}(${args.map((a) => this.print(a)).join(", ")})`;
    }
    return `${this.member(e.target)}.${fn}(${args.map((a) => this.print(a)).join(", ")})`;
  }

  /** An operand of `.`, `[]` or a receiver call. */
  private member(e: Expr): string {
    return this.wrap(e, precedence(e) < 8);
  }

  private wrap(e: Expr, parens: boolean): string {
    const s = this.print(e);
    return parens ? `(${s})` : s;
  }
}

function constant(c: Constant): string {
  switch (c.kind) {
    case "null":
      return "null";
    case "bool":
      return c.value ? "true" : "false";
    case "int":
      return c.value.toString();
    case "uint":
      return `${c.value.toString()}u`;
    case "double":
      return double(c.value);
    case "string":
      return stringLiteral(c.value);
    case "bytes":
      return bytesLiteral(c.value);
  }
}

function double(v: number): string {
  if (Number.isNaN(v)) return 'double("NaN")';
  if (v === Infinity) return 'double("Infinity")';
  if (v === -Infinity) return 'double("-Infinity")';
  if (Object.is(v, -0)) return "-0.0";
  const s = String(v);
  if (/[.eE]/.test(s)) return s.replace(/e\+/, "e+");
  return `${s}.0`;
}

/** A CEL double-quoted string literal. */
export function stringLiteral(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    switch (ch) {
      case "\\":
        out += "\\\\";
        continue;
      case '"':
        out += '\\"';
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
    }
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff)) {
      out += `\\u${cp.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return out + '"';
}

function bytesLiteral(b: Uint8Array): string {
  let out = 'b"';
  for (const x of b) {
    if (x >= 0x20 && x < 0x7f && x !== 0x22 && x !== 0x5c) out += String.fromCharCode(x);
    else out += `\\x${x.toString(16).padStart(2, "0")}`;
  }
  return out + '"';
}
