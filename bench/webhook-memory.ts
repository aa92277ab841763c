/**
 * `npm run bench:webhook-memory`: the memory bar of `celmap webhook` — RSS under 150 MB with 100
 * policies after 100,000 requests, and no growth between the first and the last 10,000.
 *
 * Starts the real `celmap webhook --workers 2` (TLS on loopback) with 100 MutatingAdmissionPolicies,
 * sends BENCH_MEMORY_REQUESTS (100,000) real AdmissionReviews over 50 keep-alive connections, and
 * samples the RSS of the primary and of every worker (/proc/<pid>/status VmRSS) every
 * BENCH_MEMORY_SAMPLE_MS (1 s). Prints the RSS after every tenth of the requests, each process's
 * peak, and per worker the mean and the peak over the first and the last tenth (10,000 of 100,000)
 * and their difference (the growth).
 *
 * Options (env): BENCH_MEMORY_REQUESTS (100000), BENCH_MEMORY_MATCHING (policies matching each
 * request: 100 = all of them, the worst case; 10 = the requests rotate over 10 groups of 10
 * policies), BENCH_MEMORY_SECONDS (stop earlier: default 7200), BENCH_WORKERS (2),
 * BENCH_CONNECTIONS (50), BENCH_NODE_ARGS (extra node flags for the primary, e.g.
 * "--max-semi-space-size=16" to compare with V8's default young generation; the workers inherit them).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CONNECTIONS, WORKERS, load, makePki, policies, rssMb, serverCpu, startServer, stopServer, waitReady, workerPids, pct } from "./webhook-support.js";

const REQUESTS = Number(process.env["BENCH_MEMORY_REQUESTS"] ?? 100_000);
const MATCHING = Number(process.env["BENCH_MEMORY_MATCHING"] ?? 100);
const SECONDS = Number(process.env["BENCH_MEMORY_SECONDS"] ?? 7_200);
const SAMPLE_MS = Number(process.env["BENCH_MEMORY_SAMPLE_MS"] ?? 1_000);
const NODE_ARGS = (process.env["BENCH_NODE_ARGS"] ?? "").split(/\s+/).filter(Boolean);
const POLICIES = 100;

const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);

interface Sample {
  readonly at: number;
  readonly ms: number;
  /** RSS in MB by pid. */
  readonly rss: ReadonlyMap<number, number>;
}

async function main(): Promise<void> {
  if (POLICIES % MATCHING !== 0) throw new Error(`BENCH_MEMORY_MATCHING must divide ${POLICIES}`);
  const groups = POLICIES / MATCHING;
  const dir = mkdtempSync(join(tmpdir(), "celmap-bench-webhook-memory-"));
  try {
    const pki = makePki(dir);
    const cpu = cpus();
    console.log(`# celmap webhook memory\n`);
    console.log(`Machine: ${cpu[0]?.model ?? "?"}, ${cpu.length} cores, Node ${process.version}; load average at start ${loadavg().map(f2).join(" ")}`);
    console.log(
      `Server: \`celmap webhook --workers ${WORKERS}\`${NODE_ARGS.length > 0 ? ` (node ${NODE_ARGS.join(" ")})` : ""}, ${POLICIES} policies, ${MATCHING} matching each request; ` +
        `${REQUESTS} requests over ${CONNECTIONS} keep-alive connections; RSS sampled every ${SAMPLE_MS} ms.\n`,
    );
    const pdir = join(dir, "policies");
    mkdirSync(pdir);
    writeFileSync(join(pdir, "policies.yaml"), policies(POLICIES, groups));
    const s = await startServer(dir, pki, pdir, NODE_ARGS);
    try {
      await waitReady(s, pki.ca);
      const primary = s.child.pid!;
      const pids = (): number[] => [primary, ...workerPids(primary)];
      const read = (): Map<number, number> => {
        const m = new Map<number, number>();
        for (const p of pids()) {
          try {
            m.set(p, rssMb(p));
          } catch {
            // exited between listing and reading
          }
        }
        return m;
      };
      const ready = read();
      const t0 = performance.now();
      const samples: Sample[] = [{ at: 0, ms: 0, rss: ready }];
      let count = 0;
      const timer = setInterval(() => samples.push({ at: count, ms: performance.now() - t0, rss: read() }), SAMPLE_MS);
      const tenth = Math.floor(REQUESTS / 10);
      const marks: Sample[] = [];
      const cpu0 = serverCpu(s);
      const r = await load(s.port, pki.ca, {
        total: REQUESTS,
        seconds: SECONDS,
        groups,
        onCount: (c) => {
          count = c;
          if (c % tenth === 0) marks.push({ at: c, ms: performance.now() - t0, rss: read() });
        },
      });
      clearInterval(timer);
      const cpuMs = ((serverCpu(s) - cpu0) * 1000) / r.count;
      samples.push({ at: r.count, ms: performance.now() - t0, rss: read() });
      const end = read();
      const all = [...ready.keys()];
      for (const p of end.keys()) if (!all.includes(p)) all.push(p);
      const name = (p: number): string => (p === primary ? `primary (${p})` : `worker (${p})${ready.has(p) ? "" : " (restarted)"}`);
      const capped = r.count < REQUESTS ? ` — stopped by the ${SECONDS} s limit before ${REQUESTS}` : "";
      console.log(
        `${r.count} requests${capped}, ${r.errors} errors, ${Math.round(r.count / r.seconds)} reviews/s, p50 ${f2(pct(r.latenciesMs, 50))} ms, p99 ${f2(pct(r.latenciesMs, 99))} ms, ` +
          `server CPU ${f2(cpuMs)} ms per review, ${Math.round(r.seconds)} s.\n`,
      );
      console.log(`RSS (MB) after every tenth of the requests:\n`);
      console.log(`| process | ready | ${marks.map((m) => `${m.at / 1000}k`).join(" | ")} | peak |`);
      console.log(`| --- | ---: | ${marks.map(() => "---:").join(" | ")} | ---: |`);
      const peak = (p: number, from = 0, to = Infinity): number => Math.max(...samples.filter((x) => x.at >= from && x.at <= to).map((x) => x.rss.get(p) ?? -Infinity));
      const mean = (p: number, from: number, to: number): number => {
        const xs = samples.filter((x) => x.at >= from && x.at <= to).map((x) => x.rss.get(p)).filter((x): x is number => x !== undefined);
        return xs.reduce((a, b) => a + b, 0) / xs.length;
      };
      for (const p of all) console.log(`| ${name(p)} | ${f1(ready.get(p) ?? NaN)} | ${marks.map((m) => f1(m.rss.get(p) ?? NaN)).join(" | ")} | ${f1(peak(p))} |`);
      const n = r.count;
      const w = Math.floor(n / 10);
      console.log(`\nFirst tenth (requests 0-${w}) against the last (${n - w}-${n}), RSS samples (MB):\n`);
      console.log(`| process | first: mean | first: peak | last: mean | last: peak | growth of the mean | growth of the peak |`);
      console.log(`| --- | ---: | ---: | ---: | ---: | ---: | ---: |`);
      for (const p of all) {
        const a = mean(p, 0, w);
        const b = mean(p, n - w, n);
        const pa = peak(p, 0, w);
        const pb = peak(p, n - w, n);
        console.log(`| ${name(p)} | ${f1(a)} | ${f1(pa)} | ${f1(b)} | ${f1(pb)} | ${f1(b - a)} | ${f1(pb - pa)} |`);
      }
      const over = all.filter((p) => peak(p) >= 150);
      console.log(`\nBar (every process under 150 MB throughout): ${over.length === 0 ? "met" : `missed by ${over.map(name).join(", ")}`}`);
      console.log(`Load average at the end: ${loadavg().map(f2).join(" ")}`);
    } finally {
      await stopServer(s);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
