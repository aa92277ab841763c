/**
 * Command-line option tables. One table per command drives both the parser
 * (`node:util` parseArgs) and the `--help` text, so an option cannot be parsed
 * one way and documented another.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

export interface OptionSpec {
  /** Long name without dashes: `var` for `--var`. */
  readonly name: string;
  /** One-letter alias without the dash. */
  readonly short?: string;
  readonly type: "string" | "boolean";
  /** May be given several times; the values are collected in order. */
  readonly multiple?: boolean;
  /** Placeholder for the value in help text: `name=<json>`. */
  readonly placeholder?: string;
  readonly description: string;
}

export interface Example {
  readonly command: string;
  /** What it does and, where useful, what it prints. */
  readonly explanation: string;
}

export type OptionValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

export interface ParsedArgs {
  readonly values: OptionValues;
  readonly positionals: readonly string[];
}

/** Bad usage: printed with a hint to `--help`, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const HELP_OPTION: OptionSpec = {
  name: "help",
  short: "h",
  type: "boolean",
  description: "Show this help.",
};

/**
 * Parses `argv` against an option table (strict: unknown options are usage errors).
 *
 * An argument that starts with `-` but cannot be an option (`-1 + 2`, `-(x)`,
 * `!x`) is taken as a positional, so expressions that begin with a minus sign
 * work without `--`. `--` ends option parsing as usual.
 */
export function parseCommandArgs(specs: readonly OptionSpec[], argv: readonly string[]): ParsedArgs {
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  const valueTaking = new Map<string, string>();
  for (const spec of specs) {
    options[spec.name] = {
      type: spec.type,
      ...(spec.short !== undefined ? { short: spec.short } : {}),
      ...(spec.multiple === true ? { multiple: true } : {}),
    };
    if (spec.type === "string") {
      valueTaking.set(`--${spec.name}`, spec.name);
      if (spec.short !== undefined) valueTaking.set(`-${spec.short}`, spec.name);
    }
  }

  // An option-like positional (a negative number, `-(x)`) is swapped for a
  // placeholder that parseArgs takes as a positional, and swapped back after.
  const args: string[] = [];
  const swapped = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      args.push(...argv.slice(i));
      break;
    }
    const long = valueTaking.get(arg);
    if (long !== undefined) {
      // The next argument is the value even when it starts with '-' (`--max-body -5`, `-r -`):
      // joined as --name=value, which parseArgs does not call ambiguous.
      if (i + 1 < argv.length) args.push(`--${long}=${argv[++i]!}`);
      else args.push(arg);
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1 && !/^--?[A-Za-z]/.test(arg)) {
      const placeholder = `\u0000positional${swapped.size}`;
      swapped.set(placeholder, arg);
      args.push(placeholder);
      continue;
    }
    args.push(arg);
  }

  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(parseArgsMessage(e));
  }
  return {
    values: parsed.values as OptionValues,
    positionals: parsed.positionals.map((p) => swapped.get(p) ?? p),
  };
}

function parseArgsMessage(e: unknown): string {
  const msg = (e instanceof Error ? e.message : String(e)).replace(/\. To specify a positional argument.*$/s, ".");
  // `-x` may be a negated expression rather than a mistyped option.
  return /^Unknown option '-[A-Za-z]/.test(msg)
    ? `${msg} An expression that starts with '-' and a letter must come after '--': celmap cel -- '-x'.`
    : msg;
}

/** Help text for an option table: aligned `-s, --name <placeholder>   description` lines. */
export function formatOptions(specs: readonly OptionSpec[]): string {
  const left = specs.map((s) => {
    const flag = `${s.short !== undefined ? `-${s.short}, ` : "    "}--${s.name}`;
    return s.type === "string" ? `${flag} ${s.placeholder ?? "<value>"}` : flag;
  });
  const width = Math.max(...left.map((l) => l.length)) + 3;
  return specs
    .map((s, i) => {
      const desc = s.description + (s.multiple === true ? " Repeatable." : "");
      return `  ${left[i]!.padEnd(width)}${wrap(desc, 100 - width - 2, " ".repeat(width + 2))}`;
    })
    .join("\n");
}

export function formatExamples(examples: readonly Example[]): string {
  return examples.map((e) => `  ${e.command}\n      ${wrap(e.explanation, 90, "      ")}`).join("\n\n");
}

/** Greedy word wrap; continuation lines get `indent`. */
export function wrap(text: string, width: number, indent: string): string {
  const words = text.split(/\s+/).filter((w) => w !== "");
  const lines: string[] = [];
  let line = "";
  for (const w of words) {
    if (line !== "" && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else {
      line = line === "" ? w : `${line} ${w}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines.join(`\n${indent}`);
}
