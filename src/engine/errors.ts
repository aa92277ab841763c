/** Rendering engine errors: `file#doc: field.path: message` (`<input>` when there is no document). */
import { formatSourceRef } from "../diag/source.js";
import type { EngineError } from "./types.js";

export function errorText(e: EngineError): string {
  return e.source === undefined ? e.message : `${formatSourceRef(e.source)}: ${e.message}`;
}
