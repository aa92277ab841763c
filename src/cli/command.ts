/** What a `celmap` subcommand is, and the I/O it is given (so tests can run it in-process). */
import type { Example, OptionSpec, ParsedArgs } from "./options.js";

export interface CliIo {
  /** Writes to standard output (the caller includes newlines). */
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads a UTF-8 file, relative paths against the working directory; throws when it cannot. */
  readFile(path: string): string;
}

export const ExitCode = {
  ok: 0,
  /** The CEL expression failed to compile or to evaluate. */
  celError: 1,
  /** Bad usage: unknown command or option, missing argument, unreadable input. */
  usage: 2,
  /** A bug in celmap (an unexpected exception). */
  internal: 3,
} as const;

export interface Command {
  readonly name: string;
  /** One line, shown in `celmap --help`. */
  readonly summary: string;
  /** `celmap cel <expression> [options]` */
  readonly usage: string;
  /** Paragraphs shown under the usage line. */
  readonly description: string;
  readonly options: readonly OptionSpec[];
  readonly examples: readonly Example[];
  /** Extra help sections: title → body (already formatted). */
  readonly sections?: readonly { readonly title: string; readonly body: string }[];
  run(args: ParsedArgs, io: CliIo): number | Promise<number>;
}
