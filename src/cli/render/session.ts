/**
 * What the CLI commands share around the engine (src/engine): naming documents and objects in
 * messages, and `-f` loading with the engine's errors as `file#doc: message` lines. The pipeline
 * itself (sorting inputs, the request, the namespace rule, defaulting, evaluation) is the engine's.
 */
import type { JsonObject } from "../../admission/index.js";
import { formatSourceRef, type SourceRef } from "../../diag/source.js";
import { errorText, load, objectProblem as engineObjectProblem, type LoadOptions, type LoadResult } from "../../engine/index.js";
import type { LoadedDocument } from "../../io/load.js";

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function where(source: SourceRef | undefined): string {
  return source === undefined ? "<input>" : formatSourceRef(source);
}

function metaField(o: JsonObject, field: string): string | undefined {
  const md = o.metadata;
  if (!isObject(md)) return undefined;
  const v = md[field];
  return typeof v === "string" ? v : undefined;
}

/** `v1 Pod default/web` */
export function describeObject(o: JsonObject): string {
  const ns = metaField(o, "namespace");
  const name = metaField(o, "name") ?? metaField(o, "generateName") ?? "<no name>";
  return `${String(o.apiVersion ?? "?")} ${String(o.kind ?? "?")} ${ns !== undefined && ns !== "" ? `${ns}/` : ""}${name}`;
}

/** Problems with a document that must be a Kubernetes object (`file#doc: message`); `undefined` when it is one. */
export function objectProblem(doc: LoadedDocument): string | undefined {
  const p = engineObjectProblem(doc.value);
  return p === undefined ? undefined : `${where(doc.source)}: ${p}`;
}

/** `-f` documents through the engine's `load` as the CLI runs it (the documents are the whole cluster), errors as text lines. */
export function loadInputs(docs: readonly LoadedDocument[], options: LoadOptions = {}): LoadResult & { readonly errorLines: readonly string[] } {
  const r = load(docs, { closedWorld: true, ...options });
  return { ...r, errorLines: r.errors.map(errorText) };
}
