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
