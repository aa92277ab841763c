/**
 * `celmap lint -f <policies…> [-r <samples…>]`: proves a policy set order-independent, idempotent
 * and convergent on the samples and on objects generated from the matched kinds' schemas, or shows
 * the (shrunk) object that breaks it; plus static checks (src/lint). This file loads, plans the
 * generated objects, runs src/lint and prints.
 */
import { isJsonObject, type JsonObject } from "../../admission/json.js";
import { formatLoadError, loadPaths, type LoadedDocument } from "../../io/load.js";
import {
  CHECK_SUMMARY,
  CHECKS,
  generate,
  harvest,
  lint,
  lintSubject,
  plan,
  staticChecks,
  toSarif,
  kyvernoUnitId,
  mapUnitId,
  gatekeeperUnitId,
  type CheckName,
  type Finding,
  type LintReport,
} from "../../lint/index.js";
import { seededRandom } from "../../lint/orders.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";
import { colorWanted, palette, type Palette } from "../render/color.js";
import { renderDiff } from "../render/diff.js";
import { toExactJson, toYaml } from "../render/serialize.js";
import { unknownKind } from "../../engine/index.js";
import { isObject, loadInputs, objectProblem, where } from "../render/session.js";
import { celmapVersion } from "../version.js";
import { mutatorInputs } from "./translate.js";

const OPTIONS: readonly OptionSpec[] = [
  {
    name: "filename",
    short: "f",
    type: "string",
    multiple: true,
    placeholder: "<file|dir>",
    description:
      "The policy set: MutatingAdmissionPolicies and bindings, their params, CRDs, Namespaces; Kyverno MutatingPolicies and PolicyExceptions; Gatekeeper mutators (run by Gatekeeper's System). As for celmap eval.",
  },
  { name: "resource", short: "r", type: "string", multiple: true, placeholder: "<file|dir>", description: "Sample resources to check on, besides the generated ones (optional)." },
  {
    name: "output",
    short: "o",
    type: "string",
    placeholder: "text|json|sarif",
    description: "text (default): a readable report with witnesses and diffs; json: {findings, samples, generated, notes}; sarif: SARIF 2.1.0 for code-scanning tools.",
  },
  { name: "disable", type: "string", multiple: true, placeholder: "<check,...>", description: `Checks not to run: ${CHECKS.join(", ")}.` },
  { name: "seed", type: "string", placeholder: "<n>", description: "Seed of the object generator and of sampled orders (default 1): the same seed gives the same report." },
  { name: "generate", type: "string", placeholder: "<n>", description: "Objects generated per matched kind (default 48; 0: only the -r samples)." },
  HELP_OPTION,
];

const CHECKS_HELP = CHECKS.map((c) => `  ${c.padEnd(16)}${CHECK_SUMMARY[c]}`).join("\n");

const EXIT_HELP = `  0  no finding
  1  findings (each with the policies, file#document, field path and, for the checks that run
     policies, a witness object and the two diverging results)
  2  bad input: unreadable file, a policy the apiserver would reject, an unknown kind, bad options
  3  internal error in celmap (please report it)`;

export const lintCommand: Command = {
  name: "lint",
  summary: "Prove a policy set order-independent, idempotent and convergent, or show the object that breaks it.",
  usage: "celmap lint -f <policies, bindings, params, CRDs, namespaces>... [-r <samples>...] [-o text|json|sarif] [--disable <check>] [--seed <n>] [--generate <n>]",
  description:
    "kube-apiserver runs matching MutatingAdmissionPolicies in no fixed order and reinvokes them at most once; Kyverno " +
    "orders its MutatingPolicies no better. lint admits each sample, and objects it generates from the schemas of the " +
    "matched kinds (guided by the literals and fields the policies use: prefixes, namespaces, labels, images), in every " +
    "order of the policies that select it (up to 6; beyond, every pair swapped and seeded random orders), admits the " +
    "result again, and runs the chain until it settles. Each counterexample is shrunk to a minimal object. Static checks " +
    "find what the apiserver only reports at request time. See docs/lint.md.",
  options: OPTIONS,
  examples: [
    { command: "celmap lint -f policies/", explanation: "Lints the set on generated objects; exit 1 and a report when something breaks it." },
    { command: "celmap lint -f policies/ -r samples/ --seed 7 -o json", explanation: "Also on the samples; JSON for scripts." },
    { command: "celmap lint -f policies/ -o sarif > lint.sarif", explanation: "SARIF for GitHub code scanning." },
    { command: "celmap lint -f policies/ --disable cost,binding", explanation: "Without the cost and binding checks." },
  ],
  sections: [
    { title: "Checks", body: CHECKS_HELP },
    { title: "Exit codes", body: EXIT_HELP },
  ],
  run: runLint,
};

function list(v: string | boolean | readonly string[] | undefined): readonly string[] {
  if (v === undefined || typeof v === "boolean") return [];
  return typeof v === "string" ? [v] : v;
}

function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === "string" ? v : undefined;
}

function load(paths: readonly string[], errors: string[]): LoadedDocument[] {
  const r = loadPaths(paths, { numbers: "cel" });
  for (const e of r.errors) errors.push(formatLoadError(e));
  return r.documents;
}

function parseCount(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** What `celmap lint` and `celmap test --lint` share: inputs in, report out. */
export interface LintRun {
  readonly report?: LintReport;
  /** Bad input, one message per problem. */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

export interface LintRunOptions {
  readonly disable?: ReadonlySet<CheckName>;
  readonly seed?: number;
  readonly generate?: number;
  readonly progress?: (done: number, total: number) => void;
}

/** Loads nothing: lints already-loaded documents (`-f` policies, `-r` samples). */
export function lintDocuments(fDocs: readonly LoadedDocument[], rDocs: readonly LoadedDocument[], o: LintRunOptions = {}): LintRun {
  const errors: string[] = [];
  const gk = mutatorInputs(fDocs, "gatekeeper");
  errors.push(...gk.errors);
  // The Gatekeeper mutators stay out of the engine's set (which would translate them to MAPs): they run in their System.
  const built = loadInputs(gk.documents);
  // A binding whose param is missing is a finding (params), not bad input.
  const missingParams: { source: string; message: string; policy?: string }[] = [];
  for (const e of built.errors) {
    if (e.kind === "input" && e.message.startsWith("spec.paramRef: Not found: ")) missingParams.push({ source: where(e.source), message: e.message });
    else errors.push(built.errorLines[built.errors.indexOf(e)]!);
  }
  const session = built.policySet;
  const samples: { source: string; object: JsonObject }[] = [];
  for (const d of rDocs) {
    const p = objectProblem(d);
    if (p !== undefined) {
      errors.push(p);
      continue;
    }
    const k = unknownKind(session, d.value as JsonObject);
    if (k !== undefined) errors.push(`${where(d.source)}: ${k}`);
    else samples.push({ source: where(d.source), object: d.value as JsonObject });
  }
  if (errors.length > 0) return { errors, warnings: [] };

  // Sources of the units, and the policy documents the static checks and the generator read.
  const sources = new Map<string, string>();
  const lines = new Map<string, number>();
  const policyDocs: { source: string; object: JsonObject }[] = [];
  for (const d of fDocs) {
    if (!isObject(d.value)) continue;
    const v = d.value;
    const api = String(v.apiVersion ?? "");
    const md = isJsonObject(v.metadata) ? v.metadata : {};
    const name = typeof md.name === "string" ? md.name : "";
    const src = where(d.source);
    if (api.startsWith("admissionregistration.k8s.io/") && /^MutatingAdmissionPolicy(Binding)?$/.test(String(v.kind))) {
      if (v.kind === "MutatingAdmissionPolicy") {
        sources.set(mapUnitId(name), src);
        if (d.source.line !== undefined) lines.set(mapUnitId(name), d.source.line);
      }
      policyDocs.push({ source: src, object: v });
    } else if (api.startsWith("policies.kyverno.io/") && /MutatingPolicy$/.test(String(v.kind))) {
      const id = kyvernoUnitId({ metadata: { name, ...(typeof md.namespace === "string" ? { namespace: md.namespace } : {}) } });
      sources.set(id, src);
      if (d.source.line !== undefined) lines.set(id, d.source.line);
      policyDocs.push({ source: src, object: v });
    } else if (api.startsWith("mutations.gatekeeper.sh/")) {
      sources.set(gatekeeperUnitId(String(v.kind), name), src);
      if (d.source.line !== undefined) lines.set(gatekeeperUnitId(String(v.kind), name), d.source.line);
      policyDocs.push({ source: src, object: v });
    }
  }
  const hints = harvest(
    policyDocs.map((d) => d.object),
    session.catalog,
  );
  const genPlan = plan(hints, session.namespaces);
  const subject = lintSubject(session, { ...(gk.system !== undefined ? { gatekeeper: gk.system } : {}), sources, lines, extraNamespaces: genPlan.extraNamespaces });
  const seed = o.seed ?? 1;
  const generated = (o.generate ?? 48) > 0 ? generate(genPlan, session.schemas, seededRandom(seed ^ 0x5eed), o.generate ?? 48) : [];
  const disable = o.disable ?? new Set<CheckName>();
  const staticFindings = staticChecks({
    documents: policyDocs.filter((d) => !String(d.object.apiVersion).startsWith("mutations.gatekeeper.sh/")),
    units: subject.units,
    catalog: session.catalog,
    schemas: session.schemas,
    missingParams,
  }).filter((f) => !disable.has(f.check));
  const report = lint(
    { subject, samples, generated, staticFindings },
    { disable, seed, ...(o.progress !== undefined ? { progress: (d: number, t: number) => o.progress!(d, t) } : {}) },
  );
  return { report, errors: [], warnings: [...built.warnings, ...(gk.conflicts ?? [])] };
}

export function parseDisable(values: readonly string[]): Set<CheckName> {
  const out = new Set<CheckName>();
  for (const v of values) {
    for (const c of v.split(",").map((x) => x.trim()).filter((x) => x !== "")) {
      if (!(CHECKS as readonly string[]).includes(c)) throw new UsageError(`--disable: unknown check ${JSON.stringify(c)}; the checks are ${CHECKS.join(", ")}`);
      out.add(c as CheckName);
    }
  }
  return out;
}

async function runLint(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}: give policy files with -f and samples with -r`);
  const fPaths = list(args.values["filename"]);
  const rPaths = list(args.values["resource"]);
  if (fPaths.length === 0) throw new UsageError("missing -f <file|dir> with the policies to lint");
  const output = str(args, "output") ?? "text";
  if (!["text", "json", "sarif"].includes(output)) throw new UsageError(`-o must be text, json or sarif, got ${JSON.stringify(output)}`);
  const disable = parseDisable(list(args.values["disable"]));
  const seed = parseCount(str(args, "seed"), "seed", 1);
  const count = parseCount(str(args, "generate"), "generate", 48);
  const errColor = palette(colorWanted(process.stderr.isTTY));
  const outColor = palette(colorWanted(process.stdout.isTTY) && output === "text");

  const errors: string[] = [];
  const fDocs = load(fPaths, errors);
  const rDocs = load(rPaths, errors);
  if (fDocs.length === 0 && errors.length === 0) errors.push(`${fPaths.join(", ")}: no documents found`);
  const tty = process.stderr.isTTY === true;
  let last = 0;
  const run =
    errors.length > 0
      ? { errors, warnings: [] }
      : lintDocuments(fDocs, rDocs, {
          disable,
          seed,
          generate: count,
          ...(tty
            ? {
                progress: (d: number, t: number) => {
                  if (Date.now() - last < 150 && d < t) return;
                  last = Date.now();
                  io.stderr(d >= t ? "\r\u001b[K" : `\rcelmap lint: ${d}/${t} objects`);
                },
              }
            : {}),
        });
  if (run.errors.length > 0 || run.report === undefined) {
    for (const e of run.errors) io.stderr(`${errColor.red("error")}: ${e}\n`);
    io.stderr(`celmap lint: ${run.errors.length} input error${run.errors.length === 1 ? "" : "s"}; nothing linted\n`);
    return ExitCode.usage;
  }
  for (const w of run.warnings) if (!/has no binding|refers to policy/.test(w)) io.stderr(`${errColor.yellow("warning")}: ${w}\n`);
  const report = run.report;
  if (output === "json") io.stdout(`${toExactJson({ findings: report.findings, samples: report.samples, generated: report.generated, notes: report.notes }, 2)}\n`);
  else if (output === "sarif") io.stdout(`${toExactJson(toSarif(report.findings, celmapVersion()), 2)}\n`);
  else io.stdout(renderReport(report, outColor));
  return report.findings.length > 0 ? 1 : ExitCode.ok;
}

/** The readable report: one block per finding, then a summary line. */
export function renderReport(report: LintReport, p: Palette): string {
  const out: string[] = [];
  for (const f of report.findings) out.push(renderFinding(f, p));
  for (const n of report.notes) out.push(`${p.dim(`note: ${n}`)}\n`);
  const errors = report.findings.filter((f) => f.severity === "error").length;
  const warnings = report.findings.length - errors;
  const what = `${report.samples} sample${report.samples === 1 ? "" : "s"} and ${report.generated} generated object${report.generated === 1 ? "" : "s"}`;
  out.push(
    report.findings.length === 0
      ? `${p.green("clean")}: order-independent, idempotent and convergent on ${what}; no static finding\n`
      : `${p.bold(`${report.findings.length} finding${report.findings.length === 1 ? "" : "s"}`)} (${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}) on ${what}\n`,
  );
  return out.join("\n");
}

function renderFinding(f: Finding, p: Palette): string {
  const lines: string[] = [];
  const sev = f.severity === "error" ? p.red("error") : p.yellow("warning");
  lines.push(`${sev} [${f.check}] ${p.bold(f.message)}`);
  for (const u of f.policies) lines.push(`  policy: ${u.kind} ${u.name}${u.source !== undefined ? p.dim(` (${u.source})`) : ""}`);
  if (f.path !== undefined) lines.push(`  field: ${f.path}`);
  if (f.witness !== undefined) {
    const origin = f.witness.origin === "sample" ? `sample ${f.witness.source ?? ""}, shrunk` : "generated, shrunk";
    lines.push(`  witness (${origin}):`);
    lines.push(toYaml(f.witness.object).trimEnd().replace(/^/gm, "    "));
  }
  if (f.results !== undefined) {
    const [a, b] = f.results;
    lines.push(`  ${p.red(`--- ${a.label}`)}`);
    lines.push(`  ${p.green(`+++ ${b.label}`)}`);
    const left = a.allowed ? toYaml(a.object) : `denied: ${a.message ?? ""}\n`;
    const right = b.allowed ? toYaml(b.object) : `denied: ${b.message ?? ""}\n`;
    lines.push(renderDiff(left, right, p).trimEnd().replace(/^/gm, "  "));
  }
  return `${lines.join("\n")}\n`;
}
