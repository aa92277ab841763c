/**
 * The two Go value printers that apiserver error messages are made of, so that our
 * messages are byte-for-byte what kube-apiserver prints:
 *
 * - {@link goQuote}: `strconv.Quote` / `fmt.Sprintf("%q", s)`, used for string bad values
 *   (`Invalid value: "\"not an object\""`) and for NotSupported's list of values.
 * - {@link goJSON}: `encoding/json.Marshal` (Go ≥ 1.22), used by `field.Error.ErrorBody`
 *   for every bad value that is not a string, int64/int32/float, or bool (for example the
 *   `[]string` of `spec.matchConstraints.resourceRules[0].resources` → `["*","pods"]`).
 */

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
/** Printable ASCII without `"` and `\`, which strconv.Quote leaves as it is. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

/** Go `strconv.Quote`: double-quoted, Go escapes, printable Unicode kept as is. */
export function goQuote(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
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
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
      // A lone surrogate cannot come from UTF-8: Go's JSON decoder turns it into U+FFFD, which
      // strconv.Quote prints as it is (unicode.IsPrint).
      out += "\uFFFD";
    } else if (cp < 0x20 || cp === 0x7f) {
      out += "\\x" + hex(cp, 2);
    } else if (PRINTABLE.test(ch)) {
      out += ch;
    } else if (cp < 0x10000) {
      out += "\\u" + hex(cp, 4);
    } else {
      out += "\\U" + hex(cp, 8);
    }
  }
  return out + '"';
}

function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&" || c === 0x2028 || c === 0x2029) {
      out += "\\u" + hex(c, 4);
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += ch + s[i + 1];
        i++;
      } else out += "\\ufffd";
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += "\\ufffd";
    } else out += ch;
  }
  return out + '"';
}

/** Go formatting of a float64 with `%v` / JSON (shortest representation). */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    // Go's JSON uses exponent form with at least two exponent digits ("1e-07").
    const [m, e] = n.toExponential().split("e") as [string, string];
    const sign = e.startsWith("-") ? "-" : "+";
    const digits = e.replace(/^[+-]/, "").padStart(2, "0");
    return `${m}e${sign}${digits}`;
  }
  return String(n);
}

/**
 * Go `encoding/json.Marshal` of a JSON-like value: compact, map keys sorted, HTML
 * characters escaped (`<` → `\u003c`), `\b`/`\f` short escapes. `bigint` prints as an
 * integer, `undefined` as `null`.
 */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return jsonString(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? goNumber(v) : "null";
  if (Array.isArray(v)) return "[" + v.map(goJSON).join(",") + "]";
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return "{" + keys.map((k) => jsonString(k) + ":" + goJSON(o[k])).join(",") + "}";
  }
  return jsonString(String(v));
}

/** Go `%v` of an int64/float64/bool. */
export function goSimple(v: number | bigint | boolean): string {
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return v.toString();
  if (Number.isInteger(v)) return String(v);
  return goFloatV(v);
}

/**
 * Go `fmt` `%v` of a float64, which is `strconv.FormatFloat(f, 'g', -1, 64)`: the shortest digits,
 * in exponent form when the exponent is < -4 or >= 6 (`5e-05`, `1e+06`, `1.23456789e+08`), `NaN`,
 * `+Inf`, `-Inf`, `-0`. (`encoding/json` switches to exponents only from 1e21: {@link goJSON}.)
 * The one copy outside `src/cel` (which keeps its full `strconv.FormatFloat` in `cel/ext/go-format.ts`).
 */
export function goFloatV(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (f === Infinity) return "+Inf";
  if (f === -Infinity) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mant, expStr] = f.toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  if (exp >= -4 && exp < 6) return String(f);
  const abs = Math.abs(exp);
  return `${mant}e${exp < 0 ? "-" : "+"}${abs < 10 ? `0${abs}` : String(abs)}`;
}
