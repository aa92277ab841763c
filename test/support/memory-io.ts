/** A CliIo for in-process `run(argv, io)` tests: real files, captured stdout and stderr. */
import { readFileSync } from "node:fs";
import type { CliIo } from "../../src/cli/run.js";

export function captureIo(stdin?: string): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
    readFile(path: string): string {
      if (path === "-" && stdin !== undefined) return stdin;
      return readFileSync(path, "utf8");
    },
  };
  return io;
}
