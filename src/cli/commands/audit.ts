/**
 * `celmap audit`: what the installed (or a proposed) policy set would do to the objects already in
 * a cluster. The policy set is read as `celmap eval --kubeconfig` reads it (src/cli/cluster-inputs),
 * the objects of every resource a policy can match are listed page by page and admitted through the
 * engine (src/audit/run.ts), and the report (src/audit/report.ts) is printed
 * (src/cli/audit-render.ts). `celmap audit merge` combines shard reports.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { auditedResources } from "../../audit/kinds.js";
import { mergeReports, missingShards, ReportBuilder, reportProblem, type AuditReport } from "../../audit/report.js";
import { resourceText, runAudit, type Progress } from "../../audit/run.js";
import { parseShard, WHOLE, type Shard } from "../../audit/shard.js";
import { serverOf } from "../../cluster/rest.js";
import { formatLoadError, loadPaths, type LoadedDocument } from "../../io/load.js";
import { CLUSTER_EXIT, clusterInputs, KUBECONFIG_OPTIONS } from "../cluster-inputs.js";
import { renderReport, type AuditOutput } from "../audit-render.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";
import { colorWanted, palette } from "../render/color.js";
import { loadInputs } from "../render/session.js";

const OPTIONS: readonly OptionSpec[] = [
  ...KUBECONFIG_OPTIONS,
  {
    name: "filename",
    short: "f",
    type: "string",
    multiple: true,
    placeholder: "<file|dir>",
    description: "A proposed change: policies, bindings, params, CRDs and Namespaces laid over the cluster's (a local object with a cluster object's kind, namespace and name replaces it; others are added), as celmap eval -f reads them.",
  },
  { name: "no-cluster-policies", type: "boolean", description: "Audit with the -f policy set alone (the cluster's policies, bindings and params are not read; its Namespaces and custom resource types still are)." },
  { name: "namespace", short: "n", type: "string", placeholder: "<ns>", description: "Audit one namespace (namespaced resources only). Default: all namespaces and cluster-scoped resources." },
  { name: "selector", short: "l", type: "string", placeholder: "<selector>", description: "A label selector for the objects (as kubectl -l), e.g. app=web,tier!=db." },
  {
    name: "operation",
    type: "string",
    placeholder: "UPDATE|CREATE",
    description:
      "The request each existing object is admitted as. UPDATE (default): object and oldObject both the stored object, as the next apply or controller update of it sends. CREATE: the stored object without its server-set metadata, as a re-creation (a Pod recreated by its controller, a restore) sends it.",
  },
  { name: "shard", type: "string", placeholder: "<i/n>", description: "Admit only shard i (0-based) of n: an object is in shard sha256(uid) mod n. Every shard lists everything; `celmap audit merge` combines the shards' -o json reports." },
  { name: "chunk-size", type: "string", placeholder: "<n>", description: "Objects per list page (limit/continue). Default 500." },
  { name: "output", short: "o", type: "string", placeholder: "<format>", description: "text (default): summary, per resource and per policy tables, every change as RFC 6902 operations, denials, errors; markdown: the same for a pull-request comment (changes collapsed); json or yaml: the report (json is what audit merge reads)." },
  { name: "report", type: "string", placeholder: "<file>", description: "Also write the JSON report (what audit merge reads) to this file, whatever -o prints." },
  { name: "exit-code", type: "boolean", description: "Exit 1 when an object would change, be denied or be invalid (as kubectl diff)." },
  { name: "no-defaults", type: "boolean", description: "Do not apply the built-in defaulters and CRD defaults after mutations." },
  { name: "no-validate", type: "boolean", description: "Do not validate the admitted objects as the apiserver does before storing them (no 'invalid' outcome)." },
  HELP_OPTION,
];

const EXIT_HELP = `  0  the audit is complete (objects may change: see the report; --exit-code to fail on it)
  1  with --exit-code: an object would change, be denied or be invalid
  2  bad usage or input: options, unreadable or invalid -f files, a policy the apiserver would reject;
     for merge: a file that is not an audit report, or reports of different audits
  3  internal error in celmap (please report it)
  4  the cluster could not be read: nothing audited (bad kubeconfig, unreachable, the policies' lists
     forbidden), or the audit is incomplete (a resource's list failed, an object could not be admitted,
     for merge a shard missing): the report covers everything else and names each error`;

const REQUEST_HELP = `  An existing object is admitted as the request its next write would be: by default an UPDATE with
  object = oldObject = the stored object (a kubectl apply, a controller update or a label change of the
  unchanged object sends that; policies matching UPDATE act on it, and a policy that compares object and
  oldObject sees no difference). Policies that match only CREATE act when the object is re-created:
  --operation CREATE admits each object as its re-creation (server-set metadata dropped).
  The report's diffs are RFC 6902 operations from the stored object to the admitted one; each change names
  the policies whose invocations changed the object (MutatingAdmissionPolicy/<name>, MutatingPolicy/<name>).`;

const SHARD_HELP = `  celmap audit --shard 0/4 -o json > 0.json   # ... one per shard, in parallel (the Helm chart's Indexed Job)
  celmap audit merge 0.json 1.json 2.json 3.json [-o text|markdown|json|yaml]
  merge reads report files (-o json, --report) or logs that hold one (kubectl logs of a shard's Pod).
  merge refuses reports of different audits (operation, policy set digest, cluster, scope, shard count) and a
  shard given twice, and says which shards are missing (exit 4).`;

export const auditCommand: Command = {
  name: "audit",
  summary: "Admit the objects already in a cluster through its installed or a proposed policy set and report what would change.",
  usage:
    "celmap audit [--kubeconfig <file>] [--context c] [-f <proposed policies>...] [-n ns] [-l selector] [--operation UPDATE|CREATE] [--shard i/n] [-o text|markdown|json|yaml] [--exit-code]\n" +
    "       celmap audit merge <report.json>... [-o text|markdown|json|yaml] [--exit-code]",
  description:
    "Reads the policy set installed in the cluster (MutatingAdmissionPolicies, bindings, params, Kyverno MutatingPolicies and PolicyExceptions, " +
    "Gatekeeper mutators, Namespaces, custom resource schemas), lays the -f files over it, lists every object of the resources its policies " +
    "can match (page by page, all namespaces or -n, optionally -l), admits each one as kube-apiserver 1.36 would (the same engine as celmap eval) " +
    "and reports, per resource and per policy, how many objects would change, be denied or be rejected by validation, with every change as a " +
    "patch and every denial with its message. Needs only list permission. A progress line on stderr when it is a terminal.",
  options: OPTIONS,
  examples: [
    { command: "celmap audit --kubeconfig ~/.kube/config", explanation: "What the installed policies would do to every matched object at its next update." },
    { command: "celmap audit -f policies/new-labels.yaml -n team-a -o markdown", explanation: "A proposed policy change, on team-a's objects, as a pull-request comment." },
    { command: "celmap audit --operation CREATE -l app=web -o json | jq '.denials[].message'", explanation: "Which web objects a re-creation would be denied for, and why." },
    { command: "celmap audit merge shard-*.json", explanation: "One report from the shards' reports (see Sharding)." },
  ],
  sections: [
    { title: "The request", body: REQUEST_HELP },
    { title: "Sharding", body: SHARD_HELP },
    { title: "Exit codes", body: EXIT_HELP },
  ],
  run: runAuditCommand,
};

function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === "string" ? v : undefined;
}

function list(v: string | boolean | readonly string[] | undefined): readonly string[] {
  if (v === undefined || typeof v === "boolean") return [];
  return typeof v === "string" ? [v] : v;
}

function outputOf(args: ParsedArgs): AuditOutput {
  const o = str(args, "output") ?? "text";
  if (!["text", "json", "yaml", "markdown"].includes(o)) throw new UsageError(`-o must be text, markdown, json or yaml, got ${JSON.stringify(o)}`);
  return o as AuditOutput;
}

function exitFor(r: AuditReport, args: ParsedArgs, merged: boolean): number {
  if (r.errors.length > 0 || (merged && missingShards(r).length > 0)) return CLUSTER_EXIT;
  if (args.values["exit-code"] === true && (r.totals.changed > 0 || r.totals.denied > 0 || r.totals.invalid > 0)) return 1;
  return ExitCode.ok;
}

/** A digest of the policy set's documents (shards of one audit must agree on it). */
function digestOf(docs: readonly LoadedDocument[]): string {
  const h = createHash("sha256");
  for (const d of docs) h.update(JSON.stringify(d.value, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x)) + "\0");
  return h.digest("hex").slice(0, 16);
}

async function runAuditCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals[0] === "merge") return runMerge(args, io);
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])} (the one subcommand is merge)`);
  const output = outputOf(args);
  const opText = str(args, "operation") ?? "UPDATE";
  if (opText !== "UPDATE" && opText !== "CREATE") throw new UsageError(`--operation must be UPDATE or CREATE, got ${JSON.stringify(opText)}`);
  let shard: Shard = WHOLE;
  const shardText = str(args, "shard");
  if (shardText !== undefined) {
    const s = parseShard(shardText);
    if (!s.ok) throw new UsageError(s.error);
    shard = s.shard;
  }
  const chunkText = str(args, "chunk-size");
  const limit = chunkText === undefined ? undefined : Number(chunkText);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError(`--chunk-size must be a positive integer, got ${JSON.stringify(chunkText)}`);
  const namespace = str(args, "namespace");
  const selector = str(args, "selector");
  const errColor = palette(colorWanted(process.stderr.isTTY));
  const outColor = palette(output === "text" && colorWanted(process.stdout.isTTY));

  // ---- The policy set: the cluster's with -f over it (or -f alone).
  const loadErrors: string[] = [];
  const fPaths = list(args.values["filename"]);
  const loaded = loadPaths(fPaths, { numbers: "cel" });
  for (const e of loaded.errors) loadErrors.push(formatLoadError(e));
  if (loadErrors.length > 0) {
    for (const e of loadErrors) io.stderr(`${errColor.red("error")}: ${e}\n`);
    return ExitCode.usage;
  }
  const onlyFiles = args.values["no-cluster-policies"] === true;
  if (onlyFiles && fPaths.length === 0) throw new UsageError("--no-cluster-policies needs the policies with -f");
  const live = await clusterInputs(args, loaded.documents, onlyFiles ? { policies: false } : {});
  if (!live.ok) {
    io.stderr(`${errColor.red("error")}: ${live.error}\n`);
    return CLUSTER_EXIT;
  }
  const inputs = live.inputs;
  // With --no-cluster-policies the cluster gave its Namespaces (and types) only.
  const docs = inputs.documents;
  for (const n of inputs.notes) io.stderr(`note: ${n}\n`);
  const built = loadInputs(docs, inputs.loadOptions);
  if (built.errorLines.length > 0) {
    for (const e of built.errorLines) io.stderr(`${errColor.red("error")}: ${e}\n`);
    io.stderr(`celmap audit: the policy set has ${built.errorLines.length} error${built.errorLines.length === 1 ? "" : "s"}; nothing audited\n`);
    return built.errors.some((e) => e.kind === "internal") ? ExitCode.internal : ExitCode.usage;
  }
  for (const w of built.warnings) io.stderr(`${errColor.yellow("warning")}: ${w}\n`);
  const set = built.policySet;
  const resources = auditedResources(set, opText);

  // ---- The audit.
  const report = new ReportBuilder(
    {
      operation: opText,
      policySet: digestOf(docs),
      cluster: serverOf(inputs.kubeConfig),
      scope: { ...(namespace !== undefined ? { namespace } : {}), ...(selector !== undefined ? { selector } : {}) },
    },
    shard,
  );
  const tty = process.stderr.isTTY === true;
  let last = 0;
  const progress = tty
    ? (p: Progress): void => {
        const now = Date.now();
        if (now - last < 100) return;
        last = now;
        io.stderr(`\r\u001b[Kcelmap audit: ${p.resource} (${p.resourceIndex + 1}/${p.resourceCount}): ${p.listed} listed, ${p.admitted} admitted${shard.count > 1 ? ` (shard ${shard.index}/${shard.count})` : ""}`);
      }
    : undefined;
  await runAudit(
    inputs.kubeConfig,
    set,
    resources,
    {
      operation: opText,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(selector !== undefined ? { selector } : {}),
      shard,
      ...(limit !== undefined ? { limit } : {}),
      admit: { defaulting: args.values["no-defaults"] !== true, validate: args.values["no-validate"] !== true },
      ...(progress !== undefined ? { progress } : {}),
    },
    report,
  );
  if (tty) io.stderr("\r\u001b[K");
  const r = report.finish();
  const reportFile = str(args, "report");
  if (reportFile !== undefined) {
    try {
      writeFileSync(reportFile, renderReport(r, "json", outColor));
    } catch (e) {
      io.stderr(`${errColor.red("error")}: --report ${reportFile}: ${e instanceof Error ? e.message : String(e)}\n`);
      return ExitCode.usage;
    }
  }
  io.stdout(renderReport(r, output, outColor));
  for (const e of r.errors) io.stderr(`${errColor.red("error")}: ${e.object !== undefined ? `${e.object.apiVersion} ${e.object.kind} ${e.object.namespace !== undefined ? `${e.object.namespace}/` : ""}${e.object.name}: ` : ""}${e.message}\n`);
  if (resources.length === 0) io.stderr(`note: no resource is matched by the policy set for ${opText}: nothing to audit\n`);
  else if (output !== "text") io.stderr(`celmap audit: ${r.totals.objects} objects in ${resources.map(resourceText).join(", ")}: ${r.totals.changed} would change, ${r.totals.denied} denied, ${r.totals.invalid} invalid${r.errors.length > 0 ? `, ${r.errors.length} errors` : ""}\n`);
  return exitFor(r, args, false);
}

/**
 * A report file, or a log holding one (a shard Pod's log: the -o json report printed whole, with
 * stderr lines before and after it): the text from a line that is just `{` to the next line that is
 * just `}`.
 */
function reportText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const m = /^\{\n[\s\S]*?\n\}$/m.exec(text);
    if (m === null) throw e;
    return JSON.parse(m[0]);
  }
}

async function runMerge(args: ParsedArgs, io: CliIo): Promise<number> {
  const files = args.positionals.slice(1);
  if (files.length === 0) throw new UsageError("audit merge: give the shard reports (celmap audit --shard i/n -o json) to merge");
  const output = outputOf(args);
  const reports: AuditReport[] = [];
  const errColor = palette(colorWanted(process.stderr.isTTY));
  for (const f of files) {
    let v: unknown;
    try {
      v = reportText(io.readFile(f));
    } catch (e) {
      io.stderr(`${errColor.red("error")}: ${f}: ${e instanceof Error ? e.message : String(e)}\n`);
      return ExitCode.usage;
    }
    const p = reportProblem(v);
    if (p !== undefined) {
      io.stderr(`${errColor.red("error")}: ${f}: ${p}\n`);
      return ExitCode.usage;
    }
    reports.push(v as AuditReport);
  }
  const m = mergeReports(reports);
  if (!m.ok) {
    io.stderr(`${errColor.red("error")}: audit merge: ${m.error}\n`);
    return ExitCode.usage;
  }
  io.stdout(renderReport(m.report, output, palette(output === "text" && colorWanted(process.stdout.isTTY))));
  const missing = missingShards(m.report);
  if (missing.length > 0) io.stderr(`${errColor.red("error")}: audit merge: incomplete: shard${missing.length === 1 ? "" : "s"} ${missing.join(", ")} of ${m.report.shard.count} missing\n`);
  return exitFor(m.report, args, true);
}
