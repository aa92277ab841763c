/**
 * The layering rules of diag, io and policy, checked on their (non-test) sources:
 * - src/diag imports nothing from src and no package;
 * - src/io imports only src/diag, `yaml` and Node built-ins;
 * - src/policy imports only src/diag, src/kube and `zod` (pure: no src/io, no node:fs, no yaml).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [p] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
  return [...text.matchAll(/(?:import|export)\s[^"';]*?from\s+["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/g)].map(
    (m) => (m[1] ?? m[2])!,
  );
}

/** The src module an import lands in (`diag`, `io`, ...), or the package name. */
function target(file: string, spec: string): string {
  if (spec.startsWith(".")) return relative(SRC, join(file, "..", spec)).split(/[\\/]/)[0]!;
  return spec;
}

const RULES: Record<string, (t: string) => boolean> = {
  diag: (t) => t === "diag",
  io: (t) => t === "io" || t === "diag" || t === "yaml" || t.startsWith("node:"),
  policy: (t) => t === "policy" || t === "diag" || t === "kube" || t === "zod",
};

describe("layering of diag, io and policy", () => {
  it.each(Object.keys(RULES))("src/%s imports only what it may", (mod) => {
    const bad: string[] = [];
    const files = sources(join(SRC, mod));
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap(imports).length).toBeGreaterThan(0);
    for (const f of files) {
      for (const spec of imports(f)) {
        const t = target(f, spec);
        if (!RULES[mod]!(t)) bad.push(`${relative(SRC, f)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
