/**
 * Rendering of diagnostics with their document, for humans:
 *
 *   policy.yaml#2: spec.mutations[1].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"
 *   policy.yaml:14:7 (#2): spec.mutations[1].patchType: Unsupported value: "Merge": ...
 *
 * Document numbers are 0-based (see `SourceRef`); line and column are 1-based.
 */
import { decodeIssueText, type DecodeIssue } from "./decode-error.js";
import { errorString, type FieldError } from "./field-error.js";
import { formatLocation, type Position, type SourceRef } from "./source.js";

/** Longest line of a rendered diagnostic before its middle is cut (a 1 MB expression is not echoed whole). */
export const MAX_LINE = 1_000;

/**
 * Cuts the middle out of every line longer than {@link MAX_LINE} characters, saying how long the line
 * was: `<start>… [1,000,024 characters; 920,024 not shown] …<end>`.
 */
export function clipLongLines(text: string): string {
  if (text.length <= MAX_LINE) return text;
  return text
    .split("\n")
    .map((line) => {
      if (line.length <= MAX_LINE) return line;
      const head = line.slice(0, 600);
      const tail = line.slice(-200);
      return `${head}… [${line.length.toLocaleString("en-US")} characters; ${(line.length - 800).toLocaleString("en-US")} not shown] …${tail}`;
    })
    .join("\n");
}

/** `file#doc: path: body`, or `file:line:col (#doc): path: body` when `pos` is given. */
export function renderFieldError(err: FieldError, pos?: Position, source: SourceRef | undefined = err.source): string {
  const msg = errorString(err);
  return source === undefined ? msg : `${formatLocation(source, pos)}: ${msg}`;
}

/** Same layout for a decoding issue. */
export function renderDecodeIssue(issue: DecodeIssue, pos?: Position, source: SourceRef | undefined = issue.source): string {
  const msg = decodeIssueText(issue);
  return source === undefined ? msg : `${formatLocation(source, pos)}: ${msg}`;
}
