/**
 * A fast parser for the block-style YAML subset Kubernetes manifests are written in: block mappings
 * and sequences (compact `- key: v` items, sequences at their key's indentation), single-line plain,
 * single- and double-quoted scalars, comments, `---`/`...` markers, empty `[]`/`{}` and flow
 * sequences of scalars. On anything else (anchors, aliases, tags, block scalars, multi-line scalars,
 * complex keys, directives, tabs, flow mappings, duplicate keys, `<<`, `__proto__`, odd
 * indentation, control characters) it BAILS (returns `undefined`) and the caller parses the document
 * with the `yaml` package, which also gives positions for errors. It never guesses: where it answers,
 * it answers what `yaml` would (fast-yaml.test.ts checks that on generated documents).
 *
 * Scalars resolve through scalars.ts (the `yaml` package's own schema and options).
 */
import { BAIL, type ScalarResolver } from "./scalars.js";

/** The parsed document: `{ value }` (`value` null for an empty document), or `undefined` to bail. */
export type FastResult = { readonly value: unknown } | undefined;

class Bail extends Error {}
const bail = (): never => {
  throw BAIL_ERROR;
};
const BAIL_ERROR = new Bail();

interface Line {
  readonly indent: number;
  /** The line without indentation and trailing spaces. */
  content: string;
}

/** Characters the fast path does not handle anywhere (control characters, BOM, line separators, tabs). */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;

export function fastYaml(text: string, resolver: ScalarResolver): FastResult {
  if (text.includes("\r")) {
    if (/\r(?!\n)/.test(text)) return undefined;
    text = text.replace(/\r\n/g, "\n");
  }
  if (UNSAFE.test(text)) return undefined;
  try {
    return { value: new Parser(lines(text), resolver).document() };
  } catch (e) {
    if (e instanceof Bail) return undefined;
    throw e;
  }
}

function lines(text: string): Line[] {
  const out: Line[] = [];
  for (const raw of text.split("\n")) {
    let i = 0;
    while (raw.charCodeAt(i) === 32) i++;
    const content = raw.slice(i).trimEnd();
    if (content === "" || content[0] === "#") continue;
    out.push({ indent: i, content });
  }
  return out;
}

/** `key: rest` split of a line's content, or undefined when the content is not a mapping entry. */
interface Entry {
  readonly key: string;
  /** After `:` and spaces, comment stripped ("" for none). */
  readonly rest: string;
  /** Columns from the content start to `rest`. */
  readonly restOffset: number;
}

class Parser {
  private i = 0;
  constructor(
    private readonly ls: Line[],
    private readonly r: ScalarResolver,
  ) {}

  document(): unknown {
    const ls = this.ls;
    let end = ls.length;
    if (ls.length > 0 && ls[0]!.indent === 0 && isMarker(ls[0]!.content, "---")) {
      if (!markerOnly(ls[0]!.content)) bail();
      this.i = 1;
    }
    // A `...` ends the document; only comments may follow (dropped by lines()).
    for (let j = this.i; j < ls.length; j++) {
      const l = ls[j]!;
      if (l.indent === 0 && (isMarker(l.content, "...") || isMarker(l.content, "---"))) {
        if (!isMarker(l.content, "...") || !markerOnly(l.content) || j !== ls.length - 1) bail();
        end = j;
      }
    }
    this.ls.length = end;
    if (this.i >= end) return null;
    const first = ls[this.i]!;
    const v = isSeqItem(first.content) ? this.seq(first.indent) : this.map(first.indent);
    if (this.i !== end) bail();
    return v;
  }

  /** A block node starting at line i, more indented than `parent`. */
  private block(parent: number): unknown {
    const l = this.ls[this.i];
    if (l === undefined || l.indent <= parent) return null;
    return isSeqItem(l.content) ? this.seq(l.indent) : this.map(l.indent);
  }

  private map(n: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const ls = this.ls;
    while (this.i < ls.length) {
      const l = ls[this.i]!;
      if (l.indent < n) break;
      if (l.indent > n) bail();
      if (isSeqItem(l.content)) break;
      const e = this.entry(l.content);
      if (e === undefined) bail();
      const key = e!.key;
      if (Object.prototype.hasOwnProperty.call(out, key) || key === "__proto__") bail();
      this.i++;
      let value: unknown;
      if (e!.rest === "") {
        const next = ls[this.i];
        if (next !== undefined && next.indent > n) value = this.block(n);
        else if (next !== undefined && next.indent === n && isSeqItem(next.content)) value = this.seq(n);
        else value = null;
      } else {
        value = this.inline(e!.rest);
        const next = ls[this.i];
        if (next !== undefined && next.indent > n) bail(); // a multi-line scalar, or an error
      }
      out[key] = value;
    }
    return out;
  }

  private seq(n: number): unknown[] {
    const out: unknown[] = [];
    const ls = this.ls;
    while (this.i < ls.length) {
      const l = ls[this.i]!;
      if (l.indent < n) break;
      if (l.indent > n) bail();
      if (!isSeqItem(l.content)) break;
      let k = 1;
      while (l.content.charCodeAt(k) === 32) k++;
      const rest = l.content.slice(k);
      if (rest === "" || rest[0] === "#") {
        this.i++;
        const next = ls[this.i];
        out.push(next !== undefined && next.indent > n ? this.block(n) : null);
        continue;
      }
      if (isSeqItem(rest)) bail(); // `- - x`
      if (this.entry(rest) !== undefined) {
        // A compact mapping: its entries sit at the column of its first key.
        ls[this.i] = { indent: n + k, content: rest };
        out.push(this.map(n + k));
        continue;
      }
      this.i++;
      out.push(this.inline(rest));
      const next = ls[this.i];
      if (next !== undefined && next.indent > n) bail();
    }
    return out;
  }

  /** The content as `key: rest` when it is a mapping entry; bails on keys it cannot read exactly. */
  private entry(c: string): Entry | undefined {
    const ch = c[0]!;
    let key: string;
    let after: number; // index just past the key
    if (ch === '"' || ch === "'") {
      const q = ch === '"' ? doubleQuoted(c, 0) : singleQuoted(c, 0);
      if (q === undefined) bail();
      after = q!.end;
      while (c.charCodeAt(after) === 32) after++;
      if (c[after] !== ":") return undefined; // a quoted scalar, not a key
      if (!(after + 1 === c.length || c.charCodeAt(after + 1) === 32)) bail();
      key = q!.value;
    } else {
      let colon = -1;
      for (let j = 0; j < c.length; j++) {
        const cc = c.charCodeAt(j);
        if (cc === 58 /* : */ && (j + 1 === c.length || c.charCodeAt(j + 1) === 32)) {
          colon = j;
          break;
        }
        if (cc === 35 /* # */ && j > 0 && c.charCodeAt(j - 1) === 32) return undefined; // comment before any ':'
      }
      if (colon < 0) return undefined;
      if (INDICATOR.test(ch) && !(ch === "-" && c.length > 1 && c[1] !== " ")) bail();
      const text = c.slice(0, colon).trimEnd();
      if (text === "" || text.length > 1000) bail();
      const v = this.r.plain(text, true);
      if (typeof v !== "string") bail();
      key = v as string;
      after = colon;
    }
    let r = after + 1;
    while (c.charCodeAt(r) === 32) r++;
    const rest = c[r] === "#" ? "" : c.slice(r);
    return { key, rest, restOffset: r };
  }

  /** A single-line value (the line's remainder). */
  private inline(c: string): unknown {
    const ch = c[0]!;
    if (ch === '"' || ch === "'") {
      const q = ch === '"' ? doubleQuoted(c, 0) : singleQuoted(c, 0);
      if (q === undefined) bail();
      trailer(c, q!.end);
      return q!.value;
    }
    if (ch === "[") return this.flowSeq(c);
    if (ch === "{") {
      if (!/^\{\s*\}(\s+#.*)?$/.test(c)) bail();
      return {};
    }
    return this.plainValue(c);
  }

  private plainValue(c: string): unknown {
    const ch = c[0]!;
    if (INDICATOR.test(ch) && !(ch === "-" && c.length > 1 && c[1] !== " ")) bail();
    const hash = c.indexOf(" #");
    const text = hash >= 0 ? c.slice(0, hash).trimEnd() : c;
    if (text.includes(": ") || text.endsWith(":")) bail();
    const v = this.r.plain(text, false);
    if (v === BAIL) bail();
    return v;
  }

  /** `[a, "b", 'c']`: scalars only, on one line. */
  private flowSeq(c: string): unknown[] {
    const out: unknown[] = [];
    let j = 1;
    const skip = () => {
      while (c.charCodeAt(j) === 32) j++;
    };
    skip();
    if (c[j] === "]") {
      trailer(c, j + 1);
      return out;
    }
    for (;;) {
      skip();
      const ch = c[j];
      if (ch === '"' || ch === "'") {
        const q = ch === '"' ? doubleQuoted(c, j) : singleQuoted(c, j);
        if (q === undefined) bail();
        out.push(q!.value);
        j = q!.end;
      } else {
        let k = j;
        while (k < c.length && c[k] !== "," && c[k] !== "]") k++;
        const text = c.slice(j, k).trimEnd();
        if (text === "" || FLOW_UNSAFE.test(text) || (INDICATOR.test(text[0]!) && !(text[0] === "-" && text.length > 1 && text[1] !== " "))) bail();
        const v = this.r.plain(text, false);
        if (v === BAIL) bail();
        out.push(v);
        j = k;
      }
      skip();
      if (c[j] === "]") {
        trailer(c, j + 1);
        return out;
      }
      if (c[j] !== ",") bail();
      j++;
      skip();
      if (c[j] === "]") bail(); // a trailing comma: left to the yaml package
    }
  }
}

/** First characters a plain scalar may not start with (where the fast path does not follow YAML's exceptions). */
const INDICATOR = /[-?:,[\]{}#&*!|>'"%@`]/;
/** Plain scalars inside a flow sequence: no flow indicators, no `:` / `#` / quotes. */
const FLOW_UNSAFE = /[[\]{}:#"']/;

function isSeqItem(c: string): boolean {
  return c[0] === "-" && (c.length === 1 || c[1] === " ");
}

function isMarker(c: string, m: "---" | "..."): boolean {
  return c.startsWith(m) && (c.length === 3 || c[3] === " ");
}

function markerOnly(c: string): boolean {
  const rest = c.slice(3).trimStart();
  return rest === "" || rest[0] === "#";
}

/** Only spaces and a comment may follow a quoted scalar or a flow sequence on its line. */
function trailer(c: string, from: number): void {
  if (from === c.length) return;
  if (c.charCodeAt(from) !== 32) bail();
  const rest = c.slice(from).trimStart();
  if (rest !== "" && rest[0] !== "#") bail();
}

const ESCAPES: Record<string, string> = {
  "0": "\0", a: "\x07", b: "\b", e: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v",
  N: "\u0085", _: "\u00a0", L: "\u2028", P: "\u2029", " ": " ", '"': '"', "/": "/", "\\": "\\",
};

/** A double-quoted scalar starting at `start`, closed on the same line. */
function doubleQuoted(c: string, start: number): { value: string; end: number } | undefined {
  let out = "";
  let j = start + 1;
  let from = j;
  while (j < c.length) {
    const ch = c[j]!;
    if (ch === '"') return { value: out + c.slice(from, j), end: j + 1 };
    if (ch === "\\") {
      out += c.slice(from, j);
      const e = c[j + 1];
      if (e === undefined) return undefined;
      const simple = ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        j += 2;
      } else if (e === "x" || e === "u" || e === "U") {
        const len = e === "x" ? 2 : e === "u" ? 4 : 8;
        const hex = c.substr(j + 2, len);
        if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
        const code = parseInt(hex, 16);
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
        out += String.fromCodePoint(code);
        j += 2 + len;
      } else return undefined;
      from = j;
      continue;
    }
    j++;
  }
  return undefined; // continues on the next line
}

/** A single-quoted scalar starting at `start`, closed on the same line (`''` is a quote). */
function singleQuoted(c: string, start: number): { value: string; end: number } | undefined {
  let out = "";
  let j = start + 1;
  for (;;) {
    const q = c.indexOf("'", j);
    if (q < 0) return undefined;
    out += c.slice(j, q);
    if (c[q + 1] === "'") {
      out += "'";
      j = q + 2;
      continue;
    }
    return { value: out, end: q + 1 };
  }
}
