/**
 * The Gatekeeper → MAP view: mutators validated as Gatekeeper does and translated as
 * `celmap translate` does (src/translate/gatekeeper), with one verdict line per mutator.
 */
import { compileMutator, translate, type Verdict } from "../../src/translate/gatekeeper/index.js";
import { formatSourceRef } from "../../src/diag/source.js";
import { toJsonNumbers, type LoadedDocument } from "../../src/io/load.js";

/** The documents as plain JSON mutators, and the problems (`file#doc: field.path: message`). */
export function checkMutators(docs: readonly LoadedDocument[]): { mutators: unknown[]; errors: string[] } {
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

/** `Assign/x: exact`, or one line per reason (`difference at path: why`, `refused at path: why`), then notes. */
export function formatVerdict(v: Verdict): string {
  const head = `${v.mutator}: `;
  const lines: string[] = [];
  if (v.verdict === "exact" || v.reasons.length === 0) lines.push(`${head}${v.verdict}`);
  for (const r of v.reasons) lines.push(`${head}${v.verdict === "refused" ? "refused" : "difference"}${r.path !== "" ? ` at ${r.path}` : ""}: ${r.message}`);
  for (const n of v.notes) lines.push(`  note: ${n}`);
  return `${lines.join("\n")}\n`;
}

export { translate };
