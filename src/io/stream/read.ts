/**
 * Reading resource files as a stream of document chunks (chunk.ts parses them), one at a time, so a
 * file of any size is never held whole: YAML files split at their `---`/`...` markers (split.ts),
 * JSON Lines files (`.jsonl`, `.ndjson`) one line per document, JSON files (`.json`) as one document
 * (a `List` is expanded when parsed), and standard input (`-`) streamed with its format detected: a
 * first line that is a whole JSON object or array means JSON Lines, another start with `{` or `[`
 * one JSON document, anything else YAML. Directories are read recursively, sorted as load.ts does.
 * Errors (a missing file, binary bytes) come as items in place, never as exceptions.
 */
import { createReadStream } from "node:fs";
import { listInputFiles } from "../load.js";
import { errorText, type LoadError } from "../parse.js";
import { isStdin, stdinIfRead } from "../stdin.js";
import type { Chunk } from "./chunk.js";
import { YamlSplitter, type YamlChunk } from "./split.js";

export const STREAM_EXTENSIONS = [".yaml", ".yml", ".json", ".jsonl", ".ndjson"];

export type StreamItem = { readonly chunk: Chunk } | { readonly error: LoadError };

/** The lines of a file or of standard input, read in blocks (the last line without its "\n"). */
async function* readLines(path: string): AsyncGenerator<string> {
  const cached = isStdin(path) ? stdinIfRead() : undefined;
  const source: Iterable<string> | AsyncIterable<string> =
    cached !== undefined
      ? [cached]
      : isStdin(path)
        ? (process.stdin.setEncoding("utf8") as AsyncIterable<string>)
        : (createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 }) as AsyncIterable<string>);
  let rest = "";
  for await (const block of source) {
    const text = rest + block;
    let from = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
      yield text.slice(from, nl);
      from = nl + 1;
    }
    rest = text.slice(from);
  }
  if (rest !== "") yield rest;
}

/** Why text at character `at` of its file is not YAML or JSON text (load.ts's words), if it is binary. */
function binary(line: string, at = 0): string | undefined {
  const nul = line.indexOf("\u0000");
  if (nul >= 0) return `a binary file (a NUL byte at offset ${at + nul}), not YAML or JSON text`;
  const bad = line.indexOf("\uFFFD");
  if (bad >= 0) return `not UTF-8 text (an invalid byte sequence at character ${at + bad}), not YAML or JSON`;
  return undefined;
}

type Format = "yaml" | "json" | "jsonl";

function formatOf(file: string): Format | undefined {
  if (file.endsWith(".jsonl") || file.endsWith(".ndjson")) return "jsonl";
  if (file.endsWith(".json")) return "json";
  if (isStdin(file)) return undefined;
  return "yaml";
}

/** The chunks of one file (or of `-`). */
export async function* readFileChunks(file: string): AsyncGenerator<StreamItem> {
  let format = formatOf(file);
  const lines = readLines(file)[Symbol.asyncIterator]();
  // Standard input: the format from its first non-blank line.
  const pending: string[] = [];
  if (format === undefined) {
    for (;;) {
      const n = await lines.next();
      if (n.done === true) break;
      pending.push(n.value);
      const t = n.value.trim();
      if (t === "") continue;
      if (t[0] === "{" || t[0] === "[") format = isJsonValue(t) ? "jsonl" : "json";
      else format = "yaml";
      break;
    }
    format ??= "yaml";
  }
  /** A binary file's reason, as load.ts gives it: a NUL byte anywhere wins over bytes that are not UTF-8. */
  async function binaryReason(first: string, line: string, at: number, rest: AsyncGenerator<string>): Promise<string> {
    if (line.includes("\u0000")) return first;
    let pos = at + line.length + 1;
    for await (const l of rest) {
      const nul = l.indexOf("\u0000");
      if (nul >= 0) return `a binary file (a NUL byte at offset ${pos + nul}), not YAML or JSON text`;
      pos += l.length + 1;
    }
    return first;
  }
  async function* all(): AsyncGenerator<string> {
    yield* pending;
    for (;;) {
      const n = await lines.next();
      if (n.done === true) return;
      yield n.value;
    }
  }
  try {
    if (format === "json") {
      const parts: string[] = [];
      for await (const l of all()) parts.push(l);
      const text = parts.join("\n");
      const b = binary(text);
      if (b !== undefined) yield { error: { file, code: "READ_ERROR", message: b } };
      else yield { chunk: { file, docIndex: 0, startLine: 1, text, format: "json" } };
      return;
    }
    if (format === "jsonl") {
      let lineNo = 0;
      let docIndex = 0;
      let at = 0;
      const lines = all();
      for await (const l of lines) {
        lineNo++;
        const b = binary(l, at);
        if (b !== undefined) {
          yield { error: { file, code: "READ_ERROR", message: await binaryReason(b, l, at, lines) } };
          return;
        }
        at += l.length + 1;
        if (l.trim() === "") continue;
        yield { chunk: { file, docIndex: docIndex++, startLine: lineNo, text: l, format: "jsonl" } };
      }
      return;
    }
    const splitter = new YamlSplitter();
    const out: YamlChunk[] = [];
    let at = 0;
    const lines = all();
    for await (const l of lines) {
      const b = binary(l, at);
      if (b !== undefined) {
        yield { error: { file, code: "READ_ERROR", message: await binaryReason(b, l, at, lines) } };
        return;
      }
      at += l.length + 1;
      splitter.push(l, out);
      while (out.length > 0) yield { chunk: { file, ...out.shift()!, format: "yaml" } };
    }
    splitter.end(out);
    for (const c of out) yield { chunk: { file, ...c, format: "yaml" } };
  } catch (e) {
    yield { error: { file, code: "READ_ERROR", message: errorText(e) } };
  }
}

function isJsonValue(t: string): boolean {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** The chunks of files and directories, in the order given (each directory sorted). */
export async function* readChunks(paths: readonly string[]): AsyncGenerator<StreamItem> {
  for (const p of paths) {
    let files: string[];
    try {
      files = listInputFiles(p, STREAM_EXTENSIONS);
    } catch (e) {
      yield { error: { file: p, code: "READ_ERROR", message: errorText(e) } };
      continue;
    }
    for (const f of files) yield* readFileChunks(f);
  }
}
