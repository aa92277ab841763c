/**
 * Standard input as a file named `-` (every file option of the CLI takes `-`): read once, whole,
 * and the same text handed to each reader (a second `-` reads the same documents again).
 */
import { readFileSync } from "node:fs";

let text: string | undefined;

/** All of standard input as UTF-8 (read on first use). */
export function readStdin(): string {
  text ??= readFileSync(0, "utf8");
  return text;
}

/** Whether `path` names standard input. */
export function isStdin(path: string): boolean {
  return path === "-";
}

/** Standard input's text when something already read it whole (streaming readers then use it). */
export function stdinIfRead(): string | undefined {
  return text;
}
