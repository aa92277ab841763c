/**
 * Printing locations back (Gatekeeper `parser/node.go` `String()`): segments joined by `.`,
 * list nodes appended without a dot, integer key values as numbers, globs as `*`.
 * {@link printPath} is Gatekeeper's exact rendering (used in its messages);
 * {@link formatPath} always re-parses to the same nodes.
 */
import type { Path, PathNode } from "./parser.js";

const NEEDS_QUOTE = /['"\t\n \\*[\]:.]/;

/** Gatekeeper's `quote`: double-quote (escaping `\` and `"`) when needed. */
export function quoteSegment(s: string): string {
  if (s.length === 0) return '""';
  if (NEEDS_QUOTE.test(s) || (s[0]! >= "0" && s[0]! <= "9")) {
    return '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
  }
  return s;
}

const BARE = /^[A-Za-z_-][A-Za-z0-9_-]*$/;

/**
 * A canonical, always re-parsable rendering of a segment: bare when it lexes as one bare
 * IDENT, else double-quoted. (Gatekeeper's own {@link quoteSegment} leaves e.g. `a/b`, `é`
 * or a carriage return unquoted, which then does not parse back.)
 */
export function formatSegment(s: string): string {
  return BARE.test(s) ? s : '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
}

/** `Node.String()`. */
export function printNode(n: PathNode): string {
  if (n.type === "Object") return quoteSegment(n.reference);
  const key = quoteSegment(n.keyField);
  if (n.glob) return `[${key}: *]`;
  if (typeof n.keyValue === "string") return `[${key}: ${quoteSegment(n.keyValue)}]`;
  if (typeof n.keyValue === "bigint") return `[${key}: ${n.keyValue.toString()}]`;
  return `[${key}: ]`;
}

function render(p: Path, seg: (s: string) => string): string {
  let out = "";
  p.nodes.forEach((n, i) => {
    if (n.type === "Object") {
      if (i > 0) out += ".";
      out += seg(n.reference);
      return;
    }
    const key = seg(n.keyField);
    if (n.glob) out += `[${key}: *]`;
    else if (typeof n.keyValue === "string") out += `[${key}: ${seg(n.keyValue)}]`;
    else if (typeof n.keyValue === "bigint") out += `[${key}: ${n.keyValue.toString()}]`;
    else out += `[${key}: ]`;
  });
  return out;
}

/**
 * `Path.String()`, exactly as Gatekeeper prints a location in its messages: object nodes
 * joined by `.`, list nodes appended without a dot, segments quoted by {@link quoteSegment}.
 */
export function printPath(p: Path): string {
  return render(p, quoteSegment);
}

/** Like {@link printPath} but always re-parsable: `parsePath(formatPath(p))` equals `p`. */
export function formatPath(p: Path): string {
  return render(p, formatSegment);
}

/** Go's `%+v` of a node pointer, as Gatekeeper's mismatch errors print it. */
export function goNodeString(n: PathNode): string {
  if (n.type === "Object") return `&{Reference:${n.reference}}`;
  const kv = n.keyValue === undefined ? "<nil>" : n.keyValue.toString();
  return `&{KeyField:${n.keyField} KeyValue:${kv} Glob:${n.glob}}`;
}
