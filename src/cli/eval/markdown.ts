/**
 * `celmap eval -o markdown`: a preview for a pull-request comment. A summary line, a table (object,
 * the policies that changed it, changed/unchanged/denied), and each change as a collapsed diff
 * (`<details>`). Bounded: GitHub comments hold 65,536 characters, so past a budget of rows and diff
 * text the rest is counted, not printed (the counts always cover every object).
 */
import type { MarkdownRow } from "./evaluate.js";

const MAX_ROWS = 200;
const MAX_DETAIL_CHARS = 40_000;

export class MarkdownReport {
  private readonly rows: MarkdownRow[] = [];
  private readonly counts = { changed: 0, unchanged: 0, denied: 0, invalid: 0 };
  private detailChars = 0;
  private omittedRows = 0;

  add(row: MarkdownRow): void {
    this.counts[row.status]++;
    // Unchanged objects are counted only: the table lists what a reviewer has to look at.
    if (row.status === "unchanged") return;
    const size = (row.detail ?? "").length;
    if (this.rows.length >= MAX_ROWS || this.detailChars + size > MAX_DETAIL_CHARS) {
      this.omittedRows++;
      return;
    }
    this.detailChars += size;
    this.rows.push(row);
  }

  render(extra: { readonly inputErrors: number; readonly ignored: number }): string {
    const c = this.counts;
    const total = c.changed + c.unchanged + c.denied + c.invalid;
    const lines: string[] = ["### celmap eval", ""];
    lines.push(
      `**${total}** object${total === 1 ? "" : "s"}: **${c.changed}** changed, ${c.unchanged} unchanged, **${c.denied}** denied, **${c.invalid}** invalid after admission` +
        `${extra.ignored > 0 ? `, ${extra.ignored} ignored policy error${extra.ignored === 1 ? "" : "s"}` : ""}` +
        `${extra.inputErrors > 0 ? `, **${extra.inputErrors} input error${extra.inputErrors === 1 ? "" : "s"}** (see the job log)` : ""}.`,
      "",
    );
    if (this.rows.length > 0) {
      lines.push("| object | source | policies that changed it | result |", "|---|---|---|---|");
      for (const r of this.rows) lines.push(`| ${cell(r.object)} | ${cell(r.source)} | ${cell(r.policies.join(", ") || "—")} | ${RESULT[r.status]} |`);
      if (this.omittedRows > 0) lines.push("", `… and ${this.omittedRows} more changed or rejected object${this.omittedRows === 1 ? "" : "s"} (run \`celmap eval\` locally for all of them).`);
      lines.push("");
      for (const r of this.rows) {
        if (r.detail === undefined) continue;
        const fence = r.detail.includes("```") ? "~~~~" : "```";
        lines.push(
          "<details>",
          `<summary>${html(r.object)} (${html(r.source)}): ${RESULT[r.status]}</summary>`,
          "",
          `${fence}${r.status === "changed" ? "diff" : ""}`,
          r.detail.replace(/\n$/, ""),
          fence,
          "",
          "</details>",
          "",
        );
      }
    }
    return `${lines.join("\n").replace(/\n+$/, "")}\n`;
  }
}

const RESULT: Record<MarkdownRow["status"], string> = { changed: "changed", unchanged: "unchanged", denied: "**denied**", invalid: "**invalid**" };

function cell(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function html(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
