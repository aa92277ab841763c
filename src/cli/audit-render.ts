/**
 * `celmap audit` output: the report (src/audit/report.ts) as text (the default), Markdown (a
 * pull-request comment: summary tables, denials, collapsed diffs), JSON or YAML.
 */
import { describePatchOp } from "../kyverno/index.js";
import type { PatchOperation } from "../admission/index.js";
import { missingShards, type AuditReport, type ObjectRef } from "../audit/report.js";
import type { Palette } from "./render/color.js";
import { toExactJson, toYaml } from "./render/serialize.js";

export type AuditOutput = "text" | "json" | "yaml" | "markdown";

export function refText(r: ObjectRef): string {
  return `${r.apiVersion} ${r.kind} ${r.namespace !== undefined ? `${r.namespace}/` : ""}${r.name}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function shardText(r: AuditReport): string {
  if (r.shard.count === 1) return "";
  const missing = missingShards(r);
  if (missing.length === 0) return `, all ${r.shard.count} shards`;
  return `, ${r.shard.indexes.length === 1 ? `shard ${r.shard.indexes[0]}/${r.shard.count}` : `shards ${r.shard.indexes.join(", ")} of ${r.shard.count}`}`;
}

function summary(r: AuditReport): string {
  const t = r.totals;
  return `${t.changed} of ${plural(t.objects, "object")} would change, ${t.unchanged} unchanged, ${t.denied} denied, ${t.invalid} invalid${r.errors.length > 0 ? `; ${plural(r.errors.length, "error")}` : ""}`;
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd());
}

export function renderText(r: AuditReport, p: Palette): string {
  const out: string[] = [];
  const scope = [r.scope.namespace !== undefined ? `namespace ${r.scope.namespace}` : "", r.scope.selector !== undefined ? `selector ${r.scope.selector}` : ""].filter((x) => x !== "").join(", ");
  out.push(p.bold(`Audit of ${r.cluster} (${r.operation}${scope !== "" ? `, ${scope}` : ""}${shardText(r)}): ${summary(r)}`));
  if (r.kinds.length > 0) {
    out.push("", p.bold("By resource:"));
    out.push(...table([["RESOURCE", "OBJECTS", "CHANGED", "UNCHANGED", "DENIED", "INVALID"], ...r.kinds.map((k) => [k.resource, String(k.objects), String(k.changed), String(k.unchanged), String(k.denied), String(k.invalid)])]).map((l) => `  ${l}`));
  } else if (r.resources.length === 0) out.push("", "No resource is matched by the policy set: nothing to audit.");
  if (r.policies.length > 0) {
    out.push("", p.bold("By policy:"));
    out.push(...table([["POLICY", "CHANGED", "DENIED"], ...r.policies.map((x) => [x.policy, String(x.changed), String(x.denied)])]).map((l) => `  ${l}`));
  }
  if (r.changes.length > 0) {
    out.push("", p.bold("Would change:"));
    for (const c of r.changes) {
      out.push(`  ${p.bold(refText(c.object))} ${p.dim(`(${c.policies.join(", ")})`)}`);
      for (const d of c.patch) out.push(`    ${p.green(describePatchOp(d as PatchOperation))}`);
    }
  }
  if (r.denials.length > 0) {
    out.push("", p.bold("Denied:"));
    for (const d of r.denials) out.push(`  ${p.bold(refText(d.object))}: ${p.red(d.stage === "validation" ? "invalid" : "denied")} (${d.code} ${d.reason}): ${d.message}`);
  }
  if (r.errors.length > 0) {
    out.push("", p.bold(p.red("Errors (not audited):")));
    for (const e of r.errors) out.push(`  ${e.object !== undefined ? `${refText(e.object)}: ` : ""}${e.message}`);
  }
  const missing = missingShards(r);
  if (r.shard.count > 1 && r.shard.indexes.length > 1 && missing.length > 0) out.push("", p.red(`Incomplete: shard${missing.length === 1 ? "" : "s"} ${missing.join(", ")} of ${r.shard.count} missing.`));
  return `${out.join("\n")}\n`;
}

function mdCell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

export function renderMarkdown(r: AuditReport): string {
  const t = r.totals;
  const out: string[] = [];
  out.push(`### celmap audit: ${t.changed} of ${plural(t.objects, "object")} would change, ${t.denied} denied, ${t.invalid} invalid`);
  out.push("", `${r.operation} of the existing objects in \`${r.cluster}\`${r.scope.namespace !== undefined ? ` (namespace \`${r.scope.namespace}\`)` : ""}${r.scope.selector !== undefined ? ` (selector \`${r.scope.selector}\`)` : ""}${shardText(r)}.`);
  if (r.kinds.length > 0) {
    out.push("", "| Resource | Objects | Changed | Unchanged | Denied | Invalid |", "| --- | ---: | ---: | ---: | ---: | ---: |");
    for (const k of r.kinds) out.push(`| \`${k.resource}\` | ${k.objects} | ${k.changed} | ${k.unchanged} | ${k.denied} | ${k.invalid} |`);
  }
  if (r.policies.length > 0) {
    out.push("", "| Policy | Changed | Denied |", "| --- | ---: | ---: |");
    for (const p of r.policies) out.push(`| \`${mdCell(p.policy)}\` | ${p.changed} | ${p.denied} |`);
  }
  if (r.denials.length > 0) {
    out.push("", "**Denied**", "");
    for (const d of r.denials) out.push(`- \`${refText(d.object)}\`: ${d.stage === "validation" ? "invalid" : "denied"} (${d.code} ${d.reason}): ${mdCell(d.message)}`);
  }
  if (r.changes.length > 0) {
    out.push("", `<details><summary>${plural(r.changes.length, "change")}</summary>`, "");
    for (const c of r.changes) {
      out.push(`**\`${refText(c.object)}\`** (${c.policies.map((x) => `\`${x}\``).join(", ")})`, "", "```diff");
      for (const d of c.patch) out.push(`${(d as PatchOperation).op === "remove" ? "-" : "+"} ${describePatchOp(d as PatchOperation)}`);
      out.push("```", "");
    }
    out.push("</details>");
  }
  if (r.errors.length > 0) {
    out.push("", "**Errors (not audited)**", "");
    for (const e of r.errors) out.push(`- ${e.object !== undefined ? `\`${refText(e.object)}\`: ` : ""}${mdCell(e.message)}`);
  }
  return `${out.join("\n")}\n`;
}

export function renderReport(r: AuditReport, output: AuditOutput, p: Palette): string {
  switch (output) {
    case "json":
      return `${toExactJson(r, 2)}\n`;
    case "yaml":
      return toYaml(r);
    case "markdown":
      return renderMarkdown(r);
    default:
      return renderText(r, p);
  }
}
