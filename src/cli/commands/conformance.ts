/**
 * `celmap conformance <case files or dirs>... [--json]`: runs conformance case files — the MAP
 * format of `shared/conformance/map-cases.yaml` (a mapping with `cases:`) and the Gatekeeper format
 * of `gatekeeper-cases.yaml` (a list of cases with `mutator`), told apart by their shape — through
 * celmap (src/conformance), and reports against the known-failures ledgers given with
 * `--known-failures` (celmap's own are under the repository's conformance/; none ship with the runner).
 */
import { basename } from "node:path";
import { parse } from "yaml";
import { gatekeeperCaseFileSuite, gatekeeperSkippedCases, isGatekeeperCaseFile } from "../../conformance/gatekeeper.js";
import { isMapCaseFile, mapCaseFileSuite } from "../../conformance/map.js";
import { loadLedger } from "../../conformance/ledger.js";
import { classify, runCase, type CaseResult, type KnownFailure, type Suite } from "../../conformance/suite.js";
import { listInputFiles } from "../../io/load.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";
import { colorWanted, palette } from "../render/color.js";

const OPTIONS: readonly OptionSpec[] = [
  { name: "json", type: "boolean", description: "Print one JSON object per case: {suite, name, status: passed|failed|skipped, message}." },
  { name: "verbose", short: "v", type: "boolean", description: "Print failure messages in full (default: cut at 400 characters)." },
  {
    name: "known-failures",
    type: "string",
    multiple: true,
    placeholder: "<file>",
    description:
      "A known-failures ledger: a YAML list of {path, reason} (paths as printed after the suite name, e.g. apiserver/<case>). Failures it lists do not fail the run. May be repeated.",
  },
  HELP_OPTION,
];

const EXIT_HELP = `  0  every case passed, or failed and is in a --known-failures ledger
  1  a case failed that is not in the ledger
  2  bad usage: no case file, an unreadable file, a file in neither format`;

export const conformanceCommand: Command = {
  name: "conformance",
  summary: "Run MAP or Gatekeeper conformance case files and report passes and failures.",
  usage: "celmap conformance <case files or dirs>... [--json] [--verbose]",
  description:
    "Runs each case of the given files through celmap and compares with the expected outcome. MAP case files " +
    "(a mapping with 'cases:', as shared/conformance/map-cases.yaml; each case's 'harness' says what surrounds the " +
    "evaluation: patcher, compile, dispatcher, plugin or apiserver) run through the MutatingAdmissionPolicy pipeline; " +
    "Gatekeeper case files (a list of cases with 'mutator', as gatekeeper-cases.yaml) are translated into " +
    "MutatingAdmissionPolicies and run through the same pipeline. Prints a line per failing case with the difference, " +
    "a line per suite ('<suite>: N passed, N failed', the suite named after the file: map-cases.yaml is 'map') and a " +
    "last line over everything. Failures listed in a --known-failures ledger (with the reason) do not fail the run.",
  options: OPTIONS,
  examples: [
    {
      command: "celmap conformance conformance/data/map-cases.yaml --known-failures conformance/map/known-failures.yaml",
      explanation: "The transcribed Kubernetes MAP tests (in celmap's repository), against celmap's ledger of that suite.",
    },
    { command: "celmap conformance conformance/data/ --json | jq 'select(.status == \"failed\")'", explanation: "Every case file of a directory; the failures as JSON." },
  ],
  sections: [{ title: "Exit codes", body: EXIT_HELP }],
  run: runConformance,
};

interface FileSuite {
  readonly suite: Suite;
  readonly skipped: readonly string[];
}

function suiteName(file: string): string {
  return basename(file).replace(/\.(ya?ml|json)$/i, "").replace(/[-_]cases$/i, "") || "cases";
}

function loadSuite(file: string, ledger: readonly KnownFailure[]): FileSuite {
  let doc: unknown;
  try {
    doc = parse(readText(file), { version: "1.2" });
  } catch (e) {
    throw new UsageError(`${file}: not valid YAML: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
  const name = suiteName(file);
  const oracle = /oracle/i.test(name);
  if (isMapCaseFile(doc)) {
    return { suite: mapCaseFileSuite(name, file, ledger), skipped: [] };
  }
  if (isGatekeeperCaseFile(doc)) {
    return { suite: gatekeeperCaseFileSuite(name, file, ledger, oracle ? "oracle" : undefined), skipped: gatekeeperSkippedCases(file) };
  }
  throw new UsageError(`${file}: neither a MAP case file (a mapping with 'cases:') nor a Gatekeeper case file (a list of cases with 'mutator')`);
}

let readText: (path: string) => string = () => "";

function clip(message: string, verbose: boolean): string {
  const line = message.replace(/\r?\n/g, "\\n");
  return verbose || line.length <= 400 ? line : `${line.slice(0, 400)}… (--verbose for all)`;
}

async function runConformance(args: ParsedArgs, io: CliIo): Promise<number> {
  readText = io.readFile;
  if (args.positionals.length === 0) throw new UsageError("missing case files, e.g. celmap conformance conformance/data/map-cases.yaml");
  const ledger: KnownFailure[] = [];
  for (const f of (args.values["known-failures"] as readonly string[] | undefined) ?? []) {
    try {
      ledger.push(...loadLedger(f, io.readFile));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(code === "ENOENT" ? `--known-failures ${f}: no such file` : (e as Error).message.split("\n")[0]!);
    }
  }
  const suites: FileSuite[] = [];
  for (const p of args.positionals) {
    let files: string[];
    try {
      files = listInputFiles(p);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`${p}: ${code === "ENOENT" ? "no such file or directory" : e instanceof Error ? e.message : String(e)}`);
    }
    const fromDir = files.length !== 1 || files[0] !== p;
    for (const f of files) {
      try {
        suites.push(loadSuite(f, ledger));
      } catch (e) {
        // Inside a directory, other files are passed over (with a note); a file named explicitly must be a case file.
        if (!fromDir || !(e instanceof UsageError)) throw e;
        io.stderr(`celmap conformance: skipping ${e.message}\n`);
      }
    }
  }
  if (suites.length === 0) throw new UsageError(`no case files in ${args.positionals.join(", ")}`);
  const json = args.values["json"] === true;
  const verbose = args.values["verbose"] === true;
  const p = palette(colorWanted(process.stdout.isTTY));
  const out = (s: string) => io.stdout(`${s}\n`);

  let totalPass = 0;
  let totalFail = 0;
  let unexpected = 0;
  const summaries: string[] = [];
  for (const { suite, skipped } of suites) {
    const results: CaseResult[] = [];
    for (const c of suite.cases()) results.push(classify(suite.name, c, runCase(c), suite.ledger));
    let pass = 0;
    let fail = 0;
    let known = 0;
    for (const r of results) {
      const passed = r.status === "pass" || r.status === "fixed";
      if (passed) pass++;
      else fail++;
      if (r.status === "known") known++;
      if (r.status === "fail") unexpected++;
      if (json) {
        const message = r.status === "known" ? `${r.message ?? ""} (known failure: ${r.reason ?? ""})` : (r.message ?? "");
        out(JSON.stringify({ suite: suite.name, name: r.path, status: passed ? "passed" : "failed", message }));
      } else if (!passed) {
        const tag = r.status === "known" ? p.yellow("FAIL (known)") : p.red("FAIL");
        out(`${tag} ${suite.name}/${r.path}: ${clip(r.message ?? "", verbose)}${r.status === "known" ? ` [known: ${clip(r.reason ?? "", verbose)}]` : ""}`);
      }
    }
    for (const s of skipped) {
      if (json) out(JSON.stringify({ suite: suite.name, name: s, status: "skipped", message: "the case is for another harness" }));
    }
    totalPass += pass;
    totalFail += fail;
    const extra = [known > 0 ? `${known} known` : "", skipped.length > 0 ? `${skipped.length} skipped` : ""].filter((x) => x !== "");
    summaries.push(`${suite.name}: ${pass} passed, ${fail} failed${extra.length > 0 ? ` (${extra.join(", ")})` : ""}`);
  }
  if (!json) {
    for (const s of summaries) out(s);
    out(`${totalPass} passed, ${totalFail} failed`);
  }
  return unexpected > 0 ? 1 : ExitCode.ok;
}
