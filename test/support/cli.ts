/**
 * Runs the built `celmap` executable (`dist/src/cli/main.js`) as a real child
 * process, a few at a time, so tests see exactly what a user's shell would:
 * argv handling, stdout/stderr, exit codes.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLI_PATH = join(REPO_ROOT, "dist/src/cli/main.js");

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Fails with a helpful message when the build output is missing. */
export function assertBuilt(): void {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`${CLI_PATH} does not exist: run 'npm run build' first (npm test does).`);
  }
}

/** A counting semaphore: at most `limit` tasks run at once. */
export function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** `node dist/src/cli/main.js ...args` in the repository root; never rejects. */
export function runCli(args: readonly string[], options: { cwd?: string; timeoutMs?: number; stdin?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { cwd: options.cwd ?? REPO_ROOT, timeout: options.timeoutMs ?? 20_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        let code = 0;
        if (error !== null) {
          const c = (error as { code?: unknown }).code;
          code = typeof c === "number" ? c : -1; // -1: killed (timeout) or failed to spawn
        }
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    // Standard input: the given text, or closed at once (never the test runner's own).
    child.stdin?.end(options.stdin ?? "");
  });
}
