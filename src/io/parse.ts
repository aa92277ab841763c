/**
 * Parsing Kubernetes documents from YAML or JSON text (no file access: this module also runs in the
 * browser playground). The rules are those of `load.ts`, which reads files and stdin through it:
 * several documents per text, `List` kinds expanded, kubectl's YAML 1.1 scalars, exact integers with
 * `numbers: "cel"`, errors as values with file:line:column.
 */
import {
  LineCounter,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseAllDocuments,
  type Document,
  type Node as YamlNode,
  type Tags,
} from "yaml";
import type { FieldPath, PathSegment } from "../diag/field-path.js";
import { toJsonNumbers } from "./numbers.js";
import type { Position, SourceRef } from "../diag/source.js";

export type NumberMode = "json" | "cel";

export interface LoadOptions {
  /** `json` (default): every number is a JS number. `cel`: integers are `bigint`, floats `number`. */
  readonly numbers?: NumberMode;
  /** YAML scalar rules for `.yaml`/`.yml` files; default `1.1` (what kubectl does). */
  readonly yamlVersion?: "1.1" | "1.2";
  /** Expand `kind: List`/`*List` documents into their items (default true). */
  readonly expandLists?: boolean;
}

export interface LoadedDocument {
  /** The document (or list item) as plain data. */
  readonly value: unknown;
  readonly source: SourceRef;
  /**
   * Position of a field inside this document (or list item): the key of a field, the
   * start of a list element. When the path does not exist, the position of the deepest
   * part of it that does (so a "Required value" error points at the parent object).
   */
  locate(path: FieldPath | readonly PathSegment[]): Position | undefined;
}

export interface LoadError {
  readonly file: string;
  readonly docIndex?: number;
  readonly line?: number;
  readonly column?: number;
  /** `READ_ERROR`, or the yaml parser's code (`BAD_INDENT`, `DUPLICATE_KEY`, ...). */
  readonly code: string;
  /** One line, without position. */
  readonly message: string;
  /** The parser's excerpt of the offending line with a caret, when available. */
  readonly excerpt?: string;
}

export interface LoadResult {
  readonly documents: LoadedDocument[];
  readonly errors: LoadError[];
}

/** `file:line:column: message` (or `file: message` without position). */
export function formatLoadError(e: LoadError): string {
  const where = e.line !== undefined ? `${e.file}:${e.line}:${e.column ?? 1}` : e.file;
  return `${where}: ${e.message}`;
}

/** The YAML 1.1 tags kubectl's reader resolves (timestamps and sexagesimal numbers stay strings). */
export function kubectlTags(tags: Tags): Tags {
  return tags.filter((t) => {
    const tag = (t as { tag?: string }).tag;
    const format = (t as { format?: string }).format;
    if (tag === "tag:yaml.org,2002:timestamp") return false;
    if (format === "TIME") return false;
    return true;
  });
}

/** Parses YAML (or JSON) text holding one or more documents. Never throws. */
export function parseDocuments(text: string, file: string, options: LoadOptions = {}): LoadResult {
  const version = options.yamlVersion ?? "1.1";
  const numbers = options.numbers ?? "json";
  const expand = options.expandLists ?? true;
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, {
    version,
    intAsBigInt: true,
    lineCounter,
    prettyErrors: true,
    ...(version === "1.1" ? { customTags: kubectlTags } : {}),
  });
  const docs: Document.Parsed[] = Array.isArray(parsed) ? parsed : [];
  const documents: LoadedDocument[] = [];
  const errors: LoadError[] = [];
  const pos = (offset: number): Position => {
    const lp = lineCounter.linePos(offset);
    return { line: lp.line, column: lp.col };
  };

  docs.forEach((doc, docIndex) => {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const [firstLine, ...rest] = e.message.split("\n");
        const lp = e.linePos?.[0];
        errors.push({
          file,
          docIndex,
          ...(lp !== undefined ? { line: lp.line, column: lp.col } : {}),
          code: e.code,
          message: (firstLine ?? "").replace(/ at line \d+, column \d+:?$/, ""),
          ...(rest.join("\n").trim() !== "" ? { excerpt: rest.join("\n").replace(/^\n+|\n+$/g, "") } : {}),
        });
      }
      return;
    }
    const contents = doc.contents as YamlNode | null;
    let raw: unknown;
    try {
      raw = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      errors.push({ file, docIndex, code: "CONVERT_ERROR", message: errorText(e) });
      return;
    }
    if (contents === null || raw === null || raw === undefined) return; // empty document
    const value = numbers === "json" ? toJsonNumbers(raw) : raw;
    const start = contents.range ? pos(contents.range[0]) : undefined;
    const baseRef: SourceRef = { file, docIndex, ...(start ? { line: start.line, column: start.column } : {}) };

    if (expand && isListDocument(value)) {
      const itemsNode = isMap(contents) ? contents.get("items", true) : undefined;
      value.items.forEach((item, itemIndex) => {
        const itemNode = isSeq(itemsNode) ? (itemsNode.items[itemIndex] as YamlNode | undefined) : undefined;
        const p = itemNode?.range ? pos(itemNode.range[0]) : undefined;
        const source: SourceRef = { file, docIndex, itemIndex, ...(p ? { line: p.line, column: p.column } : {}) };
        documents.push(makeDocument(item, source, itemNode ?? null, pos));
      });
      return;
    }
    documents.push(makeDocument(value, baseRef, contents, pos));
  });
  return { documents, errors };
}

function isListDocument(v: unknown): v is { kind: string; items: unknown[] } {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return typeof o["kind"] === "string" && o["kind"].endsWith("List") && Array.isArray(o["items"]);
}

function makeDocument(
  value: unknown,
  source: SourceRef,
  root: YamlNode | null,
  pos: (offset: number) => Position,
): LoadedDocument {
  return {
    value,
    source,
    locate(path) {
      const segments = Array.isArray(path) ? (path as readonly PathSegment[]) : (path as FieldPath).segments();
      return locateNode(root, segments, pos);
    },
  };
}

function locateNode(
  root: YamlNode | null,
  segments: readonly PathSegment[],
  pos: (offset: number) => Position,
): Position | undefined {
  if (root === null) return undefined;
  let node: unknown = root;
  let best: Position | undefined = root.range ? pos(root.range[0]) : undefined;
  for (const s of segments) {
    if (s.kind === "index") {
      if (!isSeq(node)) break;
      const item = node.items[s.index] as YamlNode | undefined;
      if (item === undefined || item === null) break;
      if (item.range) best = pos(item.range[0]);
      node = item;
    } else {
      if (!isMap(node)) break;
      const name = s.kind === "field" ? s.name : s.key;
      const pair = node.items.find((p) => isPair(p) && keyText(p.key) === name);
      if (pair === undefined) break;
      const key = pair.key as YamlNode | null;
      if (key?.range) best = pos(key.range[0]);
      node = pair.value;
    }
  }
  return best;
}

function keyText(k: unknown): string | undefined {
  if (isScalar(k)) return String(k.value);
  return undefined;
}

/** A thrown value as one line of text (exported for load.ts). */
export function errorText(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "no such file or directory";
    if (code === "EACCES") return "permission denied";
    return e.message;
  }
  return String(e);
}
