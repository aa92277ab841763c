/**
 * Runs one suite's cases in a worker thread for `run.ts`, so that a case that
 * hangs or takes the thread down costs only itself: the parent times it out,
 * records it as a failure and starts a new worker after it.
 *
 * workerData: { suite: name, start: index of the first case to run, filter?: path prefix }.
 * Messages: { kind: "start", index, path, section } before each case,
 * { kind: "result", index, outcome } after it, and { kind: "done" } at the end.
 */
import { parentPort, workerData } from "node:worker_threads";
import { runCase } from "./suite.js";
import { loadSuites } from "./suites.js";

export interface WorkerInput {
  readonly suite: string;
  readonly start: number;
  readonly filter?: string;
}

const input = workerData as WorkerInput;
const port = parentPort!;
const suite = (await loadSuites()).find((s) => s.name === input.suite);
if (suite === undefined) throw new Error(`no suite named ${input.suite}`);
let index = 0;
for (const c of suite.cases()) {
  if (input.filter !== undefined && !`${suite.name}/${c.path}`.startsWith(input.filter)) continue;
  const i = index++;
  if (i < input.start) continue;
  port.postMessage({ kind: "start", index: i, path: c.path, section: c.section });
  port.postMessage({ kind: "result", index: i, outcome: runCase(c) });
}
port.postMessage({ kind: "done" });
