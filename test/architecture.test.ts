/**
 * Layering rules, checked on the import statements of every `src/**\/*.ts` file:
 *
 * 1. The CEL engine (`src/cel`) is self-contained: it imports only from
 *    `src/cel` and `@bufbuild/re2` — no other celmap module, no other package,
 *    no Node built-ins (so it can run anywhere: browsers, workers, other hosts).
 * 2. Code that ships (`src/`, tests excepted) imports only packages declared in
 *    package.json `dependencies`, plus Node built-ins outside `src/cel`; never the
 *    development-only packages (reference CEL engines, conformance data,
 *    property-testing), which `npm ci --omit=dev` would not install.
 * 3. Folders import one way, down the layering (LAYERS: cel → policy/kube → admission → validation →
 *    dialects (kyverno, gatekeeper) → translate → engine → cli/webhook/conformance/lint); the few imports that do not yet are
 *    listed, with why, in LAYER_EXCEPTIONS.
 * 4. Other folders import `src/engine` and the dialect folders (`src/kyverno`, `src/gatekeeper`: INDEX_ONLY) only
 *    through their `index.ts`; the engine is pure (no Node
 *    built-ins, no file reading: of `src/io` only the number conversions).
 */
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/cli.js";

const SRC = join(REPO_ROOT, "src");
const CEL = join(SRC, "cel");

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const RUNTIME_DEPS = new Set(Object.keys(pkg.dependencies ?? {}));
/** Named in the architecture rules, whether or not package.json still lists them. */
const DEV_ONLY = new Set([
  "@bufbuild/cel",
  "@bufbuild/cel-spec",
  "@marcbachmann/cel-js",
  "@bufbuild/protobuf",
  "fast-check",
  ...Object.keys(pkg.devDependencies ?? {}),
]);
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

interface Import {
  readonly file: string; // relative to the repo root, with '/'
  readonly specifier: string;
  readonly line: number;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(p));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** Blanks out comments and string/template contents that are not import specifiers, keeping line numbers. */
function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (m) => m.replace(/[^\n]/g, " "));
}

const IMPORT_RE =
  /(?:^|[;\s}])(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|\brequire\s*\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): Import[] {
  const text = stripComments(readFileSync(file, "utf8"));
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const specifier = m[1] ?? m[2] ?? m[3];
    if (specifier === undefined) continue;
    const line = text.slice(0, m.index).split("\n").length;
    out.push({ file: relative(REPO_ROOT, file).split(sep).join("/"), specifier, line });
  }
  return out;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

const isTest = (file: string): boolean => /\.test\.ts$/.test(file) || /(^|\/)__tests__\//.test(file);
const files = walk(SRC);
const all = files.flatMap(importsOf);
const shipped = all.filter((i) => !isTest(i.file));
const where = (i: Import): string => `${i.file}:${i.line} imports '${i.specifier}'`;

/**
 * The allowed-imports table: each `src/<folder>` may import the folders listed (and itself).
 * Read from the top: the CEL engine and diagnostics at the bottom, entry points at the top.
 */
const LAYERS: Readonly<Record<string, readonly string[]>> = {
  cel: [],
  diag: [],
  io: ["diag"],
  kube: ["cel"],
  policy: ["cel", "diag", "kube"],
  admission: ["cel", "diag", "kube", "policy"],
  validation: ["cel", "diag", "kube", "policy", "admission"],
  // The Kyverno dialect: its CEL libraries, policy model, evaluation as a webhook stage, autogen.
  kyverno: ["cel", "diag", "kube", "policy", "admission"],
  // The Gatekeeper dialect: location paths, match, the mutators, the System's fixpoint (no CEL, no MAP).
  gatekeeper: ["diag"],
  translate: ["cel", "diag", "kube", "policy", "admission", "io", "kyverno", "gatekeeper"],
  engine: ["cel", "diag", "io", "kube", "policy", "admission", "validation", "kyverno", "gatekeeper", "translate"],
  // Reading a live cluster (kubeconfig, paged lists, the installed policy set) and auditing it.
  cluster: ["cel", "diag", "io", "kube", "policy", "admission", "validation", "kyverno", "gatekeeper", "translate", "engine"],
  audit: ["cel", "diag", "io", "kube", "policy", "admission", "validation", "kyverno", "gatekeeper", "translate", "engine", "cluster"],
  webhook: ["cel", "diag", "io", "kube", "policy", "admission", "validation", "kyverno", "gatekeeper", "translate", "engine", "cluster"],
  conformance: ["cel", "diag", "io", "kube", "policy", "admission", "validation", "kyverno", "gatekeeper", "translate", "engine"],
  // celmap lint's analyses: over the engine, pure.
  lint: ["cel", "diag", "kube", "policy", "admission", "validation", "kyverno", "gatekeeper", "translate", "engine"],
  cli: ["cel", "diag", "io", "kube", "policy", "admission", "validation", "kyverno", "gatekeeper", "translate", "engine", "cluster", "audit", "webhook", "conformance", "lint"],
  // src/index.ts: the package's public API re-exports.
  "(root)": ["cel", "diag", "io", "kube", "policy", "admission", "validation", "kyverno", "gatekeeper", "translate", "engine", "cluster", "audit", "webhook", "conformance", "cli", "lint"],
};

/**
 * Imports against the layering that cannot be fixed in the change that added this table, each
 * `importing file -> imported folder`, with why. Remove an entry when its import goes.
 */
const LAYER_EXCEPTIONS: readonly string[] = [];

/** Folders that others import only through their `index.ts` (their public surface). */
const INDEX_ONLY: readonly string[] = ["engine", "kyverno", "gatekeeper"];

/** `src/<folder>/...` → folder (`(root)` for files directly in src/), or undefined outside src/. */
function folderOf(absPath: string): string | undefined {
  const rel = relative(SRC, absPath).split(sep);
  if (rel[0] === ".." || rel.length === 0) return undefined;
  return rel.length === 1 ? "(root)" : rel[0];
}

describe("architecture", () => {
  it("folders import one way, down the layering table (exceptions listed)", () => {
    const bad: string[] = [];
    const seen = new Set<string>();
    for (const i of shipped) {
      if (!i.specifier.startsWith(".")) continue;
      const from = folderOf(join(REPO_ROOT, i.file));
      const to = folderOf(resolve(dirname(join(REPO_ROOT, i.file)), i.specifier));
      if (from === undefined || to === undefined || from === to) continue;
      const allowed = LAYERS[from];
      if (allowed === undefined) {
        bad.push(`${i.file}: folder src/${from} is not in the layering table`);
        continue;
      }
      if (allowed.includes(to)) continue;
      const key = `${i.file} -> ${to}`;
      seen.add(key);
      if (!LAYER_EXCEPTIONS.includes(key)) bad.push(where(i));
    }
    expect(bad).toEqual([]);
    // Stale exceptions (the import is gone) are removed from the list.
    expect(LAYER_EXCEPTIONS.filter((e) => !seen.has(e))).toEqual([]);
  });

  it("other folders import the INDEX_ONLY folders (src/engine, src/kyverno, ...) only through their index.ts", () => {
    const bad = all.flatMap((i) => {
      if (!i.specifier.startsWith(".")) return [];
      const target = resolve(dirname(join(REPO_ROOT, i.file)), i.specifier);
      return INDEX_ONLY.filter((folder) => {
        const dir = join(SRC, folder);
        return !i.file.startsWith(`src/${folder}/`) && target.startsWith(dir + sep) && target !== join(dir, "index.js");
      }).map(() => where(i));
    });
    expect(bad).toEqual([]);
  });

  it("src/engine is pure: no Node built-ins, and of src/io only the number conversions", () => {
    const bad = shipped
      .filter((i) => i.file.startsWith("src/engine/"))
      .filter((i) => {
        if (NODE_BUILTINS.has(i.specifier)) return true;
        if (!i.specifier.startsWith(".")) return false;
        const target = resolve(dirname(join(REPO_ROOT, i.file)), i.specifier);
        return folderOf(target) === "io" && target !== join(SRC, "io", "numbers.js");
      })
      .map(where);
    expect(bad).toEqual([]);
  });

  it("finds the sources and their imports", () => {
    expect(files.length).toBeGreaterThan(5);
    expect(all.length).toBeGreaterThan(5);
    // The scanner sees every import form used in this codebase.
    const probe = importsOf(join(REPO_ROOT, "test/architecture.test.ts")).map((i) => i.specifier);
    expect(probe).toEqual(expect.arrayContaining(["node:fs", "vitest", "./support/cli.js"]));
  });

  it("src/cel imports only src/cel and @bufbuild/re2", () => {
    const bad = shipped
      .filter((i) => i.file.startsWith("src/cel/"))
      .filter((i) => {
        if (i.specifier.startsWith(".")) {
          const target = resolve(dirname(join(REPO_ROOT, i.file)), i.specifier);
          return !(target === CEL || target.startsWith(CEL + sep));
        }
        return packageName(i.specifier) !== "@bufbuild/re2";
      })
      .map(where);
    expect(bad).toEqual([]);
  });

  it("src/cel uses no Node built-ins (node:fs, node:http, ...)", () => {
    const bad = all.filter((i) => i.file.startsWith("src/cel/") && !isTest(i.file) && NODE_BUILTINS.has(i.specifier)).map(where);
    expect(bad).toEqual([]);
  });

  it("shipped code never imports development-only packages", () => {
    const bad = shipped.filter((i) => !i.specifier.startsWith(".") && DEV_ONLY.has(packageName(i.specifier))).map(where);
    expect(bad).toEqual([]);
  });

  it("every package shipped code imports is a declared runtime dependency", () => {
    const bad = shipped
      .filter((i) => !i.specifier.startsWith(".") && !NODE_BUILTINS.has(i.specifier))
      .filter((i) => !RUNTIME_DEPS.has(packageName(i.specifier)))
      .map(where);
    expect(bad).toEqual([]);
  });

  it("relative imports use the .js suffix (NodeNext ESM)", () => {
    const bad = all.filter((i) => i.specifier.startsWith(".") && !/\.(js|json)$/.test(i.specifier)).map(where);
    expect(bad).toEqual([]);
  });
});
