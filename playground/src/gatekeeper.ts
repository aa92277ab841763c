/**
 * The Gatekeeper → MAP view: mutators validated as Gatekeeper does and translated as
 * `celmap translate` does (src/translate/gatekeeper), with one verdict line per mutator.
 */
import { checkMutators, translate, type Verdict } from "../../src/translate/gatekeeper/index.js";

/** `Assign/x: exact`, or one line per reason (`difference at path: why`, `refused at path: why`), then notes. */
export function formatVerdict(v: Verdict): string {
  const head = `${v.mutator}: `;
  const lines: string[] = [];
  if (v.verdict === "exact" || v.reasons.length === 0) lines.push(`${head}${v.verdict}`);
  for (const r of v.reasons) lines.push(`${head}${v.verdict === "refused" ? "refused" : "difference"}${r.path !== "" ? ` at ${r.path}` : ""}: ${r.message}`);
  for (const n of v.notes) lines.push(`  note: ${n}`);
  return `${lines.join("\n")}\n`;
}

export { checkMutators, translate };
