/**
 * Kyverno's random library (`kyverno.random`, kyverno/sdk `extensions/cel/libs/random`):
 * `random() → string` (eight of `[0-9a-z]`) and `random(pattern) → string`, a
 * random string matching the RE2 pattern (zach-klippenstein/goregen), and
 * (since 1.18) the prefixed `random.random`. Unbounded repetitions (`*`, `+`,
 * `{n,}`) repeat at most 10 more times, as goregen's default; `.` and negated
 * classes draw from printable ASCII (goregen draws from all of Unicode — a
 * documented narrowing). An invalid pattern is Go's
 * `error parsing regexp: …`. The random source is injectable.
 */
import { func, overload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { compileRegex } from "../../cel/std/strings.js";
import { STRING } from "../../cel/types.js";

/** A source of uniform integers in [0, n). */
export type RandomSource = (n: number) => number;
export const mathRandom: RandomSource = (n) => Math.floor(Math.random() * n);

const MAX_UNBOUNDED = 10;
const PRINTABLE: string[] = [];
for (let c = 0x20; c < 0x7f; c++) PRINTABLE.push(String.fromCharCode(c));
const DIGITS = "0123456789".split("");
const WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".split("");
const SPACE = [" ", "\t", "\n", "\r", "\f", "\v"];

type Node =
  | { t: "chars"; set: string[] }
  | { t: "seq"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number }
  | { t: "empty" };

class PatternParser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): Node {
    const n = this.alt();
    if (this.i < this.s.length) throw new CelEvalError(`error parsing regexp: unexpected ): \`${this.s}\``);
    return n;
  }

  private alt(): Node {
    const items = [this.seq()];
    while (this.s[this.i] === "|") {
      this.i++;
      items.push(this.seq());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  private seq(): Node {
    const items: Node[] = [];
    while (this.i < this.s.length && this.s[this.i] !== "|" && this.s[this.i] !== ")") {
      let atom = this.atom();
      for (;;) {
        const q = this.s[this.i];
        if (q === "*") atom = { t: "rep", node: atom, min: 0, max: MAX_UNBOUNDED };
        else if (q === "+") atom = { t: "rep", node: atom, min: 1, max: 1 + MAX_UNBOUNDED };
        else if (q === "?") atom = { t: "rep", node: atom, min: 0, max: 1 };
        else if (q === "{" && /^\{\d+(,\d*)?\}/.test(this.s.slice(this.i))) {
          const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i))!;
          const min = Number(m[1]);
          const max = m[2] === undefined ? min : m[3] === "" ? min + MAX_UNBOUNDED : Number(m[3]);
          atom = { t: "rep", node: atom, min, max };
          this.i += m[0].length - 1;
        } else break;
        this.i++;
        if (this.s[this.i] === "?") this.i++; // non-greedy: same language
      }
      items.push(atom);
    }
    return { t: "seq", items };
  }

  private atom(): Node {
    const c = this.s[this.i++]!;
    switch (c) {
      case "(": {
        if (this.s.startsWith("?:", this.i)) this.i += 2;
        else if (this.s.startsWith("?P<", this.i) || this.s.startsWith("?<", this.i)) this.i = this.s.indexOf(">", this.i) + 1;
        else if (this.s[this.i] === "?") this.i = this.s.indexOf(")", this.i); // flags: (?i) — ignored
        const n = this.alt();
        this.i++; // ")"
        return n;
      }
      case "[":
        return { t: "chars", set: this.charClass() };
      case ".":
        return { t: "chars", set: PRINTABLE.filter((x) => x !== "\n") };
      case "^":
      case "$":
        return { t: "empty" };
      case "\\":
        return this.escape();
      default:
        return { t: "chars", set: [c] };
    }
  }

  private escape(): Node {
    const e = this.s[this.i++]!;
    const cls = classEscape(e);
    if (cls !== undefined) return { t: "chars", set: cls };
    if (e === "b" || e === "B" || e === "A" || e === "z") return { t: "empty" };
    return { t: "chars", set: [simpleEscape(e)] };
  }

  private charClass(): string[] {
    let negate = false;
    if (this.s[this.i] === "^") {
      negate = true;
      this.i++;
    }
    const set = new Set<string>();
    let first = true;
    while (this.i < this.s.length && (this.s[this.i] !== "]" || first)) {
      first = false;
      let c = this.s[this.i++]!;
      if (c === "[" && this.s[this.i] === ":") {
        const end = this.s.indexOf(":]", this.i);
        const name = this.s.slice(this.i + 1, end);
        this.i = end + 2;
        for (const x of posixClass(name)) set.add(x);
        continue;
      }
      if (c === "\\") {
        const e = this.s[this.i++]!;
        const cls = classEscape(e);
        if (cls !== undefined) {
          for (const x of cls) set.add(x);
          continue;
        }
        c = simpleEscape(e);
      }
      if (this.s[this.i] === "-" && this.s[this.i + 1] !== "]" && this.i + 1 < this.s.length) {
        this.i++;
        let hi = this.s[this.i++]!;
        if (hi === "\\") hi = simpleEscape(this.s[this.i++]!);
        for (let x = c.codePointAt(0)!; x <= hi.codePointAt(0)!; x++) set.add(String.fromCodePoint(x));
        continue;
      }
      set.add(c);
    }
    this.i++; // "]"
    return negate ? PRINTABLE.filter((x) => !set.has(x)) : [...set];
  }
}

function classEscape(e: string): string[] | undefined {
  switch (e) {
    case "d":
      return DIGITS;
    case "w":
      return WORD;
    case "s":
      return SPACE;
    case "D":
      return PRINTABLE.filter((x) => !DIGITS.includes(x));
    case "W":
      return PRINTABLE.filter((x) => !WORD.includes(x));
    case "S":
      return PRINTABLE.filter((x) => !SPACE.includes(x));
  }
  return undefined;
}

function simpleEscape(e: string): string {
  const m: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v" };
  return m[e] ?? e;
}

function posixClass(name: string): string[] {
  switch (name) {
    case "alpha":
      return WORD.filter((x) => /[A-Za-z]/.test(x));
    case "digit":
      return DIGITS;
    case "alnum":
      return WORD.filter((x) => /[A-Za-z0-9]/.test(x));
    case "lower":
      return WORD.filter((x) => /[a-z]/.test(x));
    case "upper":
      return WORD.filter((x) => /[A-Z]/.test(x));
    case "space":
      return SPACE;
    case "xdigit":
      return "0123456789abcdefABCDEF".split("");
    default:
      return PRINTABLE;
  }
}

function generate(n: Node, rnd: RandomSource): string {
  switch (n.t) {
    case "empty":
      return "";
    case "chars":
      if (n.set.length === 0) return "";
      return n.set[rnd(n.set.length)]!;
    case "seq":
      return n.items.map((x) => generate(x, rnd)).join("");
    case "alt":
      return generate(n.items[rnd(n.items.length)]!, rnd);
    case "rep": {
      const count = n.min + rnd(n.max - n.min + 1);
      let out = "";
      for (let k = 0; k < count; k++) out += generate(n.node, rnd);
      return out;
    }
  }
}

/** A random string matching `pattern`. */
export function randomString(pattern: string, rnd: RandomSource = mathRandom): string {
  compileRegex(pattern); // Go's syntax check and error message
  return generate(new PatternParser(pattern).parse(), rnd);
}

export function randomLibrary(rnd: RandomSource = mathRandom): Library {
  const overloads = (suffix: string) => [
    overload(`random_string_${suffix}`, [STRING], STRING, (p: string) => randomString(p, rnd)),
    overload(`random_string_default_expr_${suffix}`, [], STRING, () => randomString("[0-9a-z]{8}", rnd)),
  ];
  return {
    name: "kyverno.random",
    functions: [func("random", ...overloads("non_prefixed")), func("random.random", ...overloads("prefixed"))],
  };
}

export const RANDOM_LIBRARY: Library = randomLibrary();
