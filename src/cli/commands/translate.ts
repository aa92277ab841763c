/**
 * `celmap translate -f <mutators>...`: Gatekeeper mutators (Assign, AssignMetadata, ModifySet,
 * AssignImage) → MutatingAdmissionPolicies and bindings (src/translate/gatekeeper), with the
 * verdict of every mutator on stderr. This file parses options, loads and prints.
 */
import { formatLoadError, loadPaths, toCelNumbers, toJsonNumbers, type LoadedDocument } from "../../io/load.js";
import { jsonDiff, type JsonObject } from "../../admission/index.js";
import { compileMutator, GROUP, System } from "../../gatekeeper/index.js";
import { checkMutators, translate, type MapApiVersion, type TranslateResult, type Verdict } from "../../translate/gatekeeper/index.js";
import { translateMutatingPolicies, type TranslateKyvernoResult } from "../../translate/kyverno/index.js";
import { decodeMutatingPolicy, decodePolicyException, isKyvernoMutatingPolicy, isKyvernoPolicyException } from "../../kyverno/index.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";
import { colorWanted, palette, type Palette } from "../render/color.js";
import { toExactJson, toYaml } from "../render/serialize.js";
import { isObject, where } from "../render/session.js";
import { namespaceLookup, type Admission } from "../../engine/index.js";

const API_VERSIONS = ["v1", "v1beta1", "v1alpha1"] as const;
const KUBE_VERSIONS = ["1.32", "1.33", "1.34", "1.35", "1.36"] as const;

/**
 * The first minor release serving each admissionregistration.k8s.io version of
 * MutatingAdmissionPolicy: v1alpha1 in 1.32 (behind the MutatingAdmissionPolicy feature gate),
 * v1beta1 in 1.34, v1 in 1.36.
 */
const FIRST_SERVED: Readonly<Record<string, number>> = { v1alpha1: 32, v1beta1: 34, v1: 36 };

/** Why policies of `apiVersion` cannot run on `minKubernetes`, naming the version it serves. */
function unservedApiVersion(apiVersion: string, minKubernetes: string): string | undefined {
  const minor = Number(minKubernetes.split(".")[1]);
  const first = FIRST_SERVED[apiVersion];
  if (first === undefined || minor >= first) return undefined;
  const served = Object.entries(FIRST_SERVED)
    .filter(([, f]) => f <= minor)
    .sort((a, b) => b[1] - a[1])[0]![0];
  return (
    `--api-version ${apiVersion} is served from Kubernetes 1.${first}; Kubernetes ${minKubernetes} serves MutatingAdmissionPolicy as ` +
    `${served} (give --api-version ${served}, or a --min-kubernetes of 1.${first} or later)`
  );
}

const OPTIONS: readonly OptionSpec[] = [
  {
    name: "filename",
    short: "f",
    type: "string",
    multiple: true,
    placeholder: "<file|dir>",
    description:
      "Gatekeeper mutators (mutations.gatekeeper.sh v1, v1beta1, v1alpha1: Assign, AssignMetadata, ModifySet, AssignImage), and Kyverno MutatingPolicies, NamespacedMutatingPolicies and PolicyExceptions (policies.kyverno.io). YAML or JSON, several documents per file, List kinds; directories are read recursively (.yaml, .yml, .json).",
  },
  {
    name: "api-version",
    type: "string",
    placeholder: "v1|v1beta1|v1alpha1",
    description: "admissionregistration.k8s.io version of the emitted policies and bindings (default v1: Kubernetes 1.36; v1beta1: 1.34; v1alpha1: 1.32).",
  },
  {
    name: "min-kubernetes",
    type: "string",
    placeholder: "1.32|…|1.36",
    description: "Oldest Kubernetes the policies must run on (default: the first release serving --api-version). CEL features it lacks make a mutator refused.",
  },
  {
    name: "failure-policy",
    type: "string",
    placeholder: "Fail|Ignore",
    description: "failurePolicy of the policies (default Fail: a mutation error rejects the request, as Gatekeeper's webhook does). Ignore is reported as a difference.",
  },
  {
    name: "output",
    short: "o",
    type: "string",
    placeholder: "yaml|json",
    description: "yaml (default): the policies then the bindings as YAML documents; json: one object {policies, bindings, verdicts}.",
  },
  {
    name: "form",
    type: "string",
    placeholder: "readable|exact",
    description:
      "readable (default): the simplest form that is provably Gatekeeper's result (an ApplyConfiguration or a JSONPatch without type guards, as a person would write it) where there is one; exact: always the guarded JSONPatch walk of every location (for a diff; both give the same results).",
  },
  { name: "explain", type: "boolean", description: "Print on stderr, per mutator, the policy that carries it, the form chosen (ApplyConfiguration or JSONPatch, readable or the full walk), its passes, and why." },
  { name: "strict", type: "boolean", description: "Exit 1 unless every mutator translates exactly (a difference or a refusal fails)." },
  {
    name: "no-fast-path",
    type: "boolean",
    description:
      "Emit each group of interacting mutators as its own policy only, without the <group>-fast policy that runs all of the group's passes as one mutation when the nodes its members share exist (both give Gatekeeper's result; the fast path costs the apiserver less).",
  },
  HELP_OPTION,
];

const VERDICT_HELP = `  Every mutator gets one verdict, printed on stderr (the translation itself goes to stdout):
    Assign/set-image-pull-policy: exact
        the policies do what Gatekeeper does, for every object
    ModifySet/m: difference at spec.parameters.values.fromList: <reason>
        translated, but the result differs from Gatekeeper's in the stated case
    Assign/lookup: refused at spec.parameters.assign.externalData: <reason>
        not translated (external data, features the target Kubernetes lacks, ...)
  Mutators that interact (same locations, labels read by selectors) share one policy whose
  mutations run in Gatekeeper's order and passes; notes about this are printed under the verdict.
  Such a group of one built-in kind also gets a <group>-fast policy: when the nodes its members
  share exist (matchCondition gatekeeper-fast-path), it does all passes in one mutation, and the
  group's own policy (<group>-full) then does not match (--no-fast-path: only the latter).`;

const EXIT_HELP = `  0  translated (with --strict: every mutator exactly)
  1  --strict and some mutator was translated with a difference or refused
  2  bad input, nothing printed: unreadable file, malformed YAML/JSON, a document that is not a
     Gatekeeper mutator, a mutator Gatekeeper would reject (file#doc: field.path: message), bad options
  3  internal error in celmap (please report it)`;

export const translateCommand: Command = {
  name: "translate",
  summary: "Translate Gatekeeper mutators and Kyverno MutatingPolicies into MutatingAdmissionPolicies and bindings, with a verdict per input.",
  usage:
    "celmap translate -f <mutators>... [--api-version v1|v1beta1|v1alpha1] [--min-kubernetes 1.32|…|1.36] " +
    "[--failure-policy Fail|Ignore] [--no-fast-path] [--form readable|exact] [--explain] [-o yaml|json] [--strict]",
  description:
    "Compiles Gatekeeper mutators into MutatingAdmissionPolicies that kube-apiserver runs itself (no webhook): scoping " +
    "in matchConstraints and matchConditions, JSONPatch mutations (ApplyConfiguration where provably equal), " +
    "interacting mutators grouped so Gatekeeper's order and passes are reproduced. Each mutator is validated as " +
    "Gatekeeper validates it, and the output is checked by celmap's own MAP validation. Try the result with " +
    "'celmap eval', and compare with 'celmap eval --engine gatekeeper'. " +
    "Kyverno MutatingPolicies get the MAP and binding Kyverno's generator would create (mpol-<name>, only for a " +
    "cluster MutatingPolicy with spec.autogen.mutatingAdmissionPolicy.enabled, no pod-controller autogen and no " +
    "useServerSideApply; exceptions' conditions negated into matchConditions), with a line per field that does not " +
    "carry over (selectors, exclusions, partial exceptions, mutateExisting, audit annotations, Kyverno CEL libraries) " +
    "where Kyverno drops it silently, or Kyverno's reason for not generating one.",
  options: OPTIONS,
  examples: [
    {
      command: "celmap translate -f examples/gatekeeper/ > policies.yaml",
      explanation:
        "Translates the example mutators (imagePullPolicy, owner annotation, args pruning, image digest, DNS) into policies.yaml; prints 'Assign/set-image-pull-policy: exact' etc. on stderr.",
    },
    {
      command: "celmap eval -f policies.yaml -r examples/gatekeeper-pod.yaml -o diff",
      explanation: "What the translated policies do to a Pod; 'celmap eval --engine gatekeeper -f examples/gatekeeper/ -r …' shows what Gatekeeper does.",
    },
    {
      command: "celmap translate -f mutators/ --api-version v1beta1 --min-kubernetes 1.34 --strict",
      explanation: "For a 1.34 cluster; exits 1 (for CI) when any mutator is not translated exactly.",
    },
    {
      command: "celmap translate -f mutators/ -o json 2>/dev/null | jq '.verdicts[] | select(.verdict != \"exact\")'",
      explanation: "The mutators that need attention, with their reasons per field.",
    },
  ],
  sections: [
    { title: "Verdicts", body: VERDICT_HELP },
    { title: "Exit codes", body: EXIT_HELP },
  ],
  run: runTranslate,
};

function list(v: string | boolean | readonly string[] | undefined): readonly string[] {
  if (v === undefined || typeof v === "boolean") return [];
  return typeof v === "string" ? [v] : v;
}

function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === "string" ? v : undefined;
}

/** Whether a loaded document is a Gatekeeper mutator (by apiVersion group). */
export function isGatekeeperMutator(v: unknown): boolean {
  return isObject(v) && typeof v.apiVersion === "string" && v.apiVersion.startsWith(`${GROUP}/`);
}

/**
 * A MutatingPolicy's MAP generation: `MutatingPolicy/name: generated as mpol-name`, then one
 * `... does not carry over at <field>: <why>` line per field, or `... not generated: <Kyverno's reason>`.
 */
export function formatKyvernoReport(r: TranslateKyvernoResult["reports"][number], p: Palette): string {
  const head = `${r.policy}: `;
  if (!r.generated) return `${head}${p.yellow("not generated")}: ${r.reason ?? ""}\n`;
  const name = `mpol-${r.policy.slice(r.policy.indexOf("/") + 1)}`;
  const lines = [`${head}${r.dropped.length === 0 ? p.green(`generated as ${name}`) : `generated as ${name}, with differences`}`];
  for (const d of r.dropped) lines.push(`${head}${p.yellow("does not carry over")} at ${d.field}: ${d.message.replace(/^not carried over: /, "")}`);
  return `${lines.join("\n")}\n`;
}

/** `Assign/name: exact` / `... difference at path: reason` / `... refused at path: reason`, with notes. */
export function formatVerdict(v: Verdict, p: Palette): string {
  const head = `${v.mutator}: `;
  const lines: string[] = [];
  if (v.verdict === "exact" || v.reasons.length === 0) lines.push(`${head}${v.verdict === "exact" ? p.green("exact") : v.verdict}`);
  for (const r of v.reasons) {
    const word = v.verdict === "refused" ? p.red("refused") : p.yellow("difference");
    lines.push(`${head}${word}${r.path !== "" ? ` at ${r.path}` : ""}: ${r.message}`);
  }
  for (const n of v.notes) lines.push(`  note: ${n}`);
  return lines.join("\n") + "\n";
}

/** `--explain`: which policy carries the mutator, the form chosen and why. */
export function formatExplanation(v: Verdict): string {
  if (v.form === undefined || v.policy === undefined) return `  explain: not emitted\n`;
  const f = v.form;
  return (
    `  explain: policy ${v.policy}, ${f.readable ? "readable" : "full-walk"} ${f.patchType}, ${f.passes} pass${f.passes === 1 ? "" : "es"}\n` +
    `  explain: why: ${f.why}\n`
  );
}

async function runTranslate(args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.positionals.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}: give mutator files or directories with -f`);
  }
  const fPaths = list(args.values["filename"]);
  if (fPaths.length === 0) throw new UsageError("missing -f <file|dir> with the Gatekeeper mutators");
  const apiVersion = str(args, "api-version") ?? "v1";
  if (!(API_VERSIONS as readonly string[]).includes(apiVersion)) {
    throw new UsageError(`--api-version must be ${API_VERSIONS.join(", ")}, got ${JSON.stringify(apiVersion)}`);
  }
  const minKubernetes = str(args, "min-kubernetes");
  if (minKubernetes !== undefined && !(KUBE_VERSIONS as readonly string[]).includes(minKubernetes)) {
    throw new UsageError(`--min-kubernetes must be one of ${KUBE_VERSIONS.join(", ")}, got ${JSON.stringify(minKubernetes)}`);
  }
  if (minKubernetes !== undefined) {
    const problem = unservedApiVersion(apiVersion, minKubernetes);
    if (problem !== undefined) throw new UsageError(problem);
  }
  const failurePolicy = str(args, "failure-policy") ?? "Fail";
  if (failurePolicy !== "Fail" && failurePolicy !== "Ignore") throw new UsageError(`--failure-policy must be Fail or Ignore, got ${JSON.stringify(failurePolicy)}`);
  const output = str(args, "output") ?? "yaml";
  if (output !== "yaml" && output !== "json") throw new UsageError(`-o must be yaml or json, got ${JSON.stringify(output)}`);
  const strict = args.values["strict"] === true;
  const form = str(args, "form") ?? "readable";
  if (form !== "readable" && form !== "exact") throw new UsageError(`--form must be readable or exact, got ${JSON.stringify(form)}`);
  const explain = args.values["explain"] === true;
  const errColor = palette(colorWanted(process.stderr.isTTY));

  const errors: string[] = [];
  const loaded = loadPaths(fPaths, { numbers: "cel" });
  for (const e of loaded.errors) errors.push(`${formatLoadError(e)}${e.excerpt !== undefined ? `\n${e.excerpt.replace(/^/gm, "    ")}` : ""}`);
  const docs: LoadedDocument[] = [];
  const kyvernoPolicies: unknown[] = [];
  const kyvernoExceptions: unknown[] = [];
  for (const d of loaded.documents) {
    if (isGatekeeperMutator(d.value)) docs.push(d);
    else if (isKyvernoMutatingPolicy(d.value) || isKyvernoPolicyException(d.value)) {
      const policy = isKyvernoMutatingPolicy(d.value);
      const r = policy ? decodeMutatingPolicy(d.value) : decodePolicyException(d.value);
      if (!r.ok) for (const e of r.errors) errors.push(`${where(d.source)}: ${e} (${String((d.value as JsonObject).kind)} rejected)`);
      else (policy ? kyvernoPolicies : kyvernoExceptions).push(toJsonNumbers(d.value));
    } else {
      const v = isObject(d.value) ? d.value : {};
      errors.push(
        `${where(d.source)}: kind: not a Gatekeeper mutator: ${JSON.stringify(`${String(v.apiVersion ?? "")} ${String(v.kind ?? "")}`)} ` +
          `(expected apiVersion ${GROUP}/v1, v1beta1 or v1alpha1 and kind Assign, AssignMetadata, ModifySet or AssignImage, ` +
          `or a Kyverno MutatingPolicy, NamespacedMutatingPolicy or PolicyException of policies.kyverno.io)`,
      );
    }
  }
  const checked = checkMutators(docs);
  errors.push(...checked.errors);
  if (errors.length === 0 && docs.length === 0 && kyvernoPolicies.length === 0) errors.push(`${fPaths.join(", ")}: no mutators or MutatingPolicies found (no YAML or JSON documents)`);
  if (errors.length > 0) {
    for (const e of errors) io.stderr(`${errColor.red("error")}: ${e}\n`);
    io.stderr(`celmap translate: ${errors.length} input error${errors.length === 1 ? "" : "s"}; nothing translated\n`);
    return ExitCode.usage;
  }

  const t: TranslateResult = translate(checked.mutators, {
    apiVersion: apiVersion as MapApiVersion,
    ...(minKubernetes !== undefined ? { minKubernetes } : {}),
    failurePolicy,
    fastPath: args.values["no-fast-path"] !== true,
    form,
  });
  if (t.issues.length > 0) {
    for (const i of t.issues) io.stderr(`${errColor.red("internal error")}: the translation does not validate: ${i}\n`);
    return ExitCode.internal;
  }
  // Kyverno MutatingPolicies: the MAPs and bindings Kyverno would generate (kyverno.md §3.2).
  const k: TranslateKyvernoResult = translateMutatingPolicies(kyvernoPolicies, { exceptions: kyvernoExceptions, apiVersion: `admissionregistration.k8s.io/${apiVersion}` });
  const kPolicies = k.objects.filter((o) => o.kind === "MutatingAdmissionPolicy");
  const kBindings = k.objects.filter((o) => o.kind === "MutatingAdmissionPolicyBinding");
  const policies = [...t.policies, ...kPolicies];
  const bindings = [...t.bindings, ...kBindings];
  if (output === "json") {
    io.stdout(`${toExactJson({ policies, bindings, verdicts: t.verdicts, ...(kyvernoPolicies.length > 0 ? { mutatingPolicies: k.reports } : {}) }, 2)}\n`);
  } else {
    io.stdout([...policies, ...bindings].map((o) => toYaml(o)).join("---\n"));
  }
  let exact = 0;
  for (const v of t.verdicts) {
    io.stderr(formatVerdict(v, errColor));
    if (explain) io.stderr(formatExplanation(v));
    if (v.verdict === "exact") exact++;
  }
  let kExact = 0;
  for (const r of k.reports) {
    io.stderr(formatKyvernoReport(r, errColor));
    if (explain && r.explain !== undefined) io.stderr(`  explain: ${r.explain}\n`);
    if (r.generated && r.dropped.length === 0) kExact++;
  }
  if (kyvernoPolicies.length > 0) {
    const m = k.reports.length;
    io.stderr(
      `celmap translate: ${m} MutatingPolic${m === 1 ? "y" : "ies"}: ${k.reports.filter((r) => r.generated).length} generated (${kExact} with everything carried over), ` +
        `${k.reports.filter((r) => !r.generated).length} not generated\n`,
    );
  }
  if (strict && kExact < k.reports.length) return 1;
  const n = t.verdicts.length;
  if (n === 0) return ExitCode.ok;
  io.stderr(
    `celmap translate: ${n} mutator${n === 1 ? "" : "s"}: ${exact} exact, ${t.verdicts.filter((v) => v.verdict === "difference").length} with a difference, ` +
      `${t.verdicts.filter((v) => v.verdict === "refused").length} refused; ${t.policies.length} polic${t.policies.length === 1 ? "y" : "ies"}, ${t.bindings.length} binding${t.bindings.length === 1 ? "" : "s"}\n`,
  );
  if (strict && exact < n) return 1;
  return ExitCode.ok;
}

// ---- `celmap eval` with Gatekeeper mutators among its -f inputs.


export interface MutatorInputs {
  /** The -f documents that are not Gatekeeper mutators, plus (engine map) the translated policies and bindings. */
  readonly documents: LoadedDocument[];
  /** Engine gatekeeper: the compiled mutators' System. */
  readonly system?: System;
  readonly verdicts: readonly Verdict[];
  readonly errors: string[];
  /** How many mutators were among the inputs. */
  readonly count: number;
  /** Engine gatekeeper: mutators in schema conflict (Gatekeeper skips them). */
  readonly conflicts?: readonly string[];
}

/**
 * Separates the Gatekeeper mutators from `celmap eval`'s -f documents and either translates them
 * (engine `map`: the policies and bindings join the documents, attributed to the mutators' files)
 * or loads them into Gatekeeper's System (engine `gatekeeper`).
 */
export function mutatorInputs(docs: readonly LoadedDocument[], engine: "map" | "gatekeeper"): MutatorInputs {
  const others: LoadedDocument[] = [];
  const mine: LoadedDocument[] = [];
  for (const d of docs) (isGatekeeperMutator(d.value) ? mine : others).push(d);
  const checked = checkMutators(mine);
  if (checked.errors.length > 0) return { documents: others, verdicts: [], errors: checked.errors, count: mine.length };
  if (engine === "gatekeeper") {
    const system = new System();
    const errors: string[] = [];
    for (const [i, v] of checked.mutators.entries()) {
      const c = compileMutator(v);
      if (!c.ok) continue;
      const conflict = system.upsert(c.mutator);
      if (conflict !== undefined) errors.push(`${where(mine[i]!.source)}: ${conflict}`);
    }
    // A schema conflict is not bad input: Gatekeeper keeps the mutator and skips it (warned by the caller).
    return { documents: others, system, verdicts: [], errors: [], count: mine.length, ...(errors.length > 0 ? { conflicts: errors } : {}) };
  }
  if (mine.length === 0) return { documents: others, verdicts: [], errors: [], count: 0 };
  const t = translate(checked.mutators, {});
  const sourceOf = new Map<string, LoadedDocument>();
  for (const [i, v] of checked.mutators.entries()) {
    const o = v as { kind?: unknown; metadata?: { name?: unknown } };
    sourceOf.set(`${String(o.kind)}/${String(o.metadata?.name)}`, mine[i]!);
  }
  const errors = t.issues.map((i) => `internal error: the translation of the Gatekeeper mutators does not validate: ${i}`);
  const translated: LoadedDocument[] = [];
  for (const o of [...t.policies, ...t.bindings]) {
    const md = isObject(o.metadata) ? o.metadata : {};
    const ann = isObject(md.annotations) ? md.annotations : {};
    const first = String(ann["celmap.io/gatekeeper-mutators"] ?? "").split(",")[0]!.trim();
    const from = sourceOf.get(first) ?? mine[0]!;
    translated.push({ value: toCelNumbers(o), source: from.source, locate: () => undefined });
  }
  return { documents: [...others, ...translated], verdicts: t.verdicts, errors, count: mine.length };
}

/**
 * One resource through Gatekeeper's own mutation System (`--engine gatekeeper`), shaped as the
 * MAP pipeline's Evaluation: `base` is the evaluation of the same request with no policies (the
 * object as admission receives it: namespace filled, defaulted).
 */
export function gatekeeperEvaluation(system: System, base: Admission, namespaces: ReadonlyMap<string, JsonObject>, username: string | undefined): Admission {
  if (!base.ok) return base;
  const nsName = base.request.namespace;
  const input = base.input!;
  // As the MAP pipeline sees a namespace not given with -f (the engine's bare-namespace rule).
  const namespace = nsName === "" ? undefined : namespaceLookup(namespaces)(nsName);
  const out = system.mutate(input, {
    ...(namespace !== undefined ? { namespace } : {}),
    operation: base.request.operation === "UPDATE" ? "UPDATE" : "CREATE",
    ...(username !== undefined ? { username } : {}),
  });
  const notes = [
    out.applied.length > 0 ? `gatekeeper: applied ${out.applied.join(", ")} (${out.iterations} pass${out.iterations === 1 ? "" : "es"})` : "gatekeeper: no mutator applied",
    ...out.conflicts.map((c) => `gatekeeper: ${c.kind}/${c.name} skipped (schema conflict)`),
  ];
  const trace = { ...base.result.trace, notes: [...base.result.trace.notes, ...notes] };
  if (out.error !== undefined) {
    return {
      ...base,
      result: {
        ...base.result,
        allowed: false,
        object: input,
        patch: [],
        status: { code: 500, reason: "InternalError", message: out.error },
        trace,
      },
    };
  }
  const object = toCelNumbers(out.object) as JsonObject;
  return { ...base, result: { ...base.result, allowed: true, object, patch: jsonDiff(input, object), trace } };
}
