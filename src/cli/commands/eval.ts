/**
 * `celmap eval -f <policies…> -r <resources…>`: what kube-apiserver 1.36's MutatingAdmissionPolicy
 * plugin would do to each resource, offline. The pipeline is the engine's (src/engine: `load` sorts
 * the inputs, `admit` runs each resource); this file parses options and prints.
 */
import { jsonDiff, newAdmissionRequest, type JsonObject, type Operation, type PatchOperation } from "../../admission/index.js";
import { describePatchOp, mutateExisting, type KyvernoOutcome, type MutatingPolicy } from "../../kyverno/index.js";
import { formatLoadError, loadPaths, type LoadedDocument } from "../../io/load.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";
import { colorWanted, palette, type Palette } from "../render/color.js";
import { renderDiff } from "../render/diff.js";
import { toExactJson, toYaml } from "../render/serialize.js";
import { admit, kyvernoContext, unknownKind, validateAdmission, type Admission, type AdmitOptions, type ObjectRequest, type PolicySet } from "../../engine/index.js";
import { describeObject, isObject, loadInputs, objectProblem, where } from "../render/session.js";
import { renderTrace } from "../render/trace.js";
import { formatVerdict, gatekeeperEvaluation, mutatorInputs, type MutatorInputs } from "./translate.js";
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
      "yaml: the admitted objects as YAML documents (the default when stdout is not a terminal); diff: a readable diff per resource (the default on a terminal; coloured unless NO_COLOR is set); json: one JSON array of results {source, resource, allowed, stage (admission|validation, when rejected), object, patch, status, ignoredErrors}; patch: one line per resource with its RFC 6902 JSON Patch (null when denied).",
  },
  {
    name: "exit-code",
    type: "boolean",
    description: "Exit 1 when a policy changed an object (a mutation, or a mutateExisting target), as kubectl diff does; 0 when nothing changed. Meant for -o diff; works with every -o.",
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
  2  bad input, nothing evaluated: unreadable file, malformed YAML/JSON, an object without apiVersion/kind,
     an unknown kind, a policy or binding the apiserver would reject (file#doc: field.path: message, CEL
     compile errors included), a named param that is not among the inputs, bad options
  3  internal error in celmap (please report it)`;

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
    "[--old <file>] [--target-resources <files>] [--user <name> --groups a,b] [-o yaml|diff|json|patch] [--trace] [--fail-on-error]",
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
      command: "celmap eval -f policies/ -r pods/ -o json | jq '.[] | select(.allowed == false) | .status.message'",
      explanation: "The rejection messages, as the apiserver would return them.",
    },
  ],
  sections: [
    { title: "Defaulting", body: DEFAULTING_HELP },
    { title: "Exit codes", body: EXIT_HELP },
    { title: "Policies from a cluster (--kubeconfig)", body: KUBECONFIG_HELP },
  ],
  run: runEval,
};

type Output = "yaml" | "diff" | "json" | "patch";

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
  for (const e of r.errors) errors.push(`${formatLoadError(e)}${e.excerpt !== undefined ? `\n${e.excerpt.replace(/^/gm, "    ")}` : ""}`);
  return r.documents;
}

function identity(o: JsonObject): string {
  const md = isObject(o.metadata) ? o.metadata : {};
  const apiVersion = String(o.apiVersion ?? "");
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return `${group}/${String(o.kind)}/${String(md.namespace ?? "")}/${String(md.name ?? "")}`;
}

interface Item {
  readonly source: string;
  readonly doc: LoadedDocument;
  readonly object: JsonObject;
  readonly old?: JsonObject;
}

async function runEval(args: ParsedArgs, io: CliIo): Promise<number> {
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
  const stdoutTTY = process.stdout.isTTY === true;
  if (outText !== undefined && !["yaml", "diff", "json", "patch"].includes(outText)) {
    throw new UsageError(`-o must be yaml, diff, json or patch, got ${JSON.stringify(outText)}`);
  }
  const output: Output = (outText as Output | undefined) ?? (stdoutTTY ? "diff" : "yaml");
  const trace = args.values["trace"] === true;
  const failOnError = args.values["fail-on-error"] === true;
  const groupsText = str(args, "groups");
  const user = str(args, "user");
  const spec: ObjectRequest = {
    operation,
    ...(user !== undefined || groupsText !== undefined
      ? { userInfo: { username: user ?? "", groups: (groupsText ?? "").split(",").map((g) => g.trim()).filter((g) => g !== "") } }
      : {}),
  };
  const admitOptions: AdmitOptions = { defaulting: args.values["no-defaults"] !== true, validate: args.values["no-validate"] !== true };
  const outColor = palette(colorWanted(process.stdout.isTTY));
  const errColor = palette(colorWanted(process.stderr.isTTY));

  // ---- Inputs (all problems reported together, nothing evaluated when any).
  const errors: string[] = [];
  const engineText = str(args, "engine") ?? "map";
  if (engineText !== "map" && engineText !== "gatekeeper") throw new UsageError(`--engine must be map or gatekeeper, got ${JSON.stringify(engineText)}`);
  // --engine map: the engine translates Gatekeeper mutators at load; --engine gatekeeper: they run in Gatekeeper's own System.
  const allF = load(fPaths, errors);
  const gk: MutatorInputs = engineText === "gatekeeper" ? mutatorInputs(allF, engineText) : { documents: allF, verdicts: [], errors: [], count: 0 };
  errors.push(...gk.errors);
  const fDocs = gk.documents;
  if (engineText === "gatekeeper") {
    if (gk.count === 0) errors.push(`--engine gatekeeper: no Gatekeeper mutators among the -f inputs`);
    for (const d of fDocs) if (isObject(d.value) && /MutatingAdmissionPolicy/.test(String(d.value.kind))) errors.push(`${where(d.source)}: --engine gatekeeper runs Gatekeeper mutators only, not ${String(d.value.kind)}`);
  }
  const rDocs = load(rPaths, errors);
  const oldDocs = load(oldPaths, errors);
  const targetDocs = load(targetPaths, errors);
  // --kubeconfig: the cluster's policy set with the -f documents laid over it (src/cli/cluster-inputs.ts).
  const live = wantsCluster(args) ? await clusterInputs(args, fDocs) : undefined;
  if (live !== undefined && !live.ok) {
    io.stderr(`${errColor.red("error")}: ${live.error}\n`);
    return CLUSTER_EXIT;
  }
  for (const n of live?.inputs.notes ?? []) io.stderr(`note: ${n}\n`);
  const built = loadInputs(live?.inputs.documents ?? fDocs, live?.inputs.loadOptions);
  errors.push(...built.errorLines);
  const session = built.policySet;
  const targets: Target[] = [];
  for (const d of targetDocs) {
    const p = objectProblem(d);
    if (p !== undefined) {
      errors.push(p);
      continue;
    }
    const k = unknownKind(session, d.value as JsonObject);
    if (k !== undefined) errors.push(`${where(d.source)}: ${k}`);
    else targets.push({ source: where(d.source), object: d.value as JsonObject, original: d.value as JsonObject, runs: [] });
  }
  for (const t of targets) session.kyverno.resources.addObject(t.object as never);
  const existingPolicies = session.kyverno.policies.filter((p) => p.spec.evaluation?.mutateExisting?.enabled === true);
  if (targetPaths.length > 0 && existingPolicies.length === 0) errors.push(`--target-resources: no Kyverno MutatingPolicy with evaluation.mutateExisting.enabled among the -f inputs`);
  const olds = new Map<string, JsonObject>();
  for (const d of oldDocs) {
    const p = objectProblem(d);
    if (p !== undefined) errors.push(p);
    else olds.set(identity(d.value as JsonObject), d.value as JsonObject);
  }
  const items: Item[] = [];
  for (const d of rDocs) {
    const p = objectProblem(d);
    if (p !== undefined) {
      errors.push(p);
      continue;
    }
    const object = d.value as JsonObject;
    const k = unknownKind(session, object);
    if (k !== undefined) {
      errors.push(`${where(d.source)}: ${k}`);
      continue;
    }
    let old: JsonObject | undefined;
    if (operation === "UPDATE") {
      old = olds.get(identity(object));
      if (old === undefined) {
        errors.push(`${where(d.source)}: no old object for ${describeObject(object)} in --old (matched by kind, namespace and name)`);
        continue;
      }
    }
    items.push({ source: where(d.source), doc: d, object, ...(old !== undefined ? { old } : {}) });
  }
  if (rDocs.length === 0 && errors.length === 0) errors.push(`${rPaths.join(", ")}: no resources found (no YAML or JSON documents)`);
  if (errors.length > 0) {
    for (const e of errors) io.stderr(`${errColor.red("error")}: ${e}\n`);
    io.stderr(`celmap eval: ${errors.length} input error${errors.length === 1 ? "" : "s"}; nothing evaluated\n`);
    // By the engine's error kind: a celmap bug (e.g. a translation that does not validate) is exit 3, bad input 2.
    return built.errors.some((e) => e.kind === "internal") ? ExitCode.internal : ExitCode.usage;
  }
  for (const w of built.warnings) io.stderr(`${errColor.yellow("warning")}: ${w}\n`);
  for (const c of gk.conflicts ?? []) io.stderr(`${errColor.yellow("warning")}: ${c}\n`);
  for (const v of [...gk.verdicts, ...session.gatekeeper.verdicts]) if (trace || v.verdict === "refused") io.stderr(`${v.verdict === "refused" ? `${errColor.yellow("warning")}: not evaluated: ` : "translate: "}${formatVerdict(v, errColor)}`);

  // ---- Evaluation.
  const progress = process.stderr.isTTY === true && items.length >= 200 && !trace;
  let lastProgress = Date.now();
  let denied = 0;
  let ignored = 0;
  let changed = 0;
  const jsonResults: unknown[] = [];
  let firstYaml = true;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const reqSpec: ObjectRequest = { ...spec, object: item.object, ...(item.old !== undefined ? { oldObject: item.old } : {}) };
    const ev: Admission =
      gk.system === undefined
        ? admit(session, reqSpec, admitOptions)
        : validated(session, gatekeeperEvaluation(gk.system, admit({ ...session, policies: [], bindings: [] }, reqSpec, { ...admitOptions, validate: false }), session.namespaces, spec.userInfo?.username), admitOptions);
    if (progress && Date.now() - lastProgress > 200) {
      lastProgress = Date.now();
      io.stderr(`\rcelmap eval: ${i + 1}/${items.length} resources`);
    }
    if (!ev.ok) {
      // Cannot happen after the checks above; reported as bad input all the same.
      io.stderr(`${errColor.red("error")}: ${item.source}: ${ev.error.message}\n`);
      return ExitCode.usage;
    }
    const r = ev.result;
    const input = ev.input!;
    const label = describeObject(input);
    // The stage that rejected the request (the engine's): admission (a policy, or a status admission answered) or validation (422 before storage).
    const rejectedBy = !r.allowed ? "admission" : ev.stage;
    const validationStatus = ev.validation !== undefined && !ev.validation.ok ? ev.validation.status : undefined;
    const allowed = rejectedBy === undefined;
    if (trace) {
      const u = spec.userInfo;
      const userText = u !== undefined ? `${u.username ?? ""}${(u.groups ?? []).length > 0 ? ` [${(u.groups ?? []).join(", ")}]` : ""}` : "";
      io.stderr(renderTrace({ source: item.source, resource: label, operation, user: userText }, r, errColor));
      if (ev.validation !== undefined) {
        io.stderr(
          ev.validation.ok
            ? `  validation: ${ev.validation.unchecked !== undefined ? errColor.dim(`not checked (${ev.validation.unchecked})`) : errColor.green("valid")} — the object the apiserver would store\n`
            : `  validation: ${errColor.red("rejected")} (${ev.validation.status.code} ${ev.validation.status.reason}) — the apiserver would not store the admitted object\n${ev.validation.status.details.causes.map((c) => `    ${c.field}: ${c.message}\n`).join("")}`,
        );
      }
      for (const n of ev.bareNamespaces) {
        io.stderr(`  note: namespace ${JSON.stringify(n)} was not given with -f: seen as a bare Namespace (only the kubernetes.io/metadata.name label, finalizer kubernetes, phase Active)\n`);
      }
      io.stderr("\n");
    }
    // A namespaceSelector that did not select the request only because its namespace was not given
    // (seen bare, with its name label alone) changes the outcome: said without --trace.
    if (!trace && ev.bareNamespaces.length > 0) {
      for (const e of r.trace.passes[0]?.selection ?? []) {
        if (e.ok || !e.reason.startsWith("namespaceSelector")) continue;
        const who = e.binding !== undefined ? `policy ${e.policy}, binding ${e.binding}` : `policy ${e.policy}`;
        io.stderr(
          `${errColor.yellow("warning")}: ${item.source} (${label}): ${who}: ${e.reason}; namespace ${ev.bareNamespaces.map((n) => JSON.stringify(n)).join(", ")} was not given with -f, so it is seen bare, with only its kubernetes.io/metadata.name label (give the Namespace with -f)\n`,
        );
      }
    }
    const existing = allowed && existingPolicies.length > 0 ? runMutateExisting(session, existingPolicies, ev, targets, spec, admitOptions) : [];
    if (trace && existing.length > 0) {
      io.stderr(renderExistingTrace(item.source, existing, errColor));
    }
    for (const x of existing) for (const e of x.errors) {
      ignored++;
      io.stderr(`${errColor.yellow(failOnError ? "error" : "warning")}: ${item.source} (${label}): mutateExisting ${x.policy}: ${e}\n`);
    }
    for (const e of r.ignoredErrors) {
      ignored++;
      io.stderr(`${errColor.yellow(failOnError ? "error" : "warning")}: ${item.source} (${label}): ignored by failurePolicy Ignore: ${e}\n`);
    }
    if (!r.allowed) {
      denied++;
      const s = r.status!;
      io.stderr(`${errColor.red("denied")}: ${item.source} (${label}): Error from server (${s.reason}): ${s.message}\n`);
      for (const c of (s.causes ?? []).slice(1)) io.stderr(`  also: ${c.message}\n`);
    } else if (validationStatus !== undefined) {
      denied++;
      io.stderr(`${errColor.red("invalid")}: ${item.source} (${label}): admitted, then rejected by validation: Error from server (${validationStatus.reason}): ${validationStatus.message}\n`);
    } else if (r.patch.length > 0) changed++;
    switch (output) {
      case "yaml":
        if (allowed && r.object !== null) {
          io.stdout(`${firstYaml ? "" : "---\n"}${toYaml(r.object)}`);
          firstYaml = false;
        }
        break;
      case "patch":
        io.stdout(`${allowed ? toExactJson(r.patch) : "null"}\n`);
        break;
      case "diff":
        io.stdout(renderResourceDiff(item.source, label, input, allowed ? r.object : null, outColor, rejectedBy));
        break;
      case "json":
        jsonResults.push({
          source: item.source,
          resource: { apiVersion: input.apiVersion, kind: input.kind, namespace: ev.request.namespace, name: ev.request.name },
          operation,
          allowed,
          ...(rejectedBy !== undefined ? { stage: rejectedBy } : {}),
          object: allowed ? r.object : null,
          patch: r.patch,
          ...(r.status !== undefined ? { status: r.status } : validationStatus !== undefined ? { status: validationStatus } : {}),
          ignoredErrors: r.ignoredErrors,
          reinvoked: r.reinvoked,
          ...(existing.length > 0 ? { mutateExisting: existing.map(existingJson) } : {}),
          ...(trace ? { trace: r.trace } : {}),
        });
        break;
    }
  }
  if (progress) io.stderr("\r\u001b[K");
  // mutateExisting targets: their final state after every trigger, after the triggers.
  const mutatedTargets = targets.filter((t) => t.runs.length > 0 && jsonDiff(t.original, t.object).length > 0);
  for (const t of mutatedTargets) {
    const label = `${describeObject(t.object)} (target of ${[...new Set(t.runs)].join(", ")})`;
    if (output === "yaml") {
      io.stdout(`${firstYaml ? "" : "---\n"}# mutateExisting target ${t.source}: ${[...new Set(t.runs)].join(", ")}\n${toYaml(t.object)}`);
      firstYaml = false;
    } else if (output === "diff") io.stdout(renderResourceDiff(t.source, label, t.original, t.object, outColor));
  }
  if (output === "json") io.stdout(`${toExactJson(jsonResults, 2)}\n`);
  if (output === "diff") {
    io.stdout(
      outColor.dim(
        `${items.length} resource${items.length === 1 ? "" : "s"}: ${changed} mutated, ${items.length - changed - denied} unchanged, ${denied} denied` +
          `${targets.length > 0 ? `; ${mutatedTargets.length} of ${targets.length} target resource${targets.length === 1 ? "" : "s"} mutated` : ""}` +
          `${ignored > 0 ? `, ${ignored} ignored error${ignored === 1 ? "" : "s"}` : ""} (-o yaml for the objects)`,
      ) + "\n",
    );
  }
  if (denied > 0) return 1;
  if (failOnError && ignored > 0) return 1;
  if (args.values["exit-code"] === true && (changed > 0 || mutatedTargets.length > 0)) return 1;
  return ExitCode.ok;
}

/** With validation on, the validation of the object Gatekeeper's mutators produced (not of the one before them). */
function validated(session: PolicySet, ev: Admission, options: AdmitOptions): Admission {
  return options.validate === true ? validateAdmission(session, ev) : ev;
}

function renderResourceDiff(source: string, label: string, before: JsonObject, after: JsonObject | null, p: Palette, rejectedBy?: "admission" | "validation"): string {
  const head = `${p.bold(label)} ${p.dim(`(${source})`)}`;
  if (after === null) return `${head}: ${p.red(rejectedBy === "validation" ? "invalid (rejected by validation)" : "denied")}\n\n`;
  const d = renderDiff(toYaml(before), toYaml(after), p);
  if (d === "") return `${head}: ${p.dim("unchanged")}\n\n`;
  return `${head}:\n${d}\n`;
}

// ---------------------------------------------------------------------------
// mutateExisting (Kyverno): -r resources are triggers, --target-resources the existing objects.

interface Target {
  readonly source: string;
  /** The target as it stands (after the triggers so far). */
  object: JsonObject;
  readonly original: JsonObject;
  /** `policy (trigger source)` for each run that mutated it. */
  readonly runs: string[];
}

interface ExistingRun {
  readonly policy: string;
  /** Why the trigger did not fire the policy, when it did not. */
  readonly notFired?: string;
  readonly targets: readonly { readonly target: Target; readonly outcome: KyvernoOutcome; readonly patch: readonly PatchOperation[] }[];
  readonly errors: readonly string[];
}

/**
 * Each mutateExisting policy on one admitted trigger (src/kyverno `mutateExisting`, as
 * `celmap test` runs targetResources): the trigger request carries the admitted object (Kyverno's
 * background controller re-reads the live trigger); each target is evaluated with an UPDATE request
 * for it and, when the policy mutated it, updated in place so later triggers see the new state.
 */
function runMutateExisting(session: PolicySet, policies: readonly MutatingPolicy[], ev: Extract<Admission, { ok: true }>, targets: Target[], spec: ObjectRequest, options: AdmitOptions): ExistingRun[] {
  const ctx = kyvernoContext(session, options);
  const userInfo = spec.userInfo !== undefined ? { userInfo: spec.userInfo } : {};
  const out: ExistingRun[] = [];
  for (const p of policies) {
    const byObject = new Map(targets.map((t) => [t.object, t]));
    const r = mutateExisting(p, { request: { ...ev.request, object: ev.result.object }, object: ev.result.object }, targets.map((t) => t.object), ctx, (target) => {
      const req = newAdmissionRequest({ operation: "UPDATE", object: target, oldObject: target, ...userInfo }, session.catalog);
      return req.ok ? req.request : undefined;
    });
    if (!r.fired) {
      if (!/^nomatch/.test(r.reason)) out.push({ policy: p.metadata.name, notFired: r.reason, targets: [], errors: [] });
      continue;
    }
    const runs: ExistingRun["targets"][number][] = [];
    for (const t of r.targets) {
      const target = byObject.get(t.target)!;
      const before = target.object;
      const after = t.outcome.result === "pass" && t.outcome.object !== null ? t.outcome.object : before;
      const patch = jsonDiff(before, after);
      if (patch.length > 0) {
        target.object = after;
        target.runs.push(`${p.metadata.name} (trigger ${describeObject(ev.input!)})`);
      }
      runs.push({ target, outcome: t.outcome, patch });
    }
    out.push({ policy: p.metadata.name, targets: runs, errors: r.errors });
  }
  return out;
}

function renderExistingTrace(source: string, runs: readonly ExistingRun[], p: Palette): string {
  const lines = [p.bold(`${source}: mutateExisting (Kyverno background controller)`)];
  for (const r of runs) {
    if (r.notFired !== undefined) {
      lines.push(`  policy ${r.policy}: not triggered — ${r.notFired}`);
      continue;
    }
    lines.push(`  policy ${r.policy}: triggered, ${r.targets.length} target${r.targets.length === 1 ? "" : "s"} selected${r.targets.length === 0 ? " (give the existing resources with --target-resources)" : ""}`);
    for (const t of r.targets) {
      const o = t.outcome;
      const what = o.result === "pass" ? (t.patch.length > 0 ? p.green("mutated") : "no change") : o.result === "error" ? p.red(`error — ${o.message ?? ""}`) : p.yellow(`${o.result} — ${o.message ?? ""}`);
      lines.push(`    target ${describeObject(t.target.original)} (${t.target.source}): ${what}`);
      for (const d of t.patch) lines.push(`      ${p.dim(describePatchOp(d))}`);
    }
    for (const e of r.errors) lines.push(`    ${p.red("error")}: ${e}`);
  }
  return `${lines.join("\n")}\n\n`;
}

function existingJson(r: ExistingRun): unknown {
  return {
    policy: r.policy,
    triggered: r.notFired === undefined,
    ...(r.notFired !== undefined ? { reason: r.notFired } : {}),
    targets: r.targets.map((t) => ({
      source: t.target.source,
      resource: { apiVersion: t.target.original.apiVersion, kind: t.target.original.kind, namespace: (t.target.original.metadata as JsonObject | undefined)?.namespace ?? "", name: (t.target.original.metadata as JsonObject | undefined)?.name ?? "" },
      result: t.outcome.result,
      ...(t.outcome.message !== undefined ? { message: t.outcome.message } : {}),
      object: t.outcome.object,
      patch: t.patch,
    })),
    errors: r.errors,
  };
}
