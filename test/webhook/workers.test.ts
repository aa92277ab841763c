/**
 * `celmap webhook --workers 2` as a user runs it (the built executable): both workers serve the
 * port, a killed worker is replaced while traffic continues, /metrics aggregates the workers, and
 * SIGTERM to the primary drains the workers and exits 0.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { Agent } from "node:https";
import { get as httpGet } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLI_PATH, REPO_ROOT, assertBuilt } from "../support/cli.js";
import { call, labelPolicy, makePki, metricValue, patchOf, removeDir, responseOf, review, waitFor, type Pki } from "./support.js";

let pki: Pki;
let child: ChildProcess | undefined;
const lines: Record<string, unknown>[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const a = srv.address();
      const port = typeof a === "object" && a !== null ? a.port : 0;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

beforeAll(() => {
  assertBuilt();
  pki = makePki();
});

afterAll(() => {
  if (child !== undefined && child.exitCode === null) child.kill("SIGKILL");
  if (pki !== undefined) removeDir(pki.dir);
});

it("--workers 2: shared port, crashed worker restarted, aggregated metrics, SIGTERM drains and exits 0", async () => {
  const dir = join(pki.dir, "policies");
  mkdirSync(dir);
  writeFileSync(join(dir, "p.yaml"), labelPolicy("add-label", "celmap", '"w"'));
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [CLI_PATH, "webhook", "-f", dir, "--tls-cert", pki.serverCert, "--tls-key", pki.serverKey, "--port", String(port), "--address", "127.0.0.1", "--workers", "2", "--namespace", "celmap-system", "--health-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  child = proc;
  let buf = "";
  let stderr = "";
  proc.stdout!.on("data", (d: Buffer) => {
    buf += d.toString("utf8");
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));

  const listening = (): Record<string, unknown>[] => lines.filter((l) => l.event === "policies_loaded");
  await waitFor(() => listening().length === 2, 15_000, `two workers loaded (stderr: ${stderr})`);
  const workerPids = new Set(listening().map((l) => l.pid as number));
  expect(workerPids.size).toBe(2);
  // Workers run the slim entry point (not the CLI) with the documented heap limit.
  for (const pid of workerPids) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    expect(cmdline.some((a) => a.endsWith("/webhook/worker.js"))).toBe(true);
    expect(cmdline).toContain("--max-old-space-size=128");
  }

  const agent = new Agent({ keepAlive: false });
  const send = async (n: number): Promise<number> => {
    let ok = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < n / 8; i++) {
          const res = responseOf(await call(pki, port, review().body, { agent }));
          if (res.allowed && patchOf(res)[0]?.value === "w") ok++;
        }
      }),
    );
    return ok;
  };
  expect(await send(200)).toBe(200);

  // Kill one worker: the primary forks a replacement; the other keeps serving meanwhile.
  const victim = [...workerPids][0]!;
  process.kill(victim, "SIGKILL");
  await waitFor(() => lines.some((l) => l.event === "worker_exit"), 10_000, "worker exit logged");
  expect(await send(80)).toBe(80);
  await waitFor(() => listening().length === 3, 15_000, "replacement worker");

  // Metrics on the primary's plain-HTTP metrics port (not on the webhook port).
  const metricsPort = lines.find((l) => l.event === "primary_started")?.metricsPort as number;
  const m = await new Promise<string>((resolve, reject) => {
    httpGet({ host: "127.0.0.1", port: metricsPort, path: "/metrics", agent: false }, (res) => {
      let t = "";
      res.on("data", (c: Buffer) => (t += c.toString("utf8")));
      res.on("end", () => resolve(t));
    }).on("error", reject);
  });
  expect((await call(pki, port, undefined, { path: "/metrics" })).status).toBe(404);
  // Aggregated across the live workers (the killed one's counts are gone with it).
  expect(metricValue(m, "celmap_webhook_requests_total", { outcome: "mutated" })).toBeGreaterThanOrEqual(80);
  expect(metricValue(m, "celmap_webhook_policies", { kind: "MutatingAdmissionPolicy" })).toBe(1);

  proc.kill("SIGTERM");
  expect(await exited).toBe(0);
  expect(lines.filter((l) => l.event === "shutdown_complete").length).toBeGreaterThanOrEqual(3);
}, 60_000);

it("usage errors exit 2 with a hint; --help documents the options", async () => {
  const { runCli } = await import("../support/cli.js");
  const none = await runCli(["webhook"]);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain("at least one -f <file|dir>");
  const noTls = await runCli(["webhook", "-f", "x.yaml"]);
  expect(noTls.code).toBe(2);
  expect(noTls.stderr).toContain("--tls-cert and --tls-key are required");
  const badTimeout = await runCli(["webhook", "-f", "x.yaml", "--tls-cert", "c", "--tls-key", "k", "--timeout", "soon"]);
  expect(badTimeout.code).toBe(2);
  expect(badTimeout.stderr).toContain('invalid duration "soon"');
  const base = ["webhook", "-f", "x.yaml", "--tls-cert", "c", "--tls-key", "k"];
  for (const [args, message] of [
    [["--tls-min-version", "1.0"], "--tls-min-version must be 1.2 or 1.3"],
    [["--tls-cipher-suites", "TLS_RSA_WITH_RC4_128_SHA"], 'unknown TLS cipher suite "TLS_RSA_WITH_RC4_128_SHA"'],
    [["--client-cn", "kube-apiserver"], "--client-cn needs --client-ca"],
    [["--health-addr", "9090"], "--health-addr must be [host]:port"],
    [["--log-sample", "0"], "--log-sample must be an integer"],
  ] as const) {
    const r = await runCli([...base, ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
  }
  const help = await runCli(["webhook", "--help"]);
  expect(help.code).toBe(0);
  for (const o of ["--tls-cert", "--client-ca", "--client-cn", "--tls-min-version", "--tls-cipher-suites", "--health-addr", "--metrics-addr", "--allow-empty", "--log-sample", "--workers", "--timeout", "--failure-policy", "--namespace"]) expect(help.stdout).toContain(o);
  expect((await runCli(["--help"])).stdout).toMatch(/webhook\s+Serve the policies as a mutating admission webhook/);
});
