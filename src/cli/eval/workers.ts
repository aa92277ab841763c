/**
 * Worker threads for `celmap eval --jobs N`: N workers (worker.ts), each with the policy set loaded
 * once; a batch goes to the worker with the fewest batches pending, and its outcomes come back as a
 * promise (src/io/stream/ordered.ts puts them in input order). A worker that fails rejects what it
 * had pending, with its error (celmap's bug, exit 3).
 */
import { Worker } from "node:worker_threads";
import type { Chunk } from "../../io/stream/chunk.js";
import type { Outcome } from "./evaluate.js";
import type { WorkerInit, WorkerReply } from "./worker.js";

interface Pending {
  readonly resolve: (o: readonly Outcome[]) => void;
  readonly reject: (e: Error) => void;
}

class Slot {
  readonly pending = new Map<number, Pending>();
  constructor(readonly worker: Worker) {}
}

export class WorkerPool {
  private readonly slots: Slot[];
  private nextId = 0;

  constructor(size: number, init: WorkerInit) {
    this.slots = Array.from({ length: size }, () => {
      const slot = new Slot(new Worker(new URL("./worker.js", import.meta.url), { workerData: init }));
      slot.worker.on("message", (m: WorkerReply) => {
        const p = slot.pending.get(m.id);
        if (p === undefined) return;
        slot.pending.delete(m.id);
        if (m.outcomes !== undefined) p.resolve(m.outcomes);
        else p.reject(new Error(`worker thread: ${m.error ?? "no result"}`));
      });
      const failAll = (e: Error) => {
        for (const p of slot.pending.values()) p.reject(e);
        slot.pending.clear();
      };
      slot.worker.on("error", (e) => failAll(e instanceof Error ? e : new Error(String(e))));
      slot.worker.on("exit", (code) => failAll(new Error(`worker thread exited (code ${code})`)));
      return slot;
    });
  }

  run(chunks: readonly Chunk[]): Promise<readonly Outcome[]> {
    let slot = this.slots[0]!;
    for (const s of this.slots) if (s.pending.size < slot.pending.size) slot = s;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, chunks });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
