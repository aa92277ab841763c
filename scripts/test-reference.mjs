#!/usr/bin/env node
// `npm run test:reference`: differential tests of celmap against the upstream Go code
// (reference/: cel-go and k8s.io/apiserver as published modules). Needs Go >= 1.25; without
// it, prints one skip line and exits 0. Builds the Go programs into reference/bin (the Go
// build cache makes rebuilds fast), compiles the harness (tsconfig.reference.json) and runs
// test/reference/run.ts. Arguments are passed on (--seed N, --cel N, --map N, --gatekeeper N, --suite cel,map,gatekeeper).
// reference/gatekeeper is a module of its own (gkref over Gatekeeper v3.23.1).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PROGRAMS = ["celref", "mapref"].filter((p) => existsSync(join(root, "reference/cmd", p, "main.go")));

function goVersion() {
  try {
    const out = execFileSync("go", ["env", "GOVERSION"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const m = /^go(\d+)\.(\d+)/.exec(out);
    return m ? { text: out, major: Number(m[1]), minor: Number(m[2]) } : undefined;
  } catch {
    return undefined;
  }
}

const go = goVersion();
if (go === undefined || go.major < 1 || (go.major === 1 && go.minor < 25)) {
  console.log(`reference: skipped (needs Go >= 1.25 on PATH; found ${go?.text ?? "none"})`);
  process.exit(0);
}

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...options });
  if (r.status !== 0) {
    console.error(`reference: ${cmd} ${args.join(" ")} failed (${r.status ?? r.signal})`);
    process.exit(2);
  }
}

const started = Date.now();
for (const p of PROGRAMS) {
  run("nice", ["-n", "15", "go", "build", "-o", `bin/${p}`, `./cmd/${p}`], { cwd: join(root, "reference") });
}
// Separate Go modules (their own go.mod): Gatekeeper needs a newer cel-go than the apiserver
// version reference/ pins, so one module would change what the MAP oracle runs.
const MODULES = [{ dir: "reference/gatekeeper", programs: ["gkref"] }].filter((m) => existsSync(join(root, m.dir, "go.mod")));
for (const m of MODULES) {
  for (const p of m.programs) run("nice", ["-n", "15", "go", "build", "-o", `bin/${p}`, `./cmd/${p}`], { cwd: join(root, m.dir) });
}
const built = [...PROGRAMS, ...MODULES.flatMap((m) => m.programs)];
console.log(`reference: built ${built.join(", ")} with ${go.text} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.reference.json"]);
const r = spawnSync(process.execPath, [join(root, "dist-reference/test/reference/run.js"), "--root", root, ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
process.exit(r.status ?? 2);
