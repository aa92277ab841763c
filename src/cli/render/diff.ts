/**
 * A readable line diff of two YAML renderings of an object, as `diff -u` shows it: hunks with
 * three lines of context, `-` lines removed, `+` lines added (red and green on a terminal).
 */
import type { Palette } from "./color.js";

export type DiffLine = { readonly op: " " | "-" | "+"; readonly text: string };

/** Line diff by longest common subsequence (trimmed common prefix/suffix; fine for objects). */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: DiffLine[] = a.slice(0, start).map((text) => ({ op: " ", text }));
  const ma = a.slice(start, endA);
  const mb = b.slice(start, endB);
  const n = ma.length;
  const m = mb.length;
  if (n * m > 4_000_000) {
    // Too large for the table: show the middle as replaced.
    for (const text of ma) out.push({ op: "-", text });
    for (const text of mb) out.push({ op: "+", text });
  } else {
    const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) lcs[i]![j] = ma[i] === mb[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && ma[i] === mb[j]) {
        out.push({ op: " ", text: ma[i]! });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
        out.push({ op: "-", text: ma[i++]! });
      } else {
        out.push({ op: "+", text: mb[j++]! });
      }
    }
  }
  for (const text of a.slice(endA)) out.push({ op: " ", text });
  return out;
}

/** Hunks of changed lines with `context` lines around them; `@@ -l,n +l,n @@` headers. */
export function renderDiff(before: string, after: string, p: Palette, context = 3): string {
  const a = before.replace(/\n$/, "").split("\n");
  const b = after.replace(/\n$/, "").split("\n");
  const lines = diffLines(a, b);
  const changed = lines.map((l, i) => (l.op !== " " ? i : -1)).filter((i) => i >= 0);
  if (changed.length === 0) return "";
  // Group changed lines into hunks.
  const hunks: [number, number][] = [];
  for (const i of changed) {
    const from = Math.max(0, i - context);
    const to = Math.min(lines.length - 1, i + context);
    const last = hunks[hunks.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else hunks.push([from, to]);
  }
  // Line numbers at each index.
  const posA: number[] = [];
  const posB: number[] = [];
  let la = 1;
  let lb = 1;
  for (const l of lines) {
    posA.push(la);
    posB.push(lb);
    if (l.op !== "+") la++;
    if (l.op !== "-") lb++;
  }
  const out: string[] = [];
  for (const [from, to] of hunks) {
    const slice = lines.slice(from, to + 1);
    const countA = slice.filter((l) => l.op !== "+").length;
    const countB = slice.filter((l) => l.op !== "-").length;
    out.push(p.cyan(`@@ -${posA[from]},${countA} +${posB[from]},${countB} @@`));
    for (const l of slice) {
      if (l.op === "-") out.push(p.red(`-${l.text}`));
      else if (l.op === "+") out.push(p.green(`+${l.text}`));
      else out.push(` ${l.text}`);
    }
  }
  return `${out.join("\n")}\n`;
}
