/**
 * Evaluation results into the page's output elements (plain DOM, no editor code): main.ts shows the
 * first result with it before the editors have loaded; ui.ts uses it for every later one.
 */
import type { EvalOutput, Problem } from "./engine.js";

const $ = <T extends HTMLElement = HTMLElement>(sel: string): T => document.querySelector<T>(sel)!;

export function problemText(p: Problem): string {
  return p.line !== undefined && p.editor !== undefined ? `${p.editor}:${p.line}: ${p.message}` : p.message;
}

/** Everything but the problem list (ui.ts makes its items links into the editors). */
export function renderResults(out: EvalOutput, ms: number | undefined): void {
  window.celmapFirstResult ??= performance.now();
  $("#warnings").replaceChildren(...out.warnings.map((w) => Object.assign(document.createElement("li"), { textContent: `warning: ${w}` })));
  const results = out.results;
  const admitted = results.filter((r) => r.allowed);
  $("[data-testid=admitted]").textContent = admitted.map((r) => r.admittedYaml).join("---\n");
  $("[data-testid=diff]").replaceChildren(...results.flatMap((r) => diffBlock(r.label, r.source, r.allowed ? r.diff : null)));
  $("[data-testid=patch]").textContent = results.map((r) => `# ${r.label}\n${r.patch}\n`).join("\n");
  $("[data-testid=trace]").textContent = results.map((r) => r.trace).join("\n");
  $("[data-testid=json]").textContent = `[\n${results.map((r) => r.json.replace(/^/gm, "  ")).join(",\n")}\n]`;
  const summary = $("#summary");
  summary.replaceChildren();
  if (out.problems.length > 0) {
    summary.textContent = `${out.problems.length} input error${out.problems.length === 1 ? "" : "s"}; nothing evaluated`;
    summary.className = "summary bad";
    return;
  }
  const changedN = results.filter((r) => r.allowed && r.patch !== "[]").length;
  const denied = results.filter((r) => !r.allowed);
  summary.className = denied.length > 0 ? "summary bad" : "summary good";
  summary.append(
    `${results.length} resource${results.length === 1 ? "" : "s"}: ${changedN} mutated, ${results.length - changedN - denied.length} unchanged, ${denied.length} denied` +
      (ms !== undefined ? ` (${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms)` : ""),
  );
  for (const d of denied) {
    const p = document.createElement("div");
    p.className = "denied";
    p.dataset["testid"] = "denied";
    p.textContent = `denied: ${d.label}: ${d.status ?? ""}`;
    summary.append(p);
  }
  for (const r of results) for (const e of r.ignoredErrors) summary.append(Object.assign(document.createElement("div"), { className: "ignored", textContent: `ignored (failurePolicy Ignore): ${r.label}: ${e}` }));
}

function diffBlock(label: string, source: string, diff: string | null): Node[] {
  const head = document.createElement("div");
  head.className = "diff-head";
  head.textContent = `${label} (${source}): ${diff === null ? "denied" : diff === "" ? "unchanged" : ""}`;
  if (diff === null || diff === "") return [head];
  const body = diff.split("\n").map((l) => {
    const s = document.createElement("span");
    s.className = l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : l.startsWith("@@") ? "hunk" : "";
    s.textContent = `${l}\n`;
    return s;
  });
  return [head, ...body];
}

/** The problem list as plain text items (before the editors exist). */
export function renderProblemsText(problems: readonly Problem[]): void {
  $("#problems").replaceChildren(...problems.map((p) => Object.assign(document.createElement("li"), { textContent: problemText(p) })));
}
