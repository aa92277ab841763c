/**
 * `celmap` as a function: `run(argv, io)` parses the arguments, runs the
 * command and returns the exit code. `main.ts` wires it to the process; tests
 * can call it in-process with their own {@link CliIo}.
 */
import { readFileSync } from "node:fs";
import { ExitCode, type CliIo, type Command } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { formatExamples, formatOptions, HELP_OPTION, parseCommandArgs, UsageError, wrap, type OptionSpec } from "./options.js";
import { celmapVersion } from "./version.js";

export type { CliIo } from "./command.js";
export { ExitCode } from "./command.js";
import { clipLongLines } from "../diag/render.js";
import { isStdin, readStdin } from "../io/stdin.js";

const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  HELP_OPTION,
  { name: "version", short: "V", type: "boolean", description: "Print celmap's version." },
];

/** Runs `celmap <argv...>`; never throws. Messages on stderr have the middle of any very long line cut (with its length). */
export async function run(argv: readonly string[], given: CliIo): Promise<number> {
  const io: CliIo = { ...given, stderr: (text) => given.stderr(clipLongLines(text)), readFile: (path) => given.readFile(path) };
  const [first, ...rest] = argv;
  try {
    if (first === undefined) {
      io.stderr(`${mainHelp()}\n`);
      return ExitCode.usage;
    }
    if (first.startsWith("-")) {
      const parsed = parseCommandArgs(GLOBAL_OPTIONS, argv);
      if (parsed.values["version"] === true) {
        io.stdout(`${celmapVersion()}\n`);
        return ExitCode.ok;
      }
      if (parsed.values["help"] === true) {
        io.stdout(`${mainHelp()}\n`);
        return ExitCode.ok;
      }
      throw new UsageError(`expected a command before ${JSON.stringify(parsed.positionals[0] ?? first)}`);
    }
    if (first === "help") {
      const topic = rest[0];
      if (topic === undefined) {
        io.stdout(`${mainHelp()}\n`);
        return ExitCode.ok;
      }
      const cmd = findCommand(topic);
      io.stdout(`${commandHelp(cmd)}\n`);
      return ExitCode.ok;
    }
    const cmd = findCommand(first);
    let code: number;
    try {
      const parsed = parseCommandArgs(cmd.options, rest);
      if (parsed.values["help"] === true) {
        io.stdout(`${commandHelp(cmd)}\n`);
        return ExitCode.ok;
      }
      code = await cmd.run(parsed, io);
    } catch (e) {
      if (e instanceof UsageError) {
        io.stderr(`celmap ${cmd.name}: ${e.message}\nRun 'celmap ${cmd.name} --help' for usage.\n`);
        return ExitCode.usage;
      }
      throw e;
    }
    return code;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`celmap: ${e.message}\nRun 'celmap --help' for usage.\n`);
      return ExitCode.usage;
    }
    const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
    io.stderr(`celmap: internal error (this is a bug in celmap): ${detail}\n`);
    return ExitCode.internal;
  }
}

function findCommand(name: string): Command {
  const cmd = COMMANDS.find((c) => c.name === name);
  if (cmd === undefined) {
    throw new UsageError(`unknown command '${name}'. Commands:\n${commandList()}`);
  }
  return cmd;
}

function commandList(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 3;
  return COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join("\n");
}

export function mainHelp(): string {
  return `celmap: Kubernetes mutation policies evaluated offline, exactly as kube-apiserver would,
on a CEL engine of our own.

Usage: celmap <command> [options]
       celmap <command> --help

Commands:
${commandList()}

Options:
${formatOptions(GLOBAL_OPTIONS)}

Examples:
${formatExamples(COMMANDS.flatMap((c) => c.examples.slice(0, 2)))}

Exit codes (each command's --help has its own list):
  0  success
  1  the command's check failed: cel: a CEL compile or evaluation error; eval: a request was
     rejected (with --exit-code also: an object would change); test: a result row failed;
     translate --strict: a mutator not translated exactly; conformance: a failure outside the ledger
  2  bad usage or input, nothing evaluated
  3  internal error in celmap (please report it)`;
}

export function commandHelp(cmd: Command): string {
  const sections = (cmd.sections ?? []).map((s) => `\n\n${s.title}:\n${s.body}`).join("");
  return `Usage: ${cmd.usage}

${wrap(cmd.description, 100, "")}

Options:
${formatOptions(cmd.options)}

Examples:
${formatExamples(cmd.examples)}${sections}`;
}

/** The process's real I/O. */
export function nodeIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    readFile: (path) => (isStdin(path) ? readStdin() : readFileSync(path, "utf8")),
  };
}
