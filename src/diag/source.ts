/**
 * Where a document came from.
 *
 * `docIndex` is **0-based**: the first YAML document of a file (the part before the first
 * `---` separator, or the whole file) is `#0`, the next `#1`, and so on. Empty documents
 * keep their number even though they are skipped, so `#N` always names the N-th physical
 * document of the file. JSON files hold a single document, `#0`.
 *
 * A `kind: List` (or `*List`) document is expanded into its items; each item keeps the
 * document's `docIndex` and records its position in `items` as `itemIndex`.
 *
 * `line`/`column` are **1-based** (as editors and compilers print them) and locate the start
 * of the document (or list item) in the file.
 */
export interface SourceRef {
  readonly file: string;
  readonly docIndex: number;
  /** Index in `items` when the document was a `kind: List`. */
  readonly itemIndex?: number;
  readonly line?: number;
  readonly column?: number;
}

/** A 1-based line/column position in a file. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/**
 * Names a document: `policy.yaml#2`, or `policy.yaml#0.items[3]` for a list item
 * (docIndex 0-based, see {@link SourceRef}).
 */
export function formatSourceRef(ref: SourceRef): string {
  let s = `${ref.file}#${ref.docIndex}`;
  if (ref.itemIndex !== undefined) s += `.items[${ref.itemIndex}]`;
  return s;
}

/**
 * Prefix for a message about a document, optionally pointing at a precise position:
 * `policy.yaml#2` without a position, `policy.yaml:14:7 (#2)` with one
 * (`file:line:column` first, so terminals and editors can jump to it).
 */
export function formatLocation(ref: SourceRef, pos?: Position): string {
  if (pos === undefined) return formatSourceRef(ref);
  const doc = ref.itemIndex !== undefined ? `#${ref.docIndex}.items[${ref.itemIndex}]` : `#${ref.docIndex}`;
  return `${ref.file}:${pos.line}:${pos.column} (${doc})`;
}
