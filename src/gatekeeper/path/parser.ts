/**
 * Gatekeeper location paths (`pkg/mutation/path/parser`, v3.23.0): the parser, the node model
 * and the printer.
 *
 *   path    := "" | segment ("." segment)*
 *   segment := IDENT [ "[" IDENT ":" ( "*" | IDENT | INT ) "]" ]
 *
 * Errors carry Gatekeeper's messages (`trailing separators are forbidden`,
 * `unexpected token: …`, `invalid integer: …`).
 */
import { Scanner, tokenString, type Token, type TokenType } from "./token.js";

/** An object node: a map key. */
export interface ObjectNode {
  readonly type: "Object";
  readonly reference: string;
}

/**
 * A list node: `[keyField: keyValue]` or `[keyField: *]` (glob). An integer key value is an
 * int64, kept as a bigint; a string key value (quoted or bare) is a string.
 */
export interface ListNode {
  readonly type: "List";
  readonly keyField: string;
  readonly keyValue: string | bigint | undefined;
  readonly glob: boolean;
}

export type PathNode = ObjectNode | ListNode;

/** A parsed location. */
export interface Path {
  readonly nodes: readonly PathNode[];
}

export function objectNode(reference: string): ObjectNode {
  return { type: "Object", reference };
}

export function listNode(keyField: string, keyValue: string | bigint | undefined, glob = false): ListNode {
  return { type: "List", keyField, keyValue: glob ? undefined : keyValue, glob };
}

/** A location that does not parse; `message` is Gatekeeper's error text. */
export class PathParseError extends Error {
  override readonly name = "PathParseError";
  constructor(
    message: string,
    /** `trailing-separator`, `unexpected-token` or `invalid-integer` (Gatekeeper's sentinel errors). */
    readonly code: "trailing-separator" | "unexpected-token" | "invalid-integer",
  ) {
    super(message);
  }
}

const INT64_MAX = (1n << 63n) - 1n;

class Parser {
  private readonly scanner: Scanner;
  private cur: Token;
  private peek: Token;
  private err: PathParseError | undefined;

  constructor(input: string) {
    this.scanner = new Scanner(input);
    this.cur = this.scanner.next();
    this.peek = this.scanner.next();
  }

  private next(): void {
    this.cur = this.peek;
    this.peek = this.scanner.next();
  }

  private expect(t: TokenType): boolean {
    if (this.peek.type === t) {
      this.next();
      return true;
    }
    return false;
  }

  private setError(e: PathParseError): void {
    this.err ??= e;
  }

  private unexpected(detail: string): PathParseError {
    return new PathParseError(`unexpected token: ${detail}`, "unexpected-token");
  }

  parse(): Path {
    const nodes: PathNode[] = [];
    while (this.cur.type === "IDENT" && this.err === undefined) {
      nodes.push(objectNode(this.cur.literal));
      if (this.expect("LBRACKET")) {
        const l = this.parseList();
        if (l !== undefined) nodes.push(l);
      }
      if (this.expect("SEPARATOR")) {
        if (this.peek.type === "EOF") {
          this.setError(new PathParseError("trailing separators are forbidden", "trailing-separator"));
          throw this.err;
        }
        this.next();
      } else if (this.expect("EOF")) {
        // done
      } else {
        this.setError(this.unexpected(`expected '.' or eof, got: ${tokenString(this.peek)}`));
        throw this.err;
      }
    }
    if (this.cur.type !== "EOF") {
      this.setError(this.unexpected(`expected field name or eof, got: ${tokenString(this.cur)}`));
    }
    if (this.err !== undefined) throw this.err;
    return { nodes };
  }

  private parseList(): ListNode | undefined {
    if (!this.expect("IDENT")) {
      this.setError(this.unexpected(`expected keyField in listSpec, got: ${tokenString(this.peek)}`));
      return undefined;
    }
    const keyField = this.cur.literal;
    if (!this.expect("COLON")) {
      this.setError(this.unexpected(`expected ':' following keyField ${keyField}, got: ${tokenString(this.peek)}`));
      return undefined;
    }
    let node: ListNode;
    if (this.expect("GLOB")) {
      node = listNode(keyField, undefined, true);
    } else if (this.expect("IDENT")) {
      node = listNode(keyField, this.cur.literal);
    } else if (this.expect("INT")) {
      const v = parseInt64(this.cur.literal);
      if (typeof v === "string") {
        this.setError(new PathParseError(`invalid integer: ${v}: parsing key value for key: ${keyField}`, "invalid-integer"));
        return undefined;
      }
      node = listNode(keyField, v);
    } else {
      this.setError(this.unexpected(`expected key value or glob in listSpec, got: ${tokenString(this.peek)}`));
      return undefined;
    }
    if (!this.expect("RBRACKET")) {
      this.setError(this.unexpected(`expected ']' following listSpec, got: ${tokenString(this.peek)}`));
      return undefined;
    }
    return node;
  }
}

/** Decimal int64; a string is the error detail (`overflow in integer string: …`). */
function parseInt64(s: string): bigint | string {
  let r = 0n;
  for (const d of s) {
    if (d < "0" || d > "9") return `unexpected digit: ${d}`;
    r = r * 10n + BigInt(d.charCodeAt(0) - 48);
    if (r > INT64_MAX) return `overflow in integer string: ${s}`;
  }
  return r;
}

/** `parser.Parse`. Throws {@link PathParseError}. An empty input parses to zero nodes. */
export function parsePath(input: string): Path {
  return new Parser(input).parse();
}

/** `parsePath` without throwing. */
export function tryParsePath(input: string): { path: Path; error?: undefined } | { path?: undefined; error: PathParseError } {
  try {
    return { path: parsePath(input) };
  } catch (e) {
    if (e instanceof PathParseError) return { error: e };
    throw e;
  }
}

/** `reflect.DeepEqual` of two nodes (key values type-sensitive). */
export function nodeEqual(a: PathNode, b: PathNode): boolean {
  if (a.type === "Object") return b.type === "Object" && a.reference === b.reference;
  return b.type === "List" && a.keyField === b.keyField && a.glob === b.glob && a.keyValue === b.keyValue;
}

export function pathEqual(a: Path, b: Path): boolean {
  return a.nodes.length === b.nodes.length && a.nodes.every((n, i) => nodeEqual(n, b.nodes[i]!));
}
