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
 * New suites (MAP, Gatekeeper) plug in as further {@link Suite}s in `loadSuites`.
 */
import { celConformanceSuite, celParseSuite, loadAstToProto, loadExtensionLibraries } from "./cel/runner.js";
import { ProtoTypeProvider } from "./cel/proto-types.js";
import { runSuite, unusedLedgerEntries, type CaseResult, type Suite } from "./suite.js";

interface Args {
  readonly json: boolean;
  readonly verbose: boolean;
  readonly filter: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  let json = false;
  let verbose = false;
  let filter: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--json") json = true;
    else if (a === "--verbose" || a === "-v") verbose = true;
    else if (a === "--filter") filter = argv[++i];
    else if (a.startsWith("--filter=")) filter = a.slice("--filter=".length);
    else {
      process.stderr.write(`unknown argument: ${a}\nusage: run.js [--json] [--verbose] [--filter <suite/path-prefix>]\n`);
      process.exit(2);
    }
  }
  return { json, verbose, filter };
}

async function loadSuites(notes: string[]): Promise<Suite[]> {
  const ext = await loadExtensionLibraries();
  notes.push(`libraries: standard${ext.found.length > 0 ? `, ${ext.found.join(", ")}` : " only (nothing under src/cel/ext yet)"}`);
  for (const p of ext.problems) notes.push(`library problem: ${p}`);
  const ast = await loadAstToProto();
  if (ast.problem !== undefined) notes.push(`parser suite: ${ast.problem}`);
  const provider = new ProtoTypeProvider();
  return [celConformanceSuite({ provider, libraries: ext.libraries }), celParseSuite(ast.convert, ast.problem)];
  // TODO(map, gatekeeper): add the MAP and Gatekeeper case files (../shared/conformance/*.yaml) as suites here.
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
    const results = runSuite(filtered);
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
