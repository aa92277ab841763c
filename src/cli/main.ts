#!/usr/bin/env node
/** The `celmap` executable. */
import { nodeIo, run } from "./run.js";

// Output piped into a command that stops reading (`| head`): stop quietly, as other CLIs do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

process.exitCode = await run(process.argv.slice(2), nodeIo());
