/**
 * Kubernetes field and label selector parsing as the authz library applies it
 * before an authorization check: k8s.io/apimachinery v0.36 `fields.ParseSelector`
 * (then `Requirements()`) and `labels.ParseToRequirements`, with their error
 * messages word for word.
 *
 * Go scans these strings byte by byte (the label lexer) or rune by rune (the
 * field splitter); every delimiter is ASCII, so scanning UTF-16 code units
 * splits at the same places. Lengths in validation messages are UTF-8 bytes,
 * as in Go.
 */
import { goQuote } from "../ext/go-format.js";
import { compareStrings } from "../runtime/equality.js";

/** A field selector requirement (`fields.Requirement`): `=` (also for `==`) or `!=`. */
export interface FieldSelectorRequirement {
  readonly operator: "=" | "!=";
  readonly field: string;
  readonly value: string;
}

/** `selection.Operator` values a label requirement can carry. */
export type LabelSelectorOperator = "!" | "=" | "==" | "in" | "!=" | "notin" | "exists" | "gt" | "lt";

/** A label selector requirement (`labels.Requirement`); `values` sorted, as `sets.String.List()` gives them. */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values: readonly string[];
}

/** A selector that does not parse; `message` is Go's `err.Error()`. */
export class SelectorParseError extends Error {
  override readonly name = "SelectorParseError";
}

// ---------------------------------------------------------------------------
// Field selectors (k8s.io/apimachinery/pkg/fields/selector.go)

/** Splits on unescaped commas; a backslash keeps the next character (escape kept in the term). */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const TERM_OPERATORS = ["!=", "==", "="] as const;

function splitTerm(term: string): [string, string, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** `fields.UnescapeValue`. */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = "";
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") out += c;
      else throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === "\\") inSlash = true;
    else if (c === "," || c === "=") {
      // Go prints the rune with %v: its code point in decimal.
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (inSlash) throw new SelectorParseError("invalid field selector: invalid escape sequence: \\");
  return out;
}

/**
 * `fields.ParseSelector(s).Requirements()`: terms sorted, empty terms and
 * terms with both an empty field and an empty value dropped.
 * Throws {@link SelectorParseError}.
 */
export function parseFieldSelector(selector: string): FieldSelectorRequirement[] {
  const parts = splitTerms(selector).sort(compareStrings);
  const out: FieldSelectorRequirement[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const split = splitTerm(part);
    if (split === undefined) throw new SelectorParseError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [field, op, rhs] = split;
    const value = unescapeValue(rhs);
    if (field === "" && value === "") continue; // Transform turns it into Everything()
    out.push({ operator: op === "!=" ? "!=" : "=", field, value });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Label selectors (k8s.io/apimachinery/pkg/labels/selector.go)

const enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const STRING_TO_TOKEN = new Map<string, Tok>([
  [")", Tok.ClosedPar],
  [",", Tok.Comma],
  ["!", Tok.DoesNotExist],
  ["==", Tok.DoubleEquals],
  ["=", Tok.Equals],
  [">", Tok.GreaterThan],
  ["in", Tok.In],
  ["<", Tok.LessThan],
  ["!=", Tok.NotEquals],
  ["notin", Tok.NotIn],
  ["(", Tok.OpenPar],
]);

const isWhitespace = (c: string) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isSpecialSymbol = (c: string) =>
  c === "=" || c === "!" || c === "(" || c === ")" || c === "," || c === ">" || c === "<";

interface Scanned {
  readonly tok: Tok;
  readonly lit: string;
}

/** The label selector lexer. A NUL character ends the input, as Go's `read()` returns 0 there. */
function lex(s: string): Scanned[] {
  let pos = 0;
  const read = (): string => (pos < s.length ? s[pos++]! : "\0");
  const unread = () => {
    pos--;
  };
  const out: Scanned[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    let item: Scanned;
    if (ch === "\0") {
      item = { tok: Tok.EndOfString, lit: "" };
    } else if (isSpecialSymbol(ch)) {
      unread();
      let buffer = "";
      let last: Scanned | undefined;
      for (;;) {
        const c = read();
        if (c === "\0") break;
        if (isSpecialSymbol(c)) {
          buffer += c;
          const t = STRING_TO_TOKEN.get(buffer);
          if (t !== undefined) last = { tok: t, lit: buffer };
          else if (last !== undefined) {
            unread();
            break;
          }
        } else {
          unread();
          break;
        }
      }
      item = last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buffer}'` };
    } else {
      unread();
      let buffer = "";
      for (;;) {
        const c = read();
        if (c === "\0") break;
        if (isSpecialSymbol(c) || isWhitespace(c)) {
          unread();
          break;
        }
        buffer += c;
      }
      item = { tok: STRING_TO_TOKEN.get(buffer) ?? Tok.Identifier, lit: buffer };
    }
    out.push(item);
    if (item.tok === Tok.EndOfString) return out;
  }
}

const BINARY_OPERATORS = ["in", "notin", "=", "==", "!=", "gt", "lt"];

class LabelParser {
  private position = 0;
  constructor(private readonly items: readonly Scanned[]) {}

  /** In the Values context, `in` and `notin` are identifiers. */
  private static ctx(item: Scanned, values: boolean): Scanned {
    if (values && (item.tok === Tok.In || item.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: item.lit };
    return item;
  }
  private lookahead(values = true): Scanned {
    return LabelParser.ctx(this.items[this.position]!, values);
  }
  private consume(values = true): Scanned {
    return LabelParser.ctx(this.items[this.position++]!, values);
  }

  parse(): LabelSelectorRequirement[] {
    const requirements: LabelSelectorRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead();
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          let r: LabelSelectorRequirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            if (e instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${e.message}`);
            throw e;
          }
          requirements.push(r);
          const t = this.consume();
          if (t.tok === Tok.EndOfString) return requirements;
          if (t.tok === Tok.Comma) {
            const t2 = this.lookahead();
            if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
              throw new SelectorParseError(`found '${t2.lit}', expected: identifier after ','`);
            }
            break;
          }
          throw new SelectorParseError(`found '${t.lit}', expected: ',' or 'end of string'`);
        }
        case Tok.EndOfString:
          return requirements;
        default:
          throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelSelectorRequirement {
    const [key, inferred] = this.parseKeyAndInferOperator();
    if (inferred === "exists" || inferred === "!") return newRequirement(key, inferred, []);
    const operator = this.parseOperator();
    const values =
      operator === "in" || operator === "notin" ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, operator, [...values].sort(compareStrings));
  }

  private parseKeyAndInferOperator(): [string, LabelSelectorOperator | ""] {
    let operator: LabelSelectorOperator | "" = "";
    let t = this.consume();
    if (t.tok === Tok.DoesNotExist) {
      operator = "!";
      t = this.consume();
    }
    if (t.tok !== Tok.Identifier) throw new SelectorParseError(`found '${t.lit}', expected: identifier`);
    const keyErr = validateLabelKey(t.lit, "<nil>");
    if (keyErr !== undefined) throw new SelectorParseError(keyErr);
    const next = this.lookahead().tok;
    if ((next === Tok.EndOfString || next === Tok.Comma) && operator !== "!") operator = "exists";
    return [t.lit, operator];
  }

  private parseOperator(): LabelSelectorOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case Tok.In:
        return "in";
      case Tok.Equals:
        return "=";
      case Tok.DoubleEquals:
        return "==";
      case Tok.GreaterThan:
        return "gt";
      case Tok.LessThan:
        return "lt";
      case Tok.NotIn:
        return "notin";
      case Tok.NotEquals:
        return "!=";
      default:
        throw new SelectorParseError(`found '${lit}', expected: ${BINARY_OPERATORS.join(", ")}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume();
    if (open.tok !== Tok.OpenPar) throw new SelectorParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead();
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const s = this.parseIdentifiersList();
        if (this.consume().tok !== Tok.ClosedPar) throw new SelectorParseError(`found '${lit}', expected: ')'`);
        return s;
      }
      case Tok.ClosedPar:
        this.consume();
        return new Set([""]);
      default:
        throw new SelectorParseError(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume();
      switch (tok) {
        case Tok.Identifier: {
          s.add(lit);
          const t2 = this.lookahead();
          if (t2.tok === Tok.Comma) continue;
          if (t2.tok === Tok.ClosedPar) return s;
          throw new SelectorParseError(`found '${t2.lit}', expected: ',' or ')'`);
        }
        case Tok.Comma: {
          if (s.size === 0) s.add("");
          const t2 = this.lookahead().tok;
          if (t2 === Tok.ClosedPar) {
            s.add("");
            return s;
          }
          if (t2 === Tok.Comma) s.add("");
          continue;
        }
        default:
          throw new SelectorParseError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead().tok;
    if (ahead === Tok.EndOfString || ahead === Tok.Comma) return new Set([""]);
    const { tok, lit } = this.consume();
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new SelectorParseError(`found '${lit}', expected: identifier`);
  }
}

/** `labels.NewRequirement`'s checks of values (the key was checked by the parser); errors aggregated as Go does. */
function newRequirement(key: string, operator: LabelSelectorOperator, values: string[]): LabelSelectorRequirement {
  const errs: string[] = [];
  if (operator === "gt" || operator === "lt") {
    values.forEach((v, i) => {
      if (!isGoInt64(v)) errs.push(`values[${i}]: Invalid value: ${goQuote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
    });
  }
  values.forEach((v, i) => {
    const problems = labelValueErrors(v);
    if (problems.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${problems.join("; ")}`);
  });
  if (errs.length > 0) throw new SelectorParseError(aggregate(errs));
  return { key, operator, values };
}

/** `utilerrors.NewAggregate(...).Error()` over `ErrorList.ToAggregate()`: deduplicated, bracketed when several. */
function aggregate(msgs: readonly string[]): string {
  const unique = [...new Set(msgs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

/** `strconv.ParseInt(s, 10, 64)` succeeds. */
function isGoInt64(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n <= 2n ** 63n - 1n;
}

/** `labels.ParseToRequirements`: requirements sorted by key. Throws {@link SelectorParseError}. */
export function parseLabelSelector(selector: string): LabelSelectorRequirement[] {
  const reqs = new LabelParser(lex(selector)).parse();
  // Go's sort.Sort is not stable for 13+ requirements; equal keys keep input order here.
  return reqs.sort((a, b) => compareStrings(a.key, b.key));
}

// ---------------------------------------------------------------------------
// Validation (k8s.io/apimachinery/pkg/api/validate/content)

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_KEY_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

function regexError(msg: string, re: string, ...examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${re}')`;
}

/** `content.IsDNS1123Subdomain`. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 253) errs.push("must be no more than 253 bytes");
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** `content.IsDNS1123Label` (only whether it passes matters to callers here). */
export function isDNS1123Label(value: string): boolean {
  return utf8Length(value) <= 63 && DNS1123_LABEL_RE.test(value);
}

/** `content.IsLabelKey`. */
export function labelKeyErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else for (const m of dns1123SubdomainErrors(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (utf8Length(name) > 63) errs.push("name part must be no more than 63 bytes");
  if (!LABEL_KEY_RE.test(name)) errs.push(`name part ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

/** `content.IsLabelValue`. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push("must be no more than 63 bytes");
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** The parser's key check: a `field.Invalid` error on a nil path, printed "<nil>: Invalid value: …". */
function validateLabelKey(key: string, path: string): string | undefined {
  const errs = labelKeyErrors(key);
  return errs.length === 0 ? undefined : `${path}: Invalid value: ${goQuote(key)}: ${errs.join("; ")}`;
}
