/** Every `celmap` subcommand, in the order `celmap --help` lists them. */
import type { Command } from "../command.js";
import { celCommand } from "./cel.js";
import { conformanceCommand } from "./conformance.js";
import { evalCommand } from "./eval.js";
import { translateCommand } from "./translate.js";
import { testCommand } from "./test.js";
import { webhookCommand } from "./webhook.js";

export const COMMANDS: readonly Command[] = [celCommand, evalCommand, translateCommand, conformanceCommand, testCommand, webhookCommand];
