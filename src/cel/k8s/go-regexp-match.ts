/**
 * Match positions for RE2 patterns, as Go's `regexp` reports them
 * (`FindString`, `FindAllString`): leftmost-first ("Perl") semantics.
 *
 * `@bufbuild/re2` compiles patterns to RE2's instruction program but only
 * answers "does it match"; this module runs that program in a Pike VM (Go's
 * `regexp/exec.go` machine: threads in priority order, the first thread to
 * reach MATCH cuts off the lower-priority ones) to find where the leftmost
 * match starts and ends. Linear time, like RE2. Only the whole-match span is
 * tracked (group 0), which is all `find`/`findAll` need.
 *
 * Positions are UTF-16 indices; the machine steps over code points, so matches
 * never split a surrogate pair (Go steps over UTF-8 runes the same way).
 */
import type { RE2JS } from "@bufbuild/re2";

// Instruction opcodes and empty-width flags of @bufbuild/re2 (Inst.js, Utils.js).
export const ALT = 1;
export const ALT_MATCH = 2;
export const CAPTURE = 3;
export const EMPTY_WIDTH = 4;
export const FAIL = 5;
export const MATCH = 6;
export const NOP = 7;
export const RUNE = 8;
export const RUNE1 = 9;
export const RUNE_ANY = 10;
export const RUNE_ANY_NOT_NL = 11;

const EMPTY_BEGIN_LINE = 0x01;
const EMPTY_END_LINE = 0x02;
const EMPTY_BEGIN_TEXT = 0x04;
const EMPTY_END_TEXT = 0x08;
const EMPTY_WORD_BOUNDARY = 0x10;
const EMPTY_NO_WORD_BOUNDARY = 0x20;

export interface Inst {
  readonly op: number;
  readonly out: number;
  readonly arg: number;
  matchRune(r: number): boolean;
}
interface Prog {
  readonly inst: readonly Inst[];
  readonly start: number;
}

/** Whether a thread at `inst` consumes the rune `r` (-1 at the end of the text); false for non-rune instructions. */
export function consumesRune(inst: Inst, r: number): boolean {
  switch (inst.op) {
    case RUNE:
    case RUNE1:
      return r >= 0 && inst.matchRune(r);
    case RUNE_ANY:
      return r >= 0;
    case RUNE_ANY_NOT_NL:
      return r >= 0 && r !== 0x0a;
    default:
      return false;
  }
}

/** The compiled instruction program behind an RE2JS pattern. */
export function progOf(re: RE2JS): Prog {
  return (re as unknown as { re2Input: { prog: Prog } }).re2Input.prog;
}

const isWordRune = (r: number): boolean =>
  (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a) || (r >= 0x30 && r <= 0x39) || r === 0x5f;

/** The empty-width assertions that hold between runes r1 and r2 (-1 = edge of text). */
export function emptyContext(r1: number, r2: number): number {
  let op = 0;
  if (r1 < 0) op |= EMPTY_BEGIN_TEXT | EMPTY_BEGIN_LINE;
  if (r1 === 0x0a) op |= EMPTY_BEGIN_LINE;
  if (r2 < 0) op |= EMPTY_END_TEXT | EMPTY_END_LINE;
  if (r2 === 0x0a) op |= EMPTY_END_LINE;
  op |= isWordRune(r1) !== isWordRune(r2) ? EMPTY_WORD_BOUNDARY : EMPTY_NO_WORD_BOUNDARY;
  return op;
}

/** The code point at `pos` and its width in UTF-16 units; [-1, 0] at the end. */
export function runeAt(s: string, pos: number): [number, number] {
  if (pos >= s.length) return [-1, 0];
  const c = s.codePointAt(pos)!;
  return [c, c > 0xffff ? 2 : 1];
}

export function runeBefore(s: string, pos: number): number {
  if (pos <= 0) return -1;
  const lo = s.charCodeAt(pos - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && pos >= 2) {
    const hi = s.charCodeAt(pos - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return s.codePointAt(pos - 2)!;
  }
  return lo;
}

/**
 * A run queue: sparse set of pcs with, per thread, the position its match started. Fixed-size typed
 * arrays and a count (emptying an array by its length is a runtime call in optimized code).
 */
class Queue {
  readonly sparse: Int32Array;
  readonly pcs: Int32Array;
  readonly starts: Int32Array;
  n = 0;
  constructor(size: number) {
    this.sparse = new Int32Array(size);
    this.pcs = new Int32Array(size);
    this.starts = new Int32Array(size);
  }
  has(pc: number): boolean {
    const j = this.sparse[pc]!;
    return j < this.n && this.pcs[j] === pc;
  }
  /** Adds `pc` (not yet in the queue) with the start of its thread (-1: no thread). */
  push(pc: number, start: number): void {
    const j = this.n++;
    this.sparse[pc] = j;
    this.pcs[j] = pc;
    this.starts[j] = start;
  }
  clear(): void {
    this.n = 0;
  }
}

/**
 * The leftmost-first match of `re` in `s` starting the search at `from`
 * (assertions see the text before `from`, as Go's `doExecute` does), as
 * [start, end], or undefined.
 */
export function matchAt(re: RE2JS, s: string, from: number): [number, number] | undefined {
  const prog = progOf(re);
  const insts = prog.inst;
  // The run queues are reused between calls (matching is synchronous and never re-entered).
  let queues = queuesByProg.get(prog);
  if (queues === undefined) {
    // Each instruction is pushed at most twice (by the two arms of an ALT) per closure.
    queues = { run: new Queue(insts.length), next: new Queue(insts.length), stack: new Int32Array(2 * insts.length + 2) };
    queuesByProg.set(prog, queues);
  }
  let runq = queues.run;
  let nextq = queues.next;
  const stack = queues.stack;
  runq.clear();
  nextq.clear();
  let matched: [number, number] | undefined;

  // Follows empty transitions from pc, adding threads in priority order.
  const add = (q: Queue, pc0: number, start: number, cond: number): void => {
    let sp = 0;
    stack[sp++] = pc0;
    while (sp > 0) {
      const pc = stack[--sp]!;
      if (pc === 0 || q.has(pc)) continue;
      const inst = insts[pc]!;
      switch (inst.op) {
        case FAIL:
          q.push(pc, -1);
          break;
        case ALT:
        case ALT_MATCH:
          q.push(pc, -1);
          // out has priority over arg: push arg first.
          stack[sp++] = inst.arg;
          stack[sp++] = inst.out;
          break;
        case EMPTY_WIDTH:
          q.push(pc, -1);
          if ((inst.arg & ~cond) === 0) stack[sp++] = inst.out;
          break;
        case NOP:
        case CAPTURE:
          q.push(pc, -1);
          stack[sp++] = inst.out;
          break;
        default:
          // MATCH and rune instructions hold a thread.
          q.push(pc, start);
      }
    }
  };

  let pos = from;
  let r = runeCode(s, pos);
  let width = r < 0 ? 0 : r > 0xffff ? 2 : 1;
  let cond = emptyContext(runeBefore(s, pos), r);
  for (;;) {
    if (runq.n === 0 && matched !== undefined) break;
    if (matched === undefined) add(runq, prog.start, pos, cond);
    const nextPos = pos + width;
    const r1 = runeCode(s, nextPos);
    const nextCond = emptyContext(r, r1);
    for (let j = 0; j < runq.n; j++) {
      const start = runq.starts[j]!;
      if (start < 0) continue;
      const inst = insts[runq.pcs[j]!]!;
      if (inst.op === MATCH) {
        matched = [start, pos];
        // First-match mode: lower-priority threads are cut off.
        j = runq.n;
        continue;
      }
      if (consumesRune(inst, r)) add(nextq, inst.out, start, nextCond);
    }
    runq.clear();
    if (width === 0) break;
    pos = nextPos;
    r = r1;
    width = r < 0 ? 0 : r > 0xffff ? 2 : 1;
    cond = nextCond;
    const t = runq;
    runq = nextq;
    nextq = t;
  }
  return matched;
}

const queuesByProg = new WeakMap<object, { readonly run: Queue; readonly next: Queue; readonly stack: Int32Array }>();

/** The code point at `pos`, or -1 at the end (`runeAt` without the pair). */
function runeCode(s: string, pos: number): number {
  return pos >= s.length ? -1 : s.codePointAt(pos)!;
}

/** Go `Regexp.FindString`: the leftmost match, or "" when there is none. */
export function findString(re: RE2JS, s: string): string {
  const m = matchAt(re, s, 0);
  return m === undefined ? "" : s.slice(m[0], m[1]);
}

/**
 * Go `Regexp.FindAllString(s, n)`: successive non-overlapping matches, at most
 * `n` of them (all when n < 0); an empty match right after a match is skipped.
 */
export function findAllString(re: RE2JS, s: string, n: number): string[] {
  const out: string[] = [];
  if (n < 0) n = s.length + 1;
  const end = s.length;
  let prevMatchEnd = -1;
  for (let pos = 0; out.length < n && pos <= end; ) {
    const m = matchAt(re, s, pos);
    if (m === undefined) break;
    let accept = true;
    if (m[1] === pos) {
      // An empty match: not allowed right after the previous match; move one rune on.
      if (m[0] === prevMatchEnd) accept = false;
      const [, w] = runeAt(s, pos);
      pos = w > 0 ? pos + w : end + 1;
    } else {
      pos = m[1];
    }
    prevMatchEnd = m[1];
    if (accept) out.push(s.slice(m[0], m[1]));
  }
  return out;
}
