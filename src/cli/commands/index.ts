/**
 * Every `celmap` subcommand, in the order `celmap --help` lists them, each loaded only when it is
 * used: a command's module (and everything it imports: the admission pipeline, the translators,
 * the webhook server...) is loaded the first time one of its fields other than `name` is read.
 * So `celmap webhook` loads the webhook command alone (its primary process stays small with
 * `--workers`), and `celmap --help`, which reads every summary, loads them all.
 *
 * The loading is synchronous (`require` of the ES module, Node >= 20.19) because `run.ts` reads a
 * command's options synchronously to parse its arguments. From the TypeScript sources (vitest),
 * where `require` cannot load `.ts` files, every command is imported up front instead.
 */
import { createRequire } from "node:module";
import type { Command } from "../command.js";

/** Command name → module (relative to this file) and export name. */
const MODULES: readonly (readonly [name: string, file: string, exportName: string])[] = [
  ["cel", "./cel.js", "celCommand"],
  ["eval", "./eval.js", "evalCommand"],
  ["audit", "./audit.js", "auditCommand"],
  ["translate", "./translate.js", "translateCommand"],
  ["conformance", "./conformance.js", "conformanceCommand"],
  ["test", "./test.js", "testCommand"],
  ["lint", "./lint.js", "lintCommand"],
  ["webhook", "./webhook.js", "webhookCommand"],
];

const fromSources = import.meta.url.endsWith(".ts");
const preloaded: ReadonlyMap<string, Command> | undefined = fromSources
  ? new Map(await Promise.all(MODULES.map(async ([name, file, exportName]) => [name, ((await import(file)) as Record<string, Command>)[exportName]!] as const)))
  : undefined;
const requireModule = createRequire(import.meta.url);

function lazyCommand(name: string, file: string, exportName: string): Command {
  let loaded: Command | undefined;
  const load = (): Command => {
    if (loaded === undefined) {
      const cmd = preloaded?.get(name) ?? (requireModule(file) as Record<string, Command | undefined>)[exportName];
      if (cmd === undefined) throw new Error(`celmap: ${file} does not export ${exportName}`);
      loaded = cmd;
    }
    return loaded;
  };
  return {
    name,
    get summary() {
      return load().summary;
    },
    get usage() {
      return load().usage;
    },
    get description() {
      return load().description;
    },
    get options() {
      return load().options;
    },
    get examples() {
      return load().examples;
    },
    get sections() {
      return load().sections;
    },
    run: (args, io) => load().run(args, io),
  };
}

export const COMMANDS: readonly Command[] = MODULES.map(([name, file, exportName]) => lazyCommand(name, file, exportName));
