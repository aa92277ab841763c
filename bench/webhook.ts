/**
 * `npm run bench:webhook`: the real `celmap webhook` process (`--workers 2`, TLS on loopback)
 * under a loopback load generator (Node `https`, keep-alive agent, 50 connections each with one
 * request in flight), with 1, 10 and 100 MutatingAdmissionPolicies matching a Pod (each adds a
 * label via ApplyConfiguration). Prints a Markdown table: latency p50/p99/max, throughput and the
 * server's CPU per review. The memory check (100,000 requests) is `npm run bench:webhook-memory`.
 *
 * Then, for 1 and 10 policies, the latency at a fixed offered load (open loop, BENCH_RATE, default
 * 2,000 reviews/s, over the same 50 connections), which is how the p99 bar reads as a service level.
 *
 * Options (env): BENCH_SECONDS (default 10 per run), BENCH_CONNECTIONS (50), BENCH_WORKERS (2), BENCH_RATE (2000).
 * The generator runs on the same machine as the server and competes with it for the cores: the
 * figures are a lower bound for a dedicated replica.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CONNECTIONS, WORKERS, load, makePki, pct, policies, serverCpu, startServer, stopServer, waitReady } from "./webhook-support.js";

const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 10);
const RATE = Number(process.env["BENCH_RATE"] ?? 2000);

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

    // The latency bar is a service level: p99 at an offered load of RATE reviews/s. A closed loop
    // over 50 connections cannot show it (its mean latency is 50 / throughput by Little's law).
    console.log(`At a fixed offered load of ${RATE} reviews/s (open loop over ${CONNECTIONS} connections; latency from each request's due time):\n`);
    console.log(`| policies matching the Pod | requests | errors | achieved (reviews/s) | p50 (ms) | p99 (ms) | max (ms) |`);
    console.log(`| ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
    for (const n of [1, 10]) {
      const pdir = join(dir, `r${n}`);
      mkdirSync(pdir);
      writeFileSync(join(pdir, "policies.yaml"), policies(n));
      const s = await startServer(dir, pki, pdir);
      try {
        await waitReady(s, pki.ca);
        await load(s.port, pki.ca, { seconds: 2 });
        const r = await load(s.port, pki.ca, { seconds: SECONDS, rate: RATE });
        console.log(`| ${n} | ${r.count} | ${r.errors} | ${Math.round(r.count / r.seconds)} | ${f2(pct(r.latenciesMs, 50))} | ${f2(pct(r.latenciesMs, 99))} | ${f2(r.latenciesMs[r.latenciesMs.length - 1] ?? NaN)} |`);
      } finally {
        await stopServer(s);
      }
    }
    console.log(`\nLoad average at the end: ${loadavg().map(f2).join(" ")}\n`);

  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
