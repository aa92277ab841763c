/**
 * `npm run bench:webhook`: the real `celmap webhook` process (`--workers 2`, TLS on loopback)
 * under a loopback load generator (Node `https`, keep-alive agent, 50 connections each with one
 * request in flight), with 1, 10 and 100 MutatingAdmissionPolicies matching a Pod (each adds a
 * label via ApplyConfiguration). Prints Markdown tables: latency p50/p99/max and throughput, then
 * the memory check (RSS of every worker after 100,000 requests with 100 policies, and the growth
 * between the first and the last 10,000).
 *
 * Options (env): BENCH_SECONDS (default 10 per run), BENCH_CONNECTIONS (50), BENCH_WORKERS (2),
 * BENCH_MEMORY_REQUESTS (100000). The generator runs on the same machine as the server and
 * competes with it for the cores: the figures are a lower bound for a dedicated replica.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { Agent, request } from "node:https";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const cliMain = resolve(here, "../src/cli/main.js");
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 10);
const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 50);
const WORKERS = Number(process.env["BENCH_WORKERS"] ?? 2);
const MEMORY_REQUESTS = Number(process.env["BENCH_MEMORY_REQUESTS"] ?? 100_000);
/** The memory run stops at MEMORY_REQUESTS or after this many seconds, whichever comes first (reported). */
const MEMORY_SECONDS = Number(process.env["BENCH_MEMORY_SECONDS"] ?? 600);

function openssl(dir: string, args: readonly string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
}

function makePki(dir: string): { cert: string; key: string; ca: Buffer } {
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"]);
  openssl(dir, ["req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=celmap bench CA", "-days", "2", "-out", "ca.crt"]);
  writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "server.key"]);
  openssl(dir, ["req", "-new", "-key", "server.key", "-subj", "/CN=localhost", "-out", "server.csr"]);
  openssl(dir, ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", "server.ext", "-out", "server.crt"]);
  return { cert: join(dir, "server.crt"), key: join(dir, "server.key"), ca: readFileSync(join(dir, "ca.crt")) };
}

function policies(n: number): string {
  const docs: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = `bench-${String(i).padStart(3, "0")}`;
    docs.push(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods"]
  matchConditions:
  - name: not-opted-out
    expression: '!has(object.metadata.labels) || !("bench-skip" in object.metadata.labels)'
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"${name}": object.metadata.name + "-" + string(${i})}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${name}
`);
  }
  return docs.join("---\n");
}

function review(i: number): string {
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `00000000-0000-0000-0000-${String(i % 1_000_000_000_000).padStart(12, "0")}`,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      requestKind: { group: "", version: "v1", kind: "Pod" },
      requestResource: { group: "", version: "v1", resource: "pods" },
      name: `web-${i % 1000}`,
      namespace: "default",
      operation: "CREATE",
      userInfo: { username: "system:serviceaccount:kube-system:replicaset-controller", groups: ["system:serviceaccounts", "system:authenticated"] },
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `web-${i % 1000}`, namespace: "default", labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx:1.27", ports: [{ containerPort: 80 }], resources: { requests: { cpu: "100m", memory: "64Mi" } } }] },
      },
      oldObject: null,
      dryRun: false,
      options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
    },
  });
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (typeof a === "object" && a !== null ? res(a.port) : rej(new Error("no port"))));
    });
  });
}

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
}

async function startServer(dir: string, pki: { cert: string; key: string }, policyDir: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [cliMain, "webhook", "-f", policyDir, "--tls-cert", pki.cert, "--tls-key", pki.key, "--port", String(port), "--address", "127.0.0.1", "--workers", String(WORKERS), "--log-level", "warn"],
    { stdio: ["ignore", "ignore", "inherit"], cwd: dir },
  );
  return { child, port };
}

function get(port: number, ca: Buffer, path: string): Promise<number> {
  return new Promise((res) => {
    const r = request({ host: "127.0.0.1", port, path, ca, method: "GET" }, (m) => {
      m.resume();
      m.on("end", () => res(m.statusCode ?? 0));
    });
    r.on("error", () => res(0));
    r.end();
  });
}

async function waitReady(s: Server, ca: Buffer): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if ((await get(s.port, ca, "/readyz")) === 200) {
      // Every worker: ask a few times (round-robin).
      let ok = 0;
      for (let i = 0; i < 10; i++) if ((await get(s.port, ca, "/readyz")) === 200) ok++;
      if (ok === 10) return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("server not ready in 30 s");
}

async function stopServer(s: Server): Promise<void> {
  const done = new Promise((r) => s.child.once("exit", r));
  s.child.kill("SIGTERM");
  await done;
}

interface RunResult {
  readonly count: number;
  readonly errors: number;
  readonly seconds: number;
  readonly latenciesMs: Float64Array;
}

/** `connections` loops, each sending the next request when the last is answered; stops at `until` or `total`. */
async function load(port: number, ca: Buffer, opts: { seconds?: number; total?: number; onCount?: (n: number) => void }): Promise<RunResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, ca });
  const bodies = Array.from({ length: 1000 }, (_, i) => Buffer.from(review(i)));
  const lat: number[] = [];
  let count = 0;
  let errors = 0;
  let issued = 0;
  const start = performance.now();
  const deadline = opts.seconds !== undefined ? start + opts.seconds * 1000 : Infinity;
  const total = opts.total ?? Infinity;
  const one = (body: Buffer): Promise<void> =>
    new Promise((res) => {
      const t0 = performance.now();
      const r = request(
        { host: "127.0.0.1", port, path: "/mutate", method: "POST", agent, headers: { "content-type": "application/json", "content-length": body.length } },
        (m) => {
          const chunks: Buffer[] = [];
          m.on("data", (c: Buffer) => chunks.push(c));
          m.on("end", () => {
            lat.push(performance.now() - t0);
            count++;
            if (m.statusCode !== 200 || !Buffer.concat(chunks).includes('"allowed":true')) errors++;
            opts.onCount?.(count);
            res();
          });
        },
      );
      r.on("error", () => {
        errors++;
        count++;
        res();
      });
      r.end(body);
    });
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline && issued < total) {
      const i = issued++;
      await one(bodies[i % bodies.length]!);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { count, errors, seconds, latenciesMs: Float64Array.from(lat).sort() };
}

function pct(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The worker processes of the primary (children of the spawned process). */
function workerPids(primary: number): number[] {
  try {
    return readFileSync(`/proc/${primary}/task/${primary}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? NaN : Number(m[1]) / 1024;
}

/** User + system CPU seconds of a process (/proc/<pid>/stat, clock ticks at 100 Hz). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function serverCpu(s: Server): number {
  const pid = s.child.pid!;
  return [pid, ...workerPids(pid)].reduce((a, p) => a + cpuSeconds(p), 0);
}

const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "celmap-bench-webhook-"));
  try {
    const pki = makePki(dir);
    const cpu = cpus();
    console.log(`# celmap webhook benchmark\n`);
    console.log(`Machine: ${cpu[0]?.model ?? "?"}, ${cpu.length} cores, Node ${process.version}; load average at start ${loadavg().map(f2).join(" ")}`);
    console.log(`Server: \`celmap webhook --workers ${WORKERS}\` (TLS, loopback); generator: Node https keep-alive, ${CONNECTIONS} connections, ${SECONDS} s per run, same machine.\n`);
    console.log(`| policies matching the Pod | requests | errors | throughput (reviews/s) | p50 (ms) | p99 (ms) | max (ms) | server CPU per review (ms) | reviews/s per server core (CPU-bound) |`);
    console.log(`| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
    for (const n of [1, 10, 100]) {
      const pdir = join(dir, `p${n}`);
      mkdirSync(pdir);
      writeFileSync(join(pdir, "policies.yaml"), policies(n));
      const s = await startServer(dir, pki, pdir);
      try {
        await waitReady(s, pki.ca);
        await load(s.port, pki.ca, { seconds: 2 }); // warm-up (JIT, connections)
        const cpu0 = serverCpu(s);
        const r = await load(s.port, pki.ca, { seconds: SECONDS });
        const cpuMs = ((serverCpu(s) - cpu0) * 1000) / r.count;
        console.log(`| ${n} | ${r.count} | ${r.errors} | ${Math.round(r.count / r.seconds)} | ${f2(pct(r.latenciesMs, 50))} | ${f2(pct(r.latenciesMs, 99))} | ${f2(r.latenciesMs[r.latenciesMs.length - 1] ?? NaN)} | ${f2(cpuMs)} | ${Math.round(1000 / cpuMs)} |`);
      } finally {
        await stopServer(s);
      }
    }
    console.log(`\nLoad average after the latency runs: ${loadavg().map(f2).join(" ")}\n`);

    // Memory: 100 policies, MEMORY_REQUESTS requests; RSS per worker after the first and the last 10,000.
    const pdir = join(dir, "mem");
    mkdirSync(pdir);
    writeFileSync(join(pdir, "policies.yaml"), policies(100));
    const s = await startServer(dir, pki, pdir);
    try {
      await waitReady(s, pki.ca);
      const pids = (): number[] => [s.child.pid!, ...workerPids(s.child.pid!)];
      const before = pids().map(rssMb);
      const samples: { at: number; rss: number[] }[] = [];
      const r = await load(s.port, pki.ca, {
        total: MEMORY_REQUESTS,
        seconds: MEMORY_SECONDS,
        onCount: (c) => {
          if (c % 1000 === 0) samples.push({ at: c, rss: pids().map(rssMb) });
        },
      });
      samples.push({ at: r.count, rss: pids().map(rssMb) });
      // "First" and "last" tenth: 10,000 of 100,000 when the run completes.
      const tenth = Math.max(1000, Math.floor(r.count / 10 / 1000) * 1000);
      const a = samples.find((m) => m.at >= tenth)?.rss ?? [];
      const b = [...samples].reverse().find((m) => m.at <= r.count - tenth)?.rss ?? [];
      const c = samples[samples.length - 1]?.rss ?? [];
      const names = pids().map((p, i) => (i === 0 ? `primary (${p})` : `worker ${i} (${p})`));
      const capped = r.count < MEMORY_REQUESTS ? ` (stopped by the ${MEMORY_SECONDS} s limit before ${MEMORY_REQUESTS})` : "";
      console.log(`Memory: 100 policies, ${r.count} requests${capped}, ${r.errors} errors, ${Math.round(r.count / r.seconds)} reviews/s, RSS in MB:\n`);
      console.log(`| process | ready | after ${tenth} | after ${r.count - tenth} | after ${r.count} | growth between the first and the last ${tenth} |`);
      console.log(`| --- | ---: | ---: | ---: | ---: | ---: |`);
      names.forEach((name, i) => {
        console.log(`| ${name} | ${f1(before[i] ?? NaN)} | ${f1(a[i] ?? NaN)} | ${f1(b[i] ?? NaN)} | ${f1(c[i] ?? NaN)} | ${f1((b[i] ?? NaN) - (a[i] ?? NaN))} |`);
      });
      const total = (xs: number[]): number => xs.reduce((x, y) => x + y, 0);
      console.log(`| all processes | ${f1(total(before))} | ${f1(total(a))} | ${f1(total(b))} | ${f1(total(c))} | ${f1(total(b) - total(a))} |`);
      console.log(`\nLoad average at the end: ${loadavg().map(f2).join(" ")}`);
    } finally {
      await stopServer(s);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
