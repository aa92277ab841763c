/**
 * One resource document of `celmap eval`, admitted and rendered: the engine's `admit` on the
 * request, then the text the chosen output gives it (YAML document, diff, patch line, JSON element,
 * Markdown row), the trace and messages for stderr, and what to count. Pure text out, so it runs the
 * same in the main thread and on a worker thread; the main thread writes outcomes in input order.
 */
import { jsonDiff, type JsonObject } from "../../admission/index.js";
import type { LoadedDocument } from "../../io/load.js";
import { parseChunk, type Chunk, type ParseCounters } from "../../io/stream/chunk.js";
import { formatLoadError } from "../../io/parse.js";
import { admit, unknownKind, validateAdmission, type Admission, type AdmitOptions, type ObjectRequest, type PolicySet } from "../../engine/index.js";
import { palette, type Palette } from "../render/color.js";
import { renderDiff } from "../render/diff.js";
import { toExactJson, toYaml } from "../render/serialize.js";
import { describeObject, objectProblem, where } from "../render/session.js";
import { renderTrace } from "../render/trace.js";
import { gatekeeperEvaluation } from "../commands/translate.js";
import { identity, type EvalContext } from "./context.js";
import { existingJson, renderExistingTrace, runMutateExisting } from "./existing.js";

/** What one document (or chunk of documents) gives. */
export interface Outcome {
  /** stdout / stderr text, in the order written: `out` stdout, `doc` a YAML document for stdout (the writer puts `---` between documents), `err` stderr. */
  readonly writes: { readonly fd: "out" | "doc" | "err"; readonly text: string }[];
  /** -o json: each result as its JSON text (indented as an element of the top-level array). */
  readonly json: string[];
  /** -o markdown: a row per resource. */
  readonly rows: MarkdownRow[];
  resources: number;
  changed: number;
  denied: number;
  ignored: number;
  /** Input errors (a malformed document, an unknown kind, …): the run exits 2. */
  inputErrors: number;
  /** A celmap bug while evaluating (exit 3). */
  internal: number;
}

export interface MarkdownRow {
  readonly source: string;
  readonly object: string;
  readonly status: "changed" | "unchanged" | "denied" | "invalid";
  readonly policies: readonly string[];
  /** Denied/invalid: the message; changed: the diff (no colour). */
  readonly detail?: string;
}

export function newOutcome(): Outcome {
  return { writes: [], json: [], rows: [], resources: 0, changed: 0, denied: 0, ignored: 0, inputErrors: 0, internal: 0 };
}

/** A chunk of a resource stream: parsed (fast path first), each document evaluated. */
export function evaluateChunk(ctx: EvalContext, chunk: Chunk, counters?: ParseCounters): Outcome {
  const out = newOutcome();
  const errColor = palette(ctx.settings.colorErr);
  const r = parseChunk(chunk, { numbers: "cel" }, counters);
  const failed = new Set<number>();
  for (const e of r.errors) {
    failed.add(e.docIndex ?? chunk.docIndex);
    out.writes.push({ fd: "err", text: `${errColor.red("error")}: ${formatLoadError(e)} (document #${e.docIndex ?? chunk.docIndex} of ${e.file})${e.excerpt !== undefined ? `\n${e.excerpt.replace(/^/gm, "    ")}` : ""}\n` });
  }
  out.inputErrors += failed.size;
  for (const d of r.documents) evaluateDocument(ctx, d, out);
  return out;
}

/** One resource document into `out`. */
export function evaluateDocument(ctx: EvalContext, d: LoadedDocument, out: Outcome): void {
  const { settings, session, gk } = ctx;
  const { spec, admitOptions, operation, trace, failOnError, output } = settings;
  const outColor = palette(settings.colorOut);
  const errColor = palette(settings.colorErr);
  const err = (text: string) => out.writes.push({ fd: "err", text });
  const std = (text: string) => out.writes.push({ fd: "out", text });
  const inputError = (text: string) => {
    out.inputErrors++;
    err(`${errColor.red("error")}: ${text}\n`);
  };
  const p = objectProblem(d);
  if (p !== undefined) return inputError(p);
  const object = d.value as JsonObject;
  const source = where(d.source);
  const k = unknownKind(session, object);
  if (k !== undefined) return inputError(`${source}: ${k}`);
  let old: JsonObject | undefined;
  if (operation === "UPDATE") {
    old = ctx.olds.get(identity(object));
    if (old === undefined) return inputError(`${source}: no old object for ${describeObject(object)} in --old (matched by kind, namespace and name)`);
  }
  const reqSpec: ObjectRequest = { ...spec, object, ...(old !== undefined ? { oldObject: old } : {}) };
  const ev: Admission =
    gk.system === undefined
      ? admit(session, reqSpec, admitOptions)
      : validated(session, gatekeeperEvaluation(gk.system, admit({ ...session, policies: [], bindings: [] }, reqSpec, { ...admitOptions, validate: false }), session.namespaces, spec.userInfo?.username), admitOptions);
  if (!ev.ok) return inputError(`${source}: ${ev.error.message}`);
  out.resources++;
  const r = ev.result;
  const input = ev.input!;
  const label = describeObject(input);
  // The stage that rejected the request (the engine's): admission (a policy, or a status admission answered) or validation (422 before storage).
  const rejectedBy = !r.allowed ? "admission" : ev.stage;
  const validationStatus = ev.validation !== undefined && !ev.validation.ok ? ev.validation.status : undefined;
  const allowed = rejectedBy === undefined;
  if (trace) {
    const u = spec.userInfo;
    const userText = u !== undefined ? `${u.username ?? ""}${(u.groups ?? []).length > 0 ? ` [${(u.groups ?? []).join(", ")}]` : ""}` : "";
    err(renderTrace({ source, resource: label, operation, user: userText }, r, errColor));
    if (ev.validation !== undefined) {
      err(
        ev.validation.ok
          ? `  validation: ${ev.validation.unchecked !== undefined ? errColor.dim(`not checked (${ev.validation.unchecked})`) : errColor.green("valid")} — the object the apiserver would store\n`
          : `  validation: ${errColor.red("rejected")} (${ev.validation.status.code} ${ev.validation.status.reason}) — the apiserver would not store the admitted object\n${ev.validation.status.details.causes.map((c) => `    ${c.field}: ${c.message}\n`).join("")}`,
      );
    }
    for (const n of ev.bareNamespaces) {
      err(`  note: namespace ${JSON.stringify(n)} was not given with -f: seen as a bare Namespace (only the kubernetes.io/metadata.name label, finalizer kubernetes, phase Active)\n`);
    }
    err("\n");
  }
  // A namespaceSelector that did not select the request only because its namespace was not given
  // (seen bare, with its name label alone) changes the outcome: said without --trace.
  if (!trace && ev.bareNamespaces.length > 0) {
    for (const e of r.trace.passes[0]?.selection ?? []) {
      if (e.ok || !e.reason.startsWith("namespaceSelector")) continue;
      const who = e.binding !== undefined ? `policy ${e.policy}, binding ${e.binding}` : `policy ${e.policy}`;
      err(
        `${errColor.yellow("warning")}: ${source} (${label}): ${who}: ${e.reason}; namespace ${ev.bareNamespaces.map((n) => JSON.stringify(n)).join(", ")} was not given with -f, so it is seen bare, with only its kubernetes.io/metadata.name label (give the Namespace with -f)\n`,
      );
    }
  }
  const existing = allowed && ctx.existingPolicies.length > 0 ? runMutateExisting(session, ctx.existingPolicies, ev, ctx.targets, spec, admitOptions) : [];
  if (trace && existing.length > 0) err(renderExistingTrace(source, existing, errColor));
  for (const x of existing) for (const e of x.errors) {
    out.ignored++;
    err(`${errColor.yellow(failOnError ? "error" : "warning")}: ${source} (${label}): mutateExisting ${x.policy}: ${e}\n`);
  }
  for (const e of r.ignoredErrors) {
    out.ignored++;
    err(`${errColor.yellow(failOnError ? "error" : "warning")}: ${source} (${label}): ignored by failurePolicy Ignore: ${e}\n`);
  }
  let status: MarkdownRow["status"] = "unchanged";
  let detail: string | undefined;
  if (!r.allowed) {
    out.denied++;
    status = "denied";
    const s = r.status!;
    detail = `Error from server (${s.reason}): ${s.message}`;
    err(`${errColor.red("denied")}: ${source} (${label}): ${detail}\n`);
    for (const c of (s.causes ?? []).slice(1)) err(`  also: ${c.message}\n`);
  } else if (validationStatus !== undefined) {
    out.denied++;
    status = "invalid";
    detail = `Error from server (${validationStatus.reason}): ${validationStatus.message}`;
    err(`${errColor.red("invalid")}: ${source} (${label}): admitted, then rejected by validation: ${detail}\n`);
  } else if (r.patch.length > 0) {
    out.changed++;
    status = "changed";
  }
  switch (output) {
    case "yaml":
      if (allowed && r.object !== null) out.writes.push({ fd: "doc", text: toYaml(r.object) });
      break;
    case "patch":
      std(`${allowed ? toExactJson(r.patch) : "null"}\n`);
      break;
    case "diff":
      std(renderResourceDiff(source, label, input, allowed ? r.object : null, outColor, rejectedBy));
      break;
    case "json":
      out.json.push(
        toExactJson(
          {
            source,
            resource: { apiVersion: input.apiVersion, kind: input.kind, namespace: ev.request.namespace, name: ev.request.name },
            operation,
            allowed,
            ...(rejectedBy !== undefined ? { stage: rejectedBy } : {}),
            object: allowed ? r.object : null,
            patch: r.patch,
            ...(r.status !== undefined ? { status: r.status } : validationStatus !== undefined ? { status: validationStatus } : {}),
            ignoredErrors: r.ignoredErrors,
            reinvoked: r.reinvoked,
            ...(existing.length > 0 ? { mutateExisting: existing.map(existingJson) } : {}),
            ...(trace ? { trace: r.trace } : {}),
          },
          2,
        ).replace(/\n/g, "\n  "),
      );
      break;
    case "markdown":
      if (status === "changed" && r.object !== null) detail = renderDiff(toYaml(input), toYaml(r.object), palette(false));
      out.rows.push({ source, object: label, status, policies: changedBy(ev), ...(detail !== undefined ? { detail } : {}) });
      break;
  }
}

/** The policies (and webhook stages) that changed the object, in the order they ran. */
function changedBy(ev: Extract<Admission, { ok: true }>): string[] {
  const names: string[] = [];
  for (const pass of ev.result.trace.passes) {
    for (const inv of pass.invocations) if (inv.changed && !names.includes(inv.policy)) names.push(inv.policy);
    for (const w of pass.webhooks ?? []) if (w.changed && !names.includes(w.name)) names.push(w.name);
  }
  return names;
}

/** With validation on, the validation of the object Gatekeeper's mutators produced (not of the one before them). */
function validated(session: PolicySet, ev: Admission, options: AdmitOptions): Admission {
  return options.validate === true ? validateAdmission(session, ev) : ev;
}

export function renderResourceDiff(source: string, label: string, before: JsonObject, after: JsonObject | null, p: Palette, rejectedBy?: "admission" | "validation"): string {
  const head = `${p.bold(label)} ${p.dim(`(${source})`)}`;
  if (after === null) return `${head}: ${p.red(rejectedBy === "validation" ? "invalid (rejected by validation)" : "denied")}\n\n`;
  const d = renderDiff(toYaml(before), toYaml(after), p);
  if (d === "") return `${head}: ${p.dim("unchanged")}\n\n`;
  return `${head}:\n${d}\n`;
}

/** Whether a mutateExisting target changed (for the summary and --exit-code). */
export function targetChanged(t: { readonly original: JsonObject; readonly object: JsonObject; readonly runs: readonly string[] }): boolean {
  return t.runs.length > 0 && jsonDiff(t.original, t.object).length > 0;
}
