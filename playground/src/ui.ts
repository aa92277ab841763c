/**
 * The playground page: editors, views, gallery, URL state; all computing happens in the worker.
 * Loaded by main.ts once the worker has been started and the first evaluation sent.
 */
import { createEditor, type Editor } from "./editors.js";
import { findSample, SAMPLES } from "./gallery.js";
import { EMPTY, encodeState, type OutputTab, type State, type View } from "./state.js";
import { evalJob, initialState, sampleState, type Boot } from "./boot.js";
import type { Outcome } from "./worker-client.js";
import type { EditorName, EvalOutput, Problem } from "./engine.js";
import { problemText, renderResults } from "./render.js";

export function start(boot: Boot): void {
const worker = boot.worker;
let prefetched: { key: string; outcome: Promise<Outcome> } | undefined = boot.firstEval;

const $ = <T extends HTMLElement = HTMLElement>(sel: string): T => document.querySelector<T>(sel)!;
const $$ = (sel: string): HTMLElement[] => [...document.querySelectorAll<HTMLElement>(sel)];


let view: View = "eval";
let output: OutputTab = "admitted";
let input: string = "policies";
let loading = false;

const editors = new Map<EditorName | "celExpression", Editor>();
for (const name of ["policies", "namespaces", "resources", "oldObject", "gatekeeper", "celVars", "celExpression"] as const) {
  editors.set(name, createEditor($(`#ed-${name}`), { language: name === "celExpression" ? "cel" : "yaml", name, onChange: () => changed(name) }));
}
const ed = (n: EditorName | "celExpression"): Editor => editors.get(n)!;

function currentState(): State {
  return {
    view,
    output,
    policies: ed("policies").text(),
    namespaces: ed("namespaces").text(),
    resources: ed("resources").text(),
    operation: $<HTMLSelectElement>("#operation").value === "UPDATE" ? "UPDATE" : "CREATE",
    username: $<HTMLInputElement>("#username").value,
    groups: $<HTMLInputElement>("#groups").value,
    oldObject: ed("oldObject").text(),
    celExpression: ed("celExpression").text(),
    celEnv: $<HTMLSelectElement>("#cel-env").value as State["celEnv"],
    celVars: ed("celVars").text(),
    gatekeeper: ed("gatekeeper").text(),
  };
}

function applyState(s: State): void {
  loading = true;
  for (const n of ["policies", "namespaces", "resources", "oldObject", "gatekeeper", "celVars", "celExpression"] as const) ed(n).setText(s[n]);
  $<HTMLSelectElement>("#operation").value = s.operation;
  $<HTMLInputElement>("#username").value = s.username;
  $<HTMLInputElement>("#groups").value = s.groups;
  $<HTMLSelectElement>("#cel-env").value = s.celEnv;
  loading = false;
  showView(s.view);
  showOutput(s.output);
  showInput(s.policies.trim() === "" && s.resources.trim() !== "" ? "resources" : "policies");
  runAll();
}

function showView(v: View): void {
  view = v;
  for (const b of $$("[data-view]")) b.setAttribute("aria-selected", String(b.dataset["view"] === v));
  for (const m of $$("main.view")) m.hidden = m.id !== `view-${v}`;
  materializeVisible();
}
function showOutput(o: OutputTab): void {
  output = o;
  for (const b of $$("[data-output]")) b.setAttribute("aria-selected", String(b.dataset["output"] === o));
  for (const p of $$("pre[data-out]")) p.classList.toggle("shown", p.dataset["out"] === o);
}
function showInput(i: string): void {
  input = i;
  for (const b of $$("[data-input]")) b.setAttribute("aria-selected", String(b.dataset["input"] === i));
  for (const p of $$("[data-pane]")) p.hidden = p.dataset["pane"] !== i;
  materializeVisible();
}

/** Creates the views of the editors now on screen. */
function materializeVisible(): void {
  for (const [name, e] of editors) {
    const el = $(`#ed-${name}`);
    if (el.offsetParent !== null) e.materialize().requestMeasure();
  }
}

// ---- Running jobs.

const timers = new Map<string, ReturnType<typeof setTimeout>>();
function debounce(key: string, fn: () => void, ms = 200): void {
  clearTimeout(timers.get(key));
  timers.set(key, setTimeout(fn, ms));
}

function changed(name: EditorName | "celExpression" | "request"): void {
  if (loading) return;
  if (name === "celExpression" || name === "celVars") debounce("cel", runCel);
  else if (name === "gatekeeper") debounce("translate", runTranslate);
  else debounce("eval", runEval);
  debounce("url", () => void saveUrl(), 400);
}

async function saveUrl(): Promise<void> {
  history.replaceState(null, "", `#${await encodeState(currentState())}`);
}

let pending = 0;
function busy(delta: number): void {
  pending += delta;
  $("#busy").hidden = pending === 0;
}

function runAll(): void {
  runEval();
  runCel();
  runTranslate();
}

function problemItem(p: Problem): HTMLLIElement {
  const li = document.createElement("li");
  li.textContent = problemText(p);
  if (p.editor !== undefined) li.dataset["editor"] = p.editor;
  if (p.line !== undefined) li.dataset["line"] = String(p.line);
  if (p.editor !== undefined) {
    li.classList.add("link");
    li.addEventListener("click", () => {
      const pane = p.editor === "oldObject" ? "request" : p.editor!;
      if (view === "eval") showInput(pane);
      const v = ed(p.editor!).materialize();
      const line = v.state.doc.line(Math.min(p.line ?? 1, v.state.doc.lines));
      v.dispatch({ selection: { anchor: line.from }, scrollIntoView: true });
      v.focus();
    });
  }
  return li;
}

function showProblems(list: HTMLElement, problems: readonly Problem[], names: readonly EditorName[]): void {
  list.replaceChildren(...problems.map(problemItem));
  for (const n of names) ed(n).showProblems(problems.filter((p) => p.editor === n));
}

async function runEval(): Promise<void> {
  const s = currentState();
  const requestedAt = performance.now();
  busy(1);
  const job = evalJob(s);
  const key = JSON.stringify(job);
  const r = prefetched !== undefined && prefetched.key === key ? await prefetched.outcome : await worker.run(job);
  prefetched = undefined;
  busy(-1);
  if (!r.ok) {
    if (r.error === "superseded") return;
    renderEval({ problems: [], warnings: [], results: [] }, undefined);
    const summary = $("#summary");
    summary.textContent = r.error;
    summary.className = "summary bad";
    return;
  }
  window.celmapTimings ??= { workerLoaded: r.loadedAt - performance.timeOrigin, firstEvalMs: r.ms, requested: requestedAt };
  if (r.result.kind === "eval") renderEval(r.result.output, r.ms);
}

function renderEval(out: EvalOutput, ms: number | undefined): void {
  showProblems($("#problems"), out.problems, ["policies", "namespaces", "resources", "oldObject"]);
  renderResults(out, ms);
}

async function runCel(): Promise<void> {
  const s = currentState();
  busy(1);
  const r = await worker.run({ kind: "cel", input: { expression: s.celExpression, env: s.celEnv, vars: s.celVars } });
  busy(-1);
  const summary = $("#cel-summary");
  const result = $("#cel-result");
  if (!r.ok) {
    if (r.error === "superseded") return;
    summary.textContent = "error";
    summary.className = "summary bad";
    result.textContent = r.error;
    return;
  }
  if (r.result.kind !== "cel") return;
  const o = r.result.output;
  ed("celVars").showProblems(o.varsError !== undefined ? [o.varsError] : []);
  ed("celExpression").showProblems(o.error !== undefined ? [{ ...(o.line !== undefined ? { line: o.line } : {}), message: o.error }] : []);
  summary.className = o.ok ? "summary good" : "summary bad";
  summary.textContent = o.ok ? `ok${o.cost !== undefined ? `, cost ${o.cost}` : ""}` : o.varsError !== undefined ? "the variables do not parse" : `error${o.cost !== undefined ? ` (cost ${o.cost})` : ""}`;
  result.textContent = o.ok ? (o.value ?? "") : (o.error ?? o.varsError?.message ?? "");
}

async function runTranslate(): Promise<void> {
  const text = ed("gatekeeper").text();
  if (text.trim() === "") {
    $("#translate-problems").replaceChildren();
    $("#translate-verdicts").textContent = "";
    $("#translate-yaml").textContent = "";
    return;
  }
  busy(1);
  const r = await worker.run({ kind: "translate", input: text });
  busy(-1);
  if (!r.ok) {
    if (r.error !== "superseded") showProblems($("#translate-problems"), [{ message: r.error }], ["gatekeeper"]);
    return;
  }
  if (r.result.kind !== "translate") return;
  const o = r.result.output;
  showProblems($("#translate-problems"), o.problems, ["gatekeeper"]);
  $("#translate-verdicts").textContent = o.verdicts;
  $("#translate-yaml").textContent = o.yaml;
}

// ---- Wiring.

for (const b of $$("[data-view]")) b.addEventListener("click", () => {
  showView(b.dataset["view"] as View);
  debounce("url", () => void saveUrl(), 0);
});
for (const b of $$("[data-output]")) b.addEventListener("click", () => showOutput(b.dataset["output"] as OutputTab));
for (const b of $$("[data-input]")) b.addEventListener("click", () => showInput(b.dataset["input"]!));
for (const id of ["#operation", "#username", "#groups"]) $(id).addEventListener("input", () => changed("request"));
$("#cel-env").addEventListener("change", () => changed("celExpression"));

const gallery = $<HTMLSelectElement>("#gallery");
for (const s of SAMPLES) gallery.append(new Option(s.title, s.name));
gallery.addEventListener("change", () => {
  if (gallery.value === "") return;
  openSample(gallery.value);
  history.replaceState(null, "", `#example=${gallery.value}`);
});

function openSample(name: string): boolean {
  const s = findSample(name);
  if (s === undefined) return false;
  gallery.value = name;
  $("#about").textContent = s.about;
  applyState(sampleState(name)!);
  return true;
}

$("#share").addEventListener("click", async () => {
  await saveUrl();
  try {
    await navigator.clipboard.writeText(location.href);
    $("#share").textContent = "Link copied";
  } catch {
    $("#share").textContent = "Link in the address bar";
  }
  setTimeout(() => ($("#share").textContent = "Copy link"), 2000);
});

async function openFragment(): Promise<void> {
  openInitial(await initialState());
}

function openInitial(init: Awaited<ReturnType<typeof initialState>>): void {
  if (init.sample !== undefined) {
    openSample(init.sample);
    if (init.message !== undefined) $("#about").textContent = init.message;
    return;
  }
  gallery.value = "";
  $("#about").textContent = init.message ?? "";
  applyState(init.state);
}

window.addEventListener("hashchange", () => void openFragment());
openInitial(boot.initial);
window.celmapState = currentState;
// The editors and controls are live (the first result may have been shown before, by main.ts).
document.body.dataset["ready"] = "true";

}
