/**
 * Entry: starts the evaluation worker and sends it the first case before the editor code loads
 * (ui.ts, a separate chunk), so the engine starts up while the page builds itself.
 */
import { evalJob, initialState } from "./boot.js";
import { WorkerClient } from "./worker-client.js";

/** A worker busy for longer than this is terminated and restarted (`?worker-timeout=<seconds>` overrides). */
const timeoutSeconds = Number(new URLSearchParams(location.search).get("worker-timeout") ?? "10");
const worker = new WorkerClient((Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds : 10) * 1000);
worker.warm();
const ui = import("./ui.js");
const initial = await initialState();
const job = evalJob(initial.state);
const firstEval = { key: JSON.stringify(job), outcome: worker.run(job) };
(await ui).start({ worker, initial, firstEval });

declare global {
  interface Window {
    /** When the first evaluation result was shown (ms since navigation start), for the budget check. */
    celmapFirstResult?: number;
    /** Start-up breakdown (ms since navigation start; the first evaluation's own time). */
    celmapTimings?: { workerLoaded: number; firstEvalMs: number; requested: number };
    /** The page's whole state (what the link encodes), for the browser tests. */
    celmapState?: () => import("./state.js").State;
  }
}

// Offline: a service worker caches the page's files once loaded (only in the built app).
if ("serviceWorker" in navigator && import.meta.env.PROD) {
  void navigator.serviceWorker.register(new URL("./sw.js", location.href)).catch(() => undefined);
}
