#!/usr/bin/env node
/** The `celmap` executable. */
import { nodeIo, run } from "./run.js";

process.exitCode = await run(process.argv.slice(2), nodeIo());
