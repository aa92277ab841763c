/**
 * String functions of the standard library: `contains`, `startsWith`,
 * `endsWith` (receiver style) and `matches` (global and receiver), with
 * cel-go's overload ids.
 *
 * `matches` uses RE2 semantics through `@bufbuild/re2` (never JavaScript
 * `RegExp`): linear-time matching, RE2 syntax (`(?i)`, `\pL`, `[[:alpha:]]`,
 * `\Q…\E`), and an unanchored search as Go's `MatchString`. Compiled patterns
 * are cached by source text, so a constant pattern compiles once per process.
 */
import { RE2JS } from "@bufbuild/re2";
import { func, memberOverload, overload, type FunctionDecl } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { BOOL, STRING } from "../types.js";

const CACHE_LIMIT = 500;
const cache = new Map<string, RE2JS>();

/** The compiled RE2 program for a pattern (cached); invalid patterns throw a CEL error. */
export function compileRegex(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re !== undefined) return re;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    // RE2JS words its syntax errors as Go's regexp does: "error parsing regexp: missing closing ): `(a`".
    const msg = e instanceof Error ? e.message : String(e);
    throw new CelEvalError(msg.startsWith("error parsing regexp") ? msg : `error parsing regexp: ${msg}`);
  }
  anchorAtStart(re, pattern);
  rememberAnswers(re);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(pattern, re);
  return re;
}

export function matches(s: string, pattern: string): boolean {
  return compileRegex(pattern).test(s);
}

/** RE2's `EmptyBeginText` condition bit (`syntax.EmptyBeginText`). */
const EMPTY_BEGIN_TEXT = 0x04;

/**
 * When every match of `re` must begin at the start of the text (its program's start condition
 * includes `^`, which Go's regexp checks as `re.cond`), its unanchored search is the same as a full
 * match of `(?:pattern)(?s:.*)`; @bufbuild/re2's DFA runs that without resolving `^` again at every
 * position (about 3x faster on such patterns). `test` of this instance is replaced by that, with
 * the same answers by construction; other methods are untouched.
 */
function anchorAtStart(re: RE2JS, pattern: string): void {
  const cond = (re as unknown as { re2Input?: { cond?: unknown } }).re2Input?.cond;
  if (typeof cond !== "number" || (cond & EMPTY_BEGIN_TEXT) === 0) return;
  let prefix: RE2JS;
  try {
    prefix = RE2JS.compile(`(?:${pattern})(?s:.*)`);
  } catch {
    return;
  }
  Object.defineProperty(re, "test", { value: (s: string): boolean => prefix.testExact(s), configurable: true });
}

/** Texts whose answers a pattern remembers (a table is emptied when full). */
const ANSWERS_PER_PATTERN = 64;
/** Only short texts are remembered: long ones rarely repeat, and would pin memory. */
const ANSWER_TEXT_LIMIT = 128;

/**
 * `compute` (a pure function of a text, such as a regex's answer on it) remembering its results:
 * admission evaluates the same few patterns on the same texts over and over (an image reference
 * in every pass of every mutator that reads it), and a DFA run costs several times a Map lookup.
 * Bounded: texts up to 128 characters, 64 of them, the table emptied when full (about 8 MB at
 * worst over the 500 cached patterns). `matches` here and Kubernetes' `find` use it.
 */
export function rememberByText<T>(compute: (s: string) => T): (s: string) => T {
  const answers = new Map<string, T>();
  return (s) => {
    const hit = answers.get(s);
    if (hit !== undefined) return hit;
    const r = compute(s);
    if (s.length <= ANSWER_TEXT_LIMIT) {
      if (answers.size >= ANSWERS_PER_PATTERN) answers.clear();
      answers.set(s, r);
    }
    return r;
  };
}

/** `test` of `re` remembers its answers by text (RE2's answers by construction). */
function rememberAnswers(re: RE2JS): void {
  Object.defineProperty(re, "test", { value: rememberByText(re.test.bind(re)) });
}

export const STRING_FUNCTIONS: readonly FunctionDecl[] = [
  func("contains", memberOverload("contains_string", [STRING, STRING], BOOL, (s: string, sub: string) => s.includes(sub))),
  func(
    "startsWith",
    memberOverload("starts_with_string", [STRING, STRING], BOOL, (s: string, p: string) => s.startsWith(p)),
  ),
  func("endsWith", memberOverload("ends_with_string", [STRING, STRING], BOOL, (s: string, p: string) => s.endsWith(p))),
  func(
    "matches",
    overload("matches", [STRING, STRING], BOOL, matches),
    memberOverload("matches_string", [STRING, STRING], BOOL, matches),
  ),
];
