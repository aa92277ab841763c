/**
 * `celmap cel '<expr>' [--var name=<json>]... [--vars <file>]...`: compile one
 * CEL expression in a Kubernetes-like environment, evaluate it, print the result
 * as JSON.
 */
import type { CheckedExpr } from "../../cel/checked.js";
import { CelCompileError, CelEvalError, formatIssues, locate } from "../../cel/errors.js";
import type { CelValue } from "../../cel/values.js";
import { ExitCode, type CliIo, type Command } from "../command.js";
import { cliEnv } from "../environment.js";
import { parseVarOption, readVarsFile } from "../inputs.js";
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
  { name: "pretty", type: "boolean", description: "Indent the JSON output." },
  HELP_OPTION,
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
  2  bad usage: no expression, bad --var JSON, unreadable or invalid --vars file
  3  internal error in celmap (please report it)`;

export const celCommand: Command = {
  name: "cel",
  summary: "Evaluate one CEL expression against JSON/YAML variables and print the result as JSON.",
  usage: "celmap cel <expression> [--var name=<json>]... [--vars <file.json|yaml>]... [--pretty]",
  description:
    "Compiles the expression in Kubernetes' base CEL environment as far as celmap implements it (standard library; " +
    "Kubernetes regex, lists, authz, quantity, IP, CIDR and semver libraries; cel-go optionals, strings v2, sets, " +
    "two-variable comprehensions and lists v3; homogeneous aggregate literals, cross-type numeric comparisons and " +
    "literal validation on, as in the apiserver), declares every given variable as dyn, evaluates it and prints the " +
    "result as one line of JSON. Quote the expression for your shell: single quotes in sh/bash.",
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
      command: "celmap cel '-1 + 2'",
      explanation: "Expressions may start with '-'; '--' also ends the options: celmap cel -- '-1 + 2'.",
    },
  ],
  sections: [
    { title: "How results print (CEL value -> JSON)", body: VALUES_HELP },
    { title: "Exit codes", body: EXIT_HELP },
  ],
  run: runCel,
};

function runCel(args: ParsedArgs, io: CliIo): number {
  const expr = args.positionals;
  if (expr.length === 0) throw new UsageError("missing the CEL expression, e.g. celmap cel '1 + 2'");
  if (expr.length > 1) {
    throw new UsageError(
      `expected one expression but got ${expr.length} arguments (${expr.map((e) => JSON.stringify(e)).join(", ")}); quote the whole expression`,
    );
  }
  const source = expr[0]!;

  const bindings = new Map<string, CelValue>();
  for (const file of asList(args.values["vars"])) {
    for (const [name, value] of readVarsFile(file, io.readFile)) bindings.set(name, value);
  }
  for (const v of asList(args.values["var"])) {
    const [name, value] = parseVarOption(v);
    bindings.set(name, value);
  }

  const env = cliEnv(bindings.keys());
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

  let result: CelValue;
  try {
    const program = env.program(checked);
    result = program.eval(Object.fromEntries(bindings));
  } catch (e) {
    if (e instanceof CelEvalError) {
      io.stderr(`${formatEvalError(e, checked)}\n`);
      return ExitCode.celError;
    }
    throw e;
  }
  io.stdout(`${toJsonText(result, { indent: args.values["pretty"] === true ? 2 : 0 })}\n`);
  return ExitCode.ok;
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
