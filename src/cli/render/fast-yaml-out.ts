/**
 * A fast path for `toYaml` (serialize.ts): block-style YAML for the plain shapes admitted objects
 * have, byte for byte what the `yaml` package's `stringify(value, { version: "1.1", lineWidth: 0 })`
 * writes, or `undefined` (then the package writes it) for anything outside that shape: strings that
 * are not obviously plain (the package's quoting rules are left to it), non-integer numbers,
 * sequences directly in sequences. fast-yaml-out.test.ts checks it against the package.
 */
import { Document, stringify } from "yaml";

interface TagLike {
  readonly default?: boolean | "key";
  readonly test?: RegExp;
}

/** YAML 1.1's implicit tags as the package's stringify sees them (timestamps and sexagesimals included). */
const TESTS: readonly RegExp[] = (new Document(null, { version: "1.1" }).schema.tags as unknown as TagLike[])
  .filter((t) => t.default === true && t.test !== undefined)
  .map((t) => t.test!);

/** Characters of strings written plain here (anything else goes to the package). */
const PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./:@+=-]*$/;
const memo = new Map<string, boolean>();

function plain(s: string): boolean {
  let ok = memo.get(s);
  if (ok === undefined) {
    ok = s.length <= 1000 && PLAIN.test(s) && !s.endsWith(":") && !s.startsWith("...") && !TESTS.some((t) => t.test(s));
    if (memo.size > 20_000) memo.clear();
    memo.set(s, ok);
  }
  return ok;
}

class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported();

const quoted = new Map<unknown, string | undefined>();

/** A single-line scalar as the package writes it alone (same quoting in a block value), or undefined when it spans lines. */
function byPackage(v: string | number): string | undefined {
  if (quoted.has(v)) return quoted.get(v);
  const text = stringify(v, { version: "1.1", lineWidth: 0 }).slice(0, -1);
  const r = text.includes("\n") ? undefined : text;
  if (quoted.size > 20_000) quoted.clear();
  quoted.set(v, r);
  return r;
}

function scalar(v: unknown, atKey = false): string {
  switch (typeof v) {
    case "string": {
      if (plain(v)) return v;
      const q = atKey || v.length > 1000 ? undefined : byPackage(v);
      if (q === undefined) throw UNSUPPORTED;
      return q;
    }
    case "bigint":
      return v.toString();
    case "number": {
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) return String(v);
      const q = atKey ? undefined : byPackage(v);
      if (q === undefined) throw UNSUPPORTED;
      return q;
    }
    case "boolean":
      return v ? "true" : "false";
  }
  if (v === null) return "null";
  throw UNSUPPORTED;
}

function isMap(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function writeMap(o: Record<string, unknown>, indent: string, out: string[]): void {
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v === undefined) throw UNSUPPORTED;
    out.push(indent, scalar(k, true), ":");
    value(v, indent, out);
  }
}

/** A value after `key:` (or as a sequence item's tail), at `indent`. */
function value(v: unknown, indent: string, out: string[]): void {
  if (Array.isArray(v)) {
    if (v.length === 0) return void out.push(" []\n");
    out.push("\n");
    writeSeq(v, `${indent}  `, out);
  } else if (isMap(v)) {
    if (Object.keys(v).length === 0) return void out.push(" {}\n");
    out.push("\n");
    writeMap(v, `${indent}  `, out);
  } else out.push(" ", scalar(v), "\n");
}

function writeSeq(a: readonly unknown[], indent: string, out: string[]): void {
  for (const v of a) {
    if (Array.isArray(v)) {
      if (v.length > 0) throw UNSUPPORTED;
      out.push(indent, "- []\n");
    } else if (isMap(v)) {
      const keys = Object.keys(v);
      if (keys.length === 0) {
        out.push(indent, "- {}\n");
        continue;
      }
      // The first entry on the dash's line, the others aligned under it.
      const inner = `${indent}  `;
      const lines: string[] = [];
      writeMap(v, inner, lines);
      lines[0] = `${indent}- `;
      out.push(...lines);
    } else out.push(indent, "- ", scalar(v), "\n");
  }
}

export function fastToYaml(value: unknown): string | undefined {
  if (!isMap(value) || Object.keys(value).length === 0) return undefined;
  const out: string[] = [];
  try {
    writeMap(value, "", out);
  } catch (e) {
    if (e === UNSUPPORTED) return undefined;
    throw e;
  }
  return out.join("");
}
