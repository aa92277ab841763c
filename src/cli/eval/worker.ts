/**
 * A `celmap eval --jobs N` worker thread: builds the evaluation context once from the policy
 * documents it is given (workerData), then evaluates the batches of resource chunks it receives and
 * answers each batch with its outcomes, in order.
 */
import { parentPort, workerData } from "node:worker_threads";
import { buildContext, type EvalSettings, type PolicySources } from "./context.js";
import { evaluateChunk, type Outcome } from "./evaluate.js";
import type { Chunk } from "../../io/stream/chunk.js";

export interface WorkerInit {
  readonly settings: EvalSettings;
  readonly sources: PolicySources;
}

export type WorkerRequest = { readonly id: number; readonly chunks: readonly Chunk[] };
export type WorkerReply = { readonly id: number; readonly outcomes?: readonly Outcome[]; readonly error?: string };

if (parentPort !== null) {
  const port = parentPort;
  const init = workerData as WorkerInit;
  const built = buildContext(init.settings, init.sources);
  port.on("message", (m: WorkerRequest) => {
    let reply: WorkerReply;
    try {
      reply = { id: m.id, outcomes: m.chunks.map((c) => evaluateChunk(built.context, c)) };
    } catch (e) {
      reply = { id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    }
    port.postMessage(reply);
  });
}
