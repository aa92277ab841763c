/**
 * JSON text → plain JavaScript data with exact integers.
 *
 * `JSON.parse` turns `9223372036854775807` into 9223372036854775808 (a double)
 * and `3` and `3.0` into the same number, but CEL needs to know which numbers
 * were written as integers, exactly. Here an integer literal (no `.`, no
 * exponent) becomes a `bigint` and any other number a `number` — the same split
 * the apiserver's JSON decoder makes (int64 when the text parses as one, float64
 * otherwise).
 *
 * The text is validated with `JSON.parse` first, so syntax errors carry its
 * familiar messages and the scanner below only ever sees valid JSON.
 */

export type JsonData = null | boolean | bigint | number | string | readonly JsonData[] | { readonly [key: string]: JsonData };

export function parseExactJson(text: string): JsonData {
  JSON.parse(text); // throws SyntaxError on invalid JSON
  const scanner = new Scanner(text);
  const value = scanner.value();
  return value;
}

class Scanner {
  private pos = 0;
  constructor(private readonly text: string) {}

  value(): JsonData {
    this.skipSpace();
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        this.pos += 4;
        return true;
      case "f":
        this.pos += 5;
        return false;
      case "n":
        this.pos += 4;
        return null;
      default:
        return this.number();
    }
  }

  private object(): { [key: string]: JsonData } {
    // Object.create(null)-like semantics without prototype surprises: define properties explicitly.
    const out: { [key: string]: JsonData } = {};
    this.pos++; // {
    this.skipSpace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      const key = this.string();
      this.skipSpace();
      this.pos++; // :
      const v = this.value();
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      this.skipSpace();
      if (this.text[this.pos++] === "}") return out;
    }
  }

  private array(): JsonData[] {
    const out: JsonData[] = [];
    this.pos++; // [
    this.skipSpace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipSpace();
      if (this.text[this.pos++] === "]") return out;
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++; // opening quote
    for (;;) {
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x5c /* \ */) this.pos++;
      else if (c === 0x22 /* " */) break;
    }
    return JSON.parse(this.text.slice(start, this.pos)) as string;
  }

  private number(): bigint | number {
    const m = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = this.pos;
    const match = m.exec(this.text)!;
    this.pos += match[0].length;
    return match[1] === undefined && match[2] === undefined ? BigInt(match[0]) : Number(match[0]);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.pos++;
    }
  }
}
