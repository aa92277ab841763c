/**
 * `celmap eval` at scale (issue 20): N small Pods (default 1,000, 10,000, 100,000) written as a YAML
 * stream and as JSON Lines into a temp directory, each file run through the real CLI
 * (`dist/src/cli/main.js eval -f examples/policies/ -r <file>`, the quick-start policies, default
 * output YAML to /dev/null) in a child process under `/usr/bin/time -v`, so wall time and peak RSS
 * are the child's alone (worker threads included). Beside each YAML run: the time the `yaml`
 * package alone takes to parse the same file (`parseAllDocuments` + `toJS`, the parse the old,
 * all-in-memory eval did), measured in this process.
 *
 * Usage: `npm run bench:scale`. Environment: SIZES (default "1000,10000,100000"), JOBS (passed as
 * --jobs; default: the CLI's default, the cores). Prints a Markdown table for docs/benchmarks.md,
 * with the load average before each run (the machine is shared: say so when it was busy).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseAllDocuments } from "yaml";

const ROOT = resolve(import.meta.dirname, "..", "..");
const CLI = join(ROOT, "dist", "src", "cli", "main.js");
const POLICIES = join(ROOT, "examples", "policies");
const SIZES = (process.env["SIZES"] ?? "1000,10000,100000").split(",").map((s) => Number(s.trim()));
const JOBS = process.env["JOBS"];

/** A small Pod, like examples/resources/pods.yaml: half ask for the sidecar, all get team labels where the policies say. */
function pod(i: number): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `pod-${i}`,
      namespace: i % 4 === 0 ? "sandbox" : "shop",
      labels: { app: `app-${i % 50}`, ...(i % 2 === 0 ? { "sidecar.example.com/inject": "true" } : {}) },
    },
    spec: {
      containers: [{ name: "app", image: `registry.example.com/app-${i % 50}:1.${i % 10}.0`, ports: [{ containerPort: 8080 }] }],
    },
  };
}

/** YAML as people write manifests (block style, two-space indents, sequences indented). */
function yamlOf(o: unknown, indent = ""): string {
  const scalar = (v: unknown) => (typeof v === "string" ? (/^(true|false|yes|no|on|off|null|~|[-+.\d].*|.*[:#].*)$/i.test(v) ? JSON.stringify(v) : v) : String(v));
  let out = "";
  for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
    if (Array.isArray(v)) {
      out += `${indent}${k}:\n`;
      for (const item of v) {
        const body = yamlOf(item, `${indent}    `);
        out += `${indent}  - ${body.slice(indent.length + 4)}`;
      }
    } else if (typeof v === "object" && v !== null) out += `${indent}${k}:\n${yamlOf(v, `${indent}  `)}`;
    else out += `${indent}${k}: ${scalar(v)}\n`;
  }
  return out;
}

function timed(args: readonly string[]): { seconds: number; cpu: number; rssMb: number; code: number; stderr: string } {
  const r = spawnSync("/usr/bin/time", ["-v", process.execPath, CLI, ...args], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", maxBuffer: 1 << 26 });
  const err = r.stderr ?? "";
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(err);
  const user = /User time \(seconds\): ([\d.]+)/.exec(err);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(err);
  const cpu = Number(user?.[1] ?? NaN) + Number(sys?.[1] ?? NaN);
  const seconds = wall === null ? NaN : Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]);
  return { seconds, cpu, rssMb: rss === null ? NaN : Number(rss[1]) / 1024, code: r.status ?? -1, stderr: err.split("\n\tCommand being timed")[0] ?? "" };
}

/** The `yaml` package alone on the file: CPU seconds of this process (robust on a shared machine) and wall seconds. */
function yamlParseSeconds(file: string): { cpu: number; wall: number } {
  const text = readFileSync(file, "utf8");
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  for (const d of parseAllDocuments(text, { version: "1.1", intAsBigInt: true })) if (d.toJS() !== null) n++;
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  if (n === 0) throw new Error("parsed nothing");
  return { cpu: (c.user + c.system) / 1e6, wall };
}

const dir = mkdtempSync(join(tmpdir(), "celmap-scale-"));
const rows: string[] = [];
const load = () => loadavg().map((x) => x.toFixed(1)).join(" / ");
try {
  for (const n of SIZES) {
    const pods = Array.from({ length: n }, (_, i) => pod(i));
    const yamlFile = join(dir, `pods-${n}.yaml`);
    const jsonlFile = join(dir, `pods-${n}.jsonl`);
    writeFileSync(yamlFile, pods.map((p) => yamlOf(p)).join("---\n"));
    writeFileSync(jsonlFile, `${pods.map((p) => JSON.stringify(p)).join("\n")}\n`);
    const parse = yamlParseSeconds(yamlFile);
    for (const [format, file] of [["YAML", yamlFile], ["JSON Lines", jsonlFile]] as const) {
      const before = load();
      const r = timed(["eval", "-f", POLICIES, "-r", file, ...(JOBS !== undefined ? ["--jobs", JOBS] : [])]);
      if (r.code !== 0) throw new Error(`celmap eval exited ${r.code} on ${file}:\n${r.stderr.slice(0, 2000)}`);
      const mb = (statSync(file).size / 1e6).toFixed(1);
      rows.push(
        `| ${n.toLocaleString("en")} | ${format} (${mb} MB) | ${r.seconds.toFixed(2)} s | ${r.cpu.toFixed(2)} s | ${Math.round(n / r.seconds).toLocaleString("en")} | ${((r.cpu / n) * 1e6).toFixed(0)} µs | ${r.rssMb.toFixed(0)} MB | ${format === "YAML" ? `${parse.wall.toFixed(2)} s / ${parse.cpu.toFixed(2)} s` : ""} | ${before} |`,
      );
      console.error(rows[rows.length - 1]);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`celmap eval at scale (\`npm run bench:scale\`), ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`);
console.log(`Machine: ${cpus()[0]?.model ?? "?"}, ${cpus().length} cores, Node ${process.version}; policies: examples/policies (the quick start); --jobs ${JOBS ?? "default (cores)"}; output: YAML to /dev/null.`);
console.log("");
console.log("| Pods | input | wall time | CPU time (user+sys, all threads) | objects/s (wall) | CPU per object | peak RSS | `yaml` parse alone (wall / CPU) | load (1/5/15 min) before |");
console.log("|---:|---|---:|---:|---:|---:|---:|---:|---|");
for (const r of rows) console.log(r);
