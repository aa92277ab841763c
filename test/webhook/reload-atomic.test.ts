/**
 * Policy files caught mid-write (issue 16, finding 4), against a real server on loopback: a file
 * rewritten in place over and over (truncated, then written in two parts, sometimes left empty for
 * a while) while requests flow is never served as a set without its policies; a ConfigMap whose
 * `..data` link points nowhere keeps the last good set; at start-up a wrong path, an empty file or
 * a policy that does not compile makes `celmap webhook` exit 2 (unusable input) with the reason (`--allow-empty`
 * starts).
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, symlinkSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { get as httpGet } from "node:http";
import { Agent } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PATH, REPO_ROOT, assertBuilt } from "../support/cli.js";
import { call, labelPolicy, makePki, patchOf, removeDir, responseOf, review, sleep, startServer, waitFor, type Pki } from "./support.js";

let pki: Pki;
beforeAll(() => {
  assertBuilt();
  pki = makePki();
});
afterAll(() => {
  if (pki !== undefined) removeDir(pki.dir);
});

/** Rewrites `file` in place (no rename): truncate, the policy, a pause, the binding. */
function rewriteInPlace(file: string, text: string, pauseMs: number): Promise<void> {
  const cut = text.indexOf("---");
  const fd = openSync(file, "w");
  writeSync(fd, text.slice(0, cut));
  return sleep(pauseMs).then(() => {
    writeSync(fd, text.slice(cut));
    closeSync(fd);
  });
}

describe("files rewritten while requests flow", () => {
  it("a set without its policies is never served (in-place rewrites, empty files, half-written files)", async () => {
    const dir = join(pki.dir, "rewrite");
    mkdirSync(dir);
    const file = join(dir, "p.yaml");
    writeFileSync(file, labelPolicy("add-label", "celmap", '"a"'));
    const { server, port, log } = await startServer(pki, [dir], { debounceMs: 20 } as never);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const seen: string[] = [];
    const failures: string[] = [];
    let running = true;
    const clients = Array.from({ length: 4 }, async () => {
      while (running) {
        try {
          const res = responseOf(await call(pki, port, review().body, { agent }));
          const label = patchOf(res).find((p) => p.path === "/metadata/labels/celmap");
          seen.push(label === undefined ? `(none: ${JSON.stringify(res).slice(0, 200)})` : String(label.value));
        } catch (e) {
          failures.push((e as Error).message);
        }
      }
    });
    try {
      // 60 rewrites (bounded): half-written for 0-40 ms, every fifth one left empty for 150 ms.
      for (let i = 0; i < 60; i++) {
        const value = i % 2 === 0 ? "b" : "a";
        if (i % 5 === 4) {
          writeFileSync(file, "");
          await sleep(150);
        }
        await rewriteInPlace(file, labelPolicy("add-label", "celmap", JSON.stringify(value)), (i * 7) % 40);
        await sleep((i * 13) % 60);
      }
      await sleep(500);
    } finally {
      running = false;
      await Promise.all(clients);
      agent.destroy();
      await server.shutdown();
    }
    expect(failures).toEqual([]);
    expect(seen.length).toBeGreaterThan(50);
    expect(seen.filter((v) => v !== "a" && v !== "b")).toEqual([]);
    // The empty file was seen, and refused.
    expect(log.lines.some((l) => l.event === "policies_rejected" && JSON.stringify(l.errors).includes("no policies found"))).toBe(true);
  }, 120_000);

  it("a ConfigMap whose ..data link dangles keeps the last good set", async () => {
    const dir = join(pki.dir, "configmap");
    mkdirSync(join(dir, "..2026_01"), { recursive: true });
    writeFileSync(join(dir, "..2026_01", "p.yaml"), labelPolicy("add-label", "celmap", '"cm"'));
    symlinkSync("..2026_01", join(dir, "..data"));
    symlinkSync("..data/p.yaml", join(dir, "p.yaml"));
    const { server, port, log } = await startServer(pki, [dir], { debounceMs: 20 } as never);
    try {
      expect(patchOf(responseOf(await call(pki, port, review().body)))[0]?.value).toBe("cm");
      // Swap ..data to a directory that does not exist (as a ConfigMap update caught half-way).
      symlinkSync("..2026_02", join(dir, "..data_tmp"));
      renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
      await waitFor(() => log.lines.some((l) => l.event === "policies_rejected"), 5_000, "the dangling set rejected");
      expect(patchOf(responseOf(await call(pki, port, review().body)))[0]?.value).toBe("cm");
    } finally {
      await server.shutdown();
    }
  }, 60_000);
});

/** Runs `celmap webhook` until it exits or `ms` passes (then SIGTERM); its exit code and output. */
function runWebhook(args: readonly string[], ms: number, whileUp?: (lines: Record<string, unknown>[]) => Promise<void>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [CLI_PATH, "webhook", "--tls-cert", pki.serverCert, "--tls-key", pki.serverKey, "--port", "0", "--address", "127.0.0.1", "--health-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", ...args],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    const lines: Record<string, unknown>[] = [];
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
      for (const l of d.toString("utf8").split("\n")) {
        try {
          lines.push(JSON.parse(l) as Record<string, unknown>);
        } catch {
          // partial or not JSON
        }
      }
    });
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGTERM"), ms);
    if (whileUp !== undefined) {
      void waitFor(() => lines.some((l) => l.event === "policies_loaded" || l.event === "start_failed"), ms, "started")
        .then(() => whileUp(lines))
        .finally(() => child.kill("SIGTERM"));
    }
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function plainGet(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpGet({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    }).on("error", reject);
  });
}

describe("start-up without a usable policy set", () => {
  it("a wrong path, an empty file, a policy that does not compile: exit 2 with the reason (also with --workers 2)", async () => {
    const dir = join(pki.dir, "startup");
    mkdirSync(dir);
    const empty = join(dir, "empty.yaml");
    writeFileSync(empty, "");
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, labelPolicy("bad", "celmap", "object.metadata.nosuchfunction()"));
    const missing = join(dir, "nope.yaml");
    for (const [args, reason] of [
      [["-f", missing], "no such file or directory"],
      [["-f", empty], "no policies found"],
      [["-f", bad], "nosuchfunction"],
      [["-f", empty, "--workers", "2"], "no policies found"],
    ] as const) {
      const r = await runWebhook(args, 30_000);
      expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(2); // unusable input (as unreadable TLS files)
      expect(r.stdout).toContain("start_failed");
      expect(r.stdout).toContain(reason);
      expect(r.stderr).toContain("exited with code 1");
    }
  }, 120_000);

  it("--allow-empty: starts with the empty set and is ready", async () => {
    const dir = join(pki.dir, "allow-empty");
    mkdirSync(dir);
    writeFileSync(join(dir, "empty.yaml"), "");
    let ready = 0;
    const r = await runWebhook(["-f", dir, "--allow-empty"], 30_000, async (lines) => {
      const healthPort = lines.find((l) => l.event === "listening")?.healthPort as number;
      ready = await plainGet(healthPort, "/readyz");
    });
    expect(ready).toBe(200);
    expect(r.code).toBe(0);
  }, 60_000);
});
