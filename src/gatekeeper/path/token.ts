/**
 * The location scanner (Gatekeeper `pkg/mutation/path/token`): turns a location string into
 * tokens. Whitespace between tokens is skipped; quoted strings (`"…"` or `'…'`, backslash makes
 * the next character literal) are always IDENT tokens.
 */
import { goQuote } from "../../diag/index.js";

export type TokenType = "ERROR" | "EOF" | "IDENT" | "INT" | "LBRACKET" | "RBRACKET" | "SEPARATOR" | "GLOB" | "COLON";

export interface Token {
  readonly type: TokenType;
  readonly literal: string;
}

/** `Token.String()`: `IDENT: "foo"`. */
export function tokenString(t: Token): string {
  return `${t.type}: ${goQuote(t.literal)}`;
}

const EOF = -1;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAlphaNum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || isDigit(c) || c === 0x5f || c === 0x2d;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** Scans one code point at a time, like Go's rune-wise scanner. */
export class Scanner {
  private readonly chars: string[];
  private pos = -1;
  private ch = EOF;

  constructor(input: string) {
    this.chars = Array.from(input);
    this.read();
  }

  private read(): void {
    this.pos++;
    this.ch = this.pos < this.chars.length ? this.chars[this.pos]!.codePointAt(0)! : EOF;
  }

  next(): Token {
    while (isSpace(this.ch)) this.read();
    if (isDigit(this.ch)) return { type: "INT", literal: this.readWhile(isDigit) };
    if (isAlphaNum(this.ch)) return { type: "IDENT", literal: this.readWhile(isAlphaNum) };
    let tok: Token;
    switch (this.ch) {
      case EOF:
        tok = { type: "EOF", literal: "" };
        break;
      case 0x2e:
        tok = { type: "SEPARATOR", literal: "." };
        break;
      case 0x5b:
        tok = { type: "LBRACKET", literal: "[" };
        break;
      case 0x5d:
        tok = { type: "RBRACKET", literal: "]" };
        break;
      case 0x2a:
        tok = { type: "GLOB", literal: "*" };
        break;
      case 0x3a:
        tok = { type: "COLON", literal: ":" };
        break;
      case 0x22:
      case 0x27:
        tok = this.readString();
        break;
      default:
        // invalid character: an ERROR token carrying that character
        tok = { type: "ERROR", literal: String.fromCodePoint(this.ch) };
    }
    this.read();
    return tok;
  }

  private readWhile(pred: (c: number) => boolean): string {
    let out = "";
    while (pred(this.ch)) {
      out += String.fromCodePoint(this.ch);
      this.read();
    }
    return out;
  }

  /** A quoted string; unterminated → an ERROR token with what was read. */
  private readString(): Token {
    const quote = this.ch;
    let out = "";
    for (;;) {
      this.read();
      const c: number = this.ch;
      if (c === quote) return { type: "IDENT", literal: out };
      if (c === 0x5c) {
        this.read();
        const e: number = this.ch;
        if (e === EOF) continue;
        out += String.fromCodePoint(e);
      } else if (c === EOF) {
        return { type: "ERROR", literal: out };
      } else {
        out += String.fromCodePoint(c);
      }
    }
  }
}
