/**
 * `celmap cel '<expr>' [--env base|mutation|variables|match] [--object <file>]...`:
 * compile one CEL expression in a Kubernetes CEL environment, evaluate it, print
 * the result as JSON.
 */
import type { CheckedExpr } from "../../cel/checked.js";
import { CelCompileError, CelEvalError, formatIssues, locate } from "../../cel/errors.js";
import type { CelValue } from "../../cel/values.js";
import { CelCostLimitError, PER_CALL_LIMIT } from "../../cel/cost-runtime.js";
import type { KubernetesEnvKind } from "../../admission/environment.js";
import type { CelSchemaNode } from "../../cel/k8s/values.js";
import { celSchemaForKind } from "../../kube/cel-schema.js";
import { SchemaRegistry } from "../../kube/schema.js";
import { formatLoadError, parseDocuments } from "../../io/load.js";
import type { JsonObject } from "../../admission/index.js";
import { storedNamespace } from "../../engine/index.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { ENV_KINDS, cliEnv, defaultBindings } from "../environment.js";
import { parseVarOption, readVarsFile, toCel } from "../inputs.js";
import { toJsonText } from "../json-out.js";
import { HELP_OPTION, UsageError, type OptionSpec, type ParsedArgs } from "../options.js";

const OPTIONS: readonly OptionSpec[] = [
  {
    name: "var",
    type: "string",
    multiple: true,
    placeholder: "name=<json>",
    description: "Declare variable 'name' (as dyn) bound to a JSON value. Strings need JSON quotes: --var name='\"web\"'. Overrides --vars.",
  },
  {
    name: "vars",
    type: "string",
    multiple: true,
    placeholder: "<file>",
    description: "Declare every top-level key of a JSON or YAML mapping as a variable (e.g. a file with 'object: <a Deployment>'). '.json' files are strict JSON, others YAML. Later files override earlier ones.",
  },
  {
    name: "env",
    type: "string",
    placeholder: "<kind>",
    description:
      "The Kubernetes CEL environment: 'mutation' (default: a MutatingAdmissionPolicy mutation, with object, oldObject, " +
      "request, namespaceObject, params, authorizer, variables, Object{...}, JSONPatch{...}, jsonpatch.escapeKey), " +
      "'variables' (a MAP variable: no Object/JSONPatch), 'match' (a matchCondition: no variables) or 'base' " +
      "(kube-apiserver's base environment: libraries only). Other variables given here are declared dyn in every environment.",
  },
  { name: "object", type: "string", placeholder: "<file>", description: "Bind 'object' to the one document of a YAML or JSON file." },
  { name: "old-object", type: "string", placeholder: "<file>", description: "Bind 'oldObject' (default null, as on CREATE)." },
  { name: "params", type: "string", placeholder: "<file>", description: "Bind 'params' and declare it, as a policy with a paramKind does." },
  { name: "namespace", type: "string", placeholder: "<file>", description: "Bind 'namespaceObject' to a Namespace (default null, as for cluster-scoped objects)." },
  {
    name: "strict",
    type: "boolean",
    description:
      "Beyond Kubernetes: resolve Object.<path>{...} types and their fields against the schema of --object's kind " +
      "(built-in kinds), so a typo such as Object.spec{replicasx: 1} is a compile error rather than a server-side apply error.",
  },
  {
    name: "expression",
    short: "e",
    type: "string",
    placeholder: "<expr|@file|->",
    description: "The expression, instead of the argument: @file reads it from a file, - from standard input (for long expressions).",
  },
  {
    name: "cost",
    type: "boolean",
    description: "Print the run-time cost ('cost: <n>') on stderr. The cost is always tracked, as kube-apiserver does.",
  },
  {
    name: "no-cost-limit",
    type: "boolean",
    description: "Lift kube-apiserver's per-call cost limit (1,000,000), which is otherwise enforced: the run may then take unbounded time and memory.",
  },
  { name: "pretty", type: "boolean", description: "Indent the JSON output." },
  HELP_OPTION,
];

/** Options that bind an admission variable from a file. */
const FILE_VARIABLES: readonly (readonly [option: string, variable: string])[] = [
  ["object", "object"],
  ["old-object", "oldObject"],
  ["params", "params"],
  ["namespace", "namespaceObject"],
];

const VALUES_HELP = `  null, bool, string  as is
  int, uint           exact integer, even beyond 2^53: 9223372036854775807
  double              always with a '.' or exponent: 3.0, 0.5, 1e+21; "NaN", "Infinity", "-Infinity"
  bytes               base64 string: b'abc' -> "YWJj"
  list, map           array, object (int/uint/bool map keys become strings: {1: 'a'} -> {"1":"a"})
  timestamp           RFC 3339 UTC string: "2024-01-01T00:00:00Z", nanoseconds kept ("...00.000000001Z")
  duration            seconds with 's', as string(duration): "90s", "1.5s"
  type                its name: type(1) -> "int"
  optional            optional.of(v) -> v, optional.none() -> null

Inputs: integral numbers (3, 3.0) are ints, read exactly up to int64 (beyond: double);
other numbers (0.5, 1e-3) are doubles. YAML follows YAML 1.2 (core schema): 'yes' is a string.`;

const EXIT_HELP = `  0  success: the value is on stdout
  1  the expression did not compile (ERROR: <input>:line:column: ...) or failed to evaluate
     (also: operation cancelled: actual cost limit exceeded, unless --no-cost-limit)
  2  bad usage: no expression, bad --var JSON, unknown --env, unreadable or invalid input file
  3  internal error in celmap (please report it)`;

const ENV_HELP = `  base       kube-apiserver 1.36's base environment: the standard library; Kubernetes URLs, regex, lists,
             authz, quantity, IP, CIDR, format and semver libraries; cel-go optionals, strings v2, sets,
             two-variable comprehensions and lists v3; homogeneous aggregate literals, cross-type numeric
             comparisons and literal validation on. Not available (as there): cel.bind, math.*, base64.*,
             strings v3+ ('a'.reverse()).
  mutation   base + object, oldObject (dyn), request (kubernetes.AdmissionRequest), namespaceObject
             (kubernetes.Namespace), params (dyn, with --params), authorizer, authorizer.requestResource,
             variables; Object and Object.<path>{...}, JSONPatch{op, path, from, value}, jsonpatch.escapeKey.
  variables  mutation without Object, JSONPatch and jsonpatch.escapeKey.
  match      variables without 'variables'.
Unbound admission variables: oldObject, namespaceObject and params are null; authorizer is offline (every
check has no opinion); object and request are unbound unless given.`;

export const celCommand: Command = {
  name: "cel",
  summary: "Evaluate one CEL expression against JSON/YAML variables and print the result as JSON.",
  usage:
    "celmap cel <expression> [--env base|mutation|variables|match] [--object <file>] [--old-object <file>] " +
    "[--params <file>] [--namespace <file>] [--var name=<json>]... [--vars <file.json|yaml>]... [--strict] [--cost] [--no-cost-limit] [--pretty]\n" +
    "       celmap cel -e <expr|@file|-> [options]",
  description:
    "Compiles the expression in a Kubernetes CEL environment as kube-apiserver 1.36 builds it (default: a " +
    "MutatingAdmissionPolicy mutation; see Environments), declares every other given variable as dyn, evaluates it " +
    "and prints the result as one line of JSON. Quote the expression for your shell: single quotes in sh/bash.",
  options: OPTIONS,
  examples: [
    { command: "celmap cel '1 + 2'", explanation: "Prints 3." },
    {
      command: "celmap cel \"object.metadata.labels['app'] == 'nginx'\" --vars examples/deployment.yaml",
      explanation: "Binds 'object' from the 'object:' key of the YAML file. Prints true.",
    },
    {
      command: "celmap cel 'object.spec.template.spec.containers.map(c, c.image)' --vars examples/deployment.yaml",
      explanation: 'Prints the images as a JSON list: ["nginx:1.25","envoyproxy/envoy:v1.30.1"].',
    },
    {
      command: "celmap cel 'n * 2' --var n=4611686018427387904",
      explanation: "int64 overflow is an error, as in Kubernetes: prints the message on stderr, exits 1.",
    },
    {
      command: "celmap cel 'greeting + \", \" + who' --var greeting='\"Hello\"' --var who='\"world\"'",
      explanation: 'Prints "Hello, world" (--var values are JSON, so strings keep their quotes).',
    },
    {
      command: "celmap cel \"Object{metadata: Object.metadata{labels: {'team': object.metadata.name}}}\" --object pod.yaml",
      explanation: "Builds an ApplyConfiguration in the mutation environment; prints it as JSON.",
    },
    {
      command: "celmap cel \"[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('k8s.io/x'), value: 'y'}]\"",
      explanation: 'Prints [{"op":"add","path":"/metadata/labels/k8s.io~1x","value":"y"}].',
    },
    {
      command: "celmap cel 'lists.range(1000).map(i, i * 2).sum()' --env base --cost",
      explanation: "Prints 999000, and the run-time cost on stderr.",
    },
    {
      command: "celmap cel '-1 + 2'",
      explanation: "Expressions may start with '-'; '--' also ends the options: celmap cel -- '-1 + 2'.",
    },
  ],
  sections: [
    { title: "Environments (--env)", body: ENV_HELP },
    { title: "How results print (CEL value -> JSON)", body: VALUES_HELP },
    { title: "Exit codes", body: EXIT_HELP },
  ],
  run: runCel,
};

/** The expression: the one argument, or -e text, -e @file, -e - (standard input). */
function expressionSource(args: ParsedArgs, io: CliIo): string {
  const expr = args.positionals;
  const e = args.values["expression"];
  if (typeof e === "string") {
    if (expr.length > 0) throw new UsageError(`give the expression either with -e or as the argument, not both (got ${JSON.stringify(expr[0])} too)`);
    if (e !== "-" && !e.startsWith("@")) return e;
    const file = e === "-" ? "-" : e.slice(1);
    try {
      return io.readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(`-e ${e}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory, not a file" : (err as Error).message}`);
    }
  }
  if (expr.length === 0) throw new UsageError("missing the CEL expression, e.g. celmap cel '1 + 2' (or -e @file, -e - for standard input)");
  if (expr.length > 1) {
    throw new UsageError(
      `expected one expression but got ${expr.length} arguments (${expr.map((e) => JSON.stringify(e)).join(", ")}); quote the whole expression`,
    );
  }
  return expr[0]!;
}

function runCel(args: ParsedArgs, io: CliIo): number {
  const source = expressionSource(args, io);

  const kind = envKind(args.values["env"]);
  const bindings = new Map<string, CelValue>();
  for (const file of asList(args.values["vars"])) {
    for (const [name, value] of readVarsFile(file, io.readFile)) bindings.set(name, value);
  }
  for (const v of asList(args.values["var"])) {
    const [name, value] = parseVarOption(v);
    bindings.set(name, value);
  }
  for (const [option, variable] of FILE_VARIABLES) {
    const file = args.values[option];
    if (typeof file === "string") bindings.set(variable, readDocument(option, file, io.readFile, variable === "namespaceObject"));
  }

  const hasParams = bindings.has("params");
  const objectSchema = args.values["strict"] === true ? strictSchema(kind, bindings.get("object")) : undefined;
  const env = cliEnv(bindings.keys(), { kind, hasParams, ...(objectSchema === undefined ? {} : { objectSchema }) });
  let checked: CheckedExpr;
  try {
    checked = env.compile(source);
  } catch (e) {
    if (e instanceof CelCompileError) {
      io.stderr(`${e.message}\n`);
      return ExitCode.celError;
    }
    throw e;
  }

  const activation = { ...defaultBindings(kind, hasParams), ...Object.fromEntries(bindings) };
  const withCost = args.values["cost"] === true;
  // kube-apiserver never evaluates without its per-call limit; --no-cost-limit lifts it.
  const limited = args.values["no-cost-limit"] !== true;
  let program: ReturnType<typeof env.program>;
  try {
    program = env.program(checked);
  } catch (e) {
    // cel-go fails some programs at instantiation (constant conversions, constant patterns).
    if (e instanceof CelCompileError) {
      io.stderr(`${e.message}\n`);
      return ExitCode.celError;
    }
    throw e;
  }
  let result: CelValue;
  try {
    if (withCost || limited) {
      const r = program.evalWithCost(activation, limited ? { costLimit: PER_CALL_LIMIT } : {});
      result = r.value;
      if (withCost) io.stderr(`cost: ${r.cost}\n`);
    } else {
      result = program.eval(activation);
    }
  } catch (e) {
    if (e instanceof CelEvalError) {
      if (withCost && program.lastCost !== undefined && !(e instanceof CelCostLimitError)) io.stderr(`cost: ${program.lastCost}\n`);
      io.stderr(`${formatEvalError(e, checked)}\n`);
      return ExitCode.celError;
    }
    throw e;
  }
  io.stdout(`${toJsonText(result, { indent: args.values["pretty"] === true ? 2 : 0 })}\n`);
  return ExitCode.ok;
}

/** The schema of the bound object's kind, for --strict. */
function strictSchema(kind: KubernetesEnvKind, object: CelValue | undefined): CelSchemaNode {
  if (kind !== "mutation") throw new UsageError("--strict applies to the mutation environment (--env mutation)");
  const field = (name: string): unknown => (object instanceof Map ? (object as ReadonlyMap<unknown, unknown>).get(name) : undefined);
  const apiVersion = field("apiVersion");
  const k = field("kind");
  if (typeof apiVersion !== "string" || typeof k !== "string") {
    throw new UsageError("--strict needs --object (or an 'object' variable) with apiVersion and kind");
  }
  const schema = celSchemaForKind(SchemaRegistry.builtin(), apiVersion, k);
  if (schema === undefined) throw new UsageError(`--strict: no schema for ${apiVersion}/${k} (built-in kinds only)`);
  return schema;
}

function envKind(v: string | boolean | readonly string[] | undefined): KubernetesEnvKind {
  if (v === undefined) return "mutation";
  if (typeof v === "string" && (ENV_KINDS as readonly string[]).includes(v)) return v as KubernetesEnvKind;
  throw new UsageError(`--env ${String(v)}: expected one of ${ENV_KINDS.join(", ")}`);
}

/** The one YAML or JSON document of a file (`--object` and friends), integers exact. */
/** One document from a file; with `asNamespace`, a v1 Namespace is seen as the apiserver stores it (the engine's `storedNamespace`: name label, finalizer, phase), as `eval` sees it. */
function readDocument(option: string, path: string, readFile: (path: string) => string, asNamespace = false): CelValue {
  let text: string;
  try {
    text = readFile(path);
  } catch (e) {
    throw new UsageError(`--${option} ${path}: cannot read the file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = parseDocuments(text, path, { numbers: "cel", expandLists: false, ...(/\.json$/i.test(path) ? { yamlVersion: "1.2" as const } : {}) });
  if (r.errors.length > 0) throw new UsageError(`--${option} ${formatLoadError(r.errors[0]!)}`);
  if (r.documents.length !== 1) {
    throw new UsageError(`--${option} ${path}: expected one document, found ${r.documents.length}`);
  }
  const v = r.documents[0]!.value;
  if (asNamespace && typeof v === "object" && v !== null && !Array.isArray(v) && (v as JsonObject).apiVersion === "v1" && (v as JsonObject).kind === "Namespace") {
    return toCel(storedNamespace(v as JsonObject));
  }
  return toCel(v);
}

/** `ERROR: <input>:1:7: no such key: x` with the source line and a caret, when the failing node is known. */
function formatEvalError(e: CelEvalError, checked: CheckedExpr): string {
  const info = checked.sourceInfo;
  const offset = e.exprId === undefined ? undefined : info.positions.get(e.exprId);
  if (offset === undefined) return `ERROR: ${info.description}: ${e.message}`;
  const { line, column } = locate(info, offset);
  return formatIssues([{ message: e.message, offset, line, column }], info.text, info.description);
}

function asList(v: string | boolean | readonly string[] | undefined): readonly string[] {
  if (v === undefined || typeof v === "boolean") return [];
  return typeof v === "string" ? [v] : v;
}
