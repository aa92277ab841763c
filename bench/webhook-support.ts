/**
 * Shared by the webhook benchmarks (bench/webhook.ts, bench/webhook-memory.ts): a throw-away PKI,
 * generated policies, AdmissionReview bodies, the real `celmap webhook` process, a keep-alive
 * HTTPS load generator and /proc readings (RSS, CPU) of the server's processes.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const cliMain = resolve(here, "../src/cli/main.js");
export const CONNECTIONS = Number(process.env["BENCH_CONNECTIONS"] ?? 50);
export const WORKERS = Number(process.env["BENCH_WORKERS"] ?? 2);

function openssl(dir: string, args: readonly string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
}

export function makePki(dir: string): { cert: string; key: string; ca: Buffer } {
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key"]);
  openssl(dir, ["req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=celmap bench CA", "-days", "2", "-out", "ca.crt"]);
  writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "server.key"]);
  openssl(dir, ["req", "-new", "-key", "server.key", "-subj", "/CN=localhost", "-out", "server.csr"]);
  openssl(dir, ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", "server.ext", "-out", "server.crt"]);
  return { cert: join(dir, "server.crt"), key: join(dir, "server.key"), ca: readFileSync(join(dir, "ca.crt")) };
}

/**
 * `n` policies matching Pods (a matchCondition and an ApplyConfiguration adding a label). With
 * `groups` > 1, policy i only matches Pods labelled `bench-group: g<i % groups>` (objectSelector),
 * so a request matches n / groups of them.
 */
export function policies(n: number, groups = 1): string {
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
      resources: ["pods"]${groups > 1 ? `\n    objectSelector:\n      matchLabels:\n        bench-group: g${i % groups}` : ""}
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

/** The i-th AdmissionReview (CREATE of a Pod); with `groups` > 1 it carries `bench-group: g<i % groups>`. */
export function review(i: number, groups = 1): string {
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
        metadata: { name: `web-${i % 1000}`, namespace: "default", labels: { app: "web", ...(groups > 1 ? { "bench-group": `g${i % groups}` } : {}) } },
        spec: { containers: [{ name: "web", image: "nginx:1.27", ports: [{ containerPort: 80 }], resources: { requests: { cpu: "100m", memory: "64Mi" } } }] },
      },
      oldObject: null,
      dryRun: false,
      options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
    },
  });
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (typeof a === "object" && a !== null ? res(a.port) : rej(new Error("no port"))));
    });
  });
}

export interface Server {
  readonly child: ChildProcess;
  readonly port: number;
}

export async function startServer(dir: string, pki: { cert: string; key: string }, policyDir: string, nodeArgs: readonly string[] = []): Promise<Server> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...nodeArgs, cliMain, "webhook", "-f", policyDir, "--tls-cert", pki.cert, "--tls-key", pki.key, "--port", String(port), "--address", "127.0.0.1", "--workers", String(WORKERS), "--log-level", "warn", "--health-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"],
    { stdio: ["ignore", "ignore", "inherit"], cwd: dir },
  );
  return { child, port };
}

export function get(port: number, ca: Buffer, path: string): Promise<number> {
  return new Promise((res) => {
    const r = request({ host: "127.0.0.1", port, path, ca, method: "GET" }, (m) => {
      m.resume();
      m.on("end", () => res(m.statusCode ?? 0));
    });
    r.on("error", () => res(0));
    r.end();
  });
}

export async function waitReady(s: Server, ca: Buffer): Promise<void> {
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

export async function stopServer(s: Server): Promise<void> {
  const done = new Promise((r) => s.child.once("exit", r));
  s.child.kill("SIGTERM");
  await done;
}

export interface RunResult {
  readonly count: number;
  readonly errors: number;
  readonly seconds: number;
  readonly latenciesMs: Float64Array;
}

/** `connections` loops, each sending the next request when the last is answered; stops at `until` or `total`. */
/**
 * Drives `/mutate` over `CONNECTIONS` keep-alive connections. Closed loop by default (each connection
 * sends its next request when the previous answered: the server's maximum throughput). With `rate`,
 * open loop: request k is due at start + k / rate, sent on the next free connection, and its latency
 * counts from the time it was due, so waiting for a connection is part of it (no coordinated omission).
 */
export async function load(
  port: number,
  ca: Buffer,
  opts: { seconds?: number; total?: number; groups?: number; rate?: number; onCount?: (n: number) => void },
): Promise<RunResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, ca });
  const bodies = Array.from({ length: 1000 }, (_, i) => Buffer.from(review(i, opts.groups)));
  const lat: number[] = [];
  let count = 0;
  let errors = 0;
  let issued = 0;
  const start = performance.now();
  const deadline = opts.seconds !== undefined ? start + opts.seconds * 1000 : Infinity;
  const total = opts.total ?? Infinity;
  const one = (body: Buffer, due?: number): Promise<void> =>
    new Promise((res) => {
      // From the due time; a timer that fired early (libuv rounds to whole milliseconds) counts from the send.
      const now = performance.now();
      const t0 = due === undefined ? now : Math.min(due, now);
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
  const rate = opts.rate;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline && issued < total) {
      const i = issued++;
      if (rate === undefined) {
        await one(bodies[i % bodies.length]!);
        continue;
      }
      const due = start + (i * 1000) / rate;
      if (due >= deadline) break;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await one(bodies[i % bodies.length]!, due);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { count, errors, seconds, latenciesMs: Float64Array.from(lat).sort() };
}

export function pct(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The worker processes of the primary (children of the spawned process). */
export function workerPids(primary: number): number[] {
  try {
    return readFileSync(`/proc/${primary}/task/${primary}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m === null ? NaN : Number(m[1]) / 1024;
}

/** User + system CPU seconds of a process (/proc/<pid>/stat, clock ticks at 100 Hz). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

export function serverCpu(s: Server): number {
  const pid = s.child.pid!;
  return [pid, ...workerPids(pid)].reduce((a, p) => a + cpuSeconds(p), 0);
}

