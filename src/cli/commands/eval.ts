/**
 * `celmap eval -f <policies…> -r <resources…>`: what kube-apiserver 1.36's MutatingAdmissionPolicy
 * plugin would do to each resource, offline. The pipeline is the engine's (src/engine: `load` sorts
 * the inputs, `admit` runs each resource); this file parses options and prints.
 */
import { statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { listInputFiles } from "../../io/load.js";
import { isStdin } from "../../io/stdin.js";
import type { Operation } from "../../admission/index.js";
import { formatLoadError } from "../../io/load.js";
import type { Chunk } from "../../io/stream/chunk.js";
import { orderedMap } from "../../io/stream/ordered.js";
import { readChunks, STREAM_EXTENSIONS, type StreamItem } from "../../io/stream/read.js";
import type { ObjectRequest } from "../../engine/index.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";
import { colorWanted, palette } from "../render/color.js";
import { toYaml } from "../render/serialize.js";
import { describeObject } from "../render/session.js";
import { formatVerdict } from "./translate.js";
import { buildContext, loaded, needsOneThread, readPolicySources, sourcesAsData, type EvalOutput, type EvalSettings } from "../eval/context.js";
import { evaluateChunk, newOutcome, renderResourceDiff, targetChanged, type Outcome } from "../eval/evaluate.js";
import { MarkdownReport } from "../eval/markdown.js";
import { WorkerPool } from "../eval/workers.js";
import { CLUSTER_EXIT, clusterInputs, KUBECONFIG_HELP, KUBECONFIG_OPTIONS, wantsCluster } from "../cluster-inputs.js";

const OPTIONS: readonly OptionSpec[] = [
  {
    name: "filename",
    short: "f",
    type: "string",
    multiple: true,
    placeholder: "<file|dir>",
    description:
      "Policy inputs: MutatingAdmissionPolicies and bindings (v1alpha1, v1beta1, v1), their param objects, CustomResourceDefinitions and Namespace objects; Kyverno MutatingPolicies, NamespacedMutatingPolicies (policies.kyverno.io v1, v1beta1, v1alpha1) and PolicyExceptions, run as Kyverno's mutating webhook after the MAP plugin, and Kyverno CLI Context files (cluster resources for resource.Get/List, image data); Gatekeeper mutators (Assign, AssignMetadata, ModifySet, AssignImage), run as their translation (celmap translate). YAML or JSON, several documents per file, List kinds; directories are read recursively (.yaml, .yml, .json).",
  },
  {
    name: "resource",
    short: "r",
    type: "string",
    multiple: true,
    placeholder: "<file|dir>",
    description: "Resources to admit: each document is one admission request.",
  },
  { name: "operation", type: "string", placeholder: "CREATE|UPDATE", description: "The request's operation (default CREATE; UPDATE when --old is given)." },
  {
    name: "old",
    type: "string",
    multiple: true,
    placeholder: "<file|dir>",
    description: "The existing objects for UPDATE (oldObject), matched to each resource by kind, namespace and name.",
  },
  {
    name: "target-resources",
    type: "string",
    multiple: true,
    placeholder: "<file|dir>",
    description:
      "Existing resources for Kyverno mutateExisting policies (evaluation.mutateExisting.enabled): each -r resource is a trigger; the targets its policies select among these are mutated as Kyverno's background controller would, and printed after the triggers. They are also in the cluster that resource.Get/List read.",
  },
  { name: "user", type: "string", placeholder: "<name>", description: "request.userInfo.username (default empty)." },
  { name: "groups", type: "string", placeholder: "<a,b>", description: "request.userInfo.groups, comma-separated." },
  {
    name: "output",
    short: "o",
    type: "string",
    placeholder: "<format>",
    description:
      "yaml: the admitted objects as YAML documents (the default when stdout is not a terminal); diff: a readable diff per resource (the default on a terminal; coloured unless NO_COLOR is set); json: one JSON array of results {source, resource, allowed, stage (admission|validation, when rejected), object, patch, status, ignoredErrors}; patch: one line per resource with its RFC 6902 JSON Patch (null when denied); markdown: a preview for a pull-request comment (a summary, a table of the objects that changed or were rejected with the policies that changed them, each diff collapsed in <details>).",
  },
  {
    name: "exit-code",
    type: "boolean",
    description: "Exit 1 when a policy changed an object (a mutation, or a mutateExisting target), as kubectl diff does; 0 when nothing changed. Bad input is still 2, a celmap bug 3. Works with every -o (with -o markdown in CI: fail or label the pull request when the policies would change something).",
  },
  {
    name: "jobs",
    short: "j",
    type: "string",
    placeholder: "<n>",
    description:
      "Worker threads that admit resources (default: the machine's cores, or 1 when the -r files add up to less than 256 KB). Each loads the policy set once; resources are read as a stream, sent in batches and printed in input order, with memory bounded by the policy set and a window of documents. 1 admits in the main thread. --target-resources (mutateExisting) always runs in one thread.",
  },
  {
    name: "trace",
    type: "boolean",
    description:
      "Explain every decision on stderr: which policy, binding and param matched or not and why, matchConditions, each mutation's effect and cost, errors, the result.",
  },
  {
    name: "engine",
    type: "string",
    placeholder: "map|gatekeeper",
    description:
      "map (default): everything through the MutatingAdmissionPolicy pipeline, Gatekeeper mutators translated first. gatekeeper: the Gatekeeper mutators through Gatekeeper's own mutation semantics instead (its order and fixpoint passes), to compare with their translation during a migration; MAPs are then not allowed.",
  },
  { name: "fail-on-error", type: "boolean", description: "Exit 1 also when a policy error was ignored because of failurePolicy: Ignore." },
  { name: "no-defaults", type: "boolean", description: "Do not apply the built-in defaulters and CRD defaults (see Defaulting)." },
  {
    name: "no-validate",
    type: "boolean",
    description:
      "Stop at admission: do not validate the admitted object as the apiserver does before storing it (a policy's result the apiserver would reject with 422 Invalid is then shown as admitted).",
  },
  ...KUBECONFIG_OPTIONS,
  HELP_OPTION,
];

const EXIT_HELP = `  0  every request was evaluated and admitted (mutated or not)
  1  a policy rejected a request (failurePolicy Fail, or a 404/500/503 the apiserver would answer);
     the apiserver's message is on stderr. With --fail-on-error also: an error was ignored (failurePolicy Ignore).
     With --exit-code also: a policy changed an object (as kubectl diff)
  2  bad input. In -f, --old, --target-resources or the options (unreadable file, malformed YAML/JSON, an
     object without apiVersion/kind, a policy or binding the apiserver would reject with file#doc:
     field.path: message, CEL compile errors included, a named param that is not among the inputs):
     nothing evaluated. In -r (a malformed document, an unknown kind, no --old object): each bad
     document is named (file#doc, line:column when malformed) where it occurs in the stream, and every
     other resource, before and after it, is still evaluated and printed
  3  internal error in celmap (please report it)
  4  --kubeconfig: the cluster could not be read (unreachable, a list forbidden, a bad kubeconfig)`;

const STREAM_HELP = `  -r files and standard input (-) are read one document at a time and printed in input order as soon as
  they are admitted: YAML with several documents (---), JSON (.json, one document), JSON Lines (.jsonl,
  .ndjson; on standard input detected from the first line), List kinds (v1 List, *List) expanded.
  Well-formed YAML takes a fast parser for the block style manifests use; anything it does not fully
  understand, and every document that fails, is read by the yaml package, which gives line and column.
  --jobs spreads admission over worker threads; memory stays bounded by the policy set plus a window of
  documents, however large the input.`;

const DEFAULTING_HELP = `  kube-apiserver defaults objects when it decodes them, before admission, and again after every mutation;
  celmap does the same: CRD schema defaults (with pruning) from the given CRDs, and the built-in defaulting
  of Pods and pod templates (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob), Service, Secret
  (stringData folded into data), Namespace, ConfigMap and ServiceAccount (docs/validation.md lists them).
  The diff and patch show what the policies changed, from the object as admission received it.
  --no-defaults turns defaulting off.
  After admission the apiserver validates the object before storing it; celmap does too (object metadata,
  the common Pod/workload/Service/ConfigMap/Secret rules, CRD schemas and x-kubernetes-validations) and
  reports a rejection as the apiserver's 422 Invalid, stage "validation". --no-validate turns it off.
  A namespaced resource without metadata.namespace is created in 'default', as kubectl does. Namespaces
  not given with -f are seen as bare namespaces with only their kubernetes.io/metadata.name label.`;

export const evalCommand: Command = {
  name: "eval",
  summary: "Evaluate MutatingAdmissionPolicies and Kyverno MutatingPolicies on resources offline and print the admitted objects.",
  usage:
    "celmap eval -f <policies, bindings, params, CRDs, namespaces>... -r <resources>... [--operation CREATE|UPDATE] " +
    "[--old <file>] [--target-resources <files>] [--user <name> --groups a,b] [-o yaml|diff|json|patch|markdown] [--exit-code] [--jobs N] [--trace] [--fail-on-error]",
  description:
    "Runs each resource through kube-apiserver 1.36's MutatingAdmissionPolicy admission exactly as it would for a " +
    "'kubectl create' (or an update with --old): policy and binding matching, params, matchConditions, variables, " +
    "ApplyConfiguration (server-side apply by the schema) and JSONPatch mutations, failure policies, reinvocation. " +
    "Kyverno MutatingPolicies run as Kyverno's mutating webhook right after the MAP plugin (the apiserver's plugin order), " +
    "with their pod-controller autogen variants, PolicyExceptions and Kyverno's CEL libraries; --target-resources " +
    "evaluates mutateExisting policies on existing resources. " +
    "Prints the admitted objects; integers stay exact. No cluster is needed.",
  options: OPTIONS,
  examples: [
    {
      command: "celmap eval -f examples/policies/ -r examples/resources/",
      explanation: "Mutates the example Pods and Deployments with the example policies; a diff on a terminal, YAML when piped.",
    },
    {
      command: "celmap eval -f examples/policies/ -r examples/resources/pods.yaml --trace -o yaml > mutated.yaml",
      explanation: "Writes the mutated Pods to mutated.yaml and explains on stderr why each policy did or did not apply.",
    },
    {
      command: "celmap eval -f policy.yaml -f params/ -r deploy.yaml --old deploy-live.yaml --user alice --groups dev,system:authenticated",
      explanation: "An UPDATE of the live Deployment by alice; params from the params/ directory.",
    },
    {
      command: "celmap eval -f policies/ -r pods/ -o patch",
      explanation: "One RFC 6902 JSON Patch per resource, one per line (for scripts).",
    },
    {
      command: "celmap eval -f policies/ -r manifests/ -o markdown --exit-code > preview.md",
      explanation: "A pull-request preview of what the policies would change (exit 1 when anything changes; see the README's CI job).",
    },
    {
      command: "kubectl get pods -A -o json | jq -c '.items[]' | celmap eval -f policies/ -r - -o patch",
      explanation: "Streams JSON Lines from standard input: one patch per live Pod, in input order, on all cores.",
    },
    {
      command: "celmap eval -f policies/ -r pods/ -o json | jq '.[] | select(.allowed == false) | .status.message'",
      explanation: "The rejection messages, as the apiserver would return them.",
    },
  ],
  sections: [
    { title: "Defaulting", body: DEFAULTING_HELP },
    { title: "Streaming", body: STREAM_HELP },
    { title: "Exit codes", body: EXIT_HELP },
    { title: "Policies from a cluster (--kubeconfig)", body: KUBECONFIG_HELP },
  ],
  run: runEval,
};

function list(v: string | boolean | readonly string[] | undefined): readonly string[] {
  if (v === undefined || typeof v === "boolean") return [];
  return typeof v === "string" ? [v] : v;
}

function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === "string" ? v : undefined;
}

/** The command line as settings (plain data) and paths; usage errors thrown. */
function parseEvalArgs(args: ParsedArgs): { settings: EvalSettings; fPaths: readonly string[]; rPaths: readonly string[]; oldPaths: readonly string[]; targetPaths: readonly string[]; jobs: number } {
  if (args.positionals.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}: give policy files with -f and resources with -r`);
  }
  const fPaths = list(args.values["filename"]);
  const rPaths = list(args.values["resource"]);
  const oldPaths = list(args.values["old"]);
  const targetPaths = list(args.values["target-resources"]);
  if (fPaths.length === 0 && !wantsCluster(args)) throw new UsageError("missing -f <file|dir> with the policies and bindings");
  if (rPaths.length === 0) throw new UsageError("missing -r <file|dir> with the resources to admit");
  const opText = str(args, "operation") ?? (oldPaths.length > 0 ? "UPDATE" : "CREATE");
  if (opText !== "CREATE" && opText !== "UPDATE") throw new UsageError(`--operation must be CREATE or UPDATE, got ${JSON.stringify(opText)}`);
  const operation: Operation = opText;
  if (operation === "UPDATE" && oldPaths.length === 0) throw new UsageError("--operation UPDATE needs --old <file|dir> with the existing objects");
  if (operation === "CREATE" && oldPaths.length > 0) throw new UsageError("--old applies to UPDATE requests (drop --operation CREATE)");
  const outText = str(args, "output");
  if (outText !== undefined && !OUTPUTS.includes(outText as EvalOutput)) {
    throw new UsageError(`-o must be yaml, diff, json, patch or markdown, got ${JSON.stringify(outText)}`);
  }
  const output: EvalOutput = (outText as EvalOutput | undefined) ?? (process.stdout.isTTY === true ? "diff" : "yaml");
  const engineText = str(args, "engine") ?? "map";
  if (engineText !== "map" && engineText !== "gatekeeper") throw new UsageError(`--engine must be map or gatekeeper, got ${JSON.stringify(engineText)}`);
  const jobsText = str(args, "jobs");
  // By default, worker threads only for inputs worth their start-up (each loads celmap and the policy set).
  const jobs = jobsText === undefined ? (smallInput(rPaths) ? 1 : availableParallelism()) : Number(jobsText);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 256) throw new UsageError(`--jobs must be a whole number from 1 to 256, got ${JSON.stringify(jobsText)}`);
  const groupsText = str(args, "groups");
  const user = str(args, "user");
  const spec: ObjectRequest = {
    operation,
    ...(user !== undefined || groupsText !== undefined
      ? { userInfo: { username: user ?? "", groups: (groupsText ?? "").split(",").map((g) => g.trim()).filter((g) => g !== "") } }
      : {}),
  };
  const settings: EvalSettings = {
    output,
    trace: args.values["trace"] === true,
    failOnError: args.values["fail-on-error"] === true,
    operation,
    spec,
    admitOptions: { defaulting: args.values["no-defaults"] !== true, validate: args.values["no-validate"] !== true },
    engine: engineText,
    colorOut: colorWanted(process.stdout.isTTY),
    colorErr: colorWanted(process.stderr.isTTY),
  };
  return { settings, fPaths, rPaths, oldPaths, targetPaths, jobs };
}

/** Whether the resources are files (not stdin) adding up to less than SMALL_INPUT bytes. */
function smallInput(paths: readonly string[]): boolean {
  let total = 0;
  try {
    for (const p of paths) {
      for (const f of listInputFiles(p, STREAM_EXTENSIONS)) {
        if (isStdin(f)) return false;
        total += statSync(f).size;
        if (total >= SMALL_INPUT) return false;
      }
    }
  } catch {
    return true; // reported when read
  }
  return true;
}

const SMALL_INPUT = 256 * 1024;

const OUTPUTS: readonly EvalOutput[] = ["yaml", "diff", "json", "patch", "markdown"];

/** Documents per batch sent to a worker thread, and how many batches each worker may have queued. */
const BATCH = 64;
const BATCHES_PER_WORKER = 4;

async function runEval(args: ParsedArgs, io: CliIo): Promise<number> {
  const { settings, fPaths, rPaths, oldPaths, targetPaths, jobs } = parseEvalArgs(args);
  const errColor = palette(settings.colorErr);
  const outColor = palette(settings.colorOut);

  // ---- The policy set (all problems reported together, nothing evaluated when any).
  const readErrors: string[] = [];
  let sources = readPolicySources({ policies: fPaths, olds: oldPaths, targets: targetPaths }, readErrors);
  // --kubeconfig: the cluster's policy set with the -f documents laid over it (src/cli/cluster-inputs.ts).
  if (wantsCluster(args)) {
    const live = await clusterInputs(args, sources.policies.map(loaded));
    if (!live.ok) {
      io.stderr(`${errColor.red("error")}: ${live.error}\n`);
      return CLUSTER_EXIT;
    }
    for (const n of live.inputs.notes) io.stderr(`note: ${n}\n`);
    sources = { ...sources, policies: live.inputs.documents, loadOptions: live.inputs.loadOptions };
  }
  const built = buildContext(settings, sources);
  const errors = [...readErrors, ...built.errors];
  if (errors.length > 0) {
    for (const e of errors) io.stderr(`${errColor.red("error")}: ${e}\n`);
    io.stderr(`celmap eval: ${errors.length} input error${errors.length === 1 ? "" : "s"}; nothing evaluated\n`);
    // By the engine's error kind: a celmap bug (e.g. a translation that does not validate) is exit 3, bad input 2.
    return built.internal ? ExitCode.internal : ExitCode.usage;
  }
  const ctx = built.context;
  for (const w of built.warnings) io.stderr(`${errColor.yellow("warning")}: ${w}\n`);
  for (const v of [...ctx.gk.verdicts, ...ctx.session.gatekeeper.verdicts]) if (settings.trace || v.verdict === "refused") io.stderr(`${v.verdict === "refused" ? `${errColor.yellow("warning")}: not evaluated: ` : "translate: "}${formatVerdict(v, errColor)}`);

  // ---- The resources, streamed: read, admitted (on worker threads with --jobs > 1) and written in input order.
  const threads = needsOneThread(ctx, sources) ? 1 : jobs;
  const pool = threads > 1 ? new WorkerPool(threads, { settings, sources: sourcesAsData(sources) }) : undefined;
  const progress = process.stderr.isTTY === true && !settings.trace;
  const totals = newOutcome();
  const markdown = settings.output === "markdown" ? new MarkdownReport() : undefined;
  let firstYaml = true;
  let jsonItems = 0;
  let lastProgress = Date.now();
  const emit = (o: Outcome | StreamFailure): void => {
    if ("error" in o) {
      totals.inputErrors++;
      io.stderr(`${errColor.red("error")}: ${formatLoadError(o.error)}\n`);
      return;
    }
    for (const w of o.writes) {
      if (w.fd === "err") io.stderr(w.text);
      else if (w.fd === "out") io.stdout(w.text);
      else {
        io.stdout(`${firstYaml ? "" : "---\n"}${w.text}`);
        firstYaml = false;
      }
    }
    for (const j of o.json) io.stdout(`${jsonItems++ === 0 ? "[\n  " : ",\n  "}${j}`);
    for (const r of o.rows) markdown!.add(r);
    totals.resources += o.resources;
    totals.changed += o.changed;
    totals.denied += o.denied;
    totals.ignored += o.ignored;
    totals.inputErrors += o.inputErrors;
    totals.internal += o.internal;
    if (progress && Date.now() - lastProgress > 200) {
      lastProgress = Date.now();
      io.stderr(`\rcelmap eval: ${totals.resources} resources`);
    }
  };
  try {
    await orderedMap(
      readChunks(rPaths),
      async (items) => {
        const chunks = items.filter((i): i is { chunk: Chunk } => "chunk" in i).map((i) => i.chunk);
        const outcomes = pool !== undefined && chunks.length > 0 ? await pool.run(chunks) : chunks.map((c) => evaluateChunk(ctx, c));
        let k = 0;
        return items.map((i) => ("chunk" in i ? outcomes[k++]! : i));
      },
      emit,
      { batch: pool !== undefined ? BATCH : 1, window: pool !== undefined ? BATCH * BATCHES_PER_WORKER * threads : 1 },
    );
  } finally {
    await pool?.close();
  }
  if (progress && totals.resources > 0) io.stderr("\r\u001b[K");

  // mutateExisting targets: their final state after every trigger, after the triggers.
  const mutatedTargets = ctx.targets.filter(targetChanged);
  for (const t of mutatedTargets) {
    const label = `${describeObject(t.object)} (target of ${[...new Set(t.runs)].join(", ")})`;
    if (settings.output === "yaml") {
      io.stdout(`${firstYaml ? "" : "---\n"}# mutateExisting target ${t.source}: ${[...new Set(t.runs)].join(", ")}\n${toYaml(t.object)}`);
      firstYaml = false;
    } else if (settings.output === "diff") io.stdout(renderResourceDiff(t.source, label, t.original, t.object, outColor));
  }
  if (settings.output === "json") io.stdout(jsonItems === 0 ? "[]\n" : "\n]\n");
  if (markdown !== undefined) io.stdout(markdown.render({ inputErrors: totals.inputErrors, ignored: totals.ignored }));
  const { resources: n, changed, denied, ignored } = totals;
  if (settings.output === "diff") {
    io.stdout(
      outColor.dim(
        `${n} resource${n === 1 ? "" : "s"}: ${changed} mutated, ${n - changed - denied} unchanged, ${denied} denied` +
          `${ctx.targets.length > 0 ? `; ${mutatedTargets.length} of ${ctx.targets.length} target resource${ctx.targets.length === 1 ? "" : "s"} mutated` : ""}` +
          `${ignored > 0 ? `, ${ignored} ignored error${ignored === 1 ? "" : "s"}` : ""} (-o yaml for the objects)`,
      ) + "\n",
    );
  }
  if (totals.inputErrors > 0) {
    io.stderr(`celmap eval: ${totals.inputErrors} input error${totals.inputErrors === 1 ? "" : "s"} among the resources (each named above); the other ${n} resource${n === 1 ? " was" : "s were"} evaluated\n`);
    return ExitCode.usage;
  }
  if (n === 0) {
    io.stderr(`${errColor.red("error")}: ${rPaths.join(", ")}: no resources found (no YAML or JSON documents)\ncelmap eval: 1 input error; nothing evaluated\n`);
    return ExitCode.usage;
  }
  if (denied > 0) return 1;
  if (settings.failOnError && ignored > 0) return 1;
  if (args.values["exit-code"] === true && (changed > 0 || mutatedTargets.length > 0)) return 1;
  return ExitCode.ok;
}

type StreamFailure = Extract<StreamItem, { error: unknown }>;
