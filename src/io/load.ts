/**
 * Reading Kubernetes documents from YAML and JSON files.
 *
 * - A file may hold several YAML documents (`---`); each becomes one {@link LoadedDocument}
 *   with a {@link SourceRef} (file, 0-based document index, 1-based line/column).
 * - Empty documents are skipped but keep their number, so `#N` always names the N-th
 *   document of the file.
 * - `kind: List` and any other `*List` kind with an `items` array are expanded into their
 *   items (each keeps the document index and gets `itemIndex`).
 * - Directories are read recursively: files ending in `.yaml`, `.yml` or `.json`, in
 *   byte-wise sorted path order (stable across machines and locales); names starting with
 *   `.` are skipped.
 * - YAML is read the way kubectl reads it (go-yaml v2, YAML 1.1 scalars): `yes`/`no`/`on`/
 *   `off` are booleans, `0755` is octal. Unlike go-yaml, timestamps and sexagesimal numbers
 *   stay strings. `yamlVersion: "1.2"` switches to the YAML 1.2 core schema. JSON files are
 *   always read with the 1.2 core schema (JSON is a subset of it).
 * - Numbers: `numbers: "json"` (default) gives plain JSON values (every number a JS
 *   `number`). `numbers: "cel"` keeps the integer/float distinction the CEL engine needs:
 *   YAML integers become `bigint`, YAML floats `number` (so `1.0` stays a double).
 *
 * Errors never throw: syntax errors come back as {@link LoadError}s with file:line:column,
 * and the documents that did parse are still returned.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { isStdin, readStdin } from "./stdin.js";
import { join } from "node:path";
import { errorText, parseDocuments, type LoadError, type LoadedDocument, type LoadOptions, type LoadResult } from "./parse.js";
export { formatLoadError, parseDocuments, type LoadError, type LoadOptions, type LoadResult, type LoadedDocument, type NumberMode } from "./parse.js";
export { toCelNumbers, toJsonNumbers } from "./numbers.js";

const INPUT_EXTENSIONS = [".yaml", ".yml", ".json"];

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The input files under `path`: the file itself, or a directory's files recursively, sorted. */
export function listInputFiles(path: string, extensions: readonly string[] = INPUT_EXTENSIONS): string[] {
  if (isStdin(path)) return [path];
  const st = statSync(path);
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  const names = readdirSync(path).sort(byteOrder);
  for (const name of names) {
    if (name.startsWith(".")) continue;
    const full = join(path, name);
    let s;
    try {
      s = statSync(full);
    } catch {
      continue; // dangling symlink
    }
    if (s.isDirectory()) out.push(...listInputFiles(full, extensions));
    else if (extensions.some((ext) => name.endsWith(ext))) out.push(full);
  }
  return out;
}

/** Loads files and directories (in the order given; each directory sorted). Never throws. */
export function loadPaths(paths: string | readonly string[], options: LoadOptions = {}): LoadResult {
  const list = typeof paths === "string" ? [paths] : paths;
  const documents: LoadedDocument[] = [];
  const errors: LoadError[] = [];
  for (const p of list) {
    let files: string[];
    try {
      files = listInputFiles(p);
    } catch (e) {
      errors.push({ file: p, code: "READ_ERROR", message: errorText(e) });
      continue;
    }
    for (const f of files) {
      const r = loadFile(f, options);
      documents.push(...r.documents);
      errors.push(...r.errors);
    }
  }
  return { documents, errors };
}


/** Loads one file. Never throws. */
export function loadFile(file: string, options: LoadOptions = {}): LoadResult {
  let text: string;
  try {
    text = isStdin(file) ? readStdin() : readFileSync(file, "utf8");
  } catch (e) {
    return { documents: [], errors: [{ file, code: "READ_ERROR", message: errorText(e) }] };
  }
  const binary = binaryReason(text);
  if (binary !== undefined) return { documents: [], errors: [{ file, code: "READ_ERROR", message: binary }] };
  const isJson = file.endsWith(".json");
  return parseDocuments(text, file, isJson ? { ...options, yamlVersion: "1.2" } : options);
}

/**
 * Why a file's text is not YAML or JSON text, when it is binary (a NUL byte, or bytes that are not
 * UTF-8): said in words, never by echoing the bytes.
 */
function binaryReason(text: string): string | undefined {
  const nul = text.indexOf("\u0000");
  if (nul >= 0) return `a binary file (a NUL byte at offset ${nul}), not YAML or JSON text`;
  const bad = text.indexOf("\uFFFD");
  if (bad >= 0) return `not UTF-8 text (an invalid byte sequence at character ${bad}), not YAML or JSON`;
  return undefined;
}

/** Plain scalars go-yaml v2 does not resolve specially: keep them strings. */
