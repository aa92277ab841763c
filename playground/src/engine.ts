/**
 * The playground's ONE door into celmap: everything the page computes goes through here, in the
 * Web Worker. Evaluation is celmap's engine (src/engine `load` + `admit`, what `celmap eval` runs),
 * the CEL scratchpad is `celmap cel` (src/cli/environment.ts over src/cel), the Gatekeeper view
 * `celmap translate` (src/translate/gatekeeper), on text from the editors instead of files.
 *
 * Browser-safety: YAML is read with `parseDocuments` (src/io/parse.ts, text only; the file readers
 * are in src/io/load.ts, which the page never imports: the build check fails if it does).
 */
import type { JsonObject, Operation } from "../../src/admission/index.js";
import { formatLoadError, parseDocuments, type LoadedDocument } from "../../src/io/parse.js";
import { admit, errorText, load as loadPolicySet, objectProblem, unknownKind, type ObjectRequest } from "../../src/engine/index.js";
import { formatSourceRef, type SourceRef } from "../../src/diag/source.js";
import { toExactJson, toYaml } from "../../src/cli/render/serialize.js";
import { renderTrace } from "../../src/cli/render/trace.js";
import { renderDiff } from "../../src/cli/render/diff.js";
import { palette } from "../../src/cli/render/color.js";
import { checkMutators, formatVerdict, translate } from "./gatekeeper.js";
import { cliEnv, defaultBindings } from "../../src/cli/environment.js";
import { CelCompileError, CelEvalError, formatIssues, locate } from "../../src/cel/errors.js";
import { CelCostLimitError, PER_CALL_LIMIT } from "../../src/cel/cost-runtime.js";
import { fromJson, type CelValue } from "../../src/cel/index.js";
import type { KubernetesEnvKind } from "../../src/admission/environment.js";
import { toJsonText } from "../../src/cli/json-out.js";
import type { PathSegment } from "../../src/diag/field-path.js";

/** The editors whose text is input; their names are the "files" errors point at. */
export type EditorName = "policies" | "namespaces" | "resources" | "oldObject" | "gatekeeper" | "celVars";

export interface EvalInput {
  readonly policies: string;
  readonly namespaces: string;
  readonly resources: string;
  readonly operation: Operation;
  readonly username: string;
  readonly groups: string;
  /** The existing objects for UPDATE (matched to each resource by kind, namespace and name). */
  readonly oldObject: string;
}

/** A problem with the input, placed in its editor when we know where. */
export interface Problem {
  readonly editor?: EditorName;
  /** 1-based line in that editor. */
  readonly line?: number;
  readonly message: string;
}

export interface ResourceResult {
  readonly label: string;
  readonly source: string;
  readonly allowed: boolean;
  /** The admitted object as `celmap eval -o yaml` prints it; "" when denied. */
  readonly admittedYaml: string;
  /** `celmap eval -o json`'s record for this resource, exact integers. */
  readonly json: string;
  readonly diff: string;
  readonly patch: string;
  readonly trace: string;
  readonly status?: string;
  readonly ignoredErrors: readonly string[];
}

export interface EvalOutput {
  readonly problems: readonly Problem[];
  readonly warnings: readonly string[];
  readonly results: readonly ResourceResult[];
}

const plain = palette(false);

function load(text: string, file: EditorName, problems: Problem[]): LoadedDocument[] {
  const r = parseDocuments(text, file, { numbers: "cel" });
  for (const e of r.errors) problems.push({ editor: file, ...(e.line !== undefined ? { line: e.line } : {}), message: formatLoadError(e) });
  return r.documents;
}

/** `a.b[0].c[key]` → segments; undefined when the text is not a field path. */
export function parsePath(text: string): PathSegment[] | undefined {
  if (!/^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*|\[[^\]]*\])*$/.test(text)) return undefined;
  const out: PathSegment[] = [];
  for (const m of text.matchAll(/\.?([A-Za-z_$][\w$-]*)|\[([^\]]*)\]/g)) {
    if (m[1] !== undefined) out.push({ kind: "field", name: m[1] });
    else if (/^\d+$/.test(m[2]!)) out.push({ kind: "index", index: Number(m[2]) });
    else out.push({ kind: "key", key: m[2]! });
  }
  return out;
}

/**
 * Places a message of the form `editor#doc[.items[i]]: field.path: …` at its line: the line of the
 * field, and for a CEL error (`<input>:L:C`) the line of the expression inside the field.
 */
export function placeMessage(message: string, docs: ReadonlyMap<string, readonly LoadedDocument[]>, texts: ReadonlyMap<string, string>): Problem {
  const m = /^(\w+)#(\d+)(?:\.items\[(\d+)\])?: (.*)$/s.exec(message);
  if (m === null) return { message };
  const editor = m[1] as EditorName;
  const list = docs.get(editor);
  if (list === undefined) return { message };
  const doc = list.find((d) => d.source.docIndex === Number(m[2]) && (m[3] === undefined ? d.source.itemIndex === undefined : d.source.itemIndex === Number(m[3])));
  if (doc === undefined) return { editor, message };
  const rest = m[4]!;
  const colon = rest.indexOf(": ");
  const path = colon > 0 ? parsePath(rest.slice(0, colon)) : undefined;
  let line = doc.source.line;
  if (path !== undefined) {
    const pos = doc.locate(path);
    if (pos !== undefined) {
      line = pos.line;
      const cel = /<input>:(\d+):(\d+)/.exec(rest);
      if (cel !== null) line = celErrorLine(texts.get(editor), line, valueAt(doc.value, path), Number(cel[1]), Number(cel[2]));
    }
  }
  return { editor, ...(line !== undefined ? { line } : {}), message };
}

/** The value at `path` in a document, if there is one. */
function valueAt(v: unknown, path: readonly PathSegment[]): unknown {
  for (const seg of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = seg.kind === "index" ? (Array.isArray(v) ? v[seg.index] : undefined) : (v as Record<string, unknown>)[seg.kind === "field" ? seg.name : seg.key];
  }
  return v;
}

/**
 * The editor line of a CEL error at `<input>:celLine:celColumn` in `expression`, the value of the
 * field whose key is on `keyLine`. Inline: the key's line plus the expression's line. A block scalar
 * (`|` or `>`; folding joins lines): each block line's text is found in order in the expression, and
 * the error's offset falls in one of them.
 */
export function celErrorLine(text: string | undefined, keyLine: number, expression: unknown, celLine: number, celColumn: number): number {
  const lines = text?.split("\n") ?? [];
  const key = lines[keyLine - 1];
  if (key === undefined || !/:\s*[|>][-+0-9]*\s*(#.*)?$/.test(key) || typeof expression !== "string") return keyLine + celLine - 1;
  const exprLines = expression.split("\n");
  let offset = celColumn - 1;
  for (let i = 0; i < celLine - 1 && i < exprLines.length; i++) offset += exprLines[i]!.length + 1;
  const keyIndent = /^\s*/.exec(key)![0].length;
  let cursor = 0;
  let found = keyLine + 1;
  for (let line = keyLine + 1; line <= lines.length; line++) {
    const l = lines[line - 1]!;
    const content = l.trim();
    if (content === "") continue;
    if (/^\s*/.exec(l)![0].length <= keyIndent) break;
    const at = expression.indexOf(content, cursor);
    if (at < 0 || at > offset) break;
    found = line;
    cursor = at + content.length;
  }
  return found;
}

function identity(o: JsonObject): string {
  const md = (o.metadata ?? {}) as JsonObject;
  const apiVersion = String(o.apiVersion ?? "");
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return `${group}/${String(o.kind)}/${String(md.namespace ?? "")}/${String(md.name ?? "")}`;
}

function where(source: SourceRef | undefined): string {
  return source === undefined ? "<input>" : formatSourceRef(source);
}

/** `v1 Pod default/web`, as `celmap eval` names objects. */
function describeObject(o: JsonObject): string {
  const md = (o.metadata ?? {}) as JsonObject;
  const ns = typeof md.namespace === "string" ? md.namespace : "";
  const name = typeof md.name === "string" ? md.name : typeof md.generateName === "string" ? md.generateName : "<no name>";
  return `${String(o.apiVersion ?? "?")} ${String(o.kind ?? "?")} ${ns !== "" ? `${ns}/` : ""}${name}`;
}

/** `celmap eval` on the editors' text, through the engine. Never throws for bad input. */
export function evaluatePlayground(input: EvalInput): EvalOutput {
  const problems: Problem[] = [];
  const errors: string[] = [];
  const docs = new Map<string, LoadedDocument[]>();
  const policyDocs = load(input.policies, "policies", problems);
  const nsDocs = load(input.namespaces, "namespaces", problems);
  const resourceDocs = load(input.resources, "resources", problems);
  const oldDocs = input.operation === "UPDATE" ? load(input.oldObject, "oldObject", problems) : [];
  docs.set("policies", policyDocs).set("namespaces", nsDocs).set("resources", resourceDocs).set("oldObject", oldDocs);
  const texts = new Map<string, string>([["policies", input.policies], ["namespaces", input.namespaces], ["resources", input.resources], ["oldObject", input.oldObject]]);

  // As `celmap eval -f`: the documents are the whole cluster; Gatekeeper mutators are translated at load.
  const built = loadPolicySet([...policyDocs, ...nsDocs], { closedWorld: true });
  errors.push(...built.errors.map(errorText));
  const set = built.policySet;
  const problemOf = (d: LoadedDocument): string | undefined => {
    const p = objectProblem(d.value);
    return p === undefined ? undefined : `${where(d.source)}: ${p}`;
  };
  const olds = new Map<string, JsonObject>();
  for (const d of oldDocs) {
    const p = problemOf(d);
    if (p !== undefined) errors.push(p);
    else olds.set(identity(d.value as JsonObject), d.value as JsonObject);
  }
  const items: { source: string; object: JsonObject; old?: JsonObject }[] = [];
  for (const d of resourceDocs) {
    const p = problemOf(d);
    if (p !== undefined) {
      errors.push(p);
      continue;
    }
    const object = d.value as JsonObject;
    const k = unknownKind(set, object);
    if (k !== undefined) {
      errors.push(`${where(d.source)}: ${k}`);
      continue;
    }
    let old: JsonObject | undefined;
    if (input.operation === "UPDATE") {
      old = olds.get(identity(object));
      if (old === undefined) {
        errors.push(`${where(d.source)}: no old object for ${describeObject(object)} in the old objects (matched by kind, namespace and name)`);
        continue;
      }
    }
    items.push({ source: where(d.source), object, ...(old !== undefined ? { old } : {}) });
  }
  if (resourceDocs.length === 0 && errors.length === 0 && problems.length === 0) problems.push({ editor: "resources", message: "resources: no resources (give one or more YAML documents)" });
  for (const e of errors) problems.push(placeMessage(e, docs, texts));
  const warnings = [...built.warnings, ...set.gatekeeper.verdicts.filter((v) => v.verdict !== "exact").map((v) => formatVerdict(v).trimEnd())];
  if (problems.length > 0) return { problems, warnings, results: [] };

  const groups = input.groups.split(",").map((g) => g.trim()).filter((g) => g !== "");
  const userInfo = input.username !== "" || groups.length > 0 ? { username: input.username, groups } : undefined;
  const userText = userInfo !== undefined ? `${userInfo.username}${groups.length > 0 ? ` [${groups.join(", ")}]` : ""}` : "";
  const results: ResourceResult[] = [];
  for (const item of items) {
    const req: ObjectRequest = { operation: input.operation, object: item.object, ...(item.old !== undefined ? { oldObject: item.old } : {}), ...(userInfo !== undefined ? { userInfo } : {}) };
    // As `celmap eval`: after admission, the apiserver's validation before storage (a 422 Invalid it would answer).
    const ev = admit(set, req, { validate: true });
    if (!ev.ok) {
      problems.push(placeMessage(`${item.source}: ${ev.error.message}`, docs, texts));
      continue;
    }
    const r = ev.result;
    const before = ev.input ?? item.object;
    const label = describeObject(before);
    const invalid = ev.validation !== undefined && !ev.validation.ok ? ev.validation.status : undefined;
    const status = r.status ?? invalid;
    const allowed = r.allowed && invalid === undefined;
    const after = allowed ? r.object : null;
    const validationLine =
      invalid !== undefined
        ? `  validation: rejected (${invalid.code} ${invalid.reason}): the apiserver would not store the admitted object\n${invalid.details.causes.map((c) => `    ${c.field}: ${c.message}\n`).join("")}`
        : "";
    const diff = after === null ? "" : renderDiff(toYaml(before), toYaml(after), plain);
    const notes = ev.bareNamespaces.map((n) => `  note: namespace ${JSON.stringify(n)} was not given: seen as a bare Namespace (only the kubernetes.io/metadata.name label, finalizer kubernetes, phase Active)\n`).join("");
    results.push({
      label,
      source: item.source,
      allowed,
      admittedYaml: after !== null ? toYaml(after) : "",
      json: toExactJson(
        {
          source: item.source,
          resource: { apiVersion: before.apiVersion, kind: before.kind, namespace: ev.request.namespace, name: ev.request.name },
          operation: input.operation,
          allowed,
          ...(ev.stage !== undefined ? { stage: ev.stage } : {}),
          object: after,
          patch: allowed ? r.patch : null,
          ...(status !== undefined ? { status } : {}),
          ignoredErrors: r.ignoredErrors,
          reinvoked: r.reinvoked,
        },
        2,
      ),
      diff,
      patch: allowed ? toExactJson(r.patch, 2) : "null",
      trace: renderTrace({ source: item.source, resource: label, operation: input.operation, user: userText }, r, plain) + validationLine + notes,
      ...(status !== undefined ? { status: `Error from server (${status.reason}): ${status.message}` } : {}),
      ignoredErrors: r.ignoredErrors,
    });
  }
  return { problems, warnings, results };
}

// ---- CEL scratchpad (`celmap cel`).

export interface CelInput {
  readonly expression: string;
  readonly env: KubernetesEnvKind;
  /** YAML mapping of variable name → value (object, oldObject, params, namespaceObject, anything else as dyn). */
  readonly vars: string;
}

export interface CelOutput {
  readonly ok: boolean;
  readonly value?: string;
  readonly error?: string;
  /** 1-based line of the error in the expression. */
  readonly line?: number;
  readonly varsError?: Problem;
  readonly cost?: number;
}

/** Compiles and evaluates one expression as `celmap cel --cost` does (the apiserver's per-call limit). */
export function runCel(input: CelInput): CelOutput {
  const bindings = new Map<string, CelValue>();
  if (input.vars.trim() !== "") {
    const r = parseDocuments(input.vars, "celVars", { numbers: "cel", expandLists: false });
    if (r.errors.length > 0) {
      const e = r.errors[0]!;
      return { ok: false, varsError: { editor: "celVars", ...(e.line !== undefined ? { line: e.line } : {}), message: formatLoadError(e) } };
    }
    const v = r.documents[0]?.value;
    if (v !== undefined && v !== null) {
      if (typeof v !== "object" || Array.isArray(v)) return { ok: false, varsError: { editor: "celVars", line: 1, message: "celVars: expected a mapping of variable names to values" } };
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) bindings.set(k, fromJson(x as never));
    }
  }
  const hasParams = bindings.has("params");
  const env = cliEnv(bindings.keys(), { kind: input.env, hasParams });
  let checked;
  try {
    checked = env.compile(input.expression);
  } catch (e) {
    if (e instanceof CelCompileError) {
      const m = /<input>:(\d+):/.exec(e.message);
      return { ok: false, error: e.message, ...(m !== null ? { line: Number(m[1]) } : {}) };
    }
    throw e;
  }
  const program = env.program(checked);
  try {
    const r = program.evalWithCost({ ...defaultBindings(input.env, hasParams), ...Object.fromEntries(bindings) }, { costLimit: PER_CALL_LIMIT });
    return { ok: true, value: toJsonText(r.value, { indent: 2 }), cost: r.cost };
  } catch (e) {
    if (e instanceof CelEvalError) {
      const info = checked.sourceInfo;
      const offset = e.exprId === undefined ? undefined : info.positions.get(e.exprId);
      let text = `ERROR: ${info.description}: ${e.message}`;
      let line: number | undefined;
      if (offset !== undefined) {
        const pos = locate(info, offset);
        line = pos.line;
        text = formatIssues([{ message: e.message, offset, line: pos.line, column: pos.column }], info.text, info.description);
      }
      const cost = e instanceof CelCostLimitError ? undefined : program.lastCost;
      return { ok: false, error: text, ...(line !== undefined ? { line } : {}), ...(cost !== undefined ? { cost } : {}) };
    }
    throw e;
  }
}

// ---- Gatekeeper → MAP (`celmap translate`).

export interface TranslateOutput {
  readonly problems: readonly Problem[];
  readonly yaml: string;
  readonly verdicts: string;
}

export function translateGatekeeper(text: string): TranslateOutput {
  const problems: Problem[] = [];
  const docs = load(text, "gatekeeper", problems);
  if (problems.length > 0) return { problems, yaml: "", verdicts: "" };
  const checked = checkMutators(docs);
  if (checked.errors.length > 0) {
    const map = new Map([["gatekeeper", docs]]);
    return { problems: checked.errors.map((e) => placeMessage(e, map, new Map([["gatekeeper", text]]))), yaml: "", verdicts: "" };
  }
  if (docs.length === 0) return { problems: [{ editor: "gatekeeper", message: "gatekeeper: no mutators (give Assign, AssignMetadata, ModifySet or AssignImage documents)" }], yaml: "", verdicts: "" };
  const t = translate(checked.mutators, {});
  return {
    problems: t.issues.map((i) => ({ message: `internal error: the translation does not validate: ${i}` })),
    yaml: [...t.policies, ...t.bindings].map((o) => toYaml(o)).join("---\n"),
    verdicts: t.verdicts.map((v) => formatVerdict(v)).join(""),
  };
}

export { toJsonText };
export type { JsonObject };
