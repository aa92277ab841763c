/**
 * One document of a stream (a YAML chunk from split.ts, one JSON Lines line, or a whole JSON file)
 * to loaded documents: the fast path first (fast-yaml.ts, fast-json.ts), and the `yaml` package
 * (src/io/parse.ts) when the fast path bails, which also gives line/column for errors. The fast
 * path's documents re-parse their text with `yaml` only if someone asks for a position (`locate`).
 * Pure: no files, no threads.
 */
import type { FieldPath, PathSegment } from "../../diag/field-path.js";
import type { SourceRef } from "../../diag/source.js";
import { toJsonNumbers } from "../numbers.js";
import { parseDocuments, type LoadError, type LoadOptions, type LoadResult, type LoadedDocument } from "../parse.js";
import { fastJson } from "./fast-json.js";
import { fastYaml } from "./fast-yaml.js";
import { scalarResolver } from "./scalars.js";

export type ChunkFormat = "yaml" | "json" | "jsonl";

export interface Chunk {
  readonly file: string;
  /** The document's index in the file (`file#N`). */
  readonly docIndex: number;
  /** 1-based line of the chunk's first line in the file. */
  readonly startLine: number;
  readonly text: string;
  /**
   * `yaml`: YAML text (YAML 1.1 as kubectl reads it, unless options say 1.2); `json`: JSON text (read
   * as YAML 1.2 on the slow path, as load.ts reads .json files); `jsonl`: one line of JSON Lines,
   * which must be JSON (not any YAML).
   */
  readonly format: ChunkFormat;
}

/** Counters of which path parsed what (for the benchmark and tests). */
export interface ParseCounters {
  fast: number;
  slow: number;
}

export function parseChunk(chunk: Chunk, options: LoadOptions = {}, counters?: ParseCounters): LoadResult {
  const json = chunk.format !== "yaml";
  const yamlVersion = json ? "1.2" : (options.yamlVersion ?? "1.1");
  const value = json ? fastJson(chunk.text) : fastYaml(chunk.text, scalarResolver(yamlVersion));
  if (value === undefined) {
    if (counters !== undefined) counters.slow++;
    if (chunk.format === "jsonl") {
      const bad = notJson(chunk);
      if (bad !== undefined) return { documents: [], errors: [bad] };
    }
    return slow(chunk, { ...options, yamlVersion });
  }
  if (counters !== undefined) counters.fast++;
  if (value.value === null) return { documents: [], errors: [] };
  const data = (options.numbers ?? "json") === "json" ? toJsonNumbers(value.value) : value.value;
  const expand = options.expandLists ?? true;
  // Positions only when asked: the yaml package parses the chunk again then.
  let located: LoadResult | undefined;
  const locateIn = (itemIndex: number | undefined) => (path: FieldPath | readonly PathSegment[]) => {
    located ??= slow(chunk, { ...options, yamlVersion });
    const d = located.documents.find((x) => x.source.itemIndex === itemIndex);
    return d?.locate(path);
  };
  if (expand && isListDocument(data)) {
    return {
      documents: data.items.map((item, itemIndex) => doc(item, { file: chunk.file, docIndex: chunk.docIndex, itemIndex }, locateIn(itemIndex))),
      errors: [],
    };
  }
  return { documents: [doc(data, { file: chunk.file, docIndex: chunk.docIndex }, locateIn(undefined))], errors: [] };
}

function doc(value: unknown, source: SourceRef, locate: LoadedDocument["locate"]): LoadedDocument {
  return { value, source, locate };
}

function isListDocument(v: unknown): v is { kind: string; items: unknown[] } {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return typeof o["kind"] === "string" && o["kind"].endsWith("List") && Array.isArray(o["items"]);
}

/** The `yaml` package on the chunk alone, its document numbers and lines moved to the file's. */
function slow(chunk: Chunk, options: LoadOptions): LoadResult {
  const r = parseDocuments(chunk.text, chunk.file, options);
  const shift = chunk.startLine - 1;
  const moveSource = (s: SourceRef): SourceRef => ({ ...s, docIndex: chunk.docIndex + s.docIndex, ...(s.line !== undefined ? { line: s.line + shift } : {}) });
  const documents = r.documents.map((d): LoadedDocument => ({
    value: d.value,
    source: moveSource(d.source),
    locate(path) {
      const p = d.locate(path);
      return p === undefined ? undefined : { line: p.line + shift, column: p.column };
    },
  }));
  const errors = r.errors.map((e): LoadError => ({ ...e, docIndex: chunk.docIndex + (e.docIndex ?? 0), ...(e.line !== undefined ? { line: e.line + shift } : {}) }));
  return { documents, errors };
}

/** A JSON Lines line that `JSON.parse` rejects, as an error at its line and column. */
function notJson(chunk: Chunk): LoadError | undefined {
  try {
    JSON.parse(chunk.text);
    return undefined;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const at = /at position (\d+)/.exec(msg);
    return {
      file: chunk.file,
      docIndex: chunk.docIndex,
      line: chunk.startLine,
      ...(at !== null ? { column: Number(at[1]) + 1 } : {}),
      code: "JSON_SYNTAX",
      message: `not a JSON value (JSON Lines: one JSON object per line): ${msg.replace(/ in JSON at position \d+.*$/, "")}`,
    };
  }
}
