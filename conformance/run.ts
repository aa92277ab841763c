/**
 * `npm run conformance`: runs every conformance suite and reports.
 *
 *     node dist/conformance/run.js [--json] [--verbose] [--filter <path-prefix>]
 *
 * Prints one `FAIL <suite>/<path>: <difference>` line per unexpected failure and
 * one `STALE` line per ledger entry whose case now passes (or that matches
 * nothing), then a line per section, a headline per suite (`cel: N passed,
 * N failed`, over the required sections, with the other sections on their own
 * line), and a last line `N passed, N failed` over everything. `--json` prints
 * one JSON object per case instead. `--verbose` also lists known failures.
 * Exits 1 on any unexpected failure or stale ledger entry.
 *
 * Cases run in a worker thread with a per-case time limit (`--timeout <s>`,
 * default 20): a case that hangs or kills the worker is recorded as a failure and
 * the run goes on with the next case. `--in-process` runs everything in this
 * thread instead (easier to debug; a hang then hangs the run).
 *
 * New suites (MAP, Gatekeeper) plug in as further {@link Suite}s in `suites.ts`.
 */
import { Worker } from "node:worker_threads";
import { classify, runSuite, unusedLedgerEntries, type CaseResult, type Outcome, type Suite } from "./suite.js";
import { loadSuites } from "./suites.js";
import type { WorkerInput } from "./worker.js";

interface Args {
  readonly json: boolean;
  readonly verbose: boolean;
  readonly filter: string | undefined;
  readonly inProcess: boolean;
  readonly timeoutMs: number;
}

const USAGE = "usage: run.js [--json] [--verbose] [--filter <suite/path-prefix>] [--in-process] [--timeout <seconds>]";

function parseArgs(argv: readonly string[]): Args {
  let json = false;
  let verbose = false;
  let inProcess = false;
  let filter: string | undefined;
  let timeout = 20;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--json") json = true;
    else if (a === "--verbose" || a === "-v") verbose = true;
    else if (a === "--in-process") inProcess = true;
    else if (a === "--filter") filter = argv[++i];
    else if (a.startsWith("--filter=")) filter = a.slice("--filter=".length);
    else if (a === "--timeout" || a.startsWith("--timeout=")) {
      timeout = Number(a === "--timeout" ? argv[++i] : a.slice("--timeout=".length));
      if (!(timeout > 0)) {
        process.stderr.write(`--timeout needs a positive number of seconds\n${USAGE}\n`);
        process.exit(2);
      }
    } else {
      process.stderr.write(`unknown argument: ${a}\n${USAGE}\n`);
      process.exit(2);
    }
  }
  return { json, verbose, filter, inProcess, timeoutMs: timeout * 1000 };
}

type WorkerMessage =
  | { readonly kind: "start"; readonly index: number; readonly path: string; readonly section: string }
  | { readonly kind: "result"; readonly index: number; readonly outcome: Outcome }
  | { readonly kind: "done" };

/**
 * Runs a suite's cases in worker threads: one worker runs them in order; when a
 * case times out or the worker dies, that case fails and a fresh worker resumes
 * after it.
 */
async function runSuiteInWorkers(suite: Suite, filter: string | undefined, timeoutMs: number): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  let start = 0;
  for (;;) {
    const next = await new Promise<number | "done">((resolve) => {
      const input: WorkerInput = filter === undefined ? { suite: suite.name, start } : { suite: suite.name, start, filter };
      const worker = new Worker(new URL("./worker.js", import.meta.url), { workerData: input });
      let current: { index: number; path: string; section: string } | undefined;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        if (current === undefined) {
          // Died before starting a case (e.g. while loading): one failure for the whole rest.
          results.push({ suite: suite.name, path: `<from case ${start}>`, section: "harness", status: "fail", message });
          resolve("done");
          return;
        }
        results.push(classify(suite.name, current, { ok: false, message }, suite.ledger));
        resolve(current.index + 1);
      };
      const arm = (ms: number, what: () => string) => {
        clearTimeout(timer);
        timer = setTimeout(() => fail(what()), ms);
      };
      // Loading the suite in a fresh worker gets a generous allowance.
      arm(Math.max(60_000, timeoutMs), () => "harness: worker did not start within the time limit");
      worker.on("message", (m: WorkerMessage) => {
        if (m.kind === "start") {
          current = { index: m.index, path: m.path, section: m.section };
          arm(timeoutMs, () => `timeout: no result after ${timeoutMs / 1000}s`);
        } else if (m.kind === "result") {
          if (current !== undefined) results.push(classify(suite.name, current, m.outcome, suite.ledger));
          current = undefined;
          arm(timeoutMs, () => "harness: worker stalled between cases");
        } else {
          settled = true;
          clearTimeout(timer);
          void worker.terminate();
          resolve("done");
        }
      });
      worker.on("error", (e) => fail(`worker crashed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`));
      worker.on("exit", (code) => fail(`worker exited with code ${code}`));
    });
    if (next === "done") return results;
    start = next;
  }
}

function count(results: readonly CaseResult[]) {
  let pass = 0;
  let fail = 0;
  let known = 0;
  let fixed = 0;
  for (const r of results) {
    if (r.status === "pass") pass++;
    else if (r.status === "fail") fail++;
    else if (r.status === "known") known++;
    else fixed++;
  }
  // A "fixed" case passes: it counts as passed but still fails the run (stale ledger entry).
  return { pass: pass + fixed, fail: fail + known, unexpected: fail, known, fixed };
}

function pct(pass: number, total: number): string {
  return total === 0 ? "n/a" : `${((100 * pass) / total).toFixed(1)}%`;
}

function summary(label: string, results: readonly CaseResult[]): string {
  const c = count(results);
  const extra: string[] = [];
  if (c.known > 0) extra.push(`${c.known} known`);
  if (c.unexpected > 0 && c.known > 0) extra.push(`${c.unexpected} unexpected`);
  if (c.fixed > 0) extra.push(`${c.fixed} listed but passing`);
  return `${label}: ${c.pass} passed, ${c.fail} failed${extra.length > 0 ? ` (${extra.join(", ")})` : ""} [${pct(c.pass, c.pass + c.fail)}]`;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const notes: string[] = [];
  const suites = await loadSuites(notes);
  if (!args.inProcess) notes.push(`cases run in a worker thread, ${args.timeoutMs / 1000}s limit per case`);
  const out = (s: string) => process.stdout.write(`${s}\n`);
  if (!args.json) for (const n of notes) out(`# ${n}`);

  const everything: CaseResult[] = [];
  let stale = 0;
  for (const suite of suites) {
    const filtered: Suite =
      args.filter === undefined
        ? suite
        : {
            ...suite,
            cases: function* () {
              for (const c of suite.cases()) if (`${suite.name}/${c.path}`.startsWith(args.filter!)) yield c;
            },
          };
    const results = args.inProcess ? runSuite(filtered) : await runSuiteInWorkers(suite, args.filter, args.timeoutMs);
    everything.push(...results);
    if (args.json) {
      for (const r of results) out(JSON.stringify(r));
      continue;
    }

    for (const r of results) {
      if (r.status === "fail") out(`FAIL ${r.suite}/${r.path}: ${clip(r.message ?? "", args.verbose)}`);
      else if (r.status === "fixed") out(`STALE ${r.suite}/${r.path}: passes but is listed as a known failure (${r.reason}); remove it from the ledger`);
      else if (r.status === "known" && args.verbose) out(`KNOWN ${r.suite}/${r.path}: ${clip(r.message ?? "", true)} [${r.reason}]`);
    }
    if (args.filter === undefined) {
      for (const k of unusedLedgerEntries(suite.ledger, results.map((r) => r.path))) {
        stale++;
        out(`STALE ${suite.name}/${k.path}: ledger entry matches no case (${k.reason})`);
      }
    }

    // Per section, in suite order.
    const sections = new Map<string, CaseResult[]>();
    for (const r of results) {
      let list = sections.get(r.section);
      if (list === undefined) sections.set(r.section, (list = []));
      list.push(r);
    }
    const required = suite.requiredSections;
    if (sections.size > 1) {
      for (const [name, rs] of sections) {
        const tag = required === undefined || required.includes(name) ? "" : " (not required)";
        out(summary(`${suite.name}/${name}${tag}`, rs));
      }
    }
    if (required === undefined) {
      out(summary(suite.name, results) + bar(suite, results));
    } else {
      const req = results.filter((r) => required.includes(r.section));
      const other = results.filter((r) => !required.includes(r.section));
      out(summary(suite.name, req) + bar(suite, req));
      if (other.length > 0) out(summary(`${suite.name} (other sections)`, other));
    }
  }

  const c = count(everything);
  if (!args.json) out(`${c.pass} passed, ${c.fail} failed${c.known > 0 ? ` (${c.known} known, ${c.unexpected} unexpected)` : ""}`);
  return c.unexpected > 0 || c.fixed > 0 || stale > 0 ? 1 : 0;
}

/** One line per failure: newlines escaped; long messages cut unless verbose. */
function clip(message: string, verbose: boolean): string {
  const line = message.replace(/\r?\n/g, "\\n").replace(/\t/g, "\\t");
  return verbose || line.length <= 400 ? line : `${line.slice(0, 400)}… (${line.length} chars; --verbose for all)`;
}

function bar(suite: Suite, results: readonly CaseResult[]): string {
  if (suite.requiredPassRate === undefined || results.length === 0) return "";
  const c = count(results);
  const rate = c.pass / (c.pass + c.fail);
  const need = `${(suite.requiredPassRate * 100).toFixed(0)}%`;
  return rate >= suite.requiredPassRate ? ` (bar ${need}: met)` : ` (bar ${need}: NOT met)`;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`conformance runner crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
