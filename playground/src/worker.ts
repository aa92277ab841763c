/**
 * The evaluation worker: runs celmap's engine off the page's thread. CEL cost limits are the
 * apiserver's (per-expression and per-call budgets inside the pipeline, PER_CALL_LIMIT in the
 * scratchpad); the page additionally terminates a worker that stays busy too long (worker-client.ts).
 */
/** When this worker's code began to run (epoch ms), to measure start-up. */
const loadedAt = performance.timeOrigin + performance.now();
import { evaluatePlayground, runCel, translateGatekeeper } from "./engine.js";
import type { JobResult, Request, Response } from "./protocol.js";

function run(req: Request): JobResult {
  const job = req.job;
  switch (job.kind) {
    case "eval":
      return { kind: "eval", output: evaluatePlayground(job.input) };
    case "cel":
      return { kind: "cel", output: runCel(job.input) };
    case "translate":
      return { kind: "translate", output: translateGatekeeper(job.input) };
  }
}

self.onmessage = (e: MessageEvent<Request>) => {
  (self as unknown as Worker).postMessage({ id: e.data.id, started: true } satisfies Response);
  const start = performance.now();
  let msg: Response;
  try {
    msg = { id: e.data.id, ok: true, result: run(e.data), ms: performance.now() - start, loadedAt };
  } catch (err) {
    msg = { id: e.data.id, ok: false, error: `internal error in celmap (please report it): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` };
  }
  (self as unknown as Worker).postMessage(msg);
};
