/**
 * The CEL lexer: source text → a flat token stream, following the token rules
 * of the CEL grammar (cel-go's `CEL.g4`), including its error behaviour: a
 * character sequence that starts no token is reported as
 * `token recognition error at: '...'` (the text runs from the token start up to
 * and including the character that failed) and lexing resumes after it, as an
 * ANTLR lexer does. Where a longer token fails but a shorter one was complete
 * (`r"abc` → identifier `r`, `'''abc` → empty string `''`) the shorter one wins.
 *
 * Tokens are stored in reusable typed arrays (kind, start, end as UTF-16
 * indices); the lexer allocates nothing per token.
 */

/** Token kinds. The numbering follows the ANTLR token types so that expected-token sets print in cel-go's order. */
export const enum Tok {
  EOF = 0,
  EQUALS = 1,
  NOT_EQUALS = 2,
  IN = 3,
  LESS = 4,
  LESS_EQUALS = 5,
  GREATER_EQUALS = 6,
  GREATER = 7,
  LOGICAL_AND = 8,
  LOGICAL_OR = 9,
  LBRACKET = 10,
  RBRACKET = 11,
  LBRACE = 12,
  RBRACE = 13,
  LPAREN = 14,
  RPAREN = 15,
  DOT = 16,
  COMMA = 17,
  MINUS = 18,
  EXCLAM = 19,
  QUESTION = 20,
  COLON = 21,
  PLUS = 22,
  STAR = 23,
  SLASH = 24,
  PERCENT = 25,
  TRUE = 26,
  FALSE = 27,
  NULL = 28,
  NUM_FLOAT = 31,
  NUM_INT = 32,
  NUM_UINT = 33,
  STRING = 34,
  BYTES = 35,
  IDENTIFIER = 36,
  ESC_IDENTIFIER = 37,
}

/** How ANTLR displays each token type in "expecting ..." messages. */
const TOKEN_DISPLAY: readonly string[] = (() => {
  const d: string[] = [];
  d[Tok.EOF] = "<EOF>";
  d[Tok.EQUALS] = "'=='";
  d[Tok.NOT_EQUALS] = "'!='";
  d[Tok.IN] = "'in'";
  d[Tok.LESS] = "'<'";
  d[Tok.LESS_EQUALS] = "'<='";
  d[Tok.GREATER_EQUALS] = "'>='";
  d[Tok.GREATER] = "'>'";
  d[Tok.LOGICAL_AND] = "'&&'";
  d[Tok.LOGICAL_OR] = "'||'";
  d[Tok.LBRACKET] = "'['";
  d[Tok.RBRACKET] = "']'";
  d[Tok.LBRACE] = "'{'";
  d[Tok.RBRACE] = "'}'";
  d[Tok.LPAREN] = "'('";
  d[Tok.RPAREN] = "')'";
  d[Tok.DOT] = "'.'";
  d[Tok.COMMA] = "','";
  d[Tok.MINUS] = "'-'";
  d[Tok.EXCLAM] = "'!'";
  d[Tok.QUESTION] = "'?'";
  d[Tok.COLON] = "':'";
  d[Tok.PLUS] = "'+'";
  d[Tok.STAR] = "'*'";
  d[Tok.SLASH] = "'/'";
  d[Tok.PERCENT] = "'%'";
  d[Tok.TRUE] = "'true'";
  d[Tok.FALSE] = "'false'";
  d[Tok.NULL] = "'null'";
  d[Tok.NUM_FLOAT] = "NUM_FLOAT";
  d[Tok.NUM_INT] = "NUM_INT";
  d[Tok.NUM_UINT] = "NUM_UINT";
  d[Tok.STRING] = "STRING";
  d[Tok.BYTES] = "BYTES";
  d[Tok.IDENTIFIER] = "IDENTIFIER";
  d[Tok.ESC_IDENTIFIER] = "ESC_IDENTIFIER";
  return d;
})();

/** ANTLR's rendering of a set of expected token kinds: `X` for one, `{X, Y}` for several. */
export function formatTokenSet(kinds: readonly Tok[]): string {
  if (kinds.length === 1) return TOKEN_DISPLAY[kinds[0] as Tok] ?? "?";
  const sorted = [...kinds].sort((a, b) => a - b);
  return `{${sorted.map((k) => TOKEN_DISPLAY[k] ?? "?").join(", ")}}`;
}

/** A lexer error: UTF-16 offset of the failing token's start and the text ANTLR would quote. */
export interface LexError {
  readonly offset: number;
  readonly text: string;
}

/** The token stream of one source text. Arrays are shared between parses; read them before the next `lex` call. */
export interface Tokens {
  readonly kinds: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Number of tokens, the final EOF token included. */
  readonly count: number;
  readonly errors: readonly LexError[];
  /**
   * False when the text has no UTF-16 unit of 0xD800 or above (so no surrogate
   * pair: code-point and UTF-16 offsets coincide); true or absent: it may have.
   */
  readonly mayHaveSurrogates?: boolean;
  /** False when the text has no line feed; true or absent: it may have. */
  readonly mayHaveNewlines?: boolean;
  /**
   * Of IDENTIFIER tokens, by token index: a hash of the identifier's characters; of STRING tokens,
   * {@link PLAIN_STRING} when the literal is a quoted single line without escape sequences (its
   * value is the text between the quotes), else 0 (other entries unspecified).
   */
  readonly hashes?: Int32Array;
}

/** `Tokens.hashes` of a STRING token whose value is the text between its quotes. */
export const PLAIN_STRING = 1;

let kindsBuf = new Uint8Array(64);
let startsBuf = new Int32Array(64);
let endsBuf = new Int32Array(64);
let hashesBuf = new Int32Array(64);
/** Set by {@link scanQuoted}: the literal scanned is single-line and has no escape sequence. */
let plainLiteral = false;
/** Whether the text being lexed may hold a line feed (set where one is seen or may have been skipped: literals, errors). */
let newlines = false;
/** Whether the text being lexed has shown a unit of 0xD800 or above (where the main loop does not look: literals, comments, errors). */
let wide = false;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}
function isIdentPart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/**
 * Validates an escape sequence whose backslash is at `j`. Returns the index after
 * it, or `~fail` where `fail` is the index of the character that broke it.
 */
function scanEscape(src: string, j: number, len: number): number {
  const k = j + 1;
  if (k >= len) return ~len;
  const c = src.charCodeAt(k);
  switch (c) {
    case 97: // a
    case 98: // b
    case 102: // f
    case 110: // n
    case 114: // r
    case 116: // t
    case 118: // v
    case 34: // "
    case 39: // '
    case 92: // \
    case 63: // ?
    case 96: // `
      return k + 1;
    case 120: // x
    case 88: // X
      return scanHex(src, k + 1, 2, len);
    case 117: // u
      return scanHex(src, k + 1, 4, len);
    case 85: // U
      return scanHex(src, k + 1, 8, len);
    case 48:
    case 49:
    case 50:
    case 51: {
      for (let m = k + 1; m < k + 3; m++) {
        if (m >= len) return ~len;
        const d = src.charCodeAt(m);
        if (d < 48 || d > 55) return ~m;
      }
      return k + 3;
    }
    default:
      return ~k;
  }
}

function scanHex(src: string, from: number, n: number, len: number): number {
  for (let m = from; m < from + n; m++) {
    if (m >= len) return ~len;
    if (!isHex(src.charCodeAt(m))) return ~m;
  }
  return from + n;
}

/**
 * Scans a quoted literal whose opening quote is at `q`. Returns the end index,
 * `~fail` on failure, where a failed triple-quoted literal falls back to the
 * empty literal made of its first two quotes (ANTLR keeps the longest complete token).
 */
function scanQuoted(src: string, q: number, raw: boolean, len: number): number {
  const quote = src.charCodeAt(q);
  plainLiteral = false;
  if (q + 2 < len && src.charCodeAt(q + 1) === quote && src.charCodeAt(q + 2) === quote) {
    newlines = true;
    let j = q + 3;
    for (;;) {
      if (j >= len) return q + 2; // unterminated triple: keep the empty string ''
      const c = src.charCodeAt(j);
      if (c === quote && j + 2 < len && src.charCodeAt(j + 1) === quote && src.charCodeAt(j + 2) === quote) {
        return j + 3;
      }
      if (c === 92 && !raw) {
        const r = scanEscape(src, j, len);
        if (r < 0) return q + 2;
        j = r;
      } else {
        if (c >= 0xd800) wide = true;
        j++;
      }
    }
  }
  let j = q + 1;
  let plain = true;
  for (;;) {
    if (j >= len) return ~len;
    const c = src.charCodeAt(j);
    if (c === quote) {
      plainLiteral = plain;
      return j + 1;
    }
    if (c === 10 || c === 13) return ~j;
    if (c === 92 && !raw) {
      plain = false;
      const r = scanEscape(src, j, len);
      if (r < 0) return r;
      j = r;
    } else {
      if (c >= 0xd800) wide = true;
      j++;
    }
  }
}

/** Length in UTF-16 units of the code point at `i`. */
function cpLen(src: string, i: number): number {
  const c = src.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < src.length) {
    const d = src.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** Tokenizes `src`. The returned arrays are reused by the next call. */
/** The errors of the text being lexed (module state like {@link wide}: no closure, no context per call). */
let lexErrors: LexError[] | undefined;

/** A token recognition error from `start`: ANTLR quotes the text through the failing character, then resumes after it. */
function fail(src: string, len: number, start: number, failAt: number): number {
  newlines = true;
  if (failAt < len && src.charCodeAt(failAt) >= 0xd800) wide = true;
  const stop = failAt < len ? failAt + cpLen(src, failAt) : len;
  (lexErrors ??= []).push({ offset: start, text: src.slice(start, stop) });
  return stop;
}

export function lex(src: string): Tokens {
  const len = src.length;
  if (kindsBuf.length < len + 2) {
    const size = Math.max(len + 2, kindsBuf.length * 2);
    kindsBuf = new Uint8Array(size);
    startsBuf = new Int32Array(size);
    endsBuf = new Int32Array(size);
    hashesBuf = new Int32Array(size);
  }
  const kinds = kindsBuf;
  const starts = startsBuf;
  const ends = endsBuf;
  const hashes = hashesBuf;
  wide = false;
  newlines = false;
  lexErrors = undefined;
  let n = 0;
  let i = 0;

  while (i < len) {
    const c = src.charCodeAt(i);
    // Whitespace: \t \n \f \r and space (not \v).
    if (c <= 32 && (c === 32 || c === 10 || c === 9 || c === 13 || c === 12)) {
      if (c === 10) newlines = true;
      i++;
      continue;
    }
    const start = i;
    let kind: Tok;
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) {
      // String and bytes prefixes: r"", b"", br"", rb is not a prefix.
      if (c === 114 || c === 82 || c === 98 || c === 66) {
        let p = i + 1;
        let raw = c === 114 || c === 82;
        const bytes = c === 98 || c === 66;
        if (bytes && p < len) {
          const d = src.charCodeAt(p);
          if (d === 114 || d === 82) {
            raw = true;
            p++;
          }
        }
        if (p < len) {
          const d = src.charCodeAt(p);
          if (d === 34 || d === 39) {
            const r = scanQuoted(src, p, raw, len);
            if (r >= 0) {
              kinds[n] = bytes ? Tok.BYTES : Tok.STRING;
              starts[n] = start;
              ends[n] = r;
              hashes[n] = 0; // a prefixed literal is never PLAIN_STRING
              n++;
              i = r;
              continue;
            }
            // The literal failed: the identifier prefix is the longest complete token.
          }
        }
      }
      let j = i + 1;
      let h = c;
      while (j < len) {
        const d = src.charCodeAt(j);
        // [a-z], else [A-Z0-9_] (ASCII: a unit above 'z' is never part of a name).
        if (d >= 97) {
          if (d > 122) break;
        } else if (!((d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d === 95)) break;
        h = (Math.imul(h, 31) + d) | 0;
        j++;
      }
      hashes[n] = h;
      kind = Tok.IDENTIFIER;
      const l = j - i;
      if (l === 2) {
        if (c === 105 && src.charCodeAt(i + 1) === 110) kind = Tok.IN;
      } else if (l === 4) {
        if (c === 116 && src.startsWith("true", i)) kind = Tok.TRUE;
        else if (c === 110 && src.startsWith("null", i)) kind = Tok.NULL;
      } else if (l === 5) {
        if (c === 102 && src.startsWith("false", i)) kind = Tok.FALSE;
      }
      i = j;
    } else if (c >= 48 && c <= 57) {
      let j = i + 1;
      if (c === 48 && j + 1 < len && src.charCodeAt(j) === 120 && isHex(src.charCodeAt(j + 1))) {
        j += 2;
        while (j < len && isHex(src.charCodeAt(j))) j++;
        kind = Tok.NUM_INT;
        if (j < len) {
          const d = src.charCodeAt(j);
          if (d === 117 || d === 85) {
            kind = Tok.NUM_UINT;
            j++;
          }
        }
      } else {
        while (j < len && isDigit(src.charCodeAt(j))) j++;
        kind = Tok.NUM_INT;
        if (j + 1 < len && src.charCodeAt(j) === 46 && isDigit(src.charCodeAt(j + 1))) {
          j += 2;
          while (j < len && isDigit(src.charCodeAt(j))) j++;
          j = scanExponent(src, j, len);
          kind = Tok.NUM_FLOAT;
        } else {
          const e = scanExponent(src, j, len);
          if (e !== j) {
            j = e;
            kind = Tok.NUM_FLOAT;
          } else if (j < len) {
            const d = src.charCodeAt(j);
            if (d === 117 || d === 85) {
              kind = Tok.NUM_UINT;
              j++;
            }
          }
        }
      }
      i = j;
    } else {
      switch (c) {
        case 34: // "
        case 39: {
          // '
          const r = scanQuoted(src, i, false, len);
          if (r < 0) {
            i = fail(src, len, start, ~r);
            continue;
          }
          kind = Tok.STRING;
          hashes[n] = plainLiteral ? PLAIN_STRING : 0;
          i = r;
          break;
        }
        case 46: // .
          if (i + 1 < len && isDigit(src.charCodeAt(i + 1))) {
            let j = i + 2;
            while (j < len && isDigit(src.charCodeAt(j))) j++;
            i = scanExponent(src, j, len);
            kind = Tok.NUM_FLOAT;
          } else {
            kind = Tok.DOT;
            i++;
          }
          break;
        case 61: // =
          if (i + 1 < len && src.charCodeAt(i + 1) === 61) {
            kind = Tok.EQUALS;
            i += 2;
          } else {
            i = fail(src, len, start, i + 1);
            continue;
          }
          break;
        case 33: // !
          if (i + 1 < len && src.charCodeAt(i + 1) === 61) {
            kind = Tok.NOT_EQUALS;
            i += 2;
          } else {
            kind = Tok.EXCLAM;
            i++;
          }
          break;
        case 60: // <
          if (i + 1 < len && src.charCodeAt(i + 1) === 61) {
            kind = Tok.LESS_EQUALS;
            i += 2;
          } else {
            kind = Tok.LESS;
            i++;
          }
          break;
        case 62: // >
          if (i + 1 < len && src.charCodeAt(i + 1) === 61) {
            kind = Tok.GREATER_EQUALS;
            i += 2;
          } else {
            kind = Tok.GREATER;
            i++;
          }
          break;
        case 38: // &
          if (i + 1 < len && src.charCodeAt(i + 1) === 38) {
            kind = Tok.LOGICAL_AND;
            i += 2;
          } else {
            i = fail(src, len, start, i + 1);
            continue;
          }
          break;
        case 124: // |
          if (i + 1 < len && src.charCodeAt(i + 1) === 124) {
            kind = Tok.LOGICAL_OR;
            i += 2;
          } else {
            i = fail(src, len, start, i + 1);
            continue;
          }
          break;
        case 47: // /
          if (i + 1 < len && src.charCodeAt(i + 1) === 47) {
            let j = i + 2;
            for (; j < len; j++) {
              const d = src.charCodeAt(j);
              if (d === 10) break;
              if (d >= 0xd800) wide = true;
            }
            i = j;
            continue;
          }
          kind = Tok.SLASH;
          i++;
          break;
        case 96: {
          // ` escaped identifier: (LETTER | DIGIT | _ . - / space)+
          let j = i + 1;
          for (;;) {
            if (j >= len) break;
            const d = src.charCodeAt(j);
            if (isIdentPart(d) || d === 46 || d === 45 || d === 47 || d === 32) j++;
            else break;
          }
          if (j > i + 1 && j < len && src.charCodeAt(j) === 96) {
            kind = Tok.ESC_IDENTIFIER;
            i = j + 1;
          } else {
            i = fail(src, len, start, j);
            continue;
          }
          break;
        }
        case 91:
          kind = Tok.LBRACKET;
          i++;
          break;
        case 93:
          kind = Tok.RBRACKET;
          i++;
          break;
        case 123:
          kind = Tok.LBRACE;
          i++;
          break;
        case 125:
          kind = Tok.RBRACE;
          i++;
          break;
        case 40:
          kind = Tok.LPAREN;
          i++;
          break;
        case 41:
          kind = Tok.RPAREN;
          i++;
          break;
        case 44:
          kind = Tok.COMMA;
          i++;
          break;
        case 45:
          kind = Tok.MINUS;
          i++;
          break;
        case 63:
          kind = Tok.QUESTION;
          i++;
          break;
        case 58:
          kind = Tok.COLON;
          i++;
          break;
        case 43:
          kind = Tok.PLUS;
          i++;
          break;
        case 42:
          kind = Tok.STAR;
          i++;
          break;
        case 37:
          kind = Tok.PERCENT;
          i++;
          break;
        default:
          i = fail(src, len, start, i);
          continue;
      }
    }
    kinds[n] = kind;
    starts[n] = start;
    ends[n] = i;
    n++;
  }
  kinds[n] = Tok.EOF;
  starts[n] = len;
  ends[n] = len;
  n++;
  const errors = lexErrors;
  lexErrors = undefined;
  return { kinds, starts, ends, count: n, errors: errors ?? NO_ERRORS, mayHaveSurrogates: wide, mayHaveNewlines: newlines, hashes };
}

const NO_ERRORS: readonly LexError[] = [];

/** An optional exponent at `j`: returns the index after it, or `j` when there is none. */
function scanExponent(src: string, j: number, len: number): number {
  if (j >= len) return j;
  const e = src.charCodeAt(j);
  if (e !== 101 && e !== 69) return j;
  let k = j + 1;
  if (k < len) {
    const s = src.charCodeAt(k);
    if (s === 43 || s === 45) k++;
  }
  if (k >= len || !isDigit(src.charCodeAt(k))) return j;
  k++;
  while (k < len && isDigit(src.charCodeAt(k))) k++;
  return k;
}

/** Thrown by {@link decodeString} / {@link decodeBytes} with cel-go's wording. */
export class UnescapeError extends Error {}

/**
 * Locates the content of a string token: returns [contentStart, contentEnd, raw]
 * for the token text `src[start, end)` (prefixes and quotes stripped).
 */
function literalBounds(src: string, start: number, end: number): [number, number, boolean] {
  let p = start;
  let raw = false;
  let c = src.charCodeAt(p);
  if (c === 98 || c === 66) {
    p++;
    c = src.charCodeAt(p);
  }
  if (c === 114 || c === 82) {
    raw = true;
    p++;
  }
  const quote = src.charCodeAt(p);
  if (end - p >= 6 && src.charCodeAt(p + 1) === quote && src.charCodeAt(p + 2) === quote) {
    return [p + 3, end - 3, raw];
  }
  return [p + 1, end - 1, raw];
}

function normalizeNewlines(s: string): string {
  return s.indexOf("\r") < 0 ? s : s.replace(/\r\n?/g, "\n");
}

/** The value of a STRING token (code points; escapes decoded). Throws {@link UnescapeError}. */
export function decodeString(src: string, start: number, end: number): string {
  // The common case: a plain single-line '…' or "…" without escapes or carriage returns.
  const q = src.charCodeAt(start);
  if ((q === 39 || q === 34) && !(end - start >= 6 && src.charCodeAt(start + 1) === q && src.charCodeAt(start + 2) === q)) {
    let i = start + 1;
    const to = end - 1;
    while (i < to) {
      const c = src.charCodeAt(i);
      if (c === 92 || c === 13) break;
      i++;
    }
    if (i === to) return src.slice(start + 1, to);
  }
  const [from, to, raw] = literalBounds(src, start, end);
  // As cel-go: raw newlines in the source are normalized first, then escapes are decoded.
  const text = normalizeNewlines(src.slice(from, to));
  let bs = raw ? -1 : text.indexOf("\\");
  if (bs < 0) return text;
  let out = "";
  let i = 0;
  while (bs >= 0) {
    out += text.slice(i, bs);
    const c = text.charCodeAt(bs + 1);
    let next = bs + 2;
    switch (c) {
      case 97:
        out += "\x07";
        break;
      case 98:
        out += "\b";
        break;
      case 102:
        out += "\f";
        break;
      case 110:
        out += "\n";
        break;
      case 114:
        out += "\r";
        break;
      case 116:
        out += "\t";
        break;
      case 118:
        out += "\v";
        break;
      case 120:
      case 88:
      case 117:
      case 85:
      case 48:
      case 49:
      case 50:
      case 51: {
        let v: number;
        if (c <= 51) {
          v = (c - 48) * 64 + (text.charCodeAt(bs + 2) - 48) * 8 + (text.charCodeAt(bs + 3) - 48);
          next = bs + 4;
        } else {
          const digits = c === 120 || c === 88 ? 2 : c === 117 ? 4 : 8;
          v = parseInt(text.slice(bs + 2, bs + 2 + digits), 16);
          next = bs + 2 + digits;
        }
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) || Number.isNaN(v)) {
          throw new UnescapeError("invalid unicode code point");
        }
        out += String.fromCodePoint(v);
        break;
      }
      default:
        // \" \' \\ \? \` stand for themselves.
        out += String.fromCharCode(c);
    }
    i = next;
    bs = text.indexOf("\\", i);
  }
  return out + text.slice(i);
}

/** The value of a BYTES token: escapes are raw bytes, other characters UTF-8. Throws {@link UnescapeError}. */
export function decodeBytes(src: string, start: number, end: number): Uint8Array {
  const [from, to, raw] = literalBounds(src, start, end);
  const text = normalizeNewlines(src.slice(from, to));
  const out: number[] = [];
  const n = text.length;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === 92 && !raw) {
      const e = text.charCodeAt(i + 1);
      i += 2;
      switch (e) {
        case 97:
          out.push(7);
          break;
        case 98:
          out.push(8);
          break;
        case 102:
          out.push(12);
          break;
        case 110:
          out.push(10);
          break;
        case 114:
          out.push(13);
          break;
        case 116:
          out.push(9);
          break;
        case 118:
          out.push(11);
          break;
        case 120:
        case 88:
          out.push(parseInt(text.slice(i, i + 2), 16));
          i += 2;
          break;
        case 117:
        case 85:
          throw new UnescapeError("unable to unescape string");
        case 48:
        case 49:
        case 50:
        case 51:
          out.push((e - 48) * 64 + (text.charCodeAt(i) - 48) * 8 + (text.charCodeAt(i + 1) - 48));
          i += 2;
          break;
        default:
          out.push(e);
      }
      continue;
    }
    if (c < 0x80) {
      out.push(c);
      i++;
      continue;
    }
    let cp = c;
    let step = 1;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        step = 2;
      }
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate is not valid UTF-8
    i += step;
    if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Uint8Array.from(out);
}
