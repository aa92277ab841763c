/**
 * Kyverno's JSON library (`kyverno.json`, kyverno/sdk `extensions/cel/libs/json`):
 * the variable `json` of type `json.Json` with
 *
 * - `json.unmarshal(dyn) → dyn` (the argument must be a string at run time):
 *   Go `encoding/json` into `any`, so **every number is a double**
 *   (`json.unmarshal('{"a":1}').a == 1.0`); errors are Go's
 *   (`invalid character 'x' looking for beginning of value`,
 *   `unexpected end of JSON input`).
 * - `json.marshal(dyn) → string`: Go `json.Marshal` of the value converted to
 *   Go: object keys sorted, `<`, `>`, `&` escaped as `\u003c`…, ints exact,
 *   doubles shortest (`1.0` → `1`), bytes base64. `null` (also inside maps and
 *   lists) becomes cel-go's `structpb.NullValue` enum and is written `0`.
 */
import { func, memberOverload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { DYN, STRING, opaqueType } from "../../cel/types.js";
import { CelObject, type CelValue } from "../../cel/values.js";
import { fromGoJson, goJsonMarshal, notAStringError, toGoNative } from "./common.js";

export const JSON_TYPE = opaqueType("json.Json");

export class JsonContext extends CelObject {
  readonly celType = JSON_TYPE;
}

/** Go `json.Unmarshal(data, &v)` with `v any`, including its error messages. */
export function goJsonUnmarshal(text: string): unknown {
  return new GoJsonParser(text).parseTop();
}

function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c).slice(1, -1);
  return `'${q}'`;
}

class GoJsonParser {
  private i = 0;
  constructor(private readonly s: string) {}

  private err(context: string): never {
    if (this.i >= this.s.length) throw new CelEvalError("unexpected end of JSON input");
    const c = String.fromCodePoint(this.s.codePointAt(this.i)!);
    throw new CelEvalError(`invalid character ${quoteChar(c)} ${context}`);
  }
  private ws(): void {
    while (this.i < this.s.length && " \t\n\r".includes(this.s[this.i]!)) this.i++;
  }

  parseTop(): unknown {
    this.ws();
    const v = this.value();
    this.ws();
    if (this.i < this.s.length) this.err("after top-level value");
    return v;
  }

  private value(): unknown {
    const c = this.s[this.i];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
    }
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    return this.err("looking for beginning of value");
  }

  private literal(word: string, v: unknown): unknown {
    for (let k = 0; k < word.length; k++, this.i++) {
      if (this.s[this.i] !== word[k]) this.err(`in literal ${word} (expecting ${quoteChar(word[k]!)})`);
    }
    return v;
  }

  private number(): number {
    const start = this.i;
    const digit = () => this.i < this.s.length && this.s[this.i]! >= "0" && this.s[this.i]! <= "9";
    if (this.s[this.i] === "-") {
      this.i++;
      if (!digit()) this.err("in numeric literal");
    }
    if (this.s[this.i] === "0") this.i++;
    else while (digit()) this.i++;
    if (this.s[this.i] === ".") {
      this.i++;
      if (!digit()) this.err("after decimal point in numeric literal");
      while (digit()) this.i++;
    }
    if (this.s[this.i] === "e" || this.s[this.i] === "E") {
      this.i++;
      if (this.s[this.i] === "+" || this.s[this.i] === "-") this.i++;
      if (!digit()) this.err("in exponent of numeric literal");
      while (digit()) this.i++;
    }
    const lit = this.s.slice(start, this.i);
    const n = Number(lit);
    if (!Number.isFinite(n)) throw new CelEvalError(`json: cannot unmarshal number ${lit} into Go value of type float64`);
    return n;
  }

  private string(): string {
    this.i++; // opening quote
    let out = "";
    for (;;) {
      if (this.i >= this.s.length) this.err("in string literal");
      const c = this.s[this.i]!;
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c < " ") this.err("in string literal");
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      this.i++;
      const e = this.s[this.i];
      const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (e !== undefined && e in simple) {
        out += simple[e];
        this.i++;
        continue;
      }
      if (e !== "u") this.err("in string escape code");
      this.i++;
      let code = 0;
      for (let k = 0; k < 4; k++) {
        const h = this.s[this.i];
        if (h === undefined || !/[0-9a-fA-F]/.test(h)) this.err("in \\u hexadecimal character escape");
        code = code * 16 + parseInt(h, 16);
        this.i++;
      }
      out += String.fromCharCode(code);
    }
  }

  private array(): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.i];
      if (c === ",") {
        this.i++;
        continue;
      }
      if (c === "]") {
        this.i++;
        return out;
      }
      this.err("after array element");
    }
  }

  private object(): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.err("looking for beginning of object key string");
      const k = this.string();
      this.ws();
      if (this.s[this.i] !== ":") this.err("after object key");
      this.i++;
      this.ws();
      Object.defineProperty(out, k, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s[this.i];
      if (c === ",") {
        this.i++;
        continue;
      }
      if (c === "}") {
        this.i++;
        return out;
      }
      this.err("after object key:value pair");
    }
  }
}

function unmarshal(_: CelValue, value: CelValue): CelValue {
  if (typeof value !== "string") throw notAStringError(value);
  return fromGoJson(goJsonUnmarshal(value));
}

function marshal(_: CelValue, value: CelValue): string {
  return goJsonMarshal(toGoNative(value, true));
}

/** Declares `json`; bind it to `new JsonContext()` at evaluation (`kyvernoEnv` does). */
export const JSON_LIBRARY: Library = {
  name: "kyverno.json",
  variables: [{ name: "json", type: JSON_TYPE }],
  functions: [
    func("unmarshal", memberOverload("unmarshal_string_dyn", [JSON_TYPE, DYN], DYN, unmarshal)),
    func("marshal", memberOverload("marshal_dyn_string", [JSON_TYPE, DYN], STRING, marshal)),
  ],
};
