/**
 * src/admission is pure: its (non-test) sources import no file or network access (node:fs,
 * node:http, ...), no YAML parser, and nothing from src/io or src/cli.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DIR = fileURLToPath(new URL("./", import.meta.url));
const SRC = fileURLToPath(new URL("../", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "testdata" ? [] : sources(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [p] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  return [...text.matchAll(/(?:import|export)\s[^"';]*?from\s+["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/g)].map((m) => (m[1] ?? m[2])!);
}

describe("layering of src/admission", () => {
  it("imports no I/O, yaml, src/io or src/cli", () => {
    const bad: string[] = [];
    for (const f of sources(DIR)) {
      for (const spec of imports(f)) {
        const target = spec.startsWith(".") ? relative(SRC, join(f, "..", spec)).split(/[\\/]/)[0]! : spec;
        if (target.startsWith("node:") || target === "yaml" || target === "io" || target === "cli") bad.push(`${relative(SRC, f)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
