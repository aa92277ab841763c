/**
 * `celmap eval` streaming through the real executable: --jobs 2 (worker threads) prints exactly what
 * --jobs 1 prints, in input order, in every output; JSON Lines and YAML on standard input; a List
 * expanded; a malformed document in the middle named by file, document and line while the
 * documents around it are still evaluated (exit 2); -o markdown and --exit-code.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, runCli } from "./support/cli.js";

let dir: string;
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const evalCli = (args: string[], stdin?: string) => runCli(["eval", "-f", "examples/policies/", ...args], { timeoutMs: 240_000, ...(stdin !== undefined ? { stdin } : {}) });

/** Pods in the quick start's namespaces: some get the sidecar, some are left alone. */
function pod(i: number): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `p${i}`, namespace: i % 3 === 0 ? "sandbox" : "shop", labels: { app: `a${i}`, ...(i % 2 === 0 ? { "sidecar.example.com/inject": "true" } : {}) } },
    spec: { containers: [{ name: "app", image: `registry.example.com/app:${i}` }] },
  };
}
const yamlPod = (i: number) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p${i}\n  namespace: ${i % 3 === 0 ? "sandbox" : "shop"}\n  labels:\n    app: a${i}\n${i % 2 === 0 ? '    sidecar.example.com/inject: "true"\n' : ""}spec:\n  containers:\n    - name: app\n      image: registry.example.com/app:${i}\n`;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), "celmap-eval-stream-"));
});

// Child processes on a shared 2-core machine: generous time limits (nothing here is timed).
describe("celmap eval: streaming, worker threads, order", { timeout: 300_000 }, () => {
  it("--jobs 2 prints exactly what --jobs 1 prints, in input order, for every -o", async () => {
    // 200 documents: several batches per worker, so order across workers is exercised.
    const stream = file("many.yaml", Array.from({ length: 200 }, (_, i) => yamlPod(i)).join("---\n"));
    for (const o of ["yaml", "json", "patch", "diff", "markdown"]) {
      const one = await evalCli(["-r", stream, "-o", o, "--jobs", "1"]);
      const two = await evalCli(["-r", stream, "-o", o, "--jobs", "2"]);
      expect(one.code, one.stderr).toBe(0);
      expect(two.code, two.stderr).toBe(0);
      expect(two.stdout).toBe(one.stdout);
      expect(two.stderr).toBe(one.stderr);
    }
    const patches = (await evalCli(["-r", stream, "-o", "patch", "--jobs", "2"])).stdout.trim().split("\n");
    expect(patches).toHaveLength(200);
    // The sidecar policy (examples/policies/sidecar.yaml) changes the Pods whose label asks for it, and only those: input order kept.
    patches.forEach((line, i) => expect(line.includes("log-shipper"), `Pod p${i}`).toBe(i % 2 === 0));
  });

  it("JSON Lines on standard input (detected), a List expanded, YAML on standard input", async () => {
    const jsonl = Array.from({ length: 5 }, (_, i) => JSON.stringify(pod(i))).join("\n");
    const fromStdin = await evalCli(["-r", "-", "-o", "json"], jsonl);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const results = JSON.parse(fromStdin.stdout) as { source: string; resource: { name: string } }[];
    expect(results.map((r) => r.resource.name)).toEqual(["p0", "p1", "p2", "p3", "p4"]);
    expect(results.map((r) => r.source)).toEqual(["-#0", "-#1", "-#2", "-#3", "-#4"]);

    const list = file("list.json", JSON.stringify({ apiVersion: "v1", kind: "PodList", items: [pod(0), pod(1)] }));
    const fromList = await evalCli(["-r", list, "-o", "json"]);
    expect((JSON.parse(fromList.stdout) as { source: string }[]).map((r) => r.source)).toEqual([`${list}#0.items[0]`, `${list}#0.items[1]`]);

    const yamlStdin = await evalCli(["-r", "-", "-o", "patch"], `${yamlPod(0)}---\n${yamlPod(1)}`);
    expect(yamlStdin.code, yamlStdin.stderr).toBe(0);
    expect(yamlStdin.stdout.trim().split("\n")).toHaveLength(2);
  });

  it("a malformed document in the middle: named (file, document, line:column), the others still evaluated, exit 2", async () => {
    const bad = file("middle.yaml", `${yamlPod(1)}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\n   bad: indent\n---\n${yamlPod(2)}`);
    for (const jobs of ["1", "2"]) {
      const r = await evalCli(["-r", bad, "-o", "json", "--jobs", jobs]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`${bad.replace(/[.]/g, "\\.")}:16:\\d+: .*\\(document #1 of `));
      expect(r.stderr).toContain("1 input error among the resources");
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect((JSON.parse(r.stdout) as { resource: { name: string } }[]).map((x) => x.resource.name)).toEqual(["p1", "p2"]);
    }
    const jsonl = file("middle.jsonl", `${JSON.stringify(pod(1))}\n{"apiVersion": "v1",\n${JSON.stringify(pod(2))}\n`);
    const r = await evalCli(["-r", jsonl, "-o", "patch"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${jsonl}:2:`);
    expect(r.stderr).toContain("not a JSON value");
    expect(r.stdout.trim().split("\n")).toHaveLength(2);
  });

  it("-o markdown: a summary, a table of what changed and why, collapsed diffs; --exit-code 1 when something changes", async () => {
    const changed = file("md.yaml", `${yamlPod(2)}---\n${yamlPod(3)}`);
    const r = await evalCli(["-r", changed, "-o", "markdown", "--exit-code"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("**2** objects: **1** changed, 1 unchanged, **0** denied");
    expect(r.stdout).toMatch(/\| v1 Pod shop\/p2 \| .*md\.yaml#0 \| inject-log-shipper \| changed \|/);
    expect(r.stdout).not.toContain("p3 |");
    expect(r.stdout).toContain("<details>");
    expect(r.stdout).toMatch(/```diff\n[\s\S]*\+ +- name: log-shipper/);
    const unchanged = file("md-same.yaml", yamlPod(3));
    const same = await evalCli(["-r", unchanged, "-o", "markdown", "--exit-code"]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain("**0** changed, 1 unchanged");
    expect(same.stdout).not.toContain("<details>");
  });

  it("--jobs must be a whole number", async () => {
    const r = await evalCli(["-r", "examples/resources/", "--jobs", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--jobs must be a whole number from 1 to 256");
  });
});
