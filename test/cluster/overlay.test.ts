/**
 * src/cluster: local -f documents laid over the cluster's (a proposed change replaces the cluster
 * object of the same group, kind, namespace and name, whatever its version), and a kubeconfig that
 * cannot be used: one line, exit 4, for eval and audit (no cluster needed to get there).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { overlay } from "../../src/cluster/policies.js";
import { run } from "../../src/cli/run.js";
import type { LoadedDocument } from "../../src/io/load.js";

const doc = (file: string, value: Record<string, unknown>): LoadedDocument => ({ value, source: { file, docIndex: 0 }, locate: () => undefined });
const map = (name: string, version = "v1", extra: Record<string, unknown> = {}): Record<string, unknown> => ({ apiVersion: `admissionregistration.k8s.io/${version}`, kind: "MutatingAdmissionPolicy", metadata: { name }, ...extra });

async function celmap(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readFile: (p) => readFileSync(p, "utf8") });
  return { code, stdout, stderr };
}

describe("overlay", () => {
  it("a local object replaces the cluster's of the same group, kind, namespace and name (any version), in place; the rest is added after", () => {
    const cluster = [doc("c", map("a")), doc("c", map("b")), doc("c", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p", namespace: "x" } })];
    const local = [doc("l", map("b", "v1beta1", { spec: { proposed: true } })), doc("l", map("new")), doc("l", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p", namespace: "y" } })];
    const o = overlay(cluster, local);
    expect(o.documents.map((d) => `${d.source.file}:${(d.value as { metadata: { name: string; namespace?: string } }).metadata.namespace ?? ""}/${(d.value as { metadata: { name: string } }).metadata.name}`)).toEqual([
      "c:/a",
      "l:/b",
      "c:x/p",
      "l:/new",
      "l:y/p",
    ]);
    expect(o.replaced).toEqual(["MutatingAdmissionPolicy b"]);
  });
});

describe("--kubeconfig that cannot be used: exit 4, one line", () => {
  it("a missing file, a context that is not there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "celmap-kc-"));
    try {
      const r = join(dir, "r.yaml");
      writeFileSync(r, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
      const missing = await celmap(["eval", "--kubeconfig", join(dir, "nope"), "-r", r]);
      expect(missing.code).toBe(4);
      expect(missing.stderr).toMatch(new RegExp(`^error: ${join(dir, "nope")}: .*ENOENT`));
      expect(missing.stderr.trim().split("\n")).toHaveLength(1);
      const kc = join(dir, "kc");
      writeFileSync(kc, "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: one, context: {cluster: c, user: u}}]\ncurrent-context: one\n");
      const ctx = await celmap(["audit", "--kubeconfig", kc, "--context", "two"]);
      expect(ctx.code).toBe(4);
      expect(ctx.stderr).toBe(`error: ${kc}: context "two" not found (contexts: one)\n`);
      const shard = await celmap(["audit", "--kubeconfig", kc, "--shard", "3/3"]);
      expect(shard.code).toBe(2);
      expect(shard.stderr).toMatch(/--shard 3\/3: the index is 0-based/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
