/**
 * The build's browser-safety check (vite.config.ts `browserSafety`) on small entries: it must fail
 * a build that imports a Node module, and one where a stubbed Node API stays reachable.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSafety } from "../vite.config.js";

const REPO = join(import.meta.dirname, "..", "..");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "celmap-bundle-check-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function bundle(name: string, source: string): Promise<void> {
  const entry = join(dir, `${name}.ts`);
  await writeFile(entry, source);
  await build({ configFile: false, root: dir, logLevel: "silent", plugins: [browserSafety()], build: { write: false, minify: false, rollupOptions: { input: entry } } });
}

describe("the playground's browser-safety build check", () => {
  it("fails a build that imports a Node built-in, naming the module and the importer", async () => {
    await expect(bundle("uses-fs", `import { readFileSync } from "node:fs";\nconsole.log(readFileSync("x"));\n`)).rejects.toThrow(/Node-only module "node:fs" imported by/);
    await expect(bundle("uses-path", `import { join } from "path";\nconsole.log(join("a", "b"));\n`)).rejects.toThrow(/Node-only module "path"/);
  });

  it("fails a build where a stubbed Node API (src/io file readers) is reachable", async () => {
    const load = JSON.stringify(join(REPO, "src/io/load.ts"));
    await expect(bundle("reads-files", `import { loadPaths } from ${load};\nconsole.log(loadPaths("x"));\n`)).rejects.toThrow(/contains node-stub\.ts/);
  });

  it("passes the same module when only its browser-safe part is used", async () => {
    const load = JSON.stringify(join(REPO, "src/io/load.ts"));
    await expect(bundle("parses-text", `import { parseDocuments } from ${load};\nconsole.log(parseDocuments("a: 1", "x"));\n`)).resolves.toBeUndefined();
  });
});
