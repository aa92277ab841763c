/**
 * Go's number and string formatting, as cel-go's libraries print values:
 * `strconv.FormatFloat` ('f', 'e', 'g' with shortest or fixed precision, exact
 * round-half-even on the binary value), `strconv.Quote`, and the en-US number
 * formatting of `golang.org/x/text/message` used by the pre-v4 `format`.
 *
 * Doubles are expanded to their exact decimal value with bigint arithmetic so
 * rounding matches Go digit for digit (JavaScript's `toFixed` rounds ties away
 * from zero, Go to even).
 */

/** Exact decimal digits of |x| (finite, non-zero): value = 0.DIGITS × 10^dp. */
interface Digits {
  digits: string;
  dp: number;
}

const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);

function exactDigits(x: number): Digits {
  F64[0] = Math.abs(x);
  const bits = U64[0]!;
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let exp: number;
  if (expBits === 0) {
    exp = -1074;
  } else {
    mant |= 1n << 52n;
    exp = expBits - 1075;
  }
  if (mant === 0n) return { digits: "", dp: 0 };
  let digits: string;
  let dp: number;
  if (exp >= 0) {
    digits = (mant << BigInt(exp)).toString();
    dp = digits.length;
  } else {
    const k = -exp;
    digits = (mant * 5n ** BigInt(k)).toString();
    dp = digits.length - k;
  }
  // Trim trailing zeros (dp is unaffected).
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end--;
  return { digits: digits.slice(0, end), dp };
}

/** Shortest digits that round-trip (what Go's `prec = -1` uses). */
function shortestDigits(x: number): Digits {
  const s = Math.abs(x).toExponential();
  const e = s.indexOf("e");
  const mant = s.slice(0, e).replace(".", "");
  const exp = Number(s.slice(e + 1));
  let end = mant.length;
  while (end > 1 && mant.charCodeAt(end - 1) === 48) end--;
  return { digits: mant.slice(0, end), dp: exp + 1 };
}

/** Round to `keep` leading digits, half to even on the exact value. */
function roundTo(d: Digits, keep: number): Digits {
  const { digits } = d;
  if (keep >= digits.length) return d;
  if (keep < 0) return { digits: "", dp: d.dp };
  const next = digits.charCodeAt(keep) - 48;
  let up: boolean;
  if (next > 5) up = true;
  else if (next < 5) up = false;
  else {
    let rest = false;
    for (let i = keep + 1; i < digits.length; i++) {
      if (digits.charCodeAt(i) !== 48) {
        rest = true;
        break;
      }
    }
    up = rest || (keep > 0 && (digits.charCodeAt(keep - 1) - 48) % 2 === 1);
  }
  let kept = digits.slice(0, keep);
  let dp = d.dp;
  if (up) {
    const arr = kept.split("");
    let i = arr.length - 1;
    while (i >= 0 && arr[i] === "9") {
      arr[i] = "0";
      i--;
    }
    if (i < 0) {
      arr.unshift("1");
      dp++;
    } else {
      arr[i] = String.fromCharCode(arr[i]!.charCodeAt(0) + 1);
    }
    kept = arr.join("");
  }
  let end = kept.length;
  while (end > 0 && kept.charCodeAt(end - 1) === 48) end--;
  return { digits: kept.slice(0, end), dp };
}

/** Integer and fraction digit strings of a rounded value, `frac` fraction digits (padded). */
function fixedParts(d: Digits, frac: number): { int: string; frac: string } {
  const { digits, dp } = d;
  let int: string;
  if (dp <= 0 || digits.length === 0) int = "0";
  else if (dp >= digits.length) int = digits + "0".repeat(dp - digits.length);
  else int = digits.slice(0, dp);
  let f = "";
  if (frac > 0) {
    if (digits.length === 0) f = "";
    else if (dp < 0) f = "0".repeat(Math.min(-dp, frac)) + digits;
    else f = digits.slice(Math.min(dp, digits.length));
    f = f.slice(0, frac).padEnd(frac, "0");
  }
  return { int, frac: f };
}

function special(x: number): string | undefined {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  return undefined;
}

/** Go `strconv.FormatFloat(x, 'f', prec, 64)` / `fmt.Sprintf("%.<prec>f", x)`. */
export function formatFixed(x: number, prec: number): string {
  const s = special(x);
  if (s !== undefined) return s;
  const neg = x < 0 || Object.is(x, -0);
  const d = x === 0 ? { digits: "", dp: 0 } : roundTo(exactDigits(x), exactDigits(x).dp + prec);
  const p = fixedParts(d, prec);
  return (neg ? "-" : "") + p.int + (prec > 0 ? "." + p.frac : "");
}

function expSuffix(e: number): string {
  const a = Math.abs(e);
  return (e < 0 ? "e-" : "e+") + (a < 10 ? "0" + a : String(a));
}

/** Go `fmt.Sprintf("%.<prec>e", x)`. */
export function formatExponent(x: number, prec: number): string {
  const s = special(x);
  if (s !== undefined) return s;
  const neg = x < 0 || Object.is(x, -0);
  if (x === 0) return (neg ? "-" : "") + "0" + (prec > 0 ? "." + "0".repeat(prec) : "") + "e+00";
  const d = roundTo(exactDigits(x), prec + 1);
  const digits = d.digits.padEnd(prec + 1, "0");
  return (neg ? "-" : "") + digits[0] + (prec > 0 ? "." + digits.slice(1) : "") + expSuffix(d.dp - 1);
}

/** Go `strconv.FormatFloat(x, 'f', -1, 64)`: shortest round-trip digits, never an exponent. */
export function formatShortestFixed(x: number): string {
  const s = special(x);
  if (s !== undefined) return s;
  const neg = x < 0 || Object.is(x, -0);
  if (x === 0) return neg ? "-0" : "0";
  const d = shortestDigits(x);
  const frac = Math.max(d.digits.length - d.dp, 0);
  const p = fixedParts(d, frac);
  return (neg ? "-" : "") + p.int + (frac > 0 ? "." + p.frac : "");
}

/** Go `fmt.Sprintf("%g", x)` (shortest digits; exponent form below 1e-4 and from 1e6). */
export function formatG(x: number): string {
  const s = special(x);
  if (s !== undefined) return s;
  const neg = x < 0 || Object.is(x, -0);
  if (x === 0) return neg ? "-0" : "0";
  const d = shortestDigits(x);
  const exp = d.dp - 1;
  const sign = neg ? "-" : "";
  if (exp < -4 || exp >= 6) {
    const m = d.digits;
    return sign + m[0] + (m.length > 1 ? "." + m.slice(1) : "") + expSuffix(exp);
  }
  const frac = Math.max(d.digits.length - d.dp, 0);
  const p = fixedParts(d, frac);
  return sign + p.int + (frac > 0 ? "." + p.frac : "");
}

// ---------------------------------------------------------------------------
// golang.org/x/text/message, locale en-US (cel-go's pre-v4 string.format).

function groupThousands(int: string): string {
  let out = "";
  for (let i = 0; i < int.length; i++) {
    if (i > 0 && (int.length - i) % 3 === 0) out += ",";
    out += int[i];
  }
  return out;
}

/** x/text en-US `%.<prec>f`: grouped integer digits, "NaN", "∞", "-∞". */
export function localizedFixed(x: number, prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "∞";
  if (x === -Infinity) return "-∞";
  const neg = x < 0;
  const d = x === 0 ? { digits: "", dp: 0 } : roundTo(exactDigits(x), exactDigits(x).dp + prec);
  const p = fixedParts(d, prec);
  return (neg ? "-" : "") + groupThousands(p.int) + (prec > 0 ? "." + p.frac : "");
}

const SUPERSCRIPT = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"];

/** x/text en-US `%.<prec>e`: `1.052033 × 10⁰³` with narrow no-break spaces and superscript exponent. */
export function localizedScientific(x: number, prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "∞";
  if (x === -Infinity) return "-∞";
  const neg = x < 0;
  let mant: string;
  let exp = 0;
  if (x === 0) {
    mant = "0" + (prec > 0 ? "." + "0".repeat(prec) : "");
  } else {
    const d = roundTo(exactDigits(x), prec + 1);
    const digits = d.digits.padEnd(prec + 1, "0");
    mant = digits[0] + (prec > 0 ? "." + digits.slice(1) : "");
    exp = d.dp - 1;
  }
  const a = String(Math.abs(exp)).padStart(2, "0");
  const sup = (exp < 0 ? "⁻" : "") + [...a].map((c) => SUPERSCRIPT[c.charCodeAt(0) - 48]).join("");
  return (neg ? "-" : "") + mant + "\u202f×\u202f10" + sup;
}

// ---------------------------------------------------------------------------
// strconv.Quote

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S}\u0020]/u;

/** Go `strconv.Quote` (what `%q` prints for a string). Lone surrogates print as U+FFFD escapes. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
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
      case "\\":
        out += "\\\\";
        continue;
      case '"':
        out += '\\"';
        continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += "\\ufffd";
      continue;
    }
    if (PRINTABLE.test(ch)) {
      out += ch;
      continue;
    }
    if (cp < 0x80) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x10000) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + '"';
}
