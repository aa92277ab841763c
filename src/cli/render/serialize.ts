/**
 * Writing admission objects: YAML and JSON that keep integers exact (`bigint` from the loader and
 * from CEL are written as integer literals, never rounded through a double).
 *
 * YAML is written for kubectl's reader (YAML 1.1 scalars): strings that YAML 1.1 would read as
 * something else (`yes`, `on`, `0755`, `1.0`, dates) are quoted.
 */
import { stringify } from "yaml";
import { fastToYaml } from "./fast-yaml-out.js";

/** One YAML document (no leading `---`), ending with a newline. */
export function toYaml(value: unknown): string {
  return fastToYaml(value) ?? stringify(value, { version: "1.1", lineWidth: 0 });
}

/** Several YAML documents separated by `---`. */
export function toYamlStream(values: readonly unknown[]): string {
  return values.map((v) => toYaml(v)).join("---\n");
}

/** JSON text with `bigint`s as exact integers; `indent` 0 gives one line. */
export function toExactJson(value: unknown, indent = 0): string {
  const pad = (depth: number) => (indent > 0 ? `\n${" ".repeat(indent * depth)}` : "");
  const colon = indent > 0 ? ": " : ":";
  const write = (v: unknown, depth: number): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "number") return Number.isFinite(v) ? JSON.stringify(v) : JSON.stringify(String(v));
    if (typeof v === "string" || typeof v === "boolean") return JSON.stringify(v);
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      return `[${v.map((e) => `${pad(depth + 1)}${write(e, depth + 1)}`).join(",")}${pad(depth)}]`;
    }
    if (typeof v === "object") {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, e]) => e !== undefined);
      if (entries.length === 0) return "{}";
      return `{${entries.map(([k, e]) => `${pad(depth + 1)}${JSON.stringify(k)}${colon}${write(e, depth + 1)}`).join(",")}${pad(depth)}}`;
    }
    return JSON.stringify(String(v));
  };
  return write(value, 0);
}
