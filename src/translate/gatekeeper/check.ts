/**
 * `checkMutators`: loaded documents validated as Gatekeeper validates mutators, the step before
 * `translate` that `celmap translate` and the playground share.
 */
import { formatSourceRef, type SourceRef } from "../../diag/source.js";
import { toJsonNumbers } from "../../io/numbers.js";
import { compileMutator } from "../../gatekeeper/index.js";

/** The documents as plain JSON mutators (for `translate`), and the problems as `file#doc: field.path: message`. */
export function checkMutators(docs: readonly { readonly value: unknown; readonly source: SourceRef }[]): { mutators: unknown[]; errors: string[] } {
  const mutators: unknown[] = [];
  const errors: string[] = [];
  for (const d of docs) {
    const v = toJsonNumbers(d.value);
    const c = compileMutator(v);
    if (!c.ok) {
      for (const i of c.issues) {
        const path = i.path.toString();
        errors.push(`${formatSourceRef(d.source)}: ${path !== "" ? `${path}: ` : ""}${i.message}`);
      }
      continue;
    }
    mutators.push(v);
  }
  return { mutators, errors };
}
