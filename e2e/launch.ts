/**
 * Builds (cached) and starts `celmap-testcluster` (e2e/cluster/: embedded etcd + kube-apiserver
 * v1.36.3 in one Go process) and stops it. Used by the e2e suite's global setup and by the oracle
 * case generator. The binary is cached in e2e/cluster/.bin/<hash>/ keyed by the module's go.mod,
 * go.sum and Go sources; the Go build cache makes a rebuild after a source edit fast.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

/** e2e/cluster (the Go module), from dist/e2e/ or e2e/. */
export const clusterModuleDir = (() => {
  const here = import.meta.dirname;
  for (const c of [join(here, "cluster"), resolve(here, "../../e2e/cluster")]) if (existsSync(join(c, "go.mod"))) return c;
  return join(here, "cluster");
})();

/** What the launcher prints once /readyz answers 200. */
export interface ClusterInfo {
  readonly kubeconfig: string;
  readonly server: string;
  readonly caFile: string;
  readonly caKeyFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly token: string;
  readonly etcd: string;
  readonly dir: string;
  readonly version: string;
  readonly pid: number;
  readonly startupMs: number;
}

/** `go version` output, or undefined when Go is not on PATH. */
export function goVersion(): string | undefined {
  try {
    return execFileSync("go", ["version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/** The version the launcher reports at /version (k8s.io/component-base/version, set by -ldflags like upstream's build). */
export const KUBE_VERSION = "v1.36.3";
const LDFLAGS = ["gitVersion=" + KUBE_VERSION, "gitMajor=1", "gitMinor=36", "gitTreeState=clean"].map((x) => `-X k8s.io/component-base/version.${x}`).join(" ");

function sourceHash(dir: string): string {
  const h = createHash("sha256").update(LDFLAGS);
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith(".")) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".go") || e.name === "go.mod" || e.name === "go.sum") h.update(p.slice(dir.length)).update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest("hex").slice(0, 16);
}

export interface BuildResult {
  readonly binary: string;
  readonly cached: boolean;
  readonly ms: number;
}

/** The launcher binary, built with `nice -n 15 go build` unless this exact source was built before. */
export function buildLauncher(log: (line: string) => void = () => {}): BuildResult {
  const started = Date.now();
  const key = sourceHash(clusterModuleDir);
  const binDir = join(clusterModuleDir, ".bin", key);
  const binary = join(binDir, "celmap-testcluster");
  if (existsSync(binary)) return { binary, cached: true, ms: Date.now() - started };
  log(`building celmap-testcluster (k8s.io/kubernetes; the first build takes minutes, later ones use the Go build cache) into ${binDir}`);
  const tmp = `${binary}.tmp-${process.pid}`;
  mkdirSync(binDir, { recursive: true });
  execFileSync("nice", ["-n", "15", "go", "build", "-ldflags", LDFLAGS, "-o", tmp, "./cmd/celmap-testcluster"], { cwd: clusterModuleDir, stdio: ["ignore", "inherit", "inherit"] });
  execFileSync("mv", [tmp, binary]);
  // Older builds of other source versions are dead weight (each binary is ~150 MB).
  for (const e of readdirSync(join(clusterModuleDir, ".bin"))) if (e !== key) rmSync(join(clusterModuleDir, ".bin", e), { recursive: true, force: true });
  return { binary, cached: false, ms: Date.now() - started };
}

export interface RunningCluster {
  readonly info: ClusterInfo;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** The launcher's stderr so far (apiserver and etcd logs), for failure messages. */
  stderr(): string;
}

/**
 * Starts the launcher and resolves once it printed its ready line. Its stdin is a pipe held by this
 * process: if this process dies, the launcher sees EOF and shuts the cluster down.
 */
export async function startCluster(binary: string, opts: { readyTimeoutMs?: number; verbosity?: number } = {}): Promise<RunningCluster> {
  const child: ChildProcess = spawn(binary, [`-v=${opts.verbosity ?? 0}`], { stdio: ["pipe", "pipe", "pipe"] });
  let err = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (d: string) => {
    err += d;
    if (err.length > 2_000_000) err = err.slice(-1_000_000);
  });
  const exited = new Promise<void>((res) => child.once("exit", () => res()));
  const stop = async (graceMs = 25_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(t);
  };
  const info = await new Promise<ClusterInfo>((res, rej) => {
    const timer = setTimeout(() => {
      void stop(1000);
      rej(new Error(`celmap-testcluster not ready within ${opts.readyTimeoutMs ?? 240_000} ms; stderr tail:\n${err.slice(-3000)}`));
    }, opts.readyTimeoutMs ?? 240_000);
    const rl = createInterface({ input: child.stdout! });
    rl.once("line", (line) => {
      clearTimeout(timer);
      try {
        res(JSON.parse(line) as ClusterInfo);
      } catch (e) {
        void stop(1000);
        rej(new Error(`celmap-testcluster printed ${JSON.stringify(line)}: ${String(e)}`));
      }
    });
    child.once("exit", (code, sig) => {
      clearTimeout(timer);
      rej(new Error(`celmap-testcluster exited (${code ?? sig}) before it was ready; stderr tail:\n${err.slice(-3000)}`));
    });
  });
  return { info, stop, stderr: () => err };
}
