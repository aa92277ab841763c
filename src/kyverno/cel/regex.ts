/**
 * cel-go's regex extension (`ext.Regex(ext.RegexVersion(1))`), which Kyverno's
 * `DefaultEnvOptions` adds and the Kubernetes base environment does not:
 *
 * - `regex.replace(target, pattern, replacement)` and
 *   `regex.replace(target, pattern, replacement, count)` → string: replaces the
 *   first `count` (all when negative; none when 0) non-overlapping matches.
 *   In the replacement `\0`…`\9` insert groups and `\\` a backslash; anything
 *   else after `\` is the error `invalid replacement string: '<r>' \ must be
 *   followed by a digit or \`, a trailing `\` `… \ not allowed at end`, a group
 *   beyond the pattern's `replacement string references group N but regex has
 *   only M group(s)`.
 * - `regex.extract(target, pattern)` → `optional_type(string)`: the first match,
 *   or its only capture group (none when the group is empty or unset).
 * - `regex.extractAll(target, pattern)` → `list(string)`: every match (or its
 *   group; unset groups skipped).
 * - More than one capture group in `extract`/`extractAll` is the error
 *   `regular expression has more than one capturing group: "<pattern>"`.
 *
 * Matching is Go's (leftmost-first, RE2 syntax), with submatches from a Pike VM
 * over `@bufbuild/re2`'s compiled program (as `k8s/go-regexp-match.ts` does for
 * whole matches).
 */
import type { RE2JS } from "@bufbuild/re2";
import { func, overload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { compileRegex } from "../../cel/std/strings.js";
import { INT, STRING, listType, optionalType } from "../../cel/types.js";
import { CelOptional, type CelValue } from "../../cel/values.js";

// The RE2 program primitives (opcodes, program access, empty-width context, rune stepping) are
// shared with the match-position machine of the Kubernetes regex library; this machine adds captures.
import {
  ALT,
  ALT_MATCH,
  CAPTURE,
  EMPTY_WIDTH,
  MATCH,
  NOP,
  RUNE,
  RUNE1,
  RUNE_ANY,
  RUNE_ANY_NOT_NL,
  consumesRune,
  emptyContext,
  progOf,
  runeAt,
  runeBefore,
} from "../../cel/k8s/go-regexp-match.js";

interface Thread {
  readonly pc: number;
  readonly caps: number[] | undefined;
}

/** The leftmost-first match at or after `from` with its submatch positions (`2 × (groups + 1)`, -1 when unset). */
export function submatchAt(re: RE2JS, s: string, from: number): number[] | undefined {
  const { inst: insts, start } = progOf(re);
  const ncap = 2 * (re.groupCount() + 1);
  let matched: number[] | undefined;
  let runq: Thread[] = [];
  let nextq: Thread[] = [];
  let seen = new Set<number>();
  let nextSeen = new Set<number>();

  const add = (q: Thread[], visited: Set<number>, pc: number, pos: number, caps: number[], cond: number): void => {
    if (pc === 0 || visited.has(pc)) return;
    visited.add(pc);
    const inst = insts[pc]!;
    switch (inst.op) {
      case ALT:
      case ALT_MATCH:
        add(q, visited, inst.out, pos, caps, cond);
        add(q, visited, inst.arg, pos, caps, cond);
        return;
      case EMPTY_WIDTH:
        if ((inst.arg & ~cond) === 0) add(q, visited, inst.out, pos, caps, cond);
        return;
      case NOP:
        add(q, visited, inst.out, pos, caps, cond);
        return;
      case CAPTURE:
        if (inst.arg < ncap) {
          const old = caps[inst.arg]!;
          caps[inst.arg] = pos;
          add(q, visited, inst.out, pos, caps, cond);
          caps[inst.arg] = old;
        } else add(q, visited, inst.out, pos, caps, cond);
        return;
      case MATCH:
      case RUNE:
      case RUNE1:
      case RUNE_ANY:
      case RUNE_ANY_NOT_NL:
        q.push({ pc, caps: caps.slice() });
        return;
      default:
        return; // FAIL
    }
  };

  let pos = from;
  let [r, width] = runeAt(s, pos);
  let cond = emptyContext(runeBefore(s, pos), r);
  for (;;) {
    if (runq.length === 0 && matched !== undefined) break;
    if (matched === undefined) {
      const caps = new Array<number>(ncap).fill(-1);
      caps[0] = pos;
      add(runq, seen, start, pos, caps, cond);
    }
    const nextPos = pos + width;
    const [r1] = runeAt(s, nextPos);
    const nextCond = emptyContext(r, r1);
    for (const t of runq) {
      const inst = insts[t.pc]!;
      if (inst.op === MATCH) {
        matched = t.caps!.slice();
        matched[1] = pos;
        break; // lower-priority threads are cut off
      }
      if (consumesRune(inst, r)) add(nextq, nextSeen, inst.out, nextPos, t.caps!, nextCond);
    }
    runq = [];
    seen = new Set();
    if (width === 0) break;
    pos = nextPos;
    [r, width] = runeAt(s, pos);
    cond = nextCond;
    [runq, nextq] = [nextq, runq];
    [seen, nextSeen] = [nextSeen, seen];
  }
  return matched;
}

/** Go `FindAllStringSubmatchIndex(s, -1)`. */
export function findAllSubmatchIndex(re: RE2JS, s: string): number[][] {
  const out: number[][] = [];
  const end = s.length;
  let prevMatchEnd = -1;
  for (let pos = 0; pos <= end; ) {
    const m = submatchAt(re, s, pos);
    if (m === undefined) break;
    let accept = true;
    if (m[1] === pos) {
      if (m[0] === prevMatchEnd) accept = false;
      const [, w] = runeAt(s, pos);
      pos = w > 0 ? pos + w : end + 1;
    } else {
      pos = m[1]!;
    }
    prevMatchEnd = m[1]!;
    if (accept) out.push(m);
  }
  return out;
}

function compile(pattern: string): RE2JS {
  return compileRegex(pattern);
}

function expand(target: string, groups: number, match: number[], replacement: string): string {
  let out = "";
  const runes = [...replacement];
  for (let i = 0; i < runes.length; i++) {
    const c = runes[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    if (i + 1 >= runes.length) throw new CelEvalError(`invalid replacement string: '${replacement}' \\ not allowed at end`);
    const next = runes[++i]!;
    if (next === "\\") {
      out += "\\";
      continue;
    }
    if (!/^[0-9]$/.test(next)) throw new CelEvalError(`invalid replacement string: '${replacement}' \\ must be followed by a digit or \\`);
    const g = Number(next);
    if (g > groups) throw new CelEvalError(`replacement string references group ${g} but regex has only ${groups} group(s)`);
    if (match[2 * g]! !== -1) out += target.slice(match[2 * g]!, match[2 * g + 1]!);
  }
  return out;
}

export function regexReplace(target: string, pattern: string, replacement: string, count = -1n): string {
  if (count === 0n) return target;
  if (count > 2147483647n) throw new CelEvalError("integer overflow");
  const re = compile(pattern);
  const groups = re.groupCount();
  let out = "";
  let last = 0;
  let n = 0n;
  for (const m of findAllSubmatchIndex(re, target)) {
    if (count > 0n && n >= count) break;
    const rep = expand(target, groups, m, replacement);
    out += target.slice(last, m[0]!) + rep;
    last = m[1]!;
    n++;
  }
  return out + target.slice(last);
}

function checkGroups(re: RE2JS, pattern: string): void {
  if (re.groupCount() > 1) throw new CelEvalError(`regular expression has more than one capturing group: ${JSON.stringify(pattern)}`);
}

export function regexExtract(target: string, pattern: string): CelOptional {
  const re = compile(pattern);
  checkGroups(re, pattern);
  const m = submatchAt(re, target, 0);
  if (m === undefined) return CelOptional.NONE;
  if (m.length > 2) {
    if (m[2] === -1) return CelOptional.NONE;
    const g = target.slice(m[2]!, m[3]!);
    return g === "" ? CelOptional.NONE : CelOptional.of(g);
  }
  return CelOptional.of(target.slice(m[0]!, m[1]!));
}

export function regexExtractAll(target: string, pattern: string): CelValue[] {
  const re = compile(pattern);
  checkGroups(re, pattern);
  const out: string[] = [];
  for (const m of findAllSubmatchIndex(re, target)) {
    if (m.length > 2) {
      if (m[2] !== -1) out.push(target.slice(m[2]!, m[3]!));
    } else out.push(target.slice(m[0]!, m[1]!));
  }
  return out;
}

export const CEL_REGEX_LIBRARY: Library = {
  name: "cel.lib.ext.regex",
  functions: [
    func(
      "regex.replace",
      overload("regex_replace_string_string_string", [STRING, STRING, STRING], STRING, (t: string, p: string, r: string) => regexReplace(t, p, r)),
      overload("regex_replace_string_string_string_int", [STRING, STRING, STRING, INT], STRING, regexReplace),
    ),
    func("regex.extract", overload("regex_extract_string_string", [STRING, STRING], optionalType(STRING), regexExtract)),
    func("regex.extractAll", overload("regex_extractAll_string_string", [STRING, STRING], listType(STRING), regexExtractAll)),
  ],
};
