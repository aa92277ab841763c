/**
 * Runs jobs in the evaluation worker, one at a time per kind: a newer job of a kind supersedes the
 * queued one. A job that runs longer than `timeoutMs` (from when the worker begins it, so a slow
 * worker start-up does not count) terminates the worker (its result is an error) and a fresh
 * worker takes the next job, so a runaway evaluation never holds the page.
 */
import type { Job, JobResult, Request, Response } from "./protocol.js";

export type Outcome = { readonly ok: true; readonly result: JobResult; readonly ms: number; readonly loadedAt: number } | { readonly ok: false; readonly error: string };

interface Pending {
  readonly job: Job;
  readonly resolve: (o: Outcome) => void;
}

export class WorkerClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private running: { id: number; pending: Pending; timer: ReturnType<typeof setTimeout> | undefined } | undefined;
  private queue: Pending[] = [];
  /** How many workers were terminated for running too long. */
  restarts = 0;

  constructor(private readonly timeoutMs: number) {}

  /** Starts the worker now (or adopts `early`, one index.html already started), so it loads while the page builds itself. */
  warm(early?: Worker): void {
    this.worker ??= early !== undefined ? this.adopt(early) : this.spawn();
  }

  run(job: Job): Promise<Outcome> {
    return new Promise((resolve) => {
      // A queued job of the same kind is stale: answer it as superseded.
      this.queue = this.queue.filter((p) => {
        if (p.job.kind !== job.kind) return true;
        p.resolve({ ok: false, error: "superseded" });
        return false;
      });
      this.queue.push({ job, resolve });
      this.pump();
    });
  }

  private spawn(): Worker {
    return this.adopt(new Worker(new URL("./worker.ts", import.meta.url), { type: "module" }));
  }

  private adopt(w: Worker): Worker {
    w.onmessage = (e: MessageEvent<Response>) => (e.data.started === true ? this.begin(e.data.id) : this.finish(e.data));
    w.onerror = (e) => {
      e.preventDefault();
      if (this.running !== undefined) this.finish({ id: this.running.id, ok: false, error: `the evaluation worker failed: ${e.message}` });
    };
    return w;
  }

  private pump(): void {
    if (this.running !== undefined) return;
    const next = this.queue.shift();
    if (next === undefined) return;
    this.worker ??= this.spawn();
    const id = this.nextId++;
    this.running = { id, pending: next, timer: undefined };
    const req: Request = { id, job: next.job };
    this.worker.postMessage(req);
  }

  /** The worker began job `id`: its time limit starts now. */
  private begin(id: number): void {
    const cur = this.running;
    if (cur === undefined || cur.id !== id) return;
    cur.timer = setTimeout(() => {
      // Stuck: terminate and let the next job start a fresh worker.
      this.worker?.terminate();
      this.worker = undefined;
      this.restarts++;
      this.finish({ id, ok: false, error: `evaluation stopped after ${this.timeoutMs / 1000} s (the worker was terminated and restarted); the page's own limit, beyond the apiserver's CEL cost budgets` });
    }, this.timeoutMs);
  }

  private finish(r: Exclude<Response, { started: true }>): void {
    const cur = this.running;
    if (cur === undefined || cur.id !== r.id) return;
    clearTimeout(cur.timer);
    this.running = undefined;
    cur.pending.resolve(r.ok ? { ok: true, result: r.result, ms: r.ms, loadedAt: r.loadedAt } : { ok: false, error: r.error });
    this.pump();
  }
}
